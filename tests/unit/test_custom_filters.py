"""A maintainer's own task with its own filters: replayed from resps (harness/filters.py), any pattern under RE2.

The run is written as lm-eval 0.4.13 logs a custom generate_until task whose filter_list extracts the letter
in parentheses (`\\([A-D]\\)`) and takes the first response: an honest run audits clean; one whose scored
filtered_resps were edited is LB719; a pattern RE2 cannot run, or a filter lbnorm does not replay, leaves the
numbers LB716 with the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import harness_logs as harness

from validator.audit.auditor import audit_files
from validator.harness.filters import pipeline_of

TASK = "letters_gen"
LOG = f"samples_{TASK}_{harness.DATE}.jsonl"
LETTER = {"function": "regex", "regex_pattern": "\\(([A-D])\\)"}
RESPONSES = [" The answer is (B).", " I pick (C), not (A).", "  Unsure", " (d) or (D)"]
FILTERED = ["B", "C", "[invalid]", "D"]
GOLDS = ["B", "A", "C", "D"]


def custom_task(
    steps: list[dict], filtered: list[str] = FILTERED, responses: list[str] = RESPONSES
) -> harness.Task:
    config = {
        "task": TASK,
        "output_type": "generate_until",
        "generation_kwargs": {"until": ["\n\n"]},
        "doc_to_text": "{{question}}\nAnswer:",
        "doc_to_target": "{{answer}}",
        "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}],
        "filter_list": [{"name": "get-letter", "filter": steps}],
    }
    task = harness.Task(TASK, config)
    for doc_id, (response, value, gold) in enumerate(zip(responses, filtered, GOLDS, strict=True)):
        question = f"Which letter is right in question {doc_id}?"
        sample = {
            "doc_id": doc_id,
            "doc": {"question": question, "answer": gold},
            "target": gold,
            "arguments": {
                "gen_args_0": {"arg_0": f"{question}\nAnswer:", "arg_1": {"until": ["\n\n"]}}
            },
            "resps": [[response]],
            "filtered_resps": [value],
            "filter": "get-letter",
            "metrics": ["exact_match"],
        }
        harness.with_hashes(sample)
        sample["exact_match"] = 1.0 if value == gold else 0.0
        task.samples.append(sample)
    return task


def audited(tmp_path: Path, task: harness.Task):
    results = harness.results_for([task])
    entry = results["results"][TASK]
    for key in list(entry):  # lm-eval reports each metric under its filter's name
        if key != "alias":
            entry[key.replace(",none", ",get-letter")] = entry.pop(key)
    paths = harness.write_run(tmp_path, [task], results)
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    return [(f.rule, Path(f.file).name, f.line) for f in result.findings], result


def test_an_honest_custom_regex_filter_audits_clean(tmp_path):
    found, _ = audited(tmp_path, custom_task([LETTER, {"function": "take_first"}]))
    assert found == []


def test_a_scored_answer_edited_after_the_filter_is_lb719(tmp_path):
    edited = ["B", "A", "[invalid]", "D"]  # doc 1's "C" made the gold "A"
    task = custom_task([LETTER, {"function": "take_first"}], edited)
    found, result = audited(tmp_path, task)
    assert ("LB719", LOG, 2) in found
    [finding] = [f for f in result.findings if f.rule == "LB719"]
    assert "regex '\\\\(([A-D])\\\\)', take_first" in finding.message.replace("\\\\", "\\")


def test_the_other_filters_are_replayed_too(tmp_path):
    steps = [
        {"function": "remove_whitespace"},
        {"function": "uppercase"},
        {"function": "regex", "regex_pattern": "\\(([A-D])\\)", "fallback": "X"},
        {"function": "map", "mapping_dict": {"B": "B", "C": "C", "D": "D"}, "default_value": "?"},
        {"function": "take_first"},
    ]
    honest = [pipeline_of(steps).apply(response) for response in RESPONSES]
    assert honest == ["B", "C", "?", "D"]
    found, _ = audited(tmp_path, custom_task(steps, honest))
    assert found == []


@pytest.mark.parametrize(
    "steps, reason",
    [
        (
            [{"function": "regex", "regex_pattern": "(a)\\1"}, {"function": "take_first"}],
            "its regex holds a back-reference, which RE2 cannot run",
        ),
        (
            [{"function": "multi_choice_regex"}, {"function": "take_first"}],
            "its step 'multi_choice_regex' is not one lbnorm replays",
        ),
        ([LETTER], "it does not take each request's first response once (take_first)"),
    ],
)
def test_a_filter_not_replayed_leaves_its_numbers_not_audited_and_says_why(tmp_path, steps, reason):
    found, result = audited(tmp_path, custom_task(steps))
    assert ("LB716", f"results_{harness.DATE}.json") in {(rule, file) for rule, file, _ in found}
    assert any(reason in f.message for f in result.findings if f.rule == "LB716")


def test_a_doc_to_target_function_is_told_in_one_line_with_the_way_forward(tmp_path):
    """lm-eval writes a function's source into the config; no log replays it."""
    task = custom_task([LETTER, {"function": "take_first"}])
    task.config["doc_to_target"] = "def doc_to_target(doc):\n    return doc['answer']\n"
    found, result = audited(tmp_path, task)
    [message] = {f.message for f in result.findings if f.rule == "LB716"}
    assert "doc_to_target is a Python function no log replays" in message
    assert "--warn LB716" in message and "\n" not in message and len(message) <= 200


