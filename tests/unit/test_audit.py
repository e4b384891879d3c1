"""`audit`: a results file against its per-sample logs (docs/reference/results-formats.md and docs/reference/drop.md).

Logs are written the way lm-eval writes them (tests/support/harness_logs.py); the
hash formulas are first proven on a real 0.4.9.2 log.
"""

from __future__ import annotations

import json
import math
import random
import resource
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from support import harness_logs as hl
from support.common import DATA, REPO, run_cli

from validator.audit.auditor import LogTarget, audit_files, audit_logs
from validator.audit.spec import ProfileExpectations, TaskSpec
from validator.harness.choice_scores import ChoiceScores, choice_scores
from validator.io.loaders import read_document
from validator.io.paths import confine

REAL_LOG = (
    DATA
    / "samples"
    / "real_0.4.9.2"
    / "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
)


def audit(root: Path, results: Path, *samples: Path):
    return audit_files(
        root, results.relative_to(root), [s.relative_to(root) for s in samples] or None
    )


def rules(result) -> list[tuple[str, str, int | None]]:
    return sorted((f.rule, Path(f.file).name, f.line) for f in result.findings)


def spec_run(tmp_path: Path, **kwargs) -> dict[str, Path]:
    return hl.write_run(
        tmp_path, [hl.drop_task(hl.SPEC_RUN_PREDICTIONS, hl.SPEC_RUN_GOLDS, **kwargs)]
    )


# --- the hash formulas, on a log the harness wrote --------------------------------------------


def test_hashes_of_a_real_harness_log_check_out(tmp_path):
    records = [json.loads(line) for line in REAL_LOG.read_text(encoding="utf-8").splitlines()]
    task = hl.Task(
        "math_perturbed_full",
        {
            "output_type": "generate_until",
            "doc_to_target": "answer",
            "metric_list": [{"metric": "exact_match", "aggregation": "mean"}],
        },
    )
    records[1]["doc_id"] = (
        1  # an excerpt (doc_ids 0 and 4 of 5,000) numbered as a --limit run; no hash covers it
    )
    task.samples = records
    paths = hl.write_run(tmp_path, [task], hl.results_for([task]))
    result = audit(tmp_path, paths["results"])
    assert result.tasks[0].hashes_checked == 2 and result.tasks[0].hash_mismatches == 0
    assert result.findings == []


def test_an_edited_real_document_breaks_its_doc_hash(tmp_path):
    lines = REAL_LOG.read_text(encoding="utf-8").splitlines()
    lines[1] = (
        lines[1].replace("2x=10", "2x=12").replace('"doc_id": 4,', '"doc_id": 1,')
    )  # as above
    log = tmp_path / REAL_LOG.name
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    task = hl.Task(
        "math_perturbed_full",
        {
            "output_type": "generate_until",
            "doc_to_target": "answer",
            "metric_list": [{"metric": "exact_match"}],
        },
    )
    task.samples = [json.loads(line) for line in lines]
    results = hl.results_for([task])
    (tmp_path / "results_2026-01-21T03-44-18.458309.json").write_text(json.dumps(results))
    result = audit(tmp_path, tmp_path / "results_2026-01-21T03-44-18.458309.json")
    [finding] = result.findings
    assert (finding.rule, finding.line, finding.json_path) == ("LB703", 2, "$.doc_hash")
    assert (
        finding.column == lines[1].index('"doc_hash"') + 1
    )  # where the key starts, as for every finding


# --- the DROP run of docs/reference/drop.md (end to end) ---------------------------------------------------


def test_spec_drop_run_numbers(tmp_path):
    paths = spec_run(tmp_path)
    result = audit(tmp_path, paths["results"])
    [task] = result.tasks
    report = task.drop.as_dict()
    assert (report["em_reported"], report["f1_reported"]) == (0.25, 0.4175)
    assert (report["em_recomputed"], report["f1_recomputed"]) == (0.25, 0.4175)
    assert report["n_mismatch"] == 0
    assert report["counts"] == {
        "W": 1,
        "W_impacting": 1,
        "D": 1,
        "D_prime": 2,
        "L": 1,
        "decimal_golds": 1,
    }
    assert (report["em_nl"], report["f1_nl"]) == (0.5, 0.6675)
    assert report["f1_ws"] == pytest.approx(0.4725)
    assert report["variant"]["until"] == ["."]
    flagged = {s["doc_id"]: s["flags"] for s in report["flagged_samples"]}
    assert flagged == {0: ["W!", "D'"], 1: ["D"], 2: ["L"], 3: ["D'"]}
    assert rules(result) == [
        ("LB710", paths["drop"].name, 1),
        ("LB711", paths["drop"].name, 2),
        ("LB712", paths["drop"].name, 3),
        ("LB713", paths["results"].name, 21),
    ]
    assert result.ok() and not result.ok(strict=True)


@pytest.mark.parametrize("answer, flagged", [(" 12", True), (" banana", False), (" 12.25", False)])
def test_a_dot_stop_is_flagged_where_it_cut_a_decimal(tmp_path, answer, flagged):
    """LB713 follows the harm. A '.' stop beside decimal golds that no prediction ran into is lm-eval's own DROP
    config, on nearly every DROP run of a leaderboard; flagged there, it buried the runs it cost, and a held-out
    judge counted it on 148 of 165 clean DROP rows. (" 12.25": a decimal answered whole, so not cut.)"""
    predictions = [*hl.SPEC_RUN_PREDICTIONS[:1], answer, *hl.SPEC_RUN_PREDICTIONS[2:]]
    paths = hl.write_run(tmp_path, [hl.drop_task(predictions, hl.SPEC_RUN_GOLDS)])
    found = {rule for rule, _, _ in rules(audit(tmp_path, paths["results"]))}
    assert ("LB713" in found, "LB711" in found) == (flagged, flagged), found


def test_no_dot_stop_no_dot_warning(tmp_path):
    paths = spec_run(tmp_path, until=["\n\n"])
    found = {rule for rule, _, _ in rules(audit(tmp_path, paths["results"]))}
    assert "LB713" not in found and "LB711" not in found  # a decimal cut needs the '.' stop


def test_tampered_drop_score_names_task_metric_values_and_doc(tmp_path):
    task = hl.drop_task(hl.SPEC_RUN_PREDICTIONS, hl.SPEC_RUN_GOLDS)
    task.samples[1]["f1"] = 1.0  # " 12" against 12.25 scores 0
    results = hl.results_for([task])  # the results agree with the tampered log
    paths = hl.write_run(tmp_path, [task], results)
    result = audit(tmp_path, paths["results"])
    by_rule = {f.rule: f for f in result.findings}
    assert (
        by_rule["LB708"].line == 2
        and "doc_id 1: f1 is logged as 1.0, but the DROP scorer gives 0.0"
        in by_rule["LB708"].message
    )
    message = by_rule["LB709"].message
    assert (
        "drop f1,none" in message
        and "0.6675" in message
        and "0.4175" in message
        and "doc_id 1" in message
    )


def test_gold_is_never_the_target_string(tmp_path):
    task = hl.drop_task([" number"], [[["10"]]])
    assert task.samples[0]["target"] == "number,date,spans,worker_id,hit_id"
    paths = hl.write_run(tmp_path, [task])
    assert audit(tmp_path, paths["results"]).tasks[0].drop.as_dict()["f1_recomputed"] == 0.0


# --- integrity and coverage ------------------------------------------------------------------


def mc_run(tmp_path: Path, docs: int = 40) -> tuple[hl.Task, dict[str, Path]]:
    task = hl.choice_task("toy_mc", docs)
    return task, hl.write_run(tmp_path, [task])


def edit_log(path: Path, edit) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    lines = edit(lines) or lines
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def test_honest_multiple_choice_log_recomputes_exactly(tmp_path):
    task, paths = mc_run(tmp_path)
    result = audit(tmp_path, paths["results"])
    assert result.findings == []
    metrics = {m.key: m for m in result.tasks[0].metrics}
    for key in ("acc,none", "acc_norm,none"):
        assert metrics[key].from_samples == metrics[key].recomputed == metrics[key].reported
    assert result.tasks[0].task_hash == "ok"


NO_CONFIG = object()


@pytest.mark.parametrize(
    "split, limit, unexplained",
    [
        (40, None, False),
        (120, 40.0, False),
        (120, 40, False),
        (40, 100.0, False),
        (160, 0.25, False),
        (120, None, True),
        (120, 39.0, True),
        (120, 41, True),
        (120, 0.25, True),
        (30, 0.5, True),
        (120, 0, True),
        (120, "40", True),
        (120, True, True),
        (120, -40, True),
        (120, 10**18, True),
        (120, NO_CONFIG, True),
    ],
)
def test_the_sample_count_must_follow_from_the_runs_limit(tmp_path, split, limit, unexplained):
    """LB717: 40 documents logged and n-samples.effective 40 agree; the split (n-samples.original) and
    config.limit say whether lm-eval scores 40 (min(limit, split), the whole split without a limit)."""
    task, paths = mc_run(tmp_path)
    results = json.loads(paths["results"].read_text(encoding="utf-8"))
    results["n-samples"]["toy_mc"]["original"] = split
    if limit is NO_CONFIG:
        del results["config"]
    else:
        results["config"]["limit"] = limit
    paths["results"].write_text(json.dumps(results, indent=2), encoding="utf-8")
    found = [f for f in audit(tmp_path, paths["results"]).findings if f.rule == "LB717"]
    assert [f.json_path for f in found] == (
        ["$['n-samples'].toy_mc.effective"] if unexplained else []
    )
    if found and limit is None:
        assert (
            "n-samples says 40 of 120 documents were scored, but under config.limit null lm-eval scores 120"
            in found[0].message
        )


@pytest.mark.parametrize(
    "other, version, unexplained",
    [
        (
            {"original": 160, "effective": 40},
            None,
            False,
        ),  # 0.4.3, 0.4.4: the first task's ceil(160/4), for all
        (
            {"original": 160, "effective": 40},
            "0.4.9.1",
            True,
        ),  # 0.4.5 on: each its own, ceil(120/4) = 30
        (
            {"original": 160, "effective": 160},
            None,
            False,
        ),  # 40 explains toy_mc: the other's 160 is its finding
        (
            {"original": 160, "effective": 30},
            None,
            True,
        ),  # 30 or 40: a tie names neither, so both are suspect
        ({"original": 100, "effective": 40}, None, True),  # 40 is no task's ceil(split/4)
    ],
)
def test_a_fractional_limit_gives_what_the_version_of_lm_eval_gave(
    tmp_path, other, version, unexplained
):
    """config.limit 0.25; toy_mc logs 40 of a split of 120 beside another task's counts."""
    task, paths = mc_run(tmp_path)
    results = json.loads(paths["results"].read_text(encoding="utf-8"))
    results["n-samples"]["toy_mc"]["original"] = 120
    results["n-samples"]["other_task"] = other
    results["config"]["limit"] = 0.25
    results.pop("lm_eval_version", None)
    if version:
        results["lm_eval_version"] = version
    paths["results"].write_text(json.dumps(results, indent=2), encoding="utf-8")
    found = [f for f in audit(tmp_path, paths["results"]).findings if f.rule == "LB717"]
    assert len(found) == unexplained


