"""Survey benchmarks: the audit against its floor, and the survey's throughput on 1 and 2 workers.

    python bench/survey_corpus.py /tmp/survey-corpus --runs 8
    python bench/survey_bench.py /tmp/survey-corpus [--repeat 3] [--json bench/survey_results.json]

1. The audit's CPU per log against the floor of any honest hash-checking
   audit: a bare loop that json-parses each line and computes the same
   three sha256 hashes (doc with indent=2, first prompt, target). Both run
   in this process, best of --repeat, CPU time (time.process_time), so
   interpreter start-up is left out: it is nothing next to a 1 GB log.
2. The survey's wall time on the local process pool and on a local Dask
   cluster, with 1 and 2 workers, taking turns (a busy spell on a shared
   machine hits every configuration alike); the median of --repeat. The
   load average before and after is printed: on a shared machine the
   ratios say more than the seconds.
3. From the audit's per-core rate: worker-hours for 4,500 runs of 1 GB, and
   the workers that finish them in an hour.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from validator.audit.auditor import LogTarget, audit_logs  # noqa: E402
from validator.io.loaders import read_document  # noqa: E402
from validator.io.paths import confine  # noqa: E402

LEADERBOARD_RUNS, RUN_BYTES = 4_500, 1_000_000_000


def floor(logs: list[Path]) -> None:
    for path in logs:
        with open(path, "rb") as handle:
            for line in handle:
                data = json.loads(line)
                hashlib.sha256(json.dumps(data["doc"], indent=2, ensure_ascii=False).encode()).hexdigest()
                hashlib.sha256(next(iter(data["arguments"].values()))["arg_0"].encode()).hexdigest()
                hashlib.sha256(str(data["target"]).encode()).hexdigest()


def audit_jobs(corpus: Path, prefix: str) -> list[tuple]:
    jobs = []
    for results in sorted(corpus.glob("*/results_*.json")):
        document = read_document(results, results.name)
        for log in sorted(results.parent.glob(f"samples_{prefix}*.jsonl")):
            task = log.name[len("samples_"):].rsplit("_", 1)[0]
            jobs.append((document, LogTarget(task, confine(results.parent.resolve(), Path(log.name)))))
    return jobs


def cpu_best(function, repeat: int) -> float:
    return cpu_best_of_each([function], repeat)[0]


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
    from validator.audit import drop

    for cached in (drop._normalize_short, drop.gold_bags, drop._numbers, drop._decimal_spans):
        cached.cache_clear()


def audit_rows(corpus: Path, repeat: int) -> list[dict]:
    rows = []
    for label, prefix in (("all logs", ""), ("multiple choice", "mmlu"), ("DROP", "drop")):
        jobs = audit_jobs(corpus, prefix)
        logs = [target.target.path for _, target in jobs]
        size = sum(path.stat().st_size for path in logs)
        bare, audit = cpu_best_of_each([lambda: floor(logs),
                                        lambda: [audit_logs(document, [target]) for document, target in jobs]], repeat)
        rows.append({"logs": label, "MB": size / 1e6, "floor_cpu_s": bare, "audit_cpu_s": audit,
                     "ratio": audit / bare, "audit_MB_per_cpu_s": size / 1e6 / audit})
    return rows


def survey_rows(corpus: Path, repeat: int) -> list[dict]:
    from validator.survey.engine import survey
    from validator.survey.executors import DaskCluster, LocalPool

    executors = {"local pool, 1 worker": LocalPool(1), "local pool, 2 workers": LocalPool(2)}
    started = {}
    for workers in (1, 2):
        start = time.monotonic()
        executors[f"Dask, {workers} worker{'s' if workers > 1 else ''}"] = DaskCluster(local_workers=workers)
        started[workers] = time.monotonic() - start
    times: dict[str, list[float]] = {name: [] for name in executors}
    scratch = Path(tempfile.mkdtemp(prefix="survey-bench-"))
    try:
        for turn in range(repeat):
            for name, executor in executors.items():
                out = scratch / f"{turn}-{len(times[name])}-{name.replace(' ', '').replace(',', '')}"
                start = time.monotonic()
                survey([str(corpus)], out, executor)
                times[name].append(time.monotonic() - start)
                print(f"turn {turn + 1}: {name}: {times[name][-1]:.2f} s", file=sys.stderr, flush=True)
    finally:
        for executor in executors.values():
            getattr(executor, "close", lambda: None)()
        shutil.rmtree(scratch, ignore_errors=True)
    size = sum(p.stat().st_size for p in corpus.rglob("*.jsonl"))
    return [{"executor": name, "seconds": statistics.median(values), "MB_per_s": size / 1e6 / statistics.median(values),
             "cluster_start_s": started.get(int(name.split(", ")[1][0])) if name.startswith("Dask") else None}
            for name, values in times.items()]


def extrapolate(rate_mb_per_cpu_s: float) -> dict:
    hours = LEADERBOARD_RUNS * RUN_BYTES / 1e6 / rate_mb_per_cpu_s / 3600
    return {"worker_hours": hours, "workers_for_one_hour": int(hours) + (hours % 1 > 0)}


def markdown(audit: list[dict], surveyed: list[dict], extra: dict, load: tuple) -> str:
    lines = ["| logs | MB | floor CPU s | audit CPU s | audit / floor | audit MB per CPU s |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['logs']} | {r['MB']:.1f} | {r['floor_cpu_s']:.3f} | {r['audit_cpu_s']:.3f} | {r['ratio']:.2f} | "
              f"{r['audit_MB_per_cpu_s']:.1f} |" for r in audit]
    lines += ["", "| survey executor | seconds (median) | MB/s | × 1 worker | cluster start s |", "|---|---|---|---|---|"]
    by_name = {r["executor"]: r for r in surveyed}
    for r in surveyed:
        one = by_name[r["executor"].split(",")[0] + ", 1 worker"]["seconds"]
        start = "" if r["cluster_start_s"] is None else f"{r['cluster_start_s']:.1f}"
        lines.append(f"| {r['executor']} | {r['seconds']:.2f} | {r['MB_per_s']:.1f} | {one / r['seconds']:.2f} | {start} |")
    overhead = by_name["Dask, 2 workers"]["seconds"] / by_name["local pool, 2 workers"]["seconds"] - 1
    lines += ["", f"Dask against the local pool, 2 workers: {100 * overhead:+.1f}% time.",
              f"4,500 runs of 1 GB at {audit[0]['audit_MB_per_cpu_s']:.1f} MB per CPU second: "
              f"{extra['worker_hours']:,.0f} worker-hours; {extra['workers_for_one_hour']:,} workers for one hour.",
              f"Load average before / after: {load[0]} / {load[1]} on {os.cpu_count()} CPUs."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--audit-only", action="store_true")
    args = parser.parse_args()
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
        args.json.write_text(json.dumps({"audit": audit, "survey": surveyed, "extrapolated": extra, "load": load},
                                        indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
