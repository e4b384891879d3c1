"""Each reader on a realistic file of its format (docs/reference/results-formats.md)."""

from __future__ import annotations

import json
import math

import pytest
from support.common import COMMUNITY, EXAMPLE, V1_LIGHTEVAL, V1_LM_EVAL_03, write_json

from validator.core.errors import DataError, FoldedKeys
from validator.core.normalization import score_results
from validator.io.loaders import load_builtin_profile, load_results
from validator.io.readers import LIGHTEVAL, LM_EVAL_03, LM_EVAL_04, read_results

V1 = load_builtin_profile("open-llm-leaderboard-v1")
V2 = load_builtin_profile("open-llm-leaderboard-v2")


@pytest.mark.parametrize(
    "path, fmt, model",
    [
        (EXAMPLE, LM_EVAL_04, "EleutherAI/pythia-1b"),
        (V1_LIGHTEVAL, LIGHTEVAL, "ehartford/WizardLM-33B-V1.0-Uncensored"),
        (V1_LM_EVAL_03, LM_EVAL_03, "ehartford/WizardLM-33B-V1.0-Uncensored"),
        (COMMUNITY, LIGHTEVAL, "example-org/tiny-model"),
    ],
)
def test_format_and_model_are_detected(path, fmt, model):
    results = load_results(path)
    assert (results.format, results.model) == (fmt, model)


def test_lm_eval_04_model_falls_back_to_model_args(tmp_path, example_doc):
    del example_doc["model_name"]
    example_doc["config"]["model_args"] = {"dtype": "float16", "pretrained": "org/from-dict"}
    assert load_results(write_json(tmp_path / "r.json", example_doc)).model == "org/from-dict"


def test_v1_published_card_is_reproduced_by_both_v1_readers():
    """The v1 worked example of docs/reference/normalization.md: 63.65, 83.84, 59.36, 56.8, 77.66, 18.65 -> 59.99; DROP 20.89."""
    for path in (V1_LIGHTEVAL, V1_LM_EVAL_03):
        scores = score_results(V1, load_results(path))
        shown = {k: f"{v:.2f}" for k, v in scores.scores.items()}
        assert shown == {
            "arc": "63.65",
            "hellaswag": "83.84",
            "mmlu": "59.36",
            "truthfulqa": "56.80",
            "winogrande": "77.66",
            "gsm8k": "18.65",
        }
        assert f"{scores.average:.2f}" == "59.99"
        assert (
            f"{scores.benchmarks['drop'].score:.2f}" == "20.89"
            and scores.benchmarks["drop"].retired
        )
        assert "drop" not in scores.scores
    lighteval, lm_eval_03 = (
        score_results(V1, load_results(p)) for p in (V1_LIGHTEVAL, V1_LM_EVAL_03)
    )
    assert lighteval.scores == lm_eval_03.scores


def test_v1_mmlu_is_the_unweighted_mean_of_57_subject_accuracies():
    doc = json.loads(V1_LIGHTEVAL.read_text())
    accs = [v["acc"] for k, v in doc["results"].items() if "hendrycksTest" in k]
    assert len(accs) == 57
    mmlu = score_results(V1, load_results(V1_LIGHTEVAL)).scores["mmlu"]
    assert mmlu == pytest.approx(sum(a * 100 for a in accs) / 57, abs=1e-9)


def test_v1_truthfulqa_nan_counts_as_zero_as_the_leaderboard_did(tmp_path):
    text = V1_LIGHTEVAL.read_text().replace('"mc2": 0.568', '"mc2": NaN')
    path = tmp_path / "r.json"
    path.write_text(text)
    scores = score_results(V1, load_results(path))
    assert scores.scores["truthfulqa"] == 0.0
    assert "counted as 0" in scores.benchmarks["truthfulqa"].subtasks[0].note


def test_v1_file_without_drop_is_fine(tmp_path):
    doc = json.loads(V1_LIGHTEVAL.read_text())
    del doc["results"]["harness|drop|3"]
    scores = score_results(V1, load_results(write_json(tmp_path / "r.json", doc)))
    assert "drop" not in scores.benchmarks and f"{scores.average:.2f}" == "59.99"


