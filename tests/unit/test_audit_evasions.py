"""Fields a submitter writes must not switch a re-derivation off.

Each case starts from an honest run (tests/support/harness_logs.py), tells one lie a
submitter who writes every byte could tell, redoes every hash and aggregate
the submitter can redo, and names the findings the audit must give: rule,
file and line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import harness_logs as hl

from validator.audit.auditor import audit_files
from validator.harness.drop_helpers import answers_of

DROP_PREDICTIONS = [" 10", " 7", " Tom Brady", " 3"]
DROP_GOLDS = [
    [["10"]],
    [["11"]],
    [["Tom Brady"]],
    [["4"]],
]  # the second and fourth predictions are wrong


def findings(
    folder: Path, task: hl.Task, results: dict | None = None
) -> list[tuple[str, str, int | None, str]]:
    """(rule, file, line, JSON path) of every finding, with the results rebuilt from the log as a liar would."""
    paths = hl.write_run(folder, [task], results or hl.results_for([task]))
    result = audit_files(folder, paths["results"].relative_to(folder), None)
    return sorted((f.rule, Path(f.file).suffix, f.line, f.json_path) for f in result.findings)


def rehashed(task: hl.Task) -> hl.Task:
    for sample in task.samples:
        hl.with_hashes(sample)
    return task


def test_a_drop_sample_without_em_has_its_f1_rescored(tmp_path):
    task = hl.drop_task(DROP_PREDICTIONS, DROP_GOLDS)
    task.config["metric_list"] = [m for m in task.config["metric_list"] if m["metric"] == "f1"]
    for sample in task.samples:
        del sample["em"]
        sample["f1"], sample["metrics"] = 1.0, ["f1"]
    assert findings(tmp_path, task) == [
        ("LB708", ".jsonl", 2, "$.f1"),
        ("LB708", ".jsonl", 4, "$.f1"),
        ("LB709", ".json", 5, "$.results.drop['f1,none']"),
    ]


def test_a_drop_doc_without_answers_is_scored_against_its_answer_fields(tmp_path):
    task = hl.drop_task(DROP_PREDICTIONS, DROP_GOLDS)
    for sample in task.samples:
        del sample["doc"]["answers"]
        sample["em"] = sample["f1"] = 1.0
    found = findings(tmp_path, rehashed(task))
    assert [f for f in found if f[0] == "LB721"] == [
        ("LB721", ".jsonl", line, "$.doc") for line in (1, 2, 3, 4)
    ]
    assert [f for f in found if f[0] == "LB708"] == [
        ("LB708", ".jsonl", line, f"$.{metric}") for line in (2, 4) for metric in ("em", "f1")
    ]


def test_em_and_f1_beside_acc_do_not_switch_the_log_likelihoods_off(tmp_path):
    task = hl.scripted_choice_task("reading_quiz", [True, False, True, False])
    task.config["metric_list"] += [
        {"metric": "em", "aggregation": "mean"},
        {"metric": "f1", "aggregation": "mean"},
    ]
    for sample in task.samples:
        sample["doc"]["answers"] = [["x"]]
        sample.update(em=1.0, f1=1.0, acc_norm=1.0)
    found = findings(tmp_path, rehashed(task))
    assert [f for f in found if f[0] == "LB708"] == [
        ("LB708", ".jsonl", 2, "$.acc_norm"),
        ("LB708", ".jsonl", 4, "$.acc_norm"),
    ]
    assert (
        "LB702",
        ".jsonl",
        1,
        "$.filtered_resps",
    ) in found  # a DROP-looking sample whose answer is no text


def test_every_filter_the_results_report_is_held_to_the_count(tmp_path):
    """filter_list names only 'x', which holds all four docs; the results report 'none', which holds the two the
    model got right."""
    task = hl.drop_task(DROP_PREDICTIONS, DROP_GOLDS)
    task.config["filter_list"] = [{"name": "x", "filter": [{"function": "take_first"}]}]
    right = [dict(sample) for sample in task.samples if sample["f1"] == 1.0]
    for sample in task.samples:
        sample["filter"] = "x"
    task.samples += right
    results = hl.results_for([task])
    results["results"]["drop"].update({"em,none": 1.0, "f1,none": 1.0})
    results["n-samples"]["drop"] = {"original": 4, "effective": 4}
    assert [f[:2] + f[3:] for f in findings(tmp_path, task, results)] == [
        ("LB705", ".json", "$['n-samples'].drop.effective"),
        ("LB706", ".json", "$['n-samples'].drop.effective"),
    ]


def test_a_take_first_filter_under_another_name_is_replayed(tmp_path):
    task = hl.drop_task(DROP_PREDICTIONS, DROP_GOLDS)
    task.config["filter_list"] = [{"name": "x", "filter": [{"function": "take_first"}]}]
    for sample, golds in zip(task.samples, DROP_GOLDS, strict=True):
        sample.update(filter="x", filtered_resps=[" " + golds[0][0]], em=1.0, f1=1.0)
    results = hl.results_for([task])
    results["results"]["drop"] = {
        "alias": "drop",
        "em,x": 1.0,
        "em_stderr,x": "N/A",
        "f1,x": 1.0,
        "f1_stderr,x": "N/A",
    }
    assert findings(tmp_path, task, results) == [
        ("LB719", ".jsonl", 2, "$.filtered_resps[0]"),
        ("LB719", ".jsonl", 4, "$.filtered_resps[0]"),
    ]


def test_a_process_results_of_its_own_leaves_the_numbers_unaudited(tmp_path):
    task = hl.scripted_choice_task("reading_quiz", [True, False, True, False])
    task.config["process_results"] = (
        "def process_results(doc, results):\n    return {'acc_norm': 1.0}\n"
    )
    for sample in task.samples:
        sample["acc_norm"] = 1.0
    assert findings(tmp_path, task) == [
        ("LB716", ".json", 5, "$.results.reading_quiz['acc_norm,none']")
    ]


def test_truthfulqa_mc2_is_rederived_from_its_log_likelihoods(tmp_path):
    task = hl.truthfulqa_mc2_task([0.2, 0.7, 0.55, 0.9])
    assert findings(tmp_path / "honest", task) == []
    task.samples[0]["acc"] = 0.99
    assert findings(tmp_path / "raised", task) == [
        ("LB708", ".jsonl", 1, "$.acc"),
        ("LB709", ".json", 5, "$.results.truthfulqa_mc2['acc,none']"),
    ]


def test_winogrande_is_rederived_with_the_gold_its_answer_gives(tmp_path):
    task = hl.winogrande_task([True, False, True, False, False])
    assert findings(tmp_path / "honest", task) == []
    task.samples[1]["acc"] = 1.0
    assert findings(tmp_path / "raised", task) == [
        ("LB708", ".jsonl", 2, "$.acc"),
        ("LB709", ".json", 5, "$.results.winogrande['acc,none']"),
    ]


def test_a_multiple_input_log_of_another_task_is_not_audited(tmp_path):
    task = hl.winogrande_task([True, False, True])
    for sample in task.samples:
        del sample["doc"]["option1"]
    assert findings(tmp_path, rehashed(task)) == [
        ("LB716", ".json", 5, "$.results.winogrande['acc,none']")
    ]


def test_a_drop_doc_of_many_golds_keeps_each_once_in_order():
    """Duplicates are dropped in linear time: a doc of 200,000 golds must not take minutes."""
    count = 200_000
    empty = {"day": "", "month": "", "year": ""}
    doc = {
        "answer": {"number": "5", "date": empty, "spans": []},
        "validated_answers": {
            "number": [str(i % (count // 2)) for i in range(count)],
            "date": [empty] * count,
            "spans": [[]] * count,
        },
    }
    answers = answers_of(doc)
    assert answers[:3] == [("5",), ("0",), ("1",)] and len(answers) == count // 2
    assert json.dumps(answers[-1]) == f'["{count // 2 - 1}"]'


def test_a_task_taken_out_of_the_results_is_found_by_its_config_and_log(tmp_path):
    kept, taken = (
        hl.scripted_choice_task("reading_stories", [True, True]),
        hl.scripted_choice_task("reading_quiz", [False, False, True]),
    )
    results = hl.results_for([kept, taken])
    del results["results"]["reading_quiz"]
    for sample in taken.samples:
        del sample["acc_norm"]
        sample["metrics"] = []
    paths = hl.write_run(tmp_path, [kept, taken], results)
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert [(f.rule, f.json_path) for f in result.findings] == [("LB709", "$.configs.reading_quiz")]


def test_a_results_file_posing_as_lm_eval_before_0_4_3_is_held_to_the_count_its_log_shows(tmp_path):
    """No n-samples, task_hashes or version in the file, and the last samples gone; the log's per-sample hashes
    came with lm-eval 0.4.3, which writes the counts."""
    task = hl.drop_task(DROP_PREDICTIONS, DROP_GOLDS)
    task.samples = task.samples[:2]
    results = hl.results_for([task])
    for key in ("n-samples", "task_hashes", "lm_eval_version"):
        del results[key]
    assert findings(tmp_path, task, results) == [("LB706", ".jsonl", 1, None)]


# --- lies that target the checks above ------------------------------------------------------------------------------

GSM8K = {"strict-match": [True, False, True, False], "flexible-extract": [True, False, True, False]}


def gsm8k_findings(
    folder: Path, edit, rehashed: bool = False
) -> list[tuple[str, str, int | None, str]]:
    """`rehashed`: the edit redoes sample hashes, and the results file's task hash is redone after it."""
    task = hl.two_filter_task(GSM8K)
    if rehashed:
        edit(task)
    results = hl.two_filter_results(task, GSM8K)
    edit(task)  # the config the results file holds is this one
    return findings(folder, task, results)