def test_a_split_too_large_for_a_float_under_a_fraction_is_left_whole():
    """ceil(split * f) raised on a split of 300 digits (int * float overflows); such a split is no split."""
    data = {
        "config": {"limit": 0.5},
        "n-samples": {
            "t": {"original": 10**300, "effective": 40},
            "u": {"original": 10**200, "effective": 7},
        },
    }
    assert TaskSpec.from_results(data, "t").scored_under_limit() == (10**300,)


def test_what_an_entrys_key_names_say_is_shared_and_its_values_are_each_runs_own():
    """Two runs' entries with the same keys share the parse of those keys; each spec still reads its own
    numbers, and an entry spelled otherwise gets its own parse."""
    first, second = (
        TaskSpec.from_results(
            {"results": {"t": {"alias": "t", "acc,none": acc, "acc_stderr,none": 0.01}}}, "t"
        )
        for acc in (0.25, 0.75)
    )
    respelled = TaskSpec.from_results(
        {"results": {"t": {"acc, none": 0.5, "acc_stderr , none": 0.01}}}, "t"
    )
    assert first.keys is second.keys and first.keys is not respelled.keys
    assert first.metric_parts == (("acc,none", ("acc", "none")),)
    assert respelled.metric_parts == (("acc, none", ("acc", "none")),)
    assert (first.stderr_key("acc", "none"), respelled.stderr_key("acc", "none")) == (
        "acc_stderr,none",
        "acc_stderr , none",
    )
    assert [spec.entry["acc,none"] for spec in (first, second)] == [0.25, 0.75]


def test_a_limit_too_large_for_a_float_is_still_a_limit():
    """The results parser refuses integers of hundreds of digits; the rule must not raise on one either."""
    data = {"config": {"limit": 10**400}, "n-samples": {"t": {"original": 120, "effective": 40}}}
    assert TaskSpec.from_results(data, "t").scored_under_limit() == (120,)


@pytest.mark.parametrize(
    "counts, rule, place",
    [
        ({"original": 40.0, "effective": 40}, "LB706", "$['n-samples'].toy_mc.original"),
        ({"original": 40, "effective": "40"}, "LB706", "$['n-samples'].toy_mc.effective"),
        ({"original": 40, "effective": True}, "LB706", "$['n-samples'].toy_mc.effective"),
        (40, "LB706", "$['n-samples'].toy_mc"),
    ],
)
def test_a_count_that_is_no_whole_number_is_a_finding_not_a_missing_count(
    tmp_path, counts, rule, place
):
    """lm-eval writes len(): 40.0 or "40" would otherwise read as no count, and take coverage's count away."""
    task, paths = mc_run(tmp_path)
    results = json.loads(paths["results"].read_text(encoding="utf-8"))
    results["n-samples"]["toy_mc"] = counts
    paths["results"].write_text(json.dumps(results, indent=2), encoding="utf-8")
    found = [(f.rule, f.json_path) for f in audit(tmp_path, paths["results"]).findings]
    assert (rule, place) in found


@pytest.mark.parametrize(
    "n_samples, limit, split, expected",
    [
        ({"original": 40, "effective": 40}, None, 40, []),
        (
            {"original": 40, "effective": 40},
            None,
            50,
            [("LB718", "$['n-samples'].toy_mc.original")],
        ),
        (None, None, 40, []),
        (None, 40.0, 50, []),
        (None, None, 50, [("LB705", None), ("LB706", "$.results.toy_mc")]),
        (None, 30, 50, [("LB705", None), ("LB706", "$.results.toy_mc")]),
    ],
)
def test_a_profile_holds_a_log_to_its_split(tmp_path, n_samples, limit, split, expected):
    """LB718: n-samples.original against the profile's split; without n-samples (lm-eval before 0.4.3, or
    deleted) the log itself must hold what the limit lets lm-eval score of that split (LB705, LB706)."""
    task, paths = mc_run(tmp_path)
    results = json.loads(paths["results"].read_text(encoding="utf-8"))
    if n_samples is None:
        for key in ("n-samples", "task_hashes", "lm_eval_version"):  # lm-eval before 0.4.3
            del results[key]
    results["config"]["limit"] = limit
    paths["results"].write_text(json.dumps(results, indent=2), encoding="utf-8")
    expectations = ProfileExpectations(split_sizes={"toy_mc": split})
    result = audit_files(
        tmp_path, paths["results"].relative_to(tmp_path), None, expectations=expectations
    )
    found = sorted({(f.rule, f.json_path if f.rule != "LB705" else None) for f in result.findings})
    assert found == expected
    if expected and expected[0][0] == "LB718":
        assert (
            "n-samples.original is 40, but the profile's split has 50 documents"
            in result.findings[0].message
        )
    if ("LB706", "$.results.toy_mc") in expected and limit is None:
        message = next(f.message for f in result.findings if f.rule == "LB706")
        assert "has 40 samples, the profile's split of 50, with no n-samples, says 50" in message


@pytest.mark.parametrize("scale, flagged", [(1.0, False), (1.5, True), (None, False)])
def test_a_standard_error_is_the_means_over_the_logged_samples(tmp_path, scale, flagged):
    """lm-eval writes mean_stderr (statistics.stdev / sqrt(n)) for a mean, "N/A" without bootstrap_iters."""
    task, paths = mc_run(tmp_path)
    values = [sample["acc"] for sample in task.samples]
    stderr = statistics.stdev(values) / math.sqrt(len(values))
    results = json.loads(paths["results"].read_text(encoding="utf-8"))
    results["results"]["toy_mc"]["acc_stderr,none"] = "N/A" if scale is None else stderr * scale
    paths["results"].write_text(json.dumps(results, indent=2), encoding="utf-8")
    found = [f for f in audit(tmp_path, paths["results"]).findings]
    assert [(f.rule, f.json_path) for f in found] == (
        [("LB709", "$.results.toy_mc['acc_stderr,none']")] if flagged else []
    )
    if flagged:
        derived = float(found[0].message.split(" logged samples give ")[1].split(" ")[0])
        assert abs(derived - stderr) < 1e-12


def test_the_stderr_keeps_its_digits_when_the_mean_dwarfs_the_spread():
    """100,000 values near 10,000 (a length, a score): plain sums of squares cancel every digit of the spread."""
    from validator.audit.checks.aggregates import RunningMean

    rng = random.Random(7)
    values = [1e4 + rng.gauss(0, 1) for _ in range(100_000)]
    mean = sum(values) / len(
        values
    )  # lm-eval's sample_stddev and mean_stderr (api/metrics.py), two passes
    two_pass = math.sqrt(sum((x - mean) ** 2 for x in values) / (len(values) - 1)) / math.sqrt(
        len(values)
    )
    running = RunningMean(shift=values[0])
    for value in values:
        running.add(value)
    assert abs(running.stderr() - two_pass) < 1e-15


@pytest.mark.parametrize("scale, flagged", [(1.0, False), (1.0 + 1e-6, True)])
def test_a_first_value_far_from_the_rest_widens_the_stderrs_tolerance_by_its_rounding_only(
    scale, flagged
):
    """A first value of 1e6 before 100,000 values in [0, 1] (the shift is far from the mean): lm-eval's own
    stderr is within rounding; one moved by a millionth is not."""
    from validator.audit.checks.aggregates import RunningMean

    rng = random.Random(3)
    values = [1e6] + [rng.random() for _ in range(100_000)]
    mean = sum(values) / len(values)
    two_pass = math.sqrt(sum((x - mean) ** 2 for x in values) / (len(values) - 1)) / math.sqrt(
        len(values)
    )
    running = RunningMean(shift=values[0])
    for value in values:
        running.add(value)
    assert (abs(running.stderr() - two_pass * scale) > 1e-9 + running.slack()) == flagged


def test_missing_documents(tmp_path):
    task, paths = mc_run(tmp_path)
    edit_log(paths["toy_mc"], lambda lines: lines[:10] + lines[13:])
    result = audit(tmp_path, paths["results"])
    by_rule = {f.rule: f for f in result.findings}
    assert set(by_rule) <= {"LB704", "LB705", "LB706", "LB709"} and {
        "LB704",
        "LB705",
        "LB706",
    } <= set(by_rule)
    assert "37 samples, n-samples.effective says 40" in by_rule["LB706"].message
    assert by_rule["LB706"].json_path == "$['n-samples'].toy_mc.effective"
    assert "3 of 40 documents have no sample" in by_rule["LB705"].message
    assert "doc_ids: 10, 11, 12" in by_rule["LB705"].message


def test_duplicate_and_out_of_range_doc_ids(tmp_path):
    task, paths = mc_run(tmp_path)

    def tamper(lines):
        lines[5] = lines[4]
        lines[6] = lines[6].replace('"doc_id": 6,', '"doc_id": 400,')

    edit_log(paths["toy_mc"], tamper)
    result = audit(tmp_path, paths["results"])
    coverage = [f for f in result.findings if f.rule == "LB705" and f.file.endswith(".jsonl")]
    assert [(f.line, f.json_path) for f in coverage] == [(6, "$.doc_id"), (7, "$.doc_id")]
    assert "doc_id 4 is logged twice" in coverage[0].message
    assert "outside the split of 40 documents" in coverage[1].message


def test_edited_target_and_prompt(tmp_path):
    task, paths = mc_run(tmp_path)

    def tamper(lines):
        lines[2] = lines[2].replace('"target": "', '"target": "9', 1)
        lines[3] = lines[3].replace("Question 3?\\nAnswer:", "Question 3 (hint: A)?\\nAnswer:", 1)

    edit_log(paths["toy_mc"], tamper)
    hashes = [f for f in audit(tmp_path, paths["results"]).findings if f.rule == "LB703"]
    assert [(f.line, f.json_path) for f in hashes] == [(3, "$.target_hash"), (4, "$.prompt_hash")]


def test_edited_multiple_choice_value_is_caught_from_the_log_likelihoods(tmp_path):
    task = hl.choice_task("toy_mc", 40)
    first = next(s for s in task.samples if s["acc"] == 0.0)
    first["acc"] = 1.0
    paths = hl.write_run(tmp_path, [task])  # results agree with the edited log
    result = audit(tmp_path, paths["results"])
    [sample] = [f for f in result.findings if f.rule == "LB708"]
    assert sample.line == first["doc_id"] + 1 and sample.json_path == "$.acc"
    [aggregate] = [f for f in result.findings if f.rule == "LB709"]
    assert f"first differing sample: doc_id {first['doc_id']}" in aggregate.message


