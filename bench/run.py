"""Run the benchmark scenarios side by side with the limit and the peers; print a table, write JSON.

    bench/setup.sh                      # clean venvs: lbnorm's dependencies, and the peers apart
    python bench/generate.py --submissions 5000 --out bench/corpus
    python bench/run.py --corpus bench/corpus [--repeat 10] [--json bench/results.json] [--image]

Every measurement is a fresh process, timed from start to exit, with its
peak resident memory from wait4() (started from a minimal interpreter, see
SPAWN_AND_WAIT). Machines are noisy, so the table shows
the median of --repeat runs for the one-pull-request scenario, its tools
taking turns run by run (a slow spell hits them all alike), and ratios
measured in the same run on the same files. The corpus is read once before
any timing, so no row pays for the disk on behalf of the others.

- the limit: a bare Python process that only reads and json.load()s (or
  orjson.loads()) the same files;
- the peers: check-jsonschema with our submission schema (schema only), and
  bench/notebook_style.py (json.load + the normalization loop, no checks).

--image adds the Action's own cost (bench/image.sh: build time, size over the
base, a rebuild after a code change, one container run).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VENV_PY = REPO / "bench" / ".venv" / "bin" / "python"  # made by bench/setup.sh
PEER_BIN = REPO / "bench" / ".venv-peers" / "bin" / "check-jsonschema"
PY = str(VENV_PY) if VENV_PY.exists() else sys.executable
PARSE = {
    "json": "import json,sys\nfor p in open(sys.argv[1]).read().split('\\n'):\n"
    "    with open(p,'rb') as f: json.load(f)",
    "orjson": "import orjson,sys\nfor p in open(sys.argv[1]).read().split('\\n'):\n"
    "    with open(p,'rb') as f: orjson.loads(f.read())",
}
# Run a command in-process and print the modules it loaded: the "imports only" floor then imports
# exactly those, so the gap between it and the real run is the work itself.
LIST_MODULES = (
    "import runpy,sys\nout=sys.argv[1]\nsys.argv=sys.argv[2:]\n"
    "try: runpy.run_module(sys.argv[0],run_name='__main__',alter_sys=True)\nexcept SystemExit: pass\n"
    "open(out,'w').write(' '.join(m for m in sys.modules if not m.endswith('__main__')))"
)
IMPORT_MODULES = (
    "import importlib,sys\nfor m in open(sys.argv[1]).read().split(): importlib.import_module(m)"
)


@dataclass
class Measurement:
    scenario: str
    tool: str
    seconds: float
    peak_mib: float
    runs: int
    exit_code: int


# Started by a minimal interpreter, not by this process: Linux counts the memory of the process that
# forks into the child's peak RSS (exec keeps the old high-water mark), so a child of this script,
# which holds the corpus listing, would never report less than this script's own size.
SPAWN_AND_WAIT = """
import os, sys, time
null = os.open(os.devnull, os.O_WRONLY)
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def run_once(command: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MiB) and exit code of one fresh process."""
    spawned = subprocess.run(
        [sys.executable, "-I", "-S", "-c", SPAWN_AND_WAIT, *command],
        cwd=cwd,
        env=os.environ | {"NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, peak_kib, code = spawned.stdout.split()
    return float(seconds), int(peak_kib) / 1024, int(code)  # ru_maxrss is KiB on Linux


def measure_in_turns(
    commands: list[list[str]], cwd: Path, repeat: int
) -> list[tuple[float, float, int]]:
    """Median seconds, max peak MiB and last exit code per command, the commands taking turns.

    Round-robin rather than one command's repeats in a row: on a shared machine
    a slow spell then lands on every command alike and the ratios stay put.
    """
    runs: list[list[tuple[float, float, int]]] = [[] for _ in commands]
    for _ in range(repeat):
        for command, done in zip(commands, runs, strict=False):
            done.append(run_once(command, cwd))
    return [
        (statistics.median(s for s, _, _ in done), max(m for _, m, _ in done), done[-1][2])
        for done in runs
    ]


def warm_page_cache(paths: list[Path]) -> None:
    """Read every corpus file once, untimed: otherwise the first row alone pays for the disk."""
    for path in paths:
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass


def available(module: str) -> bool:
    return subprocess.run([PY, "-c", f"import {module}"], capture_output=True).returncode == 0


def file_list(paths: list[Path], folder: Path, name: str) -> Path:
    listing = folder / name
    listing.write_text("\n".join(str(p) for p in paths))
    return listing


def scenarios(corpus: Path, repeat: int, jobs: int, work: Path) -> list[Measurement]:
    submissions = sorted(corpus.glob("submissions/**/submission.json"))
    if not submissions:
        raise SystemExit(f"no submissions under {corpus}; run bench/generate.py first")
    results = [next(s.parent.glob("results_*.json")) for s in submissions]
    one_sub, one_res = submissions[0], results[0]
    small = [s for s in submissions if s.parent.parent.name in {f"org{i}" for i in range(10)}]
    check_jsonschema = str(PEER_BIN) if PEER_BIN.exists() else shutil.which("check-jsonschema")
    schema = str(REPO / "schemas" / "submission.schema.json")
    parsers = [name for name in PARSE if available(name)]
    ours = [
        PY,
        "-m",
        "validator",
    ]  # run from the checkout (cwd REPO): this commit's code, the venv's dependencies
    plan: list[tuple[str, str, list[str], int]] = []
    print(f"python {PY}; check-jsonschema {check_jsonschema}", file=sys.stderr)

    # 1. one pull request: one submission (and its results file), a fresh process each time
    pr_files = file_list([one_sub, one_res], work, "pr.txt")
    check_one = [
        "check",
        "--root",
        str(corpus),
        str(one_sub),
    ]  # arguments are relative to cwd (REPO)
    plan.append(("one pull request", "lbnorm check", [*ours, *check_one], repeat))
    for name in parsers:
        plan.append(
            (
                "one pull request",
                f"bare {name} parse",
                [PY, "-c", PARSE[name], str(pr_files)],
                repeat,
            )
        )
    # floors under lbnorm: the interpreter alone; its two core imports; every module a check loads, no work
    plan.append(("one pull request", "python -c pass", [PY, "-c", "pass"], repeat))
    plan.append(
        (
            "one pull request",
            "python -c 'import click, jsonschema'",
            [PY, "-c", "import click, jsonschema"],
            repeat,
        )
    )
    modules = work / "modules.txt"
    subprocess.run(
        [PY, "-c", LIST_MODULES, str(modules), "validator", *check_one],
        cwd=REPO,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    plan.append(
        (
            "one pull request",
            "the same imports as lbnorm check, no work",
            [PY, "-c", IMPORT_MODULES, str(modules)],
            repeat,
        )
    )
    if check_jsonschema:
        plan.append(
            (
                "one pull request",
                "check-jsonschema (schema only)",
                [check_jsonschema, "--schemafile", schema, str(one_sub)],
                repeat,
            )
        )
    plan.append(
        (
            "one pull request",
            "notebook-style script",
            [PY, str(REPO / "bench/notebook_style.py"), str(one_res)],
            repeat,
        )
    )

    # 2. re-audit: every submission in one invocation; and a tenth of them, to show memory is flat
    every = file_list(
        [p for pair in zip(submissions, results, strict=False) for p in pair], work, "all.txt"
    )
    glob_all = f"{corpus}/submissions/**/submission.json"
    label = f"re-audit ({len(submissions)} submissions)"
    # first the command a maintainer types (its default is one worker per CPU), then a single worker
    default = " (the default here)" if jobs == os.cpu_count() else ""
    if jobs > 1:
        plan.append(
            (
                label,
                f"lbnorm check --jobs {jobs}{default}",
                [*ours, "check", "-q", "--jobs", str(jobs), "--root", str(corpus), glob_all],
                1,
            )
        )
    plan.append(
        (
            label,
            "lbnorm check --jobs 1",
            [*ours, "check", "-q", "--jobs", "1", "--root", str(corpus), glob_all],
            1,
        )
    )
    if len(small) < len(submissions):
        plan.append(
            (
                f"re-audit ({len(small)} submissions)",
                "lbnorm check --jobs 1",
                [
                    *ours,
                    "check",
                    "-q",
                    "--jobs",
                    "1",
                    "--root",
                    str(corpus),
                    f"{corpus}/submissions/org[0-9]/**/submission.json",
                ],
                1,
            )
        )
    for name in parsers:
        plan.append((label, f"bare {name} parse", [PY, "-c", PARSE[name], str(every)], 1))
    if check_jsonschema:
        plan.append(
            (
                label,
                "check-jsonschema (schema only)",
                [check_jsonschema, "--schemafile", schema, *map(str, submissions)],
                1,
            )
        )
    plan.append(
        (
            label,
            "notebook-style script",
            [PY, str(REPO / "bench/notebook_style.py"), *map(str, results)],
            1,
        )
    )

    # 3. normalize over the same results files
    label_n = f"normalize ({len(results)} results files)"
    plan.append(
        (
            label_n,
            "lbnorm normalize",
            [
                *ours,
                "normalize",
                "--root",
                str(corpus),
                "--output-format",
                "json",
                *map(str, results),
            ],
            1,
        )
    )
    if "json" in parsers:
        plan.append(
            (
                label_n,
                "bare json parse",
                [PY, "-c", PARSE["json"], str(file_list(results, work, "r.txt"))],
                1,
            )
        )
    plan.append(
        (
            label_n,
            "notebook-style script",
            [PY, str(REPO / "bench/notebook_style.py"), *map(str, results)],
            1,
        )
    )

    print(
        f"reading the corpus once ({len(submissions) + len(results)} files) before timing",
        file=sys.stderr,
    )
    warm_page_cache([*submissions, *results])
    measured: dict[int, Measurement] = {}
    for runs in dict.fromkeys(runs for _, _, _, runs in plan):  # the repeated rows take turns
        batch = [i for i, step in enumerate(plan) if step[3] == runs]
        for i, (seconds, peak, code) in zip(
            batch, measure_in_turns([plan[i][2] for i in batch], REPO, runs), strict=False
        ):
            scenario, tool = plan[i][:2]
            measured[i] = Measurement(scenario, tool, seconds, peak, runs, code)
            print(
                f"  {scenario:34} {tool:42} {seconds:8.3f} s {peak:8.1f} MiB  exit {code}",
                file=sys.stderr,
            )
    return [measured[i] for i in range(len(plan))]


def table(measurements: list[Measurement]) -> str:
    """Markdown: each scenario's rows with ratios to its bare json parse and to lbnorm."""
    lines = [
        "| scenario | tool | seconds | peak MiB | × bare json | lbnorm × this |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for scenario in dict.fromkeys(m.scenario for m in measurements):
        rows = [m for m in measurements if m.scenario == scenario]
        limit = next((m for m in rows if m.tool == "bare json parse"), None)
        ours = next((m for m in rows if m.tool.startswith("lbnorm")), None)
        for m in rows:
            to_limit = f"{m.seconds / limit.seconds:.2f}" if limit else ""
            ours_to = f"{ours.seconds / m.seconds:.2f}" if ours and m is not ours else ""
            lines.append(
                f"| {scenario} | {m.tool} | {m.seconds:.3f} | {m.peak_mib:.0f} | {to_limit} | {ours_to} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO / "bench" / "corpus")
    parser.add_argument(
        "--repeat", type=int, default=10, help="runs of the one-pull-request scenario"
    )
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="also time check --jobs N"
    )
    parser.add_argument("--json", type=Path, default=REPO / "bench" / "results.json")
    parser.add_argument(
        "--image", action="store_true", help="also build and run the Action's image (root)"
    )
    args = parser.parse_args()
    manifest = json.loads((args.corpus / "manifest.json").read_text())
    with tempfile.TemporaryDirectory() as work:
        measurements = scenarios(args.corpus.resolve(), args.repeat, args.jobs, Path(work))
    image = None
    if args.image:
        proc = subprocess.run(
            ["bash", str(REPO / "bench" / "image.sh"), str(args.corpus.resolve())],
            capture_output=True,
            text=True,
        )
        sys.stderr.write(proc.stderr[-3000:])
        image = json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-500:]}
    version = subprocess.run(
        [PY, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True
    )
    machine = {"python": version.stdout.strip(), "cpus": os.cpu_count(), "platform": sys.platform}
    report = {
        "corpus": manifest,
        "machine": machine,
        "measurements": [asdict(m) for m in measurements],
        "image": image,
        "table": table(measurements),
    }
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(report["table"])
    if image:
        print("\n" + json.dumps(image, indent=2))


if __name__ == "__main__":
    main()