def test_a_process_results_of_its_own_leaves_exact_match_unaudited(tmp_path):
    def own_scorer(task):
        task.config["process_results"] = (
            "def process_results(doc, results):\n    return {'exact_match': 1.0}\n"
        )

    assert gsm8k_findings(tmp_path, own_scorer) == [
        ("LB716", ".json", 5, "$.results.gsm8k['exact_match,strict-match']"),
        ("LB716", ".json", 7, "$.results.gsm8k['exact_match,flexible-extract']"),
    ]


def test_a_generated_answers_gold_untraced_to_its_doc_leaves_exact_match_unaudited(tmp_path):
    def untraced(task):
        task.config["doc_to_target"] = (
            "{{answer.split('####', 1)[-1].strip()}}"  # a split with a limit
        )

    assert [f[0] for f in gsm8k_findings(tmp_path, untraced)] == ["LB716", "LB716"]


@pytest.mark.parametrize(
    "step",
    [
        {"function": "multi_choice_regex", "regex_pattern": "#### (\\-?[0-9\\.\\,]+)"},
        {"function": "regex", "regex_pattern": "#### (\\-?[0-9\\.\\,]+)(?=\\s)"},  # a look-ahead
    ],
    ids=["a filter lbnorm does not replay", "a pattern RE2 cannot run"],
)
def test_a_filter_pipeline_lbnorm_does_not_replay_leaves_its_numbers_unaudited(tmp_path, step):
    def other_pipeline(task):
        task.config["filter_list"] = json.loads(
            json.dumps(task.config["filter_list"])
        )  # not the shared one
        task.config["filter_list"][0]["filter"][0] = step

    assert gsm8k_findings(tmp_path, other_pipeline) == [
        ("LB716", ".json", 5, "$.results.gsm8k['exact_match,strict-match']")
    ]