def test_tampered_aggregate_in_results(tmp_path):
    task = hl.ifeval_task([[True, False], [True], [True, True, False], [False]])
    results = hl.results_for([task])
    results["results"]["leaderboard_ifeval"]["inst_level_strict_acc,none"] = 0.75
    paths = hl.write_run(tmp_path, [task], results)
    result = audit(tmp_path, paths["results"])
    [finding] = result.findings
    assert (
        finding.rule == "LB709"
        and finding.json_path == "$.results.leaderboard_ifeval['inst_level_strict_acc,none']"
    )
    assert (
        "says 0.75, the 7 logged samples give 0.5714285714285714" in finding.message
    )  # 4 of 7 instructions


def test_ifeval_instruction_level_is_flattened(tmp_path):
    task = hl.ifeval_task([[True, False], [True], [True, True, False], [False]])
    paths = hl.write_run(tmp_path, [task])
    result = audit(tmp_path, paths["results"])
    assert result.findings == []
    metrics = {m.key: m for m in result.tasks[0].metrics}
    assert metrics["inst_level_strict_acc,none"].samples == 7
    assert metrics["prompt_level_strict_acc,none"].from_samples == 0.25


def test_choice_scores_divide_by_choice_length_without_the_delimiter():
    # " Yes" counts 3 characters: -3.6/3 = -1.2 loses to -10.8/10 = -1.08. Counting the
    # delimiter (-3.6/4 = -0.9) would wrongly make "Yes" the acc_norm choice.
    args = {
        "gen_args_0": {"arg_0": "Q", "arg_1": " Yes"},
        "gen_args_1": {"arg_0": "Q", "arg_1": " Absolutely"},
    }
    lls = [["-3.6", "False"], ["-10.8", "False"]]
    assert choice_scores(lls, args, "0", " ") == ChoiceScores(acc=1.0, acc_norm=0.0)
    assert choice_scores(lls, args, "Absolutely", " ") == ChoiceScores(acc=0.0, acc_norm=1.0)
    assert choice_scores(lls, args, "Maybe", " ") == ChoiceScores(
        acc=0.0, acc_norm=0.0
    )  # not a choice: gold -100


@pytest.mark.parametrize(
    "lls, gold, acc_norm",
    [
        (
            ["-1.0", "-2.0", "-30.0"],
            "1",
            1.0,
        ),  # the empty choice: -1/0 is -inf, so "Bob" (-2/3) is the best
        (["0.0", "-2.0", "-3.0"], "0", 1.0),  # 0/0 is NaN, which numpy's argmax takes first
        (["2.0", "-2.0", "-3.0"], "1", 0.0),  # 2/0 is inf
    ],
)
def test_an_empty_choice_is_divided_by_zero_as_numpy_does(lls, gold, acc_norm):
    """lm-eval's lls / completion_len warns and goes on for an empty choice, and logs acc_norm: the sample
    stays in the recomputed mean, so an honest run with an empty choice passes."""
    args = {
        f"gen_args_{i}": {"arg_0": "Q", "arg_1": " " + choice}
        for i, choice in enumerate(["", "Bob", "Carol"])
    }
    assert choice_scores([[ll, "False"] for ll in lls], args, gold, " ").acc_norm == acc_norm


# --- the legacy JSON-array form (lm-eval 0.4.0-0.4.2) ------------------------------------------


def test_legacy_array_logs_are_audited(tmp_path):
    drop_task = hl.drop_task(hl.SPEC_RUN_PREDICTIONS, hl.SPEC_RUN_GOLDS)
    paths = hl.write_legacy_run(tmp_path, [drop_task, hl.choice_task("toy_mc", 12)])
    result = audit(tmp_path, paths["results"])
    tasks = {t.task: t for t in result.tasks}
    assert set(tasks) == {"drop", "toy_mc"} and tasks["toy_mc"].samples == 12
    assert tasks["drop"].drop.as_dict()["f1_recomputed"] == 0.4175
    assert {f.rule for f in result.findings} == {"LB710", "LB711", "LB712", "LB713"}
    text = paths["drop"].read_text()
    assert [f.line for f in result.findings if f.rule == "LB711"] == [
        text[: text.index('"doc_id": 1')].count("\n")
    ]


def test_legacy_array_tampered_value_points_at_its_element(tmp_path):
    task = hl.choice_task("toy_mc", 12)
    paths = hl.write_legacy_run(tmp_path, [task])
    text = paths["toy_mc"].read_text()
    doc = json.loads(text)
    target = next(i for i, s in enumerate(doc) if s["acc_norm"] == 0.0)
    doc[target]["acc_norm"] = 1.0
    paths["toy_mc"].write_text(json.dumps(doc, indent=2))
    result = audit(tmp_path, paths["results"])
    [finding] = [f for f in result.findings if f.rule == "LB708"]
    written = paths["toy_mc"].read_text().splitlines()
    assert finding.json_path == f"$[{target}].acc_norm"
    assert '"acc_norm": 1.0' in written[finding.line - 1]


@pytest.mark.parametrize(
    "deleted, count, first",
    [
        ([], None, None),
        ([11], None, None),  # the last docs (a --limit run) leave no hole
        ([4], 1, "4"),
        ([0, 5, 6], 3, "0, 5, 6"),
    ],
)
def test_a_hole_in_the_doc_ids_is_found_without_n_samples(tmp_path, deleted, count, first):
    """Legacy logs have no n-samples and no hashes: a deleted sample that leaves the mean alone showed nowhere."""
    task = hl.choice_task("toy_mc", 12)
    task.samples = [sample for sample in task.samples if sample["doc_id"] not in deleted]
    task.samples.reverse()  # several ranks: the highest doc_id need not come last
    paths = hl.write_legacy_run(tmp_path, [task])
    result = audit(tmp_path, paths["results"])
    found = [f for f in result.findings if f.rule == "LB705"]
    if count is None:
        assert found == []
        return
    [finding] = found
    assert f"{count} doc_ids below the highest one logged (11) have no sample" in finding.message
    assert f"(first missing: {first})" in finding.message
    lines = (
        paths["toy_mc"].read_text().splitlines()
    )  # at the record of doc_id 11: the array's first element
    assert (finding.line, lines[finding.line - 1], lines[finding.line].strip()) == (
        2,
        "  {",
        '"doc_id": 11,',
    )


def test_a_hole_below_a_huge_doc_id_is_counted_without_walking_to_it(tmp_path):
    task = hl.choice_task("toy_mc", 3)
    task.samples[-1]["doc_id"] = 10**18
    paths = hl.write_run(tmp_path, [task], results={**hl.results_for([task]), "n-samples": {}})
    result = audit(tmp_path, paths["results"])
    found = [f for f in result.findings if f.rule == "LB705"]
    assert (
        len(found) == 1
        and f"{10**18 - 2:,} doc_ids below the highest one logged" in found[0].message
    )
    assert "first missing: 2, 3, 4, 5, 6" in f"{found[0].message} {found[0].details}"
    assert found[0].line == 3


def test_truncated_legacy_array(tmp_path):
    paths = hl.write_legacy_run(tmp_path, [hl.choice_task("toy_mc", 5)])
    paths["toy_mc"].write_text(paths["toy_mc"].read_text()[:-40])
    result = audit(tmp_path, paths["results"])
    assert [f.rule for f in result.findings] == ["LB701"] and "cut off" in result.findings[
        0
    ].message


# --- finding the logs ----------------------------------------------------------------------


def test_discovery_takes_logs_of_the_same_date_only(tmp_path):
    paths = spec_run(tmp_path)
    (tmp_path / "samples_drop_2023-01-01T00-00-00.000000.jsonl").write_text("not json\n")
    result = audit(tmp_path, paths["results"])
    assert [t.log for t in result.tasks] == [paths["drop"].name]


def test_a_results_file_from_output_path_name_json_takes_the_logs_of_its_date_only(tmp_path):
    """lm-eval --output_path NAME.json writes NAME_<date>.json; two runs so written share one folder."""
    paths = spec_run(tmp_path)
    named = paths["results"].with_name("my_eval_" + paths["results"].name.removeprefix("results_"))
    paths["results"].rename(named)
    (tmp_path / "samples_drop_2023-01-01T00-00-00.000000.jsonl").write_text(
        "not json\n"
    )  # the other run's
    result = audit(tmp_path, named)
    assert [t.log for t in result.tasks] == [paths["drop"].name]


def test_no_log_and_unplaceable_log(tmp_path):
    paths = spec_run(tmp_path)
    paths["drop"].unlink()
    result = audit(tmp_path, paths["results"])
    assert [f.rule for f in result.findings] == ["LB700"] and "no sample log" in result.findings[
        0
    ].message
    other = tmp_path / "notes.jsonl"
    other.write_text("{}\n")
    result = audit(tmp_path, paths["results"], other)
    assert [f.rule for f in result.findings] == [
        "LB700"
    ] and "cannot tell which task" in result.findings[0].message


def test_a_task_without_its_log_is_lb707_unless_the_caller_reports_it_once_per_run(tmp_path):
    paths = hl.write_run(
        tmp_path,
        [hl.drop_task(hl.SPEC_RUN_PREDICTIONS, hl.SPEC_RUN_GOLDS), hl.choice_task("toy_mc", 5)],
    )
    document = read_document(paths["results"], paths["results"].name)
    logs = [LogTarget("drop", confine(tmp_path, Path(paths["drop"].name)))]
    everything = audit_logs(document, logs).findings
    [finding] = [f for f in everything if f.rule == "LB707"]
    assert "toy_mc" in finding.message and finding.line is not None
    # the survey audits one log per unit and reports tasks without a log once, from the run's own unit
    assert audit_logs(document, logs, unlogged_tasks=False).findings == [
        f for f in everything if f is not finding
    ]


def test_a_log_outside_the_workspace_is_refused(tmp_path):
    outside = tmp_path / "outside"
    ws = tmp_path / "ws"
    paths = spec_run(ws)
    real = outside / "secret.jsonl"
    outside.mkdir()
    real.write_text('{"doc_id": 0}\n')
    paths["drop"].unlink()
    paths["drop"].symlink_to(real)
    result = audit(ws, paths["results"])
    assert [f.rule for f in result.findings] == [
        "LB700"
    ] and "outside the workspace" in result.findings[0].message