def test_a_filter_whose_searches_run_past_the_run_s_budget_is_not_audited(tmp_path, monkeypatch):
    """Counting a submitter's pattern's matches is a search per match, each asked of the run's work budget: past
    it the filter's numbers are LB716, saying so. The harness's own patterns (GSM8K's) are not counted so."""
    from validator.audit import work_budget
    from validator.harness.linear_regex import compile_linear

    # its parse and compile are asked for too, about 281,000 characters of the 300,000: the 19,000 left are
    # less than the first response's searches read
    compile_linear.cache_clear()
    monkeypatch.setattr(work_budget, "REPLAY_BUDGET", 300_000)
    steps = [{"function": "regex", "regex_pattern": "a(?:.*X)?"}, {"function": "take_first"}]
    task = custom_task(steps, filtered=["a"] * 4, responses=[" a" * 2_000] * 4)
    found, result = audited(tmp_path, task)
    assert ("LB716", f"results_{harness.DATE}.json") in {(rule, file) for rule, file, _ in found}
    assert any("searches run past the run's work budget" in f.message for f in result.findings)
    assert pipeline_of(steps).counts_matches  # type: ignore[union-attr]
    gsm8k = [
        {"function": "regex", "regex_pattern": "#### (\\-?[0-9\\.\\,]+)"},
        {"function": "take_first"},
    ]
    assert not pipeline_of(gsm8k).counts_matches  # type: ignore[union-attr]


def test_a_number_filter_over_long_honest_answers_is_asked_for_its_searches_alone():
    """A number filter over a 20 kB chain of thought with 1,500 numbers: its searches stop with their matches
    (pattern_shape.reads_far), so past the passes its engine is asked for at the start (linear_regex.py:
    _PASSES_BASE, for a small pattern), each is asked of the budget for its call alone, and its match's
    group for the match's length."""
    import re

    from validator.harness.linear_regex import _PASSES_BASE, compile_linear
    from validator.harness.read_budget import SEARCH_COST, reading

    answer = " ".join(f"step {n} gives {n * 7}, then" for n in range(750))
    compiled = compile_linear("(-?[0-9]+)")
    compiled.findall("1")  # its engine with a capturing group compiled
    asked: list[int] = []
    with reading(lambda n: asked.append(n) or True):
        found = compiled.findall(answer)
    assert found == re.findall("(-?[0-9]+)", answer) and len(found) == 1_500
    # (-?[0-9]+): the group, -? and -, + and [0-9] are 5 places; each match's group asked for by its length
    group_passes = 5 * (1 + 1) // 2
    searches = [
        [SEARCH_COST, len(found) * group_passes] for found in re.findall("-?[0-9]+", answer)
    ]
    engine = (_PASSES_BASE + 5 // 2 - 1) * len(answer)
    assert asked == [engine, *(ask for search in searches for ask in search), SEARCH_COST]