def test_a_filter_with_a_pattern_of_its_own_is_replayed(tmp_path):
    """Any pattern runs under RE2: a filter edited to its own pattern (trailing blanks allowed) is replayed,
    and the honest log's filtered_resps are what it makes of resps."""

    def other_pattern(task):
        task.config["filter_list"] = json.loads(json.dumps(task.config["filter_list"]))
        task.config["filter_list"][0]["filter"][0]["regex_pattern"] += r"\s*"

    assert gsm8k_findings(tmp_path, other_pattern) == []


def test_truthfulqa_mc2s_scorer_vouches_for_acc_alone(tmp_path):
    task = hl.truthfulqa_mc2_task([0.2, 0.7])
    task.config["metric_list"].append({"metric": "acc_norm", "aggregation": "mean"})
    for sample in task.samples:
        sample["acc_norm"] = 1.0
    assert findings(tmp_path, task) == [
        ("LB716", ".json", 7, "$.results.truthfulqa_mc2['acc_norm,none']")
    ]


def test_winogrande_requests_swapped_with_their_log_likelihoods_are_not_scored_as_right(tmp_path):
    task = hl.winogrande_task([True, False])
    wrong = task.samples[1]
    requests = list(wrong["arguments"].values())
    wrong["arguments"] = {"gen_args_0": requests[1], "gen_args_1": requests[0]}
    wrong["resps"], wrong["filtered_resps"] = wrong["resps"][::-1], wrong["filtered_resps"][::-1]
    wrong["acc"] = 1.0
    found = findings(tmp_path, rehashed(task))
    assert [f for f in found if f[0] == "LB702"] == [("LB702", ".jsonl", 2, "$.filtered_resps")]