@pytest.mark.parametrize(
    "line,rule",
    [
        (b'{"doc_id": 0, "doc": \xff}\n', "LB701"),
        (b"[" * 100000 + b"\n", "LB108"),
        (b'{"doc_id": 0\n', "LB701"),
    ],
)
def test_broken_lines_are_one_finding_with_their_line(tmp_path, line, rule):
    paths = spec_run(tmp_path)
    paths["drop"].write_bytes(paths["drop"].read_bytes() + line)
    result = audit(tmp_path, paths["results"])
    [finding] = [f for f in result.findings if f.rule == rule]
    assert finding.line == 5
    assert any("not compared" in note for note in result.tasks[0].notes)


# --- the command line ---------------------------------------------------------------------------


def test_cli_json_report_and_exit_codes(tmp_path):
    paths = spec_run(tmp_path)
    proc = run_cli(
        "audit",
        "--root",
        str(tmp_path),
        "--output-format",
        "json",
        paths["results"].name,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and report["logs_audited"] == 1
    assert report["tasks"]["drop"]["drop"]["f1_nl"] == 0.6675
    strict = run_cli("audit", "--strict", paths["results"].name, cwd=tmp_path)
    assert strict.returncode == 1 and "LB711 drop-decimal-cut" in strict.stdout
    missing = run_cli("audit", "nothing.json", cwd=tmp_path)
    assert missing.returncode == 1 and "LB101" in missing.stdout


def test_cli_paths_from_anywhere_and_the_default_workspace(tmp_path):
    """Arguments are relative to the current directory; the workspace is a boundary (default: cwd or git top)."""
    paths = spec_run(tmp_path / "run")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "samples_drop_2024-06-17T17-37-25.144953.jsonl").write_text(
        paths["drop"].read_text()
    )
    proc = run_cli("audit", "-q", "run", cwd=tmp_path)  # a run folder
    assert proc.returncode == 0 and "1 log(s) audited" in proc.stdout
    proc = run_cli(
        "audit", "-q", str(paths["results"]), cwd=REPO
    )  # outside the repository it runs in: read where it is, with the logs beside it
    assert proc.returncode == 0 and "1 log(s) audited" in proc.stdout, proc.stdout
    proc = run_cli(  # a named log is read where it is too
        "audit", "-q", str(paths["results"]), str(elsewhere / paths["drop"].name), cwd=REPO
    )
    assert proc.returncode == 0, proc.stdout
    proc = run_cli(
        "audit",
        "-q",
        "--root",
        str(tmp_path / "run"),
        str(paths["results"]),
        str(elsewhere / paths["drop"].name),
    )
    assert proc.returncode == 1 and "LB101" in proc.stdout and "--root" in proc.stdout
    proc = run_cli(
        "audit",
        "-q",
        "--root",
        str(tmp_path),
        str(paths["results"]),
        str(elsewhere / paths["drop"].name),
    )
    assert proc.returncode == 0, proc.stdout


def test_check_audits_the_logs_a_submission_lists(tmp_path):
    task = hl.drop_task(hl.SPEC_RUN_PREDICTIONS, hl.SPEC_RUN_GOLDS)
    task.samples[3]["em"] = 0  # tampered: " 10" against 10 is an exact match
    paths = hl.write_run(tmp_path, [task])
    submission = {
        "schema_version": 1,
        "model": "org/model",
        "results": paths["results"].name,
        "samples": [paths["drop"].name],
        "reported": {"average": 0},
    }
    (tmp_path / "submission.json").write_text(json.dumps(submission))
    proc = run_cli("check", "--output-format", "json", "submission.json", cwd=tmp_path)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert any(f["rule"] == "LB708" and f["line"] == 4 for f in report["findings"])
    assert report["audits"]["submission.json"]["drop"]["drop"]["n_mismatch"] == 1


# --- memory stays flat over a large log -------------------------------------------------------

_PEAK = """
import resource, sys
from pathlib import Path
from validator.audit.auditor import LogTarget, audit_files, audit_logs
result = audit_files(Path(sys.argv[1]), Path(sys.argv[2]), None)
assert result.tasks[0].samples == int(sys.argv[3]), result.findings
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_kib(root: Path, results: Path, samples: int) -> int:
    proc = subprocess.run(
        [sys.executable, "-c", _PEAK, str(root), results.name, str(samples)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout)


def _big_log_run(folder: Path, docs: int) -> Path:
    """A multiple-choice log with MMLU-Pro-sized records (a 6 KB prompt per choice, ten choices)."""
    task = hl.choice_task("toy_mc", docs)
    padding = "Context sentence. " * 330
    for sample in task.samples:
        for args in sample["arguments"].values():
            args["arg_0"] = padding + args["arg_0"]
        hl.with_hashes(sample)
    return hl.write_run(folder, [task])["results"]


@pytest.mark.slow  # a stress test over a large log
def test_a_large_log_is_streamed_with_flat_memory(tmp_path):
    small = _big_log_run(tmp_path / "small", 100)
    large = _big_log_run(tmp_path / "large", 4000)
    size = (tmp_path / "large" / "samples_toy_mc_2024-06-17T17-37-25.144953.jsonl").stat().st_size
    assert size > 60 * 2**20
    growth_kib = _peak_kib(tmp_path / "large", large, 4000) - _peak_kib(
        tmp_path / "small", small, 100
    )
    assert growth_kib < 16 * 1024, (
        f"peak memory grew by {growth_kib} KiB for a {size >> 20} MiB log"
    )


def test_resource_module_reports_kib_on_this_platform():
    assert (
        sys.platform.startswith("linux")
        and resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 1000
    )


def test_job_summary_shows_the_sample_log_table(tmp_path):
    from validator.check.checker import CheckOptions, run_check
    from validator.report.github import annotation_lines, summary_markdown

    paths = spec_run(tmp_path)
    submission = {
        "schema_version": 1,
        "model": "org/model",
        "results": paths["results"].name,
        "samples": [paths["drop"].name],
        "reported": {"average": 0},
    }
    (tmp_path / "submission.json").write_text(json.dumps(submission))
    result = run_check(["submission.json"], CheckOptions(root=tmp_path))
    summary = summary_markdown(result, strict=False, tolerance=0.01)
    assert "| drop | 4 | 4/4 ok, task hash ok | 2 recomputed | 0.4175 / 0.6675 |" in summary
    annotations = "\n".join(annotation_lines(result, "lbnorm-report.json"))
    assert f"file={paths['drop'].name},line=2" in annotations and "LB711" in annotations


# --- fields the submitter writes cannot switch a check off -------------------------------------
# Each case edits an honest run (results and/or samples) to carry a false number behind a field that once
# made the audit skip its comparison; each must be reported, at the line named.


def _raise_drop_f1(results, samples):
    results["results"]["drop"]["f1,none"] = 0.99


def _median(results, samples):
    _raise_drop_f1(results, samples)
    results["configs"]["drop"]["metric_list"][1]["aggregation"] = "median"


def _no_metrics_list(results, samples):
    _raise_drop_f1(results, samples)
    for sample in samples:
        sample["metrics"] = []


def _reported_text(results, samples):
    results["results"]["drop"]["f1,none"] = "0.99"


def _reported_nan(results, samples):
    results["results"]["drop"]["f1,none"] = float("nan")


def _relabelled_multiple_choice(results, samples):
    results["configs"]["toy_mc"]["output_type"] = "loglikelihood"
    results["results"]["toy_mc"]["acc,none"] = results["results"]["toy_mc"]["acc_norm,none"] = 1.0
    for sample in samples:
        sample["acc"] = sample["acc_norm"] = 1.0


def _values_as_text(results, samples):
    _raise_drop_f1(results, samples)
    for sample in samples:
        sample["f1"] = str(sample["f1"]) if sample["f1"] == 0 else sample["f1"]


def _values_as_empty_lists(results, samples):
    _raise_drop_f1(results, samples)
    for sample in samples:
        sample["f1"] = (
            [] if sample["f1"] == 0 else sample["f1"]
        )  # a list under a plain mean: not IFEval's flatten


SOFTENING_FIELDS = {
    # case: (task, edit, [(rule, file, needle of the line: in results.json, or "log:<line>")])
    "aggregation_median": ("drop", _median, [("LB716", "results", '"aggregation": "median"')]),
    "empty_metrics_list": ("drop", _no_metrics_list, [("LB709", "results", '"f1,none": 0.99')]),
    "failing_samples_logged_as_text": (
        "drop",
        _values_as_text,
        [("LB702", "log", 2), ("LB709", "results", '"f1,none": 0.99')],
    ),
    "failing_samples_logged_as_empty_lists": (
        "drop",
        _values_as_empty_lists,
        [("LB702", "log", 2), ("LB709", "results", '"f1,none": 0.99')],
    ),
    "reported_as_text": ("drop", _reported_text, [("LB716", "results", '"f1,none": "0.99"')]),
    "reported_nan": ("drop", _reported_nan, [("LB716", "results", '"f1,none": NaN')]),
    "multiple_choice_relabelled_loglikelihood": (
        "toy_mc",
        _relabelled_multiple_choice,
        [("LB702", "log", 1), ("LB708", "log", None), ("LB709", "results", '"acc,none": 1.0')],
    ),
}


@pytest.mark.parametrize("case", sorted(SOFTENING_FIELDS))
def test_a_field_the_submitter_writes_cannot_switch_a_check_off(tmp_path, case):
    name, edit, expected = SOFTENING_FIELDS[case]
    task = (
        hl.drop_task(hl.SPEC_RUN_PREDICTIONS, hl.SPEC_RUN_GOLDS, until=["\n\n"])
        if name == "drop"
        else hl.choice_task("toy_mc", 20, seed=5)
    )
    results = hl.results_for([task])
    edit(results, task.samples)
    paths = hl.write_run(tmp_path, [task], results)
    text = paths["results"].read_text(encoding="utf-8")
    result = audit(tmp_path, paths["results"])
    found = {(f.rule, Path(f.file).name, f.line) for f in result.findings}
    assert not result.ok(), found  # an error: the verdict fails
    for rule, where, at in expected:
        if where == "results":
            line = text[: text.index(at)].count("\n") + 1
            assert (rule, paths["results"].name, line) in found, found
        else:
            assert any(
                f[0] == rule and f[1] == paths[name].name and at in (None, f[2]) for f in found
            ), found


def test_a_loglikelihood_task_is_scored_by_is_greedy(tmp_path):
    """lm-eval's loglikelihood tasks log acc as whether the continuation was greedy: recomputed, not trusted."""
    task = hl.Task("toy_ll", {"output_type": "loglikelihood", "metric_list": [{"metric": "acc"}]})
    for doc_id, greedy in enumerate([True, False, True, "True", "False"]):
        sample = {
            "doc_id": doc_id,
            "doc": {"text": f"text {doc_id}"},
            "target": " end",
            "arguments": {"gen_args_0": {"arg_0": f"text {doc_id}", "arg_1": " end"}},
            "resps": [[["-1.5", greedy]]],
            "filtered_resps": [["-1.5", greedy]],
            "filter": "none",
            "metrics": ["acc"],
            "acc": 1.0 if greedy in (True, "True") else 0.0,
        }
        hl.with_hashes(sample)
        task.samples.append(sample)
    paths = hl.write_run(tmp_path, [task])
    assert audit(tmp_path, paths["results"]).findings == []
    task.samples[1]["acc"] = 1.0  # not greedy, yet logged as right
    paths = hl.write_run(tmp_path / "tampered", [task])
    found = rules(audit(tmp_path / "tampered", paths["results"]))
    assert ("LB708", paths["toy_ll"].name, 2) in found and any(
        rule == "LB709" for rule, _, _ in found
    )