def test_lighteval_2_part_keys_and_synthetic_entries():
    results = load_results(COMMUNITY)
    assert sorted(results.entries) == [
        "mmlu:abstract_algebra",
        "mmlu:anatomy",
    ]  # no 'all', no ':_average'
    assert results.entries["mmlu:anatomy"].num_fewshot == 5
    assert math.isnan(results.entries["mmlu:anatomy"].metrics[("acc_stderr", "none")])


def test_lighteval_same_task_from_two_suites_is_ambiguous(tmp_path):
    doc = json.loads(V1_LIGHTEVAL.read_text())
    doc["results"]["lighteval|gsm8k|5"] = {"acc": 0.9}
    with pytest.raises(DataError, match=r"two entries for task 'gsm8k'"):
        load_results(write_json(tmp_path / "r.json", doc))


@pytest.mark.parametrize(
    "first, second",
    [("acc,none", "acc"), ("acc", "acc,none"), ("acc,none", "acc,"), ("acc", "acc,")],
)
def test_keys_that_read_as_one_metric_are_refused_naming_both(first, second):
    doc = {"n-shot": {}, "results": {"t": {first: 0.3, "alias": "t", second: 0.9}}}
    with pytest.raises(FoldedKeys) as caught:
        read_results(doc)
    assert caught.value.path == ("results", "t", second)
    assert f"'{first}' and '{second}'" in str(caught.value)
    assert caught.value.rule == "LB103"


def test_a_stderr_spelled_twice_is_refused_too():
    doc = {
        "n-shot": {},
        "results": {"t": {"acc,none": 0.3, "acc_stderr,none": 0.1, "acc_stderr": 0.2}},
    }
    with pytest.raises(FoldedKeys, match="acc_stderr under filter none"):
        read_results(doc)


def test_keys_of_other_filters_are_other_metrics():
    doc = {"n-shot": {}, "results": {"t": {"acc,none": 0.3, "acc,strict": 0.9, "acc,none,x": 1}}}
    metrics = read_results(doc).entries["t"].metrics
    assert metrics == {("acc", "none"): 0.3, ("acc", "strict"): 0.9, ("acc", "none,x"): 1}


def test_lighteval_task_twice_is_refused_at_the_second_key():
    doc = json.loads(V1_LIGHTEVAL.read_text())
    doc["results"]["arc:challenge|25"] = {"acc_norm": 0.99}
    with pytest.raises(FoldedKeys) as caught:
        read_results(doc)
    assert caught.value.path == ("results", "arc:challenge|25")


def test_one_task_under_its_name_and_its_alias_is_refused(tmp_path):
    doc = json.loads(V1_LIGHTEVAL.read_text())
    doc["results"]["harness|arc_challenge|25"] = {"acc_norm": 0.99}
    results = load_results(write_json(tmp_path / "r.json", doc))
    with pytest.raises(
        FoldedKeys, match="'harness|arc:challenge|25' and 'harness|arc_challenge|25'"
    ):
        score_results(V1, results)