def test_a_task_named_drop_is_held_to_the_answer_fields_whatever_its_config_says(tmp_path):
    task = hl.drop_task(DROP_PREDICTIONS, DROP_GOLDS)
    task.config.update(dataset_path="org/drop_mirror")
    for sample, prediction in zip(task.samples, DROP_PREDICTIONS, strict=True):
        for field in ("answer", "validated_answers"):
            del sample["doc"][field]
        sample["doc"]["answers"] = [[prediction.strip()]]
        sample["em"] = sample["f1"] = 1.0
    assert [f[:3] for f in findings(tmp_path, rehashed(task))] == [("LB721", ".jsonl", 1)]


def test_a_target_of_more_digits_than_int_reads_is_a_finding_not_an_internal_error(tmp_path):
    task = hl.scripted_choice_task("quiz", [True, False])
    task.config["doc_to_target"] = "{{answer_index}}"
    task.samples[0]["doc"]["answer_index"] = "9" * 5000
    found = findings(tmp_path, rehashed(task))
    assert ("LB722", ".jsonl", 1) in [f[:3] for f in found] and {f[0] for f in found} <= {
        "LB722",
        "LB709",
    }


# --- metrics the config names ---------------------------------------------------------------------------------------


def test_a_reported_exact_match_the_config_names_no_entry_for_is_unaudited(tmp_path):
    def no_metric_list(task):
        del task.config["metric_list"]

    assert [f[0] for f in gsm8k_findings(tmp_path, no_metric_list)] == ["LB716", "LB716"]


def test_the_math_exemption_is_the_leaderboard_maths_by_name_too(tmp_path):
    """MATH's process_docs pasted into a GSM8K config (and a process_results of its own) claimed the exemption."""

    def math_claimed(task):
        task.config["process_docs"] = '# remove_boxed(last_boxed_only_string(doc["solution"]))\n'
        task.config["process_results"] = (
            "def process_results(doc, results):\n    return {'exact_match': 1.0}\n"
        )

    assert [f[0] for f in gsm8k_findings(tmp_path, math_claimed)] == ["LB716", "LB716"]


def test_a_log_named_as_lm_eval_0_4_3_names_it_whatever_its_date_is_held_to_its_count(tmp_path):
    task = hl.drop_task(DROP_PREDICTIONS, DROP_GOLDS)
    results = hl.results_for([task])
    task.samples = task.samples[:2]
    for key in ("n-samples", "task_hashes", "lm_eval_version"):
        del results[key]
    for sample in task.samples:
        for key in ("doc_hash", "prompt_hash", "target_hash"):
            del sample[key]
    paths = hl.write_run(tmp_path, [task], results, date="20250202T000000")
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert [(f.rule, f.line) for f in result.findings if f.rule == "LB706"] == [("LB706", 1)]