def test_a_metric_lm_eval_aggregates_by_default_otherwise_is_lb716_not_a_per_sample_error(tmp_path):
    """wikitext's metric_list names no aggregation: lm-eval's registry gives its perplexities their own. Each is
    one LB716 (a maintainer may warn it), not an LB702 for every sample's [log-likelihood, words] pair."""
    task = hl.Task(
        "wikitext",
        {
            "output_type": "loglikelihood_rolling",
            "metric_list": [
                {"metric": "word_perplexity"},
                {"metric": "byte_perplexity"},
                {"metric": "bits_per_byte"},
            ],
        },
    )
    for doc_id, (ll, words) in enumerate([(-100.0, 50), (-200.0, 80)]):
        sample = {
            "doc_id": doc_id,
            "doc": {"page": f"page {doc_id}"},
            "target": "",
            "arguments": {"gen_args_0": {"arg_0": f"page {doc_id}"}},
            "resps": [[str(ll)]],
            "filtered_resps": [str(ll)],
            "filter": "none",
            "metrics": ["word_perplexity", "byte_perplexity", "bits_per_byte"],
            "word_perplexity": [ll, words],
            "byte_perplexity": [ll, 6 * words],
            "bits_per_byte": [ll, 6 * words],
        }
        task.samples.append(hl.with_hashes(sample))
    results = hl.results_for([task])
    results["results"]["wikitext"].update(
        {"word_perplexity,none": 10.1, "byte_perplexity,none": 1.46, "bits_per_byte,none": 0.54}
    )
    paths = hl.write_run(tmp_path, [task], results)
    found = rules(audit(tmp_path, paths["results"]))
    assert [rule for rule, _, _ in found] == ["LB716"] * 3, found


# --- several filters, before lm-eval 0.4.7 wrote each sample's filter --------------------------

GSM8K_CORRECT = {
    "strict-match": [True, False, False, True, False, False, True],
    "flexible-extract": [True, True, False, True, True, False, True],
}


def gsm8k_run(tmp_path: Path, ranks: int, named: bool) -> tuple[hl.Task, dict[str, Path]]:
    task = hl.two_filter_task(GSM8K_CORRECT, ranks=ranks, named=named)
    return task, hl.write_run(tmp_path, [task], hl.two_filter_results(task, GSM8K_CORRECT))


@pytest.mark.parametrize("ranks", [1, 2, 3])
@pytest.mark.parametrize("named", [True, False])
def test_a_two_filter_log_of_any_rank_count_is_read_filter_by_filter(tmp_path, ranks, named):
    """A two-rank gsm8k log of lm-eval 0.4.5 (no `filter` field) is not read as position blocks, which
    would give each filter half of the other's samples (LB705 x22 and LB709 on honest output).
    The k-th sample of a doc_id is the k-th filter's, whatever the ranks (lm_eval/evaluator.py, v0.4.0-0.4.6)."""
    _, paths = gsm8k_run(tmp_path, ranks, named)
    result = audit(tmp_path, paths["results"])
    assert rules(result) == []
    [task] = result.tasks
    assert task.filters == {"strict-match": 7, "flexible-extract": 7}


@pytest.mark.parametrize("ranks", [1, 2])
def test_a_gsm8k_cot_log_is_rescored_with_its_own_target_and_pattern(tmp_path, ranks):
    """lm-eval's gsm8k-cot.yaml: the target is `answer.split('####')[-1].strip()` of the doc, strict-match's pattern
    "The answer is (...)."; both are evaluated, so its exact_match is re-derived."""
    task = hl.two_filter_task(GSM8K_CORRECT, ranks=ranks, cot=True)
    paths = hl.write_run(tmp_path, [task], hl.two_filter_results(task, GSM8K_CORRECT))
    assert rules(audit(tmp_path, paths["results"])) == []


def test_a_gsm8k_cot_target_moved_to_the_models_answer_is_lb722(tmp_path):
    """Doc 1's target made the model's wrong answer, its hash and scores redone: the doc's answer still says 1."""
    wrong = {
        "strict-match": [True, True, False, True, False, False, True],
        "flexible-extract": [True, True, False, True, True, False, True],
    }
    task = hl.two_filter_task(GSM8K_CORRECT, cot=True)
    for sample in task.samples:
        if sample["doc_id"] == 1:
            sample["target"], sample["filtered_resps"] = "1001", ["1001"]
            sample["resps"] = [[" The answer is 1001."]]
            hl.with_hashes(sample)
            sample["exact_match"] = 1.0
    paths = hl.write_run(tmp_path, [task], hl.two_filter_results(task, wrong))
    lines = [line for line, sample in enumerate(task.samples, 1) if sample["doc_id"] == 1]
    assert [
        (rule, line)
        for rule, _, line in rules(audit(tmp_path, paths["results"]))
        if rule == "LB722"
    ] == [("LB722", line) for line in lines]


def _numeric_choices_task(edited_doc: int | None = None) -> hl.Task:
    """Docs whose doc_to_choice field holds numbers, logged as lm-eval writes them (delimiter and str of each),
    scores consistent; `edited_doc`'s first continuation changed to " 99", its hashes redone."""
    task = hl.choice_task("mc", 4, seed=3)
    for sample in task.samples:
        count = len(sample["doc"]["choices"])
        sample["doc"]["choices"] = list(range(10, 10 + count))
        for index, request in enumerate(sample["arguments"].values()):
            request["arg_1"] = " " + str(
                10 + index if sample["doc_id"] != edited_doc or index else 99
            )
        hl.with_hashes(sample)
        lls = [float(pair[0]) for pair in sample["filtered_resps"]]
        best = lls.index(max(lls))  # every choice two characters long: acc_norm picks the same
        sample["acc"] = sample["acc_norm"] = 1.0 if best == sample["doc"]["label"] else 0.0
    return task


def test_numbers_as_choices_are_traced_as_lm_eval_writes_them(tmp_path):
    """A choice that is no string is written as str() writes it: an honest log passes, an edited request is
    LB722 at its line (never an internal error)."""
    honest = _numeric_choices_task()
    paths = hl.write_run(tmp_path / "honest", [honest])
    assert rules(audit(tmp_path / "honest", paths["results"])) == []
    edited = _numeric_choices_task(edited_doc=2)
    paths = hl.write_run(tmp_path / "edited", [edited])
    assert [
        (rule, line) for rule, _, line in rules(audit(tmp_path / "edited", paths["results"]))
    ] == [("LB722", 3)]


def _edit_gsm8k_sample(paths, task, index: int, **fields) -> int:
    """Rewrite one sample of the gsm8k log in place (hashes untouched: none covers these fields); its line."""
    lines = paths["gsm8k"].read_text(encoding="utf-8").splitlines(keepends=True)
    lines[index] = json.dumps({**task.samples[index], **fields}, ensure_ascii=False) + "\n"
    paths["gsm8k"].write_text("".join(lines), encoding="utf-8")
    return index + 1


@pytest.mark.parametrize("named", [True, False])
def test_a_gsm8k_answer_flipped_to_right_is_rescored(tmp_path, named):
    """strict-match's exact_match edited 0 -> 1 with the aggregate recomputed: lm-eval scores it from the
    filtered answer and the target ("[invalid]" against 1 here), so it is LB708."""
    task, paths = gsm8k_run(tmp_path, 1, named)
    line = _edit_gsm8k_sample(paths, task, 1, exact_match=1.0)
    assert ("LB708", paths["gsm8k"].name, line) in rules(audit(tmp_path, paths["results"]))


def test_a_filtered_answer_that_is_not_its_filters_is_lb719(tmp_path):
    """strict-match's filtered answer replaced by flexible-extract's (so exact_match 1 follows from it): the
    harness's regex makes "[invalid]" of " The answer is 1"."""
    task, paths = gsm8k_run(tmp_path, 1, named=True)
    line = _edit_gsm8k_sample(paths, task, 1, filtered_resps=["1"], exact_match=1.0)
    found = rules(audit(tmp_path, paths["results"]))
    assert ("LB719", paths["gsm8k"].name, line) in found and (
        "LB708",
        paths["gsm8k"].name,
        line,
    ) not in found


@pytest.mark.parametrize("ranks", [1, 2])
def test_a_sample_missing_from_one_filter_of_an_unnamed_log_is_still_missing(tmp_path, ranks):
    """Rank 0's flexible-extract sample of doc 0 deleted: the doc's one sample counts for the first filter,
    so the second filter is short of it (LB705, LB706), whichever block lost it."""
    task, paths = gsm8k_run(tmp_path, ranks, named=False)
    lines = paths["gsm8k"].read_text(encoding="utf-8").splitlines(keepends=True)
    second = [i for i, s in enumerate(task.samples) if s["doc_id"] == 0][1]
    paths["gsm8k"].write_text("".join(lines[:second] + lines[second + 1 :]), encoding="utf-8")
    result = audit(tmp_path, paths["results"])
    found = {(f.rule, f.json_path) for f in result.findings}
    assert ("LB706", "$['n-samples'].gsm8k.effective") in found
    [missing] = [f for f in result.findings if f.rule == "LB705"]
    assert "gsm8k (filter flexible-extract): 1 of 7 documents have no sample" in missing.message
    assert "doc_ids: 0" in missing.message


def test_a_doc_logged_more_often_than_there_are_filters_is_logged_twice(tmp_path):
    task, paths = gsm8k_run(tmp_path, 2, named=False)
    lines = paths["gsm8k"].read_text(encoding="utf-8").splitlines(keepends=True)
    paths["gsm8k"].write_text("".join(lines + lines[:1]), encoding="utf-8")
    result = audit(tmp_path, paths["results"])
    twice = [f for f in result.findings if f.rule == "LB705" and f.file.endswith(".jsonl")]
    assert [(f.line, f.message) for f in twice] == [
        (len(lines) + 1, "gsm8k (filter flexible-extract): doc_id 0 is logged twice")
    ]


