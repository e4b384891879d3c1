"""Survey benchmarks: the audit against its floor, and the survey's throughput on 1 and 2 workers.

    python bench/survey_corpus.py /tmp/survey-corpus --runs 8
    python bench/survey_bench.py /tmp/survey-corpus [--repeat 5] [--json bench/survey_results.json]
    python bench/survey_bench.py path/to/manifest.csv --audit-only

1. The audit's CPU per log against the floor of any honest hash-checking
   audit: a bare loop that json-parses each line and computes the same
   three sha256 hashes (doc with indent=2, first prompt, target). Both run
   in this process, best of --repeat, CPU time (time.process_time), so
   interpreter start-up is left out: it is nothing next to a 1 GB log.
   The logs are found by the survey's own planner, so CORPUS is anything
   `lbnorm survey` takes (a folder of runs in any layout, a results file,
   a manifest), and each is audited by the call a survey's unit makes
   (audit_local: confining the log, the audit, the result), so a log's
   fixed costs count. Logs are grouped by what the audit made of them:
   multiple choice, DROP, other. A log the audit refuses or reads only in
   part (a broken line, a limit) is left out and counted: the floor would
   read more of it than the audit does.
   The floor opens each log as a bare process does (an 8 KiB buffer); the
   audit reads with a 1 MiB one, which alone saves 8-17% of the floor's
   time. So the audit is also shown against the floor reading that way.
2. The survey's wall time on the local process pool and on a local Dask
   cluster, with 1 and 2 workers. Every measurement runs in a fresh process
   of its own (`--one dask:2 CORPUS`), so no configuration inherits this
   process's warm caches or imports. The Dask cluster's start (with the
   preparation of its workers) is timed apart from the survey and shown in
   its own column. The configurations take turns (a busy spell on a shared
   machine hits every one alike); medians of --repeat. Reported: Dask over
   the pool with 1 and with 2 workers, and 2 workers over 1 for both. The
   load average before and after is printed: on a shared machine the
   ratios say more than the seconds.
3. From the audit's per-core rate: worker-hours for 4,500 runs of 1 GB, and
   the workers that finish them in an hour.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import posixpath
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from validator.audit.reported_tasks import known_tasks  # noqa: E402
from validator.audit.spec import TaskSpec  # noqa: E402
from validator.io.limits import DEFAULT_LIMITS  # noqa: E402
from validator.io.loaders import READ_BUFFER  # noqa: E402
from validator.io.sample_logs import task_of  # noqa: E402
from validator.survey.log_audit import audit_local  # noqa: E402
from validator.survey.sources import plan  # noqa: E402
from validator.survey.stores import is_local  # noqa: E402
from validator.survey.work import results_document  # noqa: E402

LEADERBOARD_RUNS, RUN_BYTES = 4_500, 1_000_000_000


def floor(logs: list[Path], buffering: int = -1) -> None:
    """The bare loop; `buffering` -1 is how a bare process opens a file (Python's 8 KiB buffer).

    It hashes what the audit hashes, in both forms of lm-eval's arguments
    ({"gen_args_0": {"arg_0": ...}} and the older [[...]]), and passes over a
    line it cannot read (a planted fault), as the audit goes on past one.
    """
    for path in logs:
        with open(path, "rb", buffering=buffering) as handle:
            for line in handle:
                try:
                    data = json.loads(line)
                    arguments = data["arguments"]
                    first = (
                        next(iter(arguments.values()))
                        if isinstance(arguments, dict)
                        else arguments[0]
                    )
                    prompt = next(iter(first.values())) if isinstance(first, dict) else first[0]
                    hashlib.sha256(
                        json.dumps(data["doc"], indent=2, ensure_ascii=False).encode()
                    ).hexdigest()
                    hashlib.sha256(str(prompt).encode()).hexdigest()
                    hashlib.sha256(str(data["target"]).encode()).hexdigest()
                except (ValueError, LookupError, TypeError, AttributeError, StopIteration):
                    continue


def line_floor(logs: list[Path]) -> None:
    """A cheaper loop, which audit_shapes.py shows beside the floor: each line parsed and its own bytes hashed
    once. It is not what an audit must do (lm-eval's hashes are of the doc's indented JSON, the prompt and the
    target, which the audit has to write again), but it is what "parse and hash" most plainly means."""
    for path in logs:
        with open(path, "rb") as handle:
            for line in handle:
                try:
                    json.loads(line)
                except ValueError:
                    continue
                hashlib.sha256(line).hexdigest()


@dataclass
class Job:
    """One sample log, as the survey audits it (audit_local: the same call a survey's unit makes)."""

    path: Path
    kind: str  # "multiple choice", "DROP" or "other"
    audit: Callable[[], object]


def audit_jobs(corpus: str) -> list[Job]:
    """Every local sample log of the corpus, found by the survey's own planner: any layout or manifest it reads."""
    jobs = []
    for unit in plan([corpus], DEFAULT_LIMITS, 10_000_000):
        if unit.log is None or not is_local(unit.log.location):
            continue
        document = results_document(unit.run.results, DEFAULT_LIMITS)
        task = task_of(posixpath.basename(unit.log.name), known_tasks(document.data))
        if task is None:
            continue
        audit = functools.partial(audit_local, document, task, unit.log, DEFAULT_LIMITS)
        path = Path(unit.log.location.removeprefix("file://"))
        jobs.append(Job(path, kind_of(document, task, audit()), audit))
    return jobs


# A log the audit refused or stopped reading (it is not whole JSON lines, or over a limit): the floor would
# read all of it and the audit part of it, so the ratio would flatter the audit. Such logs are left out.
STOPPED_EARLY = {"LB700", "LB701", "LB106", "LB108", "LB110", "LB112"}


def kind_of(document, task: str, result) -> str:
    if any(finding.rule in STOPPED_EARLY for finding in result.findings):
        return "left out"
    if result.tasks and result.tasks[0].drop is not None:
        return "DROP"
    data = document.data if isinstance(document.data, dict) else {}
    return (
        "multiple choice"
        if TaskSpec.from_results(data, task).output_type == "multiple_choice"
        else "other"
    )


def cpu_best_of_each(functions: list, repeat: int) -> list[float]:
    """Each function's least CPU time over `repeat` rounds, the functions taking turns within a round.

    Taking turns, a busy spell on a shared machine slows every function alike, and
    the least time is the one least disturbed. The DROP scorer's caches are emptied
    before each call: a survey meets each prediction once.
    """
    best = [float("inf")] * len(functions)
    for _ in range(repeat):
        for index, function in enumerate(functions):
            clear_caches()
            start = time.process_time()
            function()
            best[index] = min(best[index], time.process_time() - start)
    return best


def clear_caches() -> None:
    from validator.harness import drop

    for cached in drop.CACHES:
        cached.clear()


def audit_rows(corpus: str, repeat: int) -> list[dict]:
    """Floor and audit CPU per log, the two taking turns on the same log, summed over each kind of log.

    Turns per log (tens of milliseconds apart), not per corpus: on a shared
    machine a slow spell then hits the floor and the audit of a log alike.
    """
    found = audit_jobs(corpus)
    jobs = [job for job in found if job.kind != "left out"]
    if not jobs:
        raise SystemExit(f"{corpus}: no local sample log the audit reads whole, to measure")
    measured = {}
    for job in jobs:
        measured[job.path] = cpu_best_of_each(
            [
                lambda path=job.path: floor([path]),
                lambda path=job.path: floor([path], READ_BUFFER),
                job.audit,
                lambda path=job.path: line_floor([path]),
            ],
            repeat,
        )
    rows = []
    for label in ("all logs", "multiple choice", "DROP", "other"):
        logs = [job.path for job in jobs if label in ("all logs", job.kind)]
        if not logs:
            continue
        size = sum(log.stat().st_size for log in logs)
        bare, bare_buffered, audit, lines = (
            sum(measured[log][i] for log in logs) for i in (0, 1, 2, 3)
        )
        rows.append(
            {
                "logs": label,
                "files": len(logs),
                "MB": size / 1e6,
                "floor_cpu_s": bare,
                "audit_cpu_s": audit,
                "ratio": audit / bare,
                "ratio_same_reads": audit / bare_buffered,
                "ratio_line_floor": audit / lines,
                "audit_MB_per_cpu_s": size / 1e6 / audit,
            }
        )
    rows[0]["left_out"] = len(found) - len(
        jobs
    )  # refused or read in part by the audit: see STOPPED_EARLY
    return rows


CONFIGURATIONS = ("pool:1", "pool:2", "dask:1", "dask:2")
NAMES = {"pool": "local pool", "dask": "Dask"}


def name_of(configuration: str) -> str:
    kind, workers = configuration.split(":")
    return f"{NAMES[kind]}, {workers} worker{'s' if workers != '1' else ''}"


def measure_one(configuration: str, corpus: str) -> dict:
    """One configuration, in this (fresh) process: start the executor, then time one survey. --one runs this."""
    from validator.survey.dask_cluster import DaskCluster
    from validator.survey.engine import survey
    from validator.survey.local_pool import LocalPool

    kind, workers = configuration.split(":")
    start = time.monotonic()
    # The Dask cluster's start includes preparing its workers (their imports); the pool forks per survey.
    executor = (
        LocalPool(int(workers)) if kind == "pool" else DaskCluster(local_workers=int(workers))
    )
    started = time.monotonic() - start
    scratch = Path(tempfile.mkdtemp(prefix="survey-bench-"))
    try:
        start = time.monotonic()
        survey([corpus], scratch / "out", executor)
        seconds = time.monotonic() - start
    finally:
        getattr(executor, "close", lambda: None)()
        shutil.rmtree(scratch, ignore_errors=True)
    return {"start_s": started, "survey_s": seconds}


def survey_rows(corpus: str, repeat: int) -> list[dict]:
    """Each configuration in a fresh process of its own (no warm cache, no module imported by this one),
    taking turns so a busy spell on a shared machine hits every configuration alike; medians of --repeat."""
    measured: dict[str, list[dict]] = {c: [] for c in CONFIGURATIONS}
    for turn in range(repeat):
        for configuration in CONFIGURATIONS:
            done = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--one", configuration, corpus],
                check=True,
                capture_output=True,
                text=True,
                timeout=3600,
            )
            measured[configuration].append(json.loads(done.stdout.splitlines()[-1]))
            print(
                f"turn {turn + 1}: {name_of(configuration)}: start {measured[configuration][-1]['start_s']:.2f} s, "
                f"survey {measured[configuration][-1]['survey_s']:.2f} s",
                file=sys.stderr,
                flush=True,
            )
    size = sum(
        unit.log.size or 0 for unit in plan([corpus], DEFAULT_LIMITS, 10_000_000) if unit.log
    )
    rows = []
    for configuration, runs in measured.items():
        seconds = statistics.median(run["survey_s"] for run in runs)
        rows.append(
            {
                "executor": name_of(configuration),
                "configuration": configuration,
                "seconds": seconds,
                "MB_per_s": size / 1e6 / seconds,
                "start_s": statistics.median(run["start_s"] for run in runs),
                "survey_times": [run["survey_s"] for run in runs],
            }
        )
    return rows


def survey_ratios(surveyed: list[dict]) -> dict:
    """Dask over the pool (extra time, 1 and 2 workers) and the 2-over-1 speed-up of each executor."""
    seconds = {row["configuration"]: row["seconds"] for row in surveyed}
    return {
        "dask_over_pool_1": seconds["dask:1"] / seconds["pool:1"] - 1,
        "dask_over_pool_2": seconds["dask:2"] / seconds["pool:2"] - 1,
        "pool_2_over_1": seconds["pool:1"] / seconds["pool:2"],
        "dask_2_over_1": seconds["dask:1"] / seconds["dask:2"],
    }


def extrapolate(rate_mb_per_cpu_s: float) -> dict:
    hours = LEADERBOARD_RUNS * RUN_BYTES / 1e6 / rate_mb_per_cpu_s / 3600
    return {"worker_hours": hours, "workers_for_one_hour": int(hours) + (hours % 1 > 0)}


def markdown(audit: list[dict], surveyed: list[dict], extra: dict, load: tuple) -> str:
    lines = [
        "| logs | MB | floor CPU s | audit CPU s | audit / floor | audit / floor reading as the audit does "
        "| audit MB per CPU s |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['logs']} | {r['MB']:.1f} | {r['floor_cpu_s']:.3f} | {r['audit_cpu_s']:.3f} | {r['ratio']:.2f} | "
        f"{r['ratio_same_reads']:.2f} | {r['audit_MB_per_cpu_s']:.1f} |"
        for r in audit
    ]
    lines += [
        "",
        "| survey executor | cluster start s (median) | survey s (median) | survey s (least–most) | MB/s "
        "| × 1 worker |",
        "|---|---|---|---|---|---|",
    ]
    ratios = survey_ratios(surveyed)
    speedup = {
        "pool:1": 1.0,
        "pool:2": ratios["pool_2_over_1"],
        "dask:1": 1.0,
        "dask:2": ratios["dask_2_over_1"],
    }
    for r in surveyed:
        start = f"{r['start_s']:.2f}" if r["configuration"].startswith("dask") else ""
        spread = f"{min(r['survey_times']):.2f}–{max(r['survey_times']):.2f}"
        lines.append(
            f"| {r['executor']} | {start} | {r['seconds']:.2f} | {spread} | {r['MB_per_s']:.1f} | "
            f"{speedup[r['configuration']]:.2f} |"
        )
    lines += [
        "",
        f"Dask against the local pool (survey time): {100 * ratios['dask_over_pool_1']:+.1f}% with 1 worker, "
        f"{100 * ratios['dask_over_pool_2']:+.1f}% with 2 workers.",
        f"2 workers against 1: local pool {ratios['pool_2_over_1']:.2f}×, Dask {ratios['dask_2_over_1']:.2f}×.",
        f"4,500 runs of 1 GB at {audit[0]['audit_MB_per_cpu_s']:.1f} MB per CPU second: "
        f"{extra['worker_hours']:,.1f} worker-hours; {extra['workers_for_one_hour']:,} workers for one hour "
        "(at this corpus's mix and sizes of logs: logs of a few samples cost more per byte).",
        f"Load average before / after: {load[0]} / {load[1]} on {os.cpu_count()} CPUs.",
    ]
    if audit[0].get("left_out"):
        lines.append(
            f"{audit[0]['left_out']:,} logs left out of the audit rows: the audit refused them or stopped "
            "early (not whole JSON lines, over a limit), so the floor would read more of them than it."
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpus", help="What `lbnorm survey` takes: a folder of runs, a results file or a manifest"
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--audit-only", action="store_true")
    parser.add_argument(
        "--one",
        choices=CONFIGURATIONS,
        help="Measure one survey configuration in this process "
        "and print its times as JSON (what the benchmark runs in a fresh process per turn).",
    )
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one, args.corpus)))
        return
    before = os.getloadavg()
    audit = audit_rows(args.corpus, args.repeat)
    surveyed = [] if args.audit_only else survey_rows(args.corpus, args.repeat)
    after = os.getloadavg()
    extra = extrapolate(audit[0]["audit_MB_per_cpu_s"])
    load = (" ".join(f"{x:.1f}" for x in before), " ".join(f"{x:.1f}" for x in after))
    if surveyed:
        print(markdown(audit, surveyed, extra, load))
    else:
        print(json.dumps({"audit": audit, "extrapolated": extra, "load": load}, indent=1))
    if args.json:
        ratios = survey_ratios(surveyed) if surveyed else {}
        args.json.write_text(
            json.dumps(
                {
                    "audit": audit,
                    "survey": surveyed,
                    "survey_ratios": ratios,
                    "extrapolated": extra,
                    "load": load,
                },
                indent=1,
            ),
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
