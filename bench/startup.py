"""Start-up of the commands people wait on, side by side with their dependency floors.

    python bench/startup.py [--repeat 21] [--json OUT]

Every number is the median wall time of --repeat fresh processes; the rows take turns run by run,
so a slow spell on a shared machine lands on all of them alike. Ratios are taken within the run.

- `lbnorm --version` against a process that imports click alone;
- `lbnorm check` on one submission (examples/pythia-1b/submission.json) against the dependency
  floor, a process that imports click, jsonschema and yaml and parses the same files (the
  submission, its results file and the built-in profile), and against check-jsonschema
  validating the same file with the submission schema;
- the Action's entrypoint (`python -m validator action`, as the image runs it) checking the same
  submission, against the same floor;
- `lbnorm audit` of a small run (examples/lm-eval-output/example-org__tiny-model: three logs)
  against its floor, a process that imports click and parses and hashes every line of the same
  logs (the loop bench/audit_shapes.py measures the audit against, with the C sha256).

Every process runs --python, by default bench/setup.sh's bench/.venv when it is there: lbnorm installed
as users install it. An editable install's import hook (a .pth file site runs) loads pathlib and
importlib.util in every process, the floors' too, which moves every ratio toward 1.

lbnorm runs from this checkout through the same three lines as the `lbnorm` script pip installs,
so an installed copy of another version is never what is timed. Every row runs with compiled
bytecode, as an installed copy does (pip compiles what it installs): PYTHONDONTWRITEBYTECODE is
dropped and the bytecode goes to a scratch folder, written by the warm-up run.
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
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUBMISSION = "examples/pythia-1b/submission.json"
RESULTS = "examples/pythia-1b/results_2025-01-27T10-10-36.877664.json"
PROFILE = "validator/profiles/open-llm-leaderboard-v2.yaml"
AUDITED_RUN = "examples/lm-eval-output/example-org__tiny-model"
# bench/setup.sh's environment: lbnorm installed as pip installs it
CLEAN_PYTHON = REPO / "bench" / ".venv" / "bin" / "python"
# What pip writes as the `lbnorm` console script.
CONSOLE_SCRIPT = "import sys\nfrom validator.cli import main\nsys.exit(main())\n"
CLICK_ALONE = "import click"
# The least any checker of this submission pays: its three libraries, and parsing its three files
# (YAML with libyaml's loader when it is there, as lbnorm reads it).
FLOOR = (
    "import json, sys, click, jsonschema, yaml\n"
    "json.load(open(sys.argv[1], 'rb')); json.load(open(sys.argv[2], 'rb'))\n"
    "yaml.load(open(sys.argv[3], 'rb'), Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))\n"
)

AUDIT_FLOOR = (
    "import glob, hashlib, json, sys, click\n"
    "for path in sorted(glob.glob(sys.argv[1] + '/samples_*.jsonl')):\n"
    "    for line in open(path, 'rb'):\n"
    "        data = json.loads(line)\n"
    "        first = next(iter(data['arguments'].values()))\n"
    "        hashlib.sha256(json.dumps(data['doc'], indent=2, ensure_ascii=False).encode()).hexdigest()\n"
    "        hashlib.sha256(str(next(iter(first.values()))).encode()).hexdigest()\n"
    "        hashlib.sha256(str(data['target']).encode()).hexdigest()\n"
)


def rows(python: str, scratch: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    """Each row's command line and the variables it adds to a clean environment."""
    script = scratch / "lbnorm"
    script.write_text(CONSOLE_SCRIPT)
    runner = scratch / "runner"
    runner.mkdir()
    action_env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(REPO),
        "GITHUB_OUTPUT": str(runner / "output"),
        "GITHUB_STEP_SUMMARY": str(runner / "summary.md"),
        "INPUT_FILES": SUBMISSION,
        "INPUT_REPORT": str(runner / "report.json"),
    }
    peer = shutil.which("check-jsonschema", path=str(Path(python).parent)) or shutil.which(
        "check-jsonschema"
    )
    table = {
        "lbnorm --version": ([python, str(script), "--version"], {}),
        "python -c 'import click'": ([python, "-c", CLICK_ALONE], {}),
        "lbnorm check (one submission)": ([python, str(script), "check", SUBMISSION], {}),
        "floor: import click, jsonschema, yaml; parse the 3 files": (
            [python, "-c", FLOOR, SUBMISSION, RESULTS, PROFILE],
            {},
        ),
        "Action entrypoint (one submission)": ([python, "-m", "validator", "action"], action_env),
        "lbnorm audit (a run of three small logs)": (
            [python, str(script), "audit", AUDITED_RUN],
            {},
        ),
        "floor: import click; parse and hash the same logs": (
            [python, "-c", AUDIT_FLOOR, AUDITED_RUN],
            {},
        ),
    }
    if peer:
        table["check-jsonschema (schema only)"] = (
            [peer, "--schemafile", "schemas/submission.schema.json", SUBMISSION],
            {},
        )
    return table