def test_a_gold_among_the_choices_is_that_choice_as_lm_eval_reads_a_string_gold(tmp_path):
    """doc_to_target naming a field keeps the doc's string: lm-eval's gold is choices.index(it), so "1" among
    ["2", "0", "1", "3"] is the third choice. Read as index 1, an honest run was LB708 and a run picking the
    second choice every time passed."""
    task = hl.scripted_choice_task(
        "numquiz", [True, False, True, False], choices=("2", "0", "1", "3"), metrics=("acc",)
    )
    for sample in task.samples:
        gold = int(sample["target"])
        sample["doc"]["answer_index"] = sample["target"] = task.samples[0]["doc"]["choices"][gold]
    task.config["doc_to_target"] = "answer_index"
    assert findings(tmp_path / "honest", rehashed(task)) == []


def test_a_fields_digits_not_among_the_choices_are_no_gold_as_in_lm_eval(tmp_path):
    """doc_to_target naming a field whose string "1" is not among the choices: lm-eval's choices.index fails and
    the gold is -100, so every sample scores 0. Read as index 1, a run claiming the second choice right passed
    and the honest zeros were LB708."""
    task = hl.scripted_choice_task(
        "letters", [False, False, False], choices=("Alice", "Bob", "Carol"), metrics=("acc",)
    )
    for sample in task.samples:
        sample["doc"]["answer_index"] = sample["target"] = "1"
        sample["acc"] = 0.0
    task.config["doc_to_target"] = "answer_index"
    assert findings(tmp_path / "honest", rehashed(task)) == []
    lie = rehashed(task)
    for sample in lie.samples:  # the second choice made the model's best, as read at index 1
        sample["filtered_resps"] = [[-1.0 if i == 1 else -9.0, False] for i in range(3)]
        sample["resps"] = [[pair] for pair in sample["filtered_resps"]]
        sample["acc"] = 1.0
    assert [
        (rule, suffix, line) for rule, suffix, line, _ in findings(tmp_path / "lie", rehashed(lie))
    ] == [
        ("LB708", ".jsonl", 1),
        ("LB708", ".jsonl", 2),
        ("LB708", ".jsonl", 3),
        ("LB709", ".json", 5),
    ]


def test_a_boolean_label_is_an_index_as_in_lm_eval(tmp_path):
    task = hl.scripted_choice_task(
        "yesno", [True, False, True], choices=("no", "yes"), metrics=("acc",)
    )
    for sample in task.samples:
        sample["doc"]["answer_index"] = sample["target"] = bool(int(sample["target"]))
    assert findings(tmp_path, rehashed(task)) == []


# --- metrics taken out of some samples or entries ------------------------------------------------------------------


def test_a_metric_taken_out_of_the_failed_samples_alone_is_no_mean_of_them_all(tmp_path):
    """acc_norm deleted from the samples that failed, the results' mean taken over the rest: every score became
    1.0 with a clean row. lm-eval logs every metric of its task in every sample."""
    task = hl.scripted_choice_task(
        "hellaswag", [True, False, True, False], metrics=("acc", "acc_norm")
    )
    results = hl.results_for([task])
    results["results"]["hellaswag"]["acc_norm,none"] = 1.0  # the mean of the two samples left
    for sample in task.samples:
        if sample["acc_norm"] == 0.0:
            del sample["acc_norm"]
    assert findings(tmp_path, task, results) == [("LB702", ".jsonl", 2, "$")]


def test_a_metric_named_twice_is_scored_with_its_last_entry_as_in_lm_eval(tmp_path):
    """ConfigurableTask overwrites a metric's options entry by entry: a lenient first entry (digits ignored) is
    not what scored the run. lbnorm read the first: the honest run was LB708, the lenient reading passed."""

    def lenient_first(task):
        task.config["metric_list"] = [
            {**hl.GSM8K_EXACT_MATCH, "ignore_numbers": True},
            hl.GSM8K_EXACT_MATCH,
        ]

    assert gsm8k_findings(tmp_path, lenient_first) == []