@pytest.mark.parametrize("dropped", [["acc_norm,none"], ["acc,none", "acc_norm,none"]])
@pytest.mark.parametrize("from_config", [False, True])
def test_a_metric_taken_out_of_the_results_entry_is_found(tmp_path, dropped, from_config):
    """acc_norm deleted from a weak subtask's results entry takes it out of its group's pool (lm-eval
    pools each metric over the tasks that have it), so the task's row is a finding; the config's
    metric_list cannot vouch for the metric, as the submitter edits it as easily."""
    task, paths = mc_run(tmp_path)
    data = json.loads(paths["results"].read_text(encoding="utf-8"))
    for key in dropped:
        del data["results"]["toy_mc"][key]
    if from_config:
        names = {key.partition(",")[0] for key in dropped}
        config = data["configs"]["toy_mc"]
        config["metric_list"] = [
            item for item in config["metric_list"] if item["metric"] not in names
        ]
    paths["results"].write_text(json.dumps(data, indent=2), encoding="utf-8")
    result = audit(tmp_path, paths["results"])
    found = sorted((f.rule, f.message) for f in result.findings)
    assert found == [
        (
            "LB709",
            f"toy_mc: the results file reports no {key.partition(',')[0]}, but the samples log "
            "it; lm-eval reports every metric its samples give",
        )
        for key in sorted(dropped)
    ]


# --- IFEval: the prompt level is all() of the instruction level -----------------------------------------

# An instruction whose outcome the replay does not settle (nltk's punkt counts the sentences): the levels are
# held to each other alone.
NOT_REPLAYED = (
    "length_constraints:number_sentences",
    {"num_sentences": 3, "relation": "less than"},
)


def ifeval_run(tmp_path: Path, outcomes: list[list[bool]], edit=None) -> dict[str, Path]:
    """An IFEval log whose docs list instructions the replay does not settle; `edit(samples)` tampers before the
    results file is written, so its aggregates are recomputed from the tampered samples, as a careful submitter
    would."""
    task = hl.ifeval_task(outcomes)
    for sample, listed in zip(task.samples, outcomes, strict=True):
        sample["doc"]["instruction_id_list"] = [NOT_REPLAYED[0]] * len(listed)
        sample["doc"]["kwargs"] = [dict(NOT_REPLAYED[1]) for _ in listed]
        hl.with_hashes(sample)
    if edit:
        edit(task.samples[1])
    return hl.write_run(tmp_path, [task])


def where(result) -> list[tuple[str, object]]:
    return sorted(
        (f.rule, f.line if f.file.endswith(".jsonl") else "results") for f in result.findings
    )


def test_an_honest_ifeval_log_has_consistent_levels(tmp_path):
    paths = ifeval_run(tmp_path, [[True, True], [True, False], [False], []])
    assert where(audit(tmp_path, paths["results"])) == []


@pytest.mark.parametrize(
    "outcomes, found",
    [
        ([True, True], [("LB708", 2), ("LB709", "results")]),  # an instruction flipped to pass
        (
            [True],
            [("LB708", 2), ("LB708", 2), ("LB709", "results")],
        ),  # a failed one dropped: too short, too
    ],
)
def test_an_instruction_level_edited_with_its_aggregate_is_found(tmp_path, outcomes, found):
    """An instruction flipped to pass, with the instruction-level aggregate recomputed, leaves
    prompt_level_strict_acc False beside an all-True list, and that is a finding."""

    def tamper(sample):
        sample["inst_level_strict_acc"] = outcomes

    paths = ifeval_run(tmp_path, [[True, True], [True, False], [False]], tamper)
    result = audit(tmp_path, paths["results"])
    assert where(result) == found
    prompt = [f for f in result.findings if f.rule == "LB708" and "prompt_level" in f.message]
    assert prompt[0].message == (
        "leaderboard_ifeval doc_id 1: prompt_level_strict_acc is logged as 0, but "
        "all() of its inst_level_strict_acc gives 1.0"
    )


@pytest.mark.parametrize(
    "edit, problem",
    [
        (
            lambda sample: sample["doc"].pop("instruction_id_list"),
            "the doc has no instruction_id_list",
        ),
        (
            lambda sample: sample["doc"].update(instruction_id_list="rule:0,rule:1"),
            "the doc has no instruction_id_list",
        ),
        (
            lambda sample: sample.update(inst_level_strict_acc=[-1, 2]),
            "an outcome is neither a pass nor a fail",
        ),
    ],
)
def test_an_instruction_level_that_cannot_be_held_to_its_doc_is_lb708(tmp_path, edit, problem):
    """Padding the list and deleting (or retyping) the doc's instruction_id_list does not skip the length
    check, and outcomes of -1 and 2 do not average as passes: both are LB708."""

    def tamper(sample):
        edit(sample)
        hl.with_hashes(sample)

    paths = ifeval_run(tmp_path, [[True, True], [True, False], [False]], tamper)
    result = audit(tmp_path, paths["results"])
    [finding] = [
        f for f in result.findings if f.rule == "LB708" and "inst_level_strict_acc:" in f.message
    ]
    assert problem in finding.message and finding.line == 2


LOOSE_BELOW_STRICT = {"inst_level_loose_acc": [False, True], "prompt_level_loose_acc": False}
FLIPPED_TO_PASS = [("LB708", 2)] * 4 + [
    ("LB709", "results")
] * 2  # each level's outcome, prompt level, aggregate


def respond(text: str, **edit) -> dict:
    return {"resps": [[text]], "filtered_resps": [text], **edit}


@pytest.mark.parametrize(
    "instruction, kwargs, edit, found",
    [
        # the replay: lm-eval's checker on the response gives a fail, logged as a pass at both levels
        (
            "length_constraints:number_words",
            {"num_words": 40, "relation": "at least"},
            {},
            FLIPPED_TO_PASS,
        ),
        ("punctuation:no_comma", {}, respond("A few, words."), FLIPPED_TO_PASS),
        ("punctuation:no_comma", {}, respond("A few words."), []),
        # loose is logged a fail where the checker passes it
        (
            "length_constraints:number_words",
            {"num_words": 40, "relation": "less than"},
            LOOSE_BELOW_STRICT,
            [("LB708", 2), ("LB708", 2), ("LB709", "results")],
        ),
        # not replayed (nltk's punkt), but the same twice: loose tries the response as it is, so it passes too
        NOT_REPLAYED + (LOOSE_BELOW_STRICT, [("LB708", 2)]),
        # langdetect is unseeded: the same text can be told two languages, so strict and loose may disagree
        ("language:response_language", {"language": "de"}, LOOSE_BELOW_STRICT, []),
        ("change_case:english_lowercase", {}, respond("a few words.", **LOOSE_BELOW_STRICT), []),
        ("change_case:english_capital", {}, respond("A FEW WORDS.", **LOOSE_BELOW_STRICT), []),
        # ... but its case test comes first, and settles a response with a capital letter
        ("change_case:english_lowercase", {}, {}, FLIPPED_TO_PASS),
        # a kwarg of 0 is dropped ({k: v ... if v}) and drawn at random, separately for strict and loose
        ("length_constraints:number_words", {"num_words": 0}, LOOSE_BELOW_STRICT, []),
        # ... and so is one the doc leaves null (as in honest runs of lm-eval 0.4.9.2)
        (
            "detectable_format:multiple_sections",
            {"section_spliter": "Day", "num_sections": None},
            respond("Day 1\nThe sea.\n\nDay 2\nThe salt.", **LOOSE_BELOW_STRICT),
            [],
        ),
        # an empty response follows nothing, strict and loose alike, whatever the instruction
        ("language:response_language", {"language": "de"}, respond(" \n"), FLIPPED_TO_PASS),
    ],
    ids=[
        "a fail logged as a pass",
        "a comma under no_comma",
        "no comma under no_comma",
        "loose below the checker",
        "loose below strict",
        "langdetect's instruction",
        "english_lowercase (langdetect)",
        "english_capital (langdetect)",
        "english_lowercase on capitals",
        "a dropped kwarg",
        "a null kwarg",
        "an empty response passes",
    ],
)
def test_ifeval_outcomes_the_harness_cannot_give(tmp_path, instruction, kwargs, edit, found):
    """Outcomes lm-eval 0.4.9.2/0.4.13 cannot log: a loose outcome failed beside a strict pass, a
    whitespace response marked as following its instructions, and outcomes flipped to pass (a no_comma beside a
    comma), each with the aggregates redone."""
    task = hl.ifeval_task([[True, True], [True, True], [False]], loose=True)
    sample = task.samples[1]
    sample["doc"]["instruction_id_list"][0] = instruction
    sample["doc"]["kwargs"][0] = kwargs
    sample.update(edit)
    hl.with_hashes(sample)
    paths = hl.write_run(tmp_path, [task])
    assert where(audit(tmp_path, paths["results"])) == found


def test_a_flipped_instruction_is_named_at_its_outcome(tmp_path):
    task = hl.ifeval_task([[True, True], [True, False], [False]], loose=True)
    task.samples[1]["inst_level_strict_acc"] = [True, True]
    task.samples[1]["prompt_level_strict_acc"] = True
    paths = hl.write_run(tmp_path, [task])
    findings = [
        f for f in audit(tmp_path, paths["results"]).findings if f.json_path.endswith("[1]")
    ]
    assert [(f.rule, f.line, f.json_path) for f in findings] == [
        ("LB708", 2, "$.inst_level_strict_acc[1]")
    ]
    assert findings[0].message == (
        "leaderboard_ifeval doc_id 1: inst_level_strict_acc[1] ('length_constraints:number_words') is logged as a "
        "pass, but IFEval's checker fails the response on the doc's kwargs"
    )


@pytest.mark.parametrize("instruction", ["length_constraints:number_words_v2", 7])
@pytest.mark.parametrize(
    "ifeval_by, found",
    [("its scorer and name", [("LB708", 2)]), ("its name", [("LB708", 2)]), ("neither", [])],
)
def test_an_instruction_the_registry_lacks(tmp_path, ifeval_by, found, instruction):
    """Renamed to an id lm-eval does not know, an instruction is replayed by nothing; under IFEval's own task
    (its process_results, or its name, even with the scorer's source deleted from the config) no run
    can log it, since the registry raises KeyError. Another task's ids are its own."""
    task = hl.ifeval_task([[True], [False], [True]], loose=True)
    task.samples[1]["doc"]["instruction_id_list"] = [instruction]
    hl.with_hashes(task.samples[1])
    if ifeval_by != "its scorer and name":
        del task.config["process_results"]
    if ifeval_by == "neither":
        task.name = task.config["task"] = "my_instruction_following"
    paths = hl.write_run(tmp_path, [task])
    result = audit(tmp_path, paths["results"])
    assert where(result) == found
    if found:
        assert result.findings[0].json_path == "$.doc.instruction_id_list[0]"
    named = instruction if isinstance(instruction, str) else "(not text)"
    assert any(f"{named} (2)" in note for note in result.tasks[0].notes)


