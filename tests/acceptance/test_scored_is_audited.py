"""What is scored is what was audited.

For every metric key a built-in profile's score reads, in every spelling the readers accept as that
(metric, filter), a results entry whose task has a sample log is either re-derived from the log (the audit
compares the key's value with its samples) or named in a finding that says it was not. A value the log does
not give is then always an error at that key: the score can never read a number the audit let through.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from validator.audit.auditor import audit_files
from validator.core.errors import FoldedKeys
from validator.core.results import metric_key_parts
from validator.findings import ERROR
from validator.io.loaders import builtin_profile_names, load_builtin_profile, load_results

SAMPLES = [1.0, 0.0, 0.0, 0.0]  # the log gives 0.25
OTHER = 0.75  # a value the log does not give


def read_keys() -> list[tuple[str, str, str, str]]:
    """(profile, benchmark, its first task, metric key as the score reads it) of every built-in profile."""
    keys = []
    for name in builtin_profile_names():
        for bench in load_builtin_profile(name).benchmarks:
            for metric in bench.metrics:
                keys.append((name, bench.id, bench.tasks[0].name, f"{metric},{bench.filter}"))
    return keys


def spellings(key: str) -> list[str]:
    """Every key the readers parse to the same (metric, filter) as `key`."""
    metric, flt = metric_key_parts(key)
    return [key] + ([metric, metric + ","] if flt == "none" else [])


def write_run(folder: Path, task: str, key: str, value: float) -> tuple[Path, Path]:
    metric, flt = metric_key_parts(key)
    results = {
        "results": {task: {"alias": task, key: value}},
        "configs": {
            task: {"task": task, "metric_list": [{"metric": metric, "aggregation": "mean"}]}
        },
        "n-shot": {task: 0},
        "n-samples": {task: {"original": len(SAMPLES), "effective": len(SAMPLES)}},
    }
    log = folder / f"samples_{task}_2025-01-01T00-00-00.000000.jsonl"
    lines = [
        {"doc_id": i, "filter": flt, "metrics": [metric], metric: score}
        for i, score in enumerate(SAMPLES)
    ]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    path = folder / "results_2025-01-01T00-00-00.000000.json"
    path.write_text(json.dumps(results, indent=2))
    return path, log


CASES = [
    (profile, bench, task, key, spelled)
    for profile, bench, task, key in read_keys()
    for spelled in spellings(key)
]


def test_every_profile_metric_is_covered():
    assert {(p, b) for p, b, *_ in CASES} == {
        (name, bench.id)
        for name in builtin_profile_names()
        for bench in load_builtin_profile(name).benchmarks
    }


@pytest.mark.parametrize(
    "profile, bench, task, key, spelled", CASES, ids=lambda v: v if isinstance(v, str) else ""
)
def test_a_scored_key_is_re_derived_or_named(tmp_path, profile, bench, task, key, spelled):
    results_path, log = write_run(tmp_path, task, spelled, OTHER)
    scored = load_results(results_path).entries[task]
    # The score reads this very key ...
    assert scored.raw_keys[metric_key_parts(key)] == spelled
    assert scored.metrics[metric_key_parts(key)] == OTHER
    # ... and the audit holds it to the log: an error at that key (re-derived and off, or not audited).
    audit = audit_files(tmp_path, results_path, [log])
    at_key = [
        f
        for f in audit.findings
        if f.severity == ERROR and f.file.endswith(results_path.name) and spelled in f.message
    ]
    assert {f.rule for f in at_key} & {"LB709", "LB716"}, [f.message for f in audit.findings]


@pytest.mark.parametrize(
    "profile, bench, task, key, spelled", CASES, ids=lambda v: v if isinstance(v, str) else ""
)
def test_an_honest_scored_key_is_re_derived(tmp_path, profile, bench, task, key, spelled):
    results_path, log = write_run(tmp_path, task, spelled, sum(SAMPLES) / len(SAMPLES))
    audit = audit_files(tmp_path, results_path, [log])
    (summary,) = audit.tasks
    metrics = {m.key: m for m in summary.metrics}
    # The audit read this very key and its log agrees (a task whose scoring needs more of its config than this
    # run gives, MATH's, is named LB716 besides: not audited is never silent).
    assert metrics[spelled].from_samples == 0.25
    assert not [f for f in audit.findings if f.rule == "LB709"]


def test_two_spellings_of_one_key_are_never_scored(tmp_path):
    results_path, _ = write_run(tmp_path, "leaderboard_mmlu_pro", "acc,none", 0.25)
    data = json.loads(results_path.read_text())
    data["results"]["leaderboard_mmlu_pro"]["acc"] = 0.9
    results_path.write_text(json.dumps(data))
    with pytest.raises(FoldedKeys):
        load_results(results_path)


@pytest.mark.parametrize(
    "stderr_key", ["acc_norm_stderr,none", "acc_norm_stderr", "acc_norm_stderr,"]
)
def test_a_stderr_the_rules_read_is_re_derived_in_any_spelling(tmp_path, stderr_key):
    """LB405 reads the stderr beside a 0/1 metric however it is spelled; the audit compares that same key."""
    results_path, log = write_run(tmp_path, "leaderboard_mmlu_pro", "acc_norm", 0.25)
    data = json.loads(results_path.read_text())
    data["results"]["leaderboard_mmlu_pro"][stderr_key] = 0.01  # the log's is 0.25
    results_path.write_text(json.dumps(data))
    entry = load_results(results_path).entries["leaderboard_mmlu_pro"]
    assert entry.metrics[("acc_norm_stderr", "none")] == 0.01
    audit = audit_files(tmp_path, results_path, [log])
    assert [f.json_path for f in audit.findings if f.rule == "LB709"] == [
        f"$.results.leaderboard_mmlu_pro{'.' + stderr_key if ',' not in stderr_key else repr([stderr_key])}"
    ]