def clean_env(extra: dict[str, str], bytecode: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "INPUT_")) and k != "PYTHONDONTWRITEBYTECODE"
    }
    env["PYTHONPATH"] = str(REPO)
    env["PYTHONPYCACHEPREFIX"] = str(bytecode)
    return env | extra


def time_once(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(
            f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()[-500:]}"
        )
    return elapsed


def measure(repeat: int, python: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch:
        table = rows(python, Path(scratch))
        envs = {
            name: clean_env(extra, Path(scratch) / "bytecode") for name, (_, extra) in table.items()
        }
        for name, (argv, _) in table.items():  # warm the page cache and the .pyc files
            time_once(argv, envs[name])
        times: dict[str, list[float]] = {name: [] for name in table}
        for _ in range(repeat):
            for name, (argv, _) in table.items():
                times[name].append(time_once(argv, envs[name]))
    return {name: statistics.median(values) for name, values in times.items()}


def markdown(medians: dict[str, float]) -> str:
    floor = medians["floor: import click, jsonschema, yaml; parse the 3 files"]
    click_alone = medians["python -c 'import click'"]
    peer = medians.get("check-jsonschema (schema only)")
    compare = {
        "lbnorm --version": ("click alone", click_alone, 1.1),
        "lbnorm check (one submission)": ("floor", floor, 1.3),
        "Action entrypoint (one submission)": ("floor", floor, None),
        "lbnorm audit (a run of three small logs)": (
            "its floor",
            medians["floor: import click; parse and hash the same logs"],
            None,
        ),
    }
    lines = ["| command | ms | against | ratio | target |", "|---|---:|---|---:|---|"]
    for name, seconds in medians.items():
        against, base, target = compare.get(name, ("", None, None))
        ratio = f"{seconds / base:.2f}" if base else ""
        goal = f"≤ {target}" if target else ""
        lines.append(f"| {name} | {seconds * 1000:.0f} | {against} | {ratio} | {goal} |")
    if peer:
        check = medians["lbnorm check (one submission)"]
        lines.append(f"| lbnorm check / check-jsonschema | | | {check / peer:.2f} | < 1 |")
    return "\n".join(lines)


def default_python() -> str:
    return str(CLEAN_PYTHON) if CLEAN_PYTHON.exists() else sys.executable


def warn_if_editable(python: str) -> None:
    """Say so when a bare process of `python` imports an editable install's finder (site runs its .pth)."""
    probe = "import sys; print(any(name.startswith('__editable__') for name in sys.modules))"
    done = subprocess.run([python, "-c", probe], capture_output=True, text=True)
    if done.stdout.strip() == "True":
        print(
            f"warning: {python} loads an editable install's import hook in every process, the floors' "
            "too: the ratios read closer to 1 than a user's. Run bench/setup.sh, then pass "
            "--python bench/.venv/bin/python",
            file=sys.stderr,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--python", default=default_python())
    parser.add_argument("--json", type=Path, help="also write the medians (seconds) here")
    args = parser.parse_args()
    warn_if_editable(args.python)
    medians = measure(args.repeat, args.python)
    print(markdown(medians))
    if args.json:
        args.json.write_text(json.dumps(medians, indent=2) + "\n")


if __name__ == "__main__":
    main()