def test_a_refused_fold_names_file_line_and_column(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{"n-shot": {},\n "results": {"t": {"acc,none": 0.3,\n  "acc": 0.9}}}')
    with pytest.raises(FoldedKeys, match=r"r\.json:3:3: results\.t has both 'acc,none' and 'acc'"):
        load_results(path)


# --- lm-eval 0.4.x specifics -------------------------------------------------------------


def test_bare_nan_and_infinity_stderr_tokens_and_na_strings_are_accepted(tmp_path):
    text = EXAMPLE.read_text()
    text = text.replace(
        '"acc_norm_stderr,none": 0.03162125257572558', '"acc_norm_stderr,none": NaN', 1
    )
    text = text.replace('"acc_stderr,none": 0.002893183639282246', '"acc_stderr,none": Infinity', 1)
    path = tmp_path / "r.json"
    path.write_text(text)
    assert text.count("NaN") == 1 and '"N/A"' in text
    assert (
        score_results(V2, load_results(path)).scores
        == score_results(V2, load_results(EXAMPLE)).scores
    )


@pytest.mark.parametrize(
    "token, message",
    [
        (
            "NaN",
            r"leaderboard_mmlu_pro: metric 'acc,none' is nan; a headline metric must be a finite number",
        ),
        ("-Infinity", r"leaderboard_mmlu_pro: metric 'acc,none' is -inf"),
        ('"N/A"', r"leaderboard_mmlu_pro: metric 'acc,none' is 'N/A', expected a number"),
        ("true", r"leaderboard_mmlu_pro: metric 'acc,none' is True, expected a number"),
        (
            "11.361369680851063",
            r"outside \[0, 1\]; raw harness values are fractions, not percentages",
        ),
    ],
)
def test_a_non_finite_or_non_numeric_headline_metric_is_an_error(tmp_path, token, message):
    text = EXAMPLE.read_text().replace('"acc,none": 0.11361369680851063', f'"acc,none": {token}')
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(DataError, match=message):
        score_results(V2, load_results(path))


@pytest.mark.parametrize("style", ["plain (0.4.12+)", "absent", "misleading"])
def test_entries_are_keyed_on_the_dict_key_never_the_alias(tmp_path, example_doc, style):
    for key, entry in example_doc["results"].items():
        if style == "absent":
            entry.pop("alias", None)
        elif style == "misleading":
            entry["alias"] = " - leaderboard_bbh_snarks"
        else:
            entry["alias"] = key
    scores = score_results(V2, load_results(write_json(tmp_path / "r.json", example_doc)))
    assert scores.scores == score_results(V2, load_results(EXAMPLE)).scores


def test_a_missing_metric_names_what_the_entry_has(tmp_path, example_doc):
    entry = example_doc["results"]["leaderboard_gpqa_main"]
    entry["acc,none"] = entry.pop("acc_norm,none")
    example_doc["results"].pop("leaderboard_gpqa")
    with pytest.raises(
        DataError, match=r"leaderboard_gpqa_main has no metric 'acc_norm,none' \(it has: acc,none\)"
    ):
        score_results(V2, load_results(write_json(tmp_path / "r.json", example_doc)))


def test_pooling_uses_effective_n_samples(tmp_path, example_doc):
    from support.common import without_groups

    doc = without_groups(example_doc)
    doc["n-samples"]["leaderboard_gpqa_main"]["effective"] = 100
    scores = score_results(V2, load_results(write_json(tmp_path / "r.json", doc)))
    raws = (0.2727272727272727, 0.2600732600732601, 0.24553571428571427)
    assert scores.benchmarks["gpqa"].pooled_raw == pytest.approx(
        (raws[0] * 198 + raws[1] * 546 + raws[2] * 100) / (198 + 546 + 100), abs=1e-15
    )


# --- files that are not results files ------------------------------------------------------


@pytest.mark.parametrize(
    "content, message",
    [
        ("[1, 2]", r"top level is an array, expected a JSON object with a 'results' object"),
        (
            '{"model": "x"}',
            r"no 'results' object at the top level; tried lm-eval 0.4.x .*lm-eval 0.3 .*lighteval",
        ),
        ('{"results": {"t": {"acc": 0.5}}}', r"match no known format; tried lm-eval 0.4.x"),
        (
            '{"results": {"a": 1}, "n-shot": {}}',
            r"results.a is a number, expected an object of metrics",
        ),
        ('{"results": {}, "x": 1, "x": 2}', r"key 'x' appears twice in one object"),
        ('{"results": {\n  "a": }', r"r\.json:2:8: not valid JSON: Expecting value"),
    ],
)
def test_unreadable_files_give_one_clear_reason(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(DataError, match=message):
        load_results(path)


def test_non_utf8_bytes_name_the_offset(tmp_path):
    path = tmp_path / "r.json"
    path.write_bytes(b'{"results": {"\xff": {}}}')
    with pytest.raises(DataError, match=r"byte offset 14 is not UTF-8"):
        load_results(path)


def test_a_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "r.json"
    path.write_bytes(b"\xef\xbb\xbf" + EXAMPLE.read_bytes())
    assert load_results(path).format == LM_EVAL_04