@pytest.mark.parametrize("response", [None, 7, ["A few words."]])
def test_an_ifeval_response_that_is_not_text(tmp_path, response):
    """lm-eval's IFEval checks generated text and logs it as text: a response of another type would leave the
    replay nothing to settle, so it is a finding of its own and a flipped outcome beside it cannot pass."""
    task = hl.ifeval_task([[True], [False], [True]], loose=True)
    task.samples[1].update(
        {
            "filtered_resps": [response],
            "inst_level_strict_acc": [True],
            "prompt_level_strict_acc": True,
        }
    )
    hl.with_hashes(task.samples[1])
    paths = hl.write_run(tmp_path, [task])
    [finding] = [
        f for f in audit(tmp_path, paths["results"]).findings if f.json_path == "$.filtered_resps"
    ]
    assert (finding.rule, finding.line) == ("LB708", 2) and "not text" in finding.message


@pytest.mark.parametrize(
    "kwargs, path, reason",
    [
        (None, "$.doc.kwargs[0]", "its kwargs entry is not an object"),
        (
            {"num_words": "40", "relation": "less than"},
            "$.doc.kwargs[0]",
            "num_words is str, not a number",
        ),
        (
            {"num_words": 40, "relation": "more than"},
            "$.doc.kwargs[0]",
            "relation is 'more than', not 'less than' or",
        ),
        (
            {"num_words": 40, "relation": "less than", "strict": True},
            "$.doc.kwargs[0]",
            "takes no kwarg 'strict'",
        ),
        ("short", "$.doc.kwargs", "has no kwargs entry"),
    ],
)
def test_kwargs_the_harness_cannot_build_a_checker_from(tmp_path, kwargs, path, reason):
    """Kwargs the harness rejects (a count written as text, an unknown relation) would make the replay settle
    nothing, so a flipped outcome could pass; no run can log such a doc, so it is a finding."""
    task = hl.ifeval_task([[True], [False], [True]], loose=True)
    doc = task.samples[1]["doc"]
    if kwargs == "short":
        doc["kwargs"] = []
    else:
        doc["kwargs"][0] = kwargs
    task.samples[1].update({"inst_level_strict_acc": [True], "prompt_level_strict_acc": True})
    hl.with_hashes(task.samples[1])
    paths = hl.write_run(tmp_path, [task])
    [finding] = [
        f for f in audit(tmp_path, paths["results"]).findings if f.json_path.startswith("$.doc")
    ]
    assert (finding.rule, finding.line, finding.json_path) == ("LB708", 2, path)
    assert reason in finding.message
    assert "so no run logged this doc" in f"{finding.message} {finding.details}"


def replay_reads(sample: dict) -> int:
    """The characters replaying one sample's instructions reads, as the replay asks its budget for them."""
    from validator.harness import ifeval

    asked: list[int] = []
    for instruction, kwargs in zip(
        sample["doc"]["instruction_id_list"], sample["doc"]["kwargs"], strict=True
    ):
        ifeval.replay_explained(
            instruction, kwargs, sample["filtered_resps"][0], lambda n: asked.append(n) or True
        )
    return sum(asked)


def test_ifeval_past_the_replay_bounds_is_not_audited(tmp_path, monkeypatch):
    """The submitter writes the responses' length: past the replay's budget, the levels are LB716."""
    from validator.audit import work_budget

    task = hl.ifeval_task([[True], [False], [True]], loose=True)
    first_two = sum(replay_reads(sample) for sample in task.samples[:2])
    monkeypatch.setattr(work_budget, "REPLAY_BUDGET", first_two)
    paths = hl.write_run(tmp_path, [task])
    result = audit(tmp_path, paths["results"])
    assert sorted((f.rule, f.json_path) for f in result.findings) == [
        ("LB716", f"$.results.leaderboard_ifeval['{metric},none']")
        for metric in (
            "inst_level_loose_acc",
            "inst_level_strict_acc",
            "prompt_level_loose_acc",
            "prompt_level_strict_acc",
        )
    ]
    assert "IFEval: 1 instruction outcome(s) past the replay's bounds" in result.findings[0].message


@pytest.mark.parametrize(
    "keywords, found, message",
    [
        (
            ["z" * 201],
            [("LB716", "results")] * 2,
            "IFEval: 1 outcome(s) with a pattern over 200 characters",
        ),
        (
            [f"z{n}" for n in range(17)],
            [("LB716", "results")] * 2,
            "IFEval: 1 outcome(s) with a list of over 16 words",
        ),
        (
            ["(unclosed"],
            [("LB708", 2)],
            "instruction 0 ('keywords:existence') has a pattern Python's re does not compile",
        ),
    ],
    ids=["a keyword over 200 characters", "17 keywords", "a keyword re does not compile"],
)
def test_a_flipped_keyword_outcome_past_the_replay_is_never_a_note(
    tmp_path, keywords, found, message
):
    """A keywords:existence outcome flipped to pass, the levels and aggregates redone: where the replay cannot
    settle it for its own bounds the levels are not audited; where the harness would raise, no run logged it."""
    task = hl.ifeval_task([[True], [True]])
    for sample, words in zip(task.samples, (["words"], keywords), strict=True):
        sample["doc"]["instruction_id_list"] = ["keywords:existence"]
        sample["doc"]["kwargs"] = [{"keywords": words, "num_words": None, "relation": None}]
        sample.update({"resps": [["A few words."]], "filtered_resps": ["A few words."]})
        for key in ("doc_hash", "prompt_hash", "target_hash"):
            sample.pop(key)
        hl.with_hashes(sample)
    paths = hl.write_run(tmp_path, [task])
    result = audit(tmp_path, paths["results"])
    assert where(result) == found
    assert message in result.findings[0].message


def test_the_replay_budget_is_the_runs_so_more_logs_share_it(tmp_path, monkeypatch):
    """A second log adds nothing to the work a run may do: its replays draw on what the first left."""
    from validator.audit import work_budget

    first = hl.ifeval_task([[True], [False], [True]])
    one_log = sum(replay_reads(sample) for sample in first.samples)
    monkeypatch.setattr(work_budget, "REPLAY_BUDGET", one_log + replay_reads(first.samples[0]))
    second = hl.ifeval_task([[True], [False], [True]])
    second.name = second.config["task"] = "ifeval"
    paths = hl.write_run(tmp_path, [first, second])
    findings = audit(tmp_path, paths["results"]).findings
    [task] = {f.json_path.split("[")[0] for f in findings}  # the log audited second
    assert sorted((f.rule, f.json_path) for f in findings) == [
        ("LB716", f"{task}['{metric},none']")
        for metric in ("inst_level_strict_acc", "prompt_level_strict_acc")
    ]
    assert "IFEval: 2 instruction outcome(s) past the replay's bounds" in findings[0].message


@pytest.mark.parametrize(
    "drop_last, expected",
    [
        (False, {("LB706", "$['n-samples'].toy_mc")}),
        (
            True,
            {
                ("LB706", "$['n-samples'].toy_mc"),
                ("LB705", "$['n-samples'].toy_mc"),
                ("LB704", None),
            },
        ),
    ],
)
def test_without_effective_the_log_is_held_to_what_the_limit_gives_of_original(
    tmp_path, drop_last, expected
):
    """n-samples.effective deleted: LB706 says so, and coverage still counts against original (40, no limit)."""
    task, paths = mc_run(tmp_path)
    results = json.loads(paths["results"].read_text(encoding="utf-8"))
    del results["n-samples"]["toy_mc"]["effective"]
    paths["results"].write_text(json.dumps(results, indent=2), encoding="utf-8")
    if drop_last:
        edit_log(paths["toy_mc"], lambda lines: lines[:-1])
    findings = audit(tmp_path, paths["results"]).findings
    found = {
        (f.rule, f.json_path if f.rule != "LB704" else None) for f in findings if f.rule != "LB709"
    }
    assert found == expected
    if drop_last:
        assert any(
            "39 samples, config.limit of n-samples.original 40 says 40" in f.message
            for f in findings
        )


def test_a_fraction_without_n_samples_fixes_no_count_under_a_profile(tmp_path):
    """lm-eval 0.4.0 and 0.4.1 took int(split * f), and every task the first one's: no count is fixed."""
    task, paths = mc_run(tmp_path)
    results = json.loads(paths["results"].read_text(encoding="utf-8"))
    for key in ("n-samples", "task_hashes", "lm_eval_version"):  # lm-eval before 0.4.3
        del results[key]
    results["config"]["limit"] = 0.1
    paths["results"].write_text(json.dumps(results, indent=2), encoding="utf-8")
    result = audit_files(
        tmp_path,
        paths["results"].relative_to(tmp_path),
        None,
        expectations=ProfileExpectations(split_sizes={"toy_mc": 1172}),
    )
    assert [f.rule for f in result.findings] == []


FILE_SAYS = "n-samples has no entry for it, but the file is lm-eval 0.4.3 or later"
LOG_SAYS = "logs doc_hash, prompt_hash and target_hash, which lm-eval writes from 0.4.3 on"
DATED_SAYS = "is named samples_<task>_<date>.jsonl, as lm-eval names its logs from 0.4.3 on"


@pytest.mark.parametrize(
    "remove, hashed, says",
    [
        (lambda r: r["n-samples"].pop("toy_mc"), True, FILE_SAYS),  # the entry deleted
        (lambda r: r["n-samples"].update(toy_mc=None), True, FILE_SAYS),  # the entry null
        (lambda r: r.pop("n-samples"), True, FILE_SAYS),  # task_hashes still say 0.4.3+
        (
            lambda r: [r.pop("n-samples"), r.pop("task_hashes")],
            True,
            FILE_SAYS,
        ),  # lm_eval_version 0.4.13 says so
        (
            lambda r: [r.pop(k) for k in ("n-samples", "task_hashes", "lm_eval_version")],
            True,
            LOG_SAYS,
        ),  # the log does
        (
            lambda r: [r.pop(k) for k in ("n-samples", "task_hashes", "lm_eval_version")],
            False,
            DATED_SAYS,
        ),  # its name
        (
            None,
            False,
            None,
        ),  # lm-eval before 0.4.3: results.json beside <model args>_<task>.jsonl, no hashes
    ],
)
def test_a_file_of_lm_eval_0_4_3_or_later_cannot_lose_a_tasks_counts(
    tmp_path, remove, hashed, says
):
    """The last 10 of 40 documents dropped, the aggregates and hashes agreeing: without its counts only holes
    below the highest doc_id would be checked. lm-eval 0.4.3 on writes n-samples for every task, and the
    per-sample hashes and the dated log names with them."""
    task, paths = mc_run(tmp_path)
    task.samples = task.samples[:30]
    if remove is None:  # the legacy writer leaves the hashes out itself
        paths = hl.write_legacy_run(tmp_path / "legacy", [task])
    else:
        results = hl.results_for([task])
        remove(results)
        for sample in task.samples if not hashed else ():
            for key in ("doc_hash", "prompt_hash", "target_hash"):
                del sample[key]
        paths = hl.write_run(tmp_path, [task], results)
    findings = [
        f for f in audit(paths["results"].parent, paths["results"]).findings if f.rule == "LB706"
    ]
    assert [says in f"{f.message} {f.details}" for f in findings] == ([True] if says else [])