def test_a_filter_named_twice_is_replayed_with_its_last_pipeline_as_in_lm_eval(tmp_path):
    """Each ensemble writes filtered_resps[name], the last one last: flexible-extract's pipeline under a first
    `strict-match` entry is not what the log holds. lbnorm replayed the first: LB719 on the honest run."""

    def flexible_first(task):
        task.config["filter_list"] = [
            {**hl.GSM8K_FILTER_LIST[1], "name": "strict-match"},
            *hl.GSM8K_FILTER_LIST,
        ]

    assert gsm8k_findings(tmp_path, flexible_first) == []


def test_a_target_of_several_answers_lbnorm_does_not_trace_leaves_exact_match_unaudited(tmp_path):
    """doc_to_target "[{{answer}}]" and every exact_match set to 1: the 'several answers' note came before the
    trace, so the numbers passed with a note where the harness's run of that config scores 0."""

    def bracketed(task):
        task.config["doc_to_target"] = "[{{answer}}]"
        for sample in task.samples:
            sample["target"] = f"[{sample['doc']['answer']}]"
            hl.with_hashes(sample)

    assert [f[0] for f in gsm8k_findings(tmp_path, bracketed, rehashed=True)] == ["LB716", "LB716"]


def test_a_list_of_aliases_traced_to_its_doc_is_rescored_as_any_of_them(tmp_path):
    """TriviaQA's shape: doc_to_target names a list of answers; lm-eval counts a sample if any matches."""

    def aliases(task):
        task.config["doc_to_target"] = "aliases"
        for sample in task.samples:
            sample["doc"]["aliases"] = sample["target"] = ["none of these", sample["doc"]["answer"]]
            hl.with_hashes(sample)

    assert gsm8k_findings(tmp_path, aliases, rehashed=True) == []

    def wrong_aliases(
        task,
    ):  # no alias is the answer, yet the scores say some matched: they are re-scored
        task.config["doc_to_target"] = "aliases"
        for sample in task.samples:
            sample["doc"]["aliases"] = sample["target"] = ["none of these"]
            hl.with_hashes(sample)

    assert {f[0] for f in gsm8k_findings(tmp_path / "lie", wrong_aliases, rehashed=True)} == {
        "LB708",
        "LB709",
    }


def test_values_of_another_type_in_a_config_or_log_are_findings_not_internal_errors(tmp_path):
    """Found by fuzzing type substitutions: each was an unhashable value looked up in a set."""

    def other_types(task):
        task.config["metric_list"] = [{**hl.GSM8K_EXACT_MATCH, "regexes_to_ignore": [{"p": ","}]}]
        task.config["filter_list"] = json.loads(json.dumps(hl.GSM8K_FILTER_LIST))
        task.config["filter_list"][0]["filter"][0]["regex_pattern"] = ["#### (\\-?[0-9\\.\\,]+)"]
        task.config["dataset_path"] = ["gsm8k"]

    assert [
        f[:3] for f in gsm8k_findings(tmp_path, other_types)
    ] == [  # options, then the filter: strict twice
        ("LB716", ".json", 5),
        ("LB716", ".json", 5),
        ("LB716", ".json", 7),
    ]
    choice = hl.scripted_choice_task("listed", [True, False], metrics=("acc",))
    choice.samples[0]["arguments"]["gen_args_1"]["arg_1"] = [" Bob"]
    assert ("LB702", ".jsonl", 1) in [
        f[:3] for f in findings(tmp_path / "choice", rehashed(choice))
    ]


def test_a_metric_the_config_names_taken_out_of_the_results_and_the_samples_is_lb709(tmp_path):
    """A weak MMLU subtask's acc deleted from its results entry and from every sample, its config unchanged: the
    row had no metric at all and was ok, and its group pooled without it. lm-eval scores and reports every
    metric the metric_list names for a multiple-choice task."""
    task = hl.scripted_choice_task("mmlu_world_religions", [False, False, True], metrics=("acc",))
    results = hl.results_for([task])
    del (
        results["results"]["mmlu_world_religions"]["acc,none"],
        results["results"]["mmlu_world_religions"]["acc_stderr,none"],
    )
    for sample in task.samples:
        del sample["acc"]
        sample["metrics"] = []
    assert [(rule, suffix) for rule, suffix, _, _ in findings(tmp_path, task, results)] == [
        ("LB709", ".json")
    ]