# --- honest layouts of lm-eval the multiple-choice scorer must read as the harness does ----------------------
# The harness's own winogrande, truthfulqa_mc2 and acc_mutual_info tasks (0.4.3, 0.4.9.2, 0.4.13): honest
# output of each passes.


def _mutual_info_task(layout: str) -> hl.Task:
    """Three choices and acc_mutual_info: lm-eval 0.4.3 logs each choice's request without context right after
    it, without the delimiter ("interleaved"); 0.4.4 on appends them, with it ("appended")."""
    config = {
        "task": "mi",
        "output_type": "multiple_choice",
        "target_delimiter": " ",
        "doc_to_target": "label",
        "doc_to_text": "{{q}}",
        "doc_to_choice": "choices",
        "metric_list": [
            {"metric": m, "aggregation": "mean"} for m in ("acc", "acc_norm", "acc_mutual_info")
        ],
    }
    task = hl.Task("mi", config)
    choices = ["cat", "doggo", "eel"]
    conditional, unconditional = (
        [-1.0, -2.0, -3.0],
        [-5.0, -1.0, -4.0],
    )  # acc: 0; mutual info: 0 (4.0 > 1.0 > -1.0)
    for doc_id, gold in enumerate([0, 1]):
        ctx = f"Which one {doc_id}?"
        if layout == "interleaved":
            calls = [pair for choice in choices for pair in ((ctx, " " + choice), ("", choice))]
            lls = [ll for pair in zip(conditional, unconditional, strict=True) for ll in pair]
        else:
            calls = [(ctx, " " + c) for c in choices] + [("", " " + c) for c in choices]
            lls = conditional + unconditional
        sample = {
            "doc_id": doc_id,
            "doc": {"q": ctx, "choices": choices, "label": gold},
            "target": gold,
            "arguments": {
                f"gen_args_{i}": {"arg_0": c, "arg_1": k} for i, (c, k) in enumerate(calls)
            },
            "resps": [[[str(ll), "False"]] for ll in lls],
            "filtered_resps": [[str(ll), "False"] for ll in lls],
            "filter": "none",
            "metrics": ["acc", "acc_norm", "acc_mutual_info"],
        }
        hl.with_hashes(sample)
        right = 1.0 if gold == 0 else 0.0
        sample.update({"acc": right, "acc_norm": right, "acc_mutual_info": right})
        task.samples.append(sample)
    return task


@pytest.mark.parametrize("layout", ["interleaved", "appended"])
def test_acc_mutual_info_requests_are_split_as_the_harness_splits_them(tmp_path, layout):
    task = _mutual_info_task(layout)
    paths = hl.write_run(tmp_path, [task])
    assert rules(audit(tmp_path, paths["results"])) == []
    task.samples[1]["acc_mutual_info"] = 1.0  # its unconditional log-likelihoods say 0
    paths = hl.write_run(tmp_path / "edited", [task])
    assert ("LB708", paths["mi"].name, 2) in rules(audit(tmp_path / "edited", paths["results"]))


def test_multiple_input_and_process_results_tasks_lbnorm_cannot_score_are_not_audited(tmp_path):
    """A multiple_input layout (the choices in the contexts, the gold doc_to_text's, a function) whose doc is
    not Winogrande's, and a process_results of a task whose docs are not TruthfulQA mc2's: neither is re-scored
    (the real tasks are, tests/unit/test_audit_evasions.py), and neither number passes unaudited (LB716)."""
    wino = hl.scripted_choice_task(
        "winogrande", [True, False, True], choices=("Alice", "Bob", "Bob")
    )
    for (
        sample
    ) in wino.samples:  # two choices alike give two contexts alike, as the harness logs them
        options = sample["doc"]["choices"]
        sample["arguments"] = {
            f"gen_args_{i}": {"arg_0": f"The {o} did it", "arg_1": " in the story."}
            for i, o in enumerate(options)
        }
        sample["target"] = "in the story."  # doc_to_target: the sentence after the blank
        sample["acc_norm"] = (
            1.0 - sample["acc_norm"]
        )  # scored against doc_to_text's gold, not the target
        hl.with_hashes(sample)
    wino.config.update(
        doc_to_choice="def doc_to_choice(doc): ...",
        doc_to_target="def doc_to_target(doc): ...",
        doc_to_text="def doc_to_text(doc): ...",
    )
    mc2 = hl.scripted_choice_task("truthfulqa_mc2", [True, False], metrics=("acc",))
    mc2.config["process_results"] = "def process_results_mc2(doc, results): ..."
    for sample in mc2.samples:
        sample["acc"] = 0.62  # the probability mass of the true answers, not an argmax
    paths = hl.write_run(tmp_path, [wino, mc2], None)
    result = audit(tmp_path, paths["results"])
    results_name = paths["results"].name
    assert rules(result) == [("LB716", results_name, 5), ("LB716", results_name, 10)]
    assert [f.json_path for f in result.findings] == [
        "$.results.winogrande['acc_norm,none']",
        "$.results.truthfulqa_mc2['acc,none']",
    ]
    assert (
        "multiple_input" in result.findings[0].message
        and "process_results" in result.findings[1].message
    )


def test_a_chat_api_prompt_is_hashed_as_the_harness_hashes_it(tmp_path):
    """With apply_chat_template the logged prompt is a one-element list (lm-eval's JsonChatStr); its prompt_hash
    is the hash of that string. It was LB702 ("no prompt") on every honest chat-API row."""
    task = hl.drop_task([" 10"], [[["10"]]])
    sample = task.samples[0]
    sample["arguments"]["gen_args_0"]["arg_0"] = [
        '[{"role": "user", "content": "Passage 0. Question 0?"}]'
    ]
    sample["prompt_hash"] = hl.sha(sample["arguments"]["gen_args_0"]["arg_0"][0])
    paths = hl.write_run(tmp_path, [task])
    assert [r for r, _, _ in rules(audit(tmp_path, paths["results"]))] == []
    sample["prompt_hash"] = hl.sha("another prompt")
    paths = hl.write_run(tmp_path / "edited", [task])
    assert ("LB703", paths["drop"].name, 1) in rules(audit(tmp_path / "edited", paths["results"]))


# --- ways around the checks above ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        {},  # dataset_path EleutherAI/drop
        {
            "dataset_path": "json",
            "process_docs": "def process_docs(dataset):\n    def _process(doc):\n        return "
            "{'answers': get_answers(doc)}\n    return dataset.map(_process)\n",
        },  # a local copy: the harness's utils
    ],
)
def test_drop_answer_fields_taken_out_of_every_doc_are_lb721(tmp_path, config):
    """Golds set to the predictions with answer and validated_answers deleted from every doc (hashes redone):
    lm-eval's DROP keeps them in every doc, so their absence is the finding."""
    task = hl.drop_task([" 10", " Tom Bradley"], [[["10"]], [["Tom Brady"]]])
    task.config.update(config)
    for sample in task.samples:
        del sample["doc"]["answer"], sample["doc"]["validated_answers"]
        hl.with_hashes(sample)
    paths = hl.write_run(tmp_path, [task])
    assert ("LB721", paths["drop"].name, 1) in rules(audit(tmp_path, paths["results"]))


def test_continuations_made_alike_are_not_taken_for_winogrande(tmp_path):
    """Every continuation set to one choice (contexts padded apart) once switched LB722 and the re-scoring off as
    winogrande's layout; that layout's continuation is the target, which this one is not."""
    task = hl.scripted_choice_task("arc_easy", [True, False, True])
    for sample in task.samples:
        sample["arguments"] = {
            key: {"arg_0": f"{args['arg_0']}{' ' * i}", "arg_1": " Alice"}
            for i, (key, args) in enumerate(sample["arguments"].items())
        }
    paths = hl.write_run(tmp_path, [task])
    found = {rule for rule, _, _ in rules(audit(tmp_path, paths["results"]))}
    assert "LB722" in found


def test_stops_taken_out_of_the_requests_are_read_from_the_config(tmp_path):
    task = hl.drop_task([" 1,001,360"], [[["1001360"]]], until=[","])
    del task.samples[0]["arguments"]["gen_args_0"]["arg_1"]["until"]
    paths = hl.write_run(tmp_path, [task])
    assert ("LB720", paths["drop"].name, 1) in rules(audit(tmp_path, paths["results"]))


def test_a_request_with_more_stops_than_lbnorm_searches_is_lb702(tmp_path):
    task = hl.drop_task([" 10"], [[["10"]]], until=[f"stop{i}" for i in range(65)])
    paths = hl.write_run(tmp_path, [task])
    assert ("LB702", paths["drop"].name, 1) in rules(audit(tmp_path, paths["results"]))


def test_several_gold_answers_are_rescored_as_any_of_them(tmp_path):
    """TriviaQA: the target is a list of answers (0.4.13 logs its str()); a sample counts if any matches. It was
    LB702 (0.4.3) or LB708 (0.4.13) on honest output, then a note; `{{answer}}` renders the list, which lm-eval
    reads back with literal_eval, so it is traced and re-scored: a sample that matches none is LB708."""
    task = hl.Task(
        "triviaqa",
        {
            "task": "triviaqa",
            "output_type": "generate_until",
            "doc_to_target": "{{answer}}",
            "generation_kwargs": {"until": ["\n"]},
            "metric_list": [{"metric": "exact_match", "aggregation": "mean", "ignore_case": True}],
        },
    )
    answers = [
        (["Paris", "paris, france"], "Paris"),
        ("['Rome', 'roma']", "ROMA"),
        (["Oslo"], "Bergen"),
    ]
    for doc_id, (target, response) in enumerate(answers):
        sample = {
            "doc_id": doc_id,
            "doc": {"question": f"Capital {doc_id}?", "answer": target},
            "target": target,
            "arguments": {
                "gen_args_0": {"arg_0": f"Q: Capital {doc_id}?", "arg_1": {"until": ["\n"]}}
            },
            "resps": [[response]],
            "filtered_resps": [response],
            "filter": "none",
            "metrics": ["exact_match"],
        }
        task.samples.append(hl.with_hashes(sample))
        sample["exact_match"] = 1.0  # the third matches none of its answers
    paths = hl.write_run(tmp_path, [task])
    result = audit(tmp_path, paths["results"])
    assert [(r, line) for r, _, line in rules(result) if r != "LB709"] == [("LB708", 3)]
