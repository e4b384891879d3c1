"""Run conditions as real runs produce them: `normalize` states what `check` reports, from one implementation.

Files are the official pythia-1b run (and the v1 example) with one condition
changed, the way lm-eval writes it: `--limit`, a subset of tasks, an older
MATH scorer, lm-eval 0.4 names for v1 benchmarks.
"""

from __future__ import annotations

import contextlib
import copy
import json

import pytest
from click.testing import CliRunner
from support.common import write_json

from validator.cli import cli

EXAMPLES = __import__("pathlib").Path(__file__).parents[1] / "examples"
V1_OTHER_HARNESS = EXAMPLES / "negative" / "LB509_lm_eval_04_v1_tasks" / "results.json"
V1_OLD_MMLU = EXAMPLES / "negative" / "LB507_old_mmlu_version_0" / "results.json"
MATH = (
    "algebra",
    "counting_and_prob",
    "geometry",
    "intermediate_algebra",
    "num_theory",
    "prealgebra",
    "precalculus",
)


def invoke(*args: str, stdout_only: bool = False, cwd=None):
    """Run lbnorm in this process from `cwd` (its workspace; the repository by default)."""
    with contextlib.chdir(cwd or EXAMPLES.parents[1]):
        result = CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)
    return result.exit_code, result.stdout if stdout_only else result.output


def normalize_json(path, *options: str) -> tuple[int, dict]:
    code, output = invoke(
        "normalize",
        "--output-format",
        "json",
        *options,
        path.name,
        stdout_only=True,
        cwd=path.parent,
    )
    return code, json.loads(output)


def limited_run(doc: dict) -> dict:
    """What `lm_eval --limit 1` writes: config.limit 1 and one document per task in n-samples."""
    doc["config"]["limit"] = 1
    for counts in doc["n-samples"].values():
        counts["effective"] = 1
    doc["n-shot"]["leaderboard_mmlu_pro"] = 0
    doc["versions"] = {f"leaderboard_math_{k}_hard": 2.0 for k in MATH}
    return doc


def test_a_limited_run_says_so_in_text_and_json_and_fails(tmp_path, example_doc):
    path = write_json(tmp_path / "results.json", limited_run(example_doc))
    code, text = invoke("normalize", path.name, cwd=tmp_path)
    assert code == 1  # it prints errors (LB501...), as check reports them
    assert (
        "error LB501: the run used a sample limit (1); leaderboard numbers need full runs" in text
    )
    assert "error LB502: leaderboard_ifeval scored 1 of 541 documents; rerun it in full" in text
    assert "... and 36 more LB502 (--output-format json lists them all)" in text
    assert "error LB503: leaderboard_mmlu_pro ran 0-shot; MMLU-PRO is 5-shot" in text
    assert "warning LB505: leaderboard_math_algebra_hard is task version 2" in text
    code, doc = normalize_json(path)
    rules = [c["rule"] for c in doc["files"][0]["caveats"]]
    assert rules[0] == "LB501" and {"LB502", "LB503", "LB505"} <= set(rules)
    assert doc["files"][0]["caveats"][0]["path"] == "$.config.limit"
    assert invoke("normalize", "--require-complete", path.name, cwd=tmp_path)[0] == 1


def test_normalize_caveats_are_exactly_the_findings_check_reports(tmp_path, example_doc):
    path = write_json(tmp_path / "results.json", limited_run(example_doc))
    _, doc = normalize_json(path)
    caveats = sorted(
        (c["rule"], c["path"], c["message"], c.get("details")) for c in doc["files"][0]["caveats"]
    )
    _, output = invoke(
        "check", "--output-format", "json", "results.json", cwd=tmp_path, stdout_only=True
    )
    findings = sorted(
        (f["rule"], f["json_path"], f["message"], f.get("details"))
        for f in json.loads(output)["findings"]
        if f["rule"].startswith("LB5")
    )
    assert caveats == findings and len(caveats) > 40


def test_a_subset_of_benchmarks_gives_their_scores_and_no_average(tmp_path, example_doc):
    keep = ("leaderboard_ifeval", "leaderboard_gpqa")
    for block in ("results", "groups", "n-shot", "n-samples"):
        example_doc[block] = {k: v for k, v in example_doc[block].items() if k.startswith(keep)}
    path = write_json(tmp_path / "results.json", example_doc)
    code, doc = normalize_json(path)
    entry = doc["files"][0]
    assert code == 0 and entry["average"] is None and entry["complete"] is False
    assert entry["scores"] == pytest.approx(
        {"ifeval": 22.079415949680183, "gpqa": 0.8948545861297527}, abs=1e-12
    )
    assert entry["missing"] == dict.fromkeys(
        ["bbh", "math_lvl5", "musr", "mmlu_pro"], "not in the file"
    )
    code, text = invoke("normalize", path.name, cwd=tmp_path)
    assert "(incomplete: 4 benchmark(s) missing, so no average)" in text
    code, _ = invoke("normalize", "--require-complete", path.name, cwd=tmp_path)
    assert code == 1


def test_lm_eval_04_names_of_v1_benchmarks_say_which_harness_differs():
    code, doc = normalize_json(V1_OTHER_HARNESS, "--profile", "open-llm-leaderboard-v1")
    entry = doc["files"][0]
    assert code == 1 and entry["average"] is None  # LB509 is an error, as in check
    assert set(entry["missing"]) == {"mmlu", "truthfulqa", "gsm8k"}
    messages = [
        f"{c['message']} {c.get('details', '')}" for c in entry["caveats"] if c["rule"] == "LB509"
    ]
    assert len(messages) == 3 and messages[0].startswith(
        "MMLU cannot be scored from mmlu, mmlu_abstract_algebra, mmlu_anatomy"
    )


def test_only_another_harness_tasks_is_refused_with_the_reason(tmp_path):
    doc = json.loads(V1_OTHER_HARNESS.read_text())
    doc["results"] = {k: v for k, v in doc["results"].items() if k.startswith("mmlu")}
    write_json(tmp_path / "r.json", doc)
    code, output = invoke(
        "normalize",
        "--profile",
        "open-llm-leaderboard-v1",
        "--output-format",
        "json",
        "r.json",
        cwd=tmp_path,
        stdout_only=True,
    )
    assert code == 1 and "no task of profile open-llm-leaderboard-v1 is in the file" in output
    assert "a different harness than the v1 leaderboard's" in output


def test_old_mmlu_is_refused_by_the_v1_version_gate():
    code, doc = normalize_json(
        V1_OLD_MMLU, "--profile", "open-llm-leaderboard-v1", "--require-complete"
    )
    gate = [c for c in doc["files"][0]["caveats"] if c["rule"] == "LB507"]
    assert code == 1 and len(gate) == 1 and gate[0]["severity"] == "error"
    assert (gate[0]["message"] + "; " + gate[0].get("details", "")).startswith(
        "harness|hendrycksTest-abstract_algebra|5 is task version 0 "
        "(57 of MMLU's tasks); open-llm-leaderboard-v1 accepts MMLU task versions "
        "1 or newer. The v1 leaderboard skipped"
    )


@pytest.mark.parametrize("bound, code", [(None, 1), ("0.5", 1), ("0.61", 0)])
def test_the_stale_scorer_bound_is_the_maintainers_and_in_points(
    tmp_path, example_doc, bound, code
):
    """pythia-1b's published MATH 0.91 against its old-scorer file (0.30): a difference of 0.6042."""
    example_doc["versions"] = {f"leaderboard_math_{k}_hard": 2.0 for k in MATH}
    write_json(tmp_path / "results.json", example_doc)
    reported = {
        "ifeval": 22.08,
        "bbh": 2.29,
        "math_lvl5": 0.91,
        "gpqa": 0.89,
        "musr": 2.73,
        "mmlu_pro": 1.51,
        "average": 5.07,
    }
    write_json(
        tmp_path / "submission.json",
        {
            "schema_version": 1,
            "model": "EleutherAI/pythia-1b",
            "results": "results.json",
            "reported": reported,
        },
    )
    options = ["--stale-scorer-bound", bound] if bound else []
    exit_code, output = invoke(
        "check",
        "--output-format",
        "json",
        *options,
        "submission.json",
        cwd=tmp_path,
        stdout_only=True,
    )
    rules = sorted(f["rule"] for f in json.loads(output)["findings"])
    assert exit_code == code
    assert rules == (["LB505", "LB607"] if code == 0 else ["LB505", "LB602", "LB606"])


def test_a_maintainer_profile_can_set_the_bound_and_a_submission_cannot(tmp_path, example_doc):
    import yaml

    from validator.io.loaders import builtin_profile_names, load_builtin_profile

    for name in builtin_profile_names():  # built-in profiles fail closed
        assert all(
            b.version_gate is None or b.version_gate.stale_scorer_bound is None
            for b in load_builtin_profile(name).benchmarks
        )
    profile = yaml.safe_load(
        (EXAMPLES.parents[1] / "validator/profiles/open-llm-leaderboard-v2.yaml").read_text()
    )
    math_lvl5 = next(b for b in profile["benchmarks"] if b["id"] == "math_lvl5")
    math_lvl5["version_gate"]["stale_scorer_bound"] = 1.0
    (tmp_path / "profile.yaml").write_text(yaml.safe_dump(profile))
    example_doc["versions"] = {f"leaderboard_math_{k}_hard": 2.0 for k in MATH}
    write_json(tmp_path / "results.json", copy.deepcopy(example_doc))
    reported = {
        "ifeval": 22.08,
        "bbh": 2.29,
        "math_lvl5": 0.91,
        "gpqa": 0.89,
        "musr": 2.73,
        "mmlu_pro": 1.51,
        "average": 5.07,
    }
    write_json(
        tmp_path / "submission.json",
        {
            "schema_version": 1,
            "model": "EleutherAI/pythia-1b",
            "results": "results.json",
            "reported": reported,
        },
    )
    base = ("check", "--output-format", "json")
    assert invoke(*base, "--profile-file", "profile.yaml", "submission.json", cwd=tmp_path)[0] == 0
    assert invoke(*base, "submission.json", cwd=tmp_path)[0] == 1


@pytest.mark.parametrize(
    "submission, options, code, rules",
    [
        ("pythia-1b/submission.json", [], 0, []),
        ("pythia-1b-old-scorer/published.json", [], 1, ["LB505", "LB602", "LB606"]),
        (
            "pythia-1b-old-scorer/published.json",
            ["--stale-scorer-bound", "1"],
            0,
            ["LB505", "LB607"],
        ),
        ("pythia-1b-old-scorer/inflated.json", [], 1, ["LB505", "LB602", "LB606"]),
        (
            "pythia-1b-old-scorer/inflated.json",
            ["--stale-scorer-bound", "1"],
            1,
            ["LB505", "LB602", "LB606"],
        ),
    ],
)
def test_the_shipped_examples_get_the_verdicts_examples_readme_gives(
    submission, options, code, rules
):
    repo = EXAMPLES.parents[1]
    exit_code, output = invoke(
        "check", "--output-format", "json", *options, f"examples/{submission}", stdout_only=True
    )
    assert exit_code == code and sorted(f["rule"] for f in json.loads(output)["findings"]) == rules
    readme = (repo / "examples" / "README.md").read_text()
    assert f"`{submission}`" in readme


def test_the_submitter_fields_page_covers_every_field_that_changes_a_check_and_every_run_rule():
    page = (EXAMPLES.parents[1] / "docs" / "submitter-fields.md").read_text()
    for field in (
        "`versions.<task>`",
        "`config.limit`",
        "`n-samples.<task>.original`",
        "Group entries",
        "aliases",
        "`configs.<task>.metadata.version`",
        "`samples`",
        "`model_name`",
        "`reported`",
        "`profile`",
        "`n-shot.<task>`",
    ):
        assert field in page, field
    from validator.check.rules import all_rules

    for rule in all_rules():
        if rule.id.startswith(("LB5", "LB6")) and rule.id != "LB600":
            assert rule.id in page, rule.id


@pytest.mark.parametrize(
    "gate, message",
    [
        (
            {"min_version": 1, "outside": "refuse", "reason": "r", "stale_scorer_bound": 1},
            "stale_scorer_bound only applies to a version_gate with outside: stale_scorer",
        ),
        (
            {"min_version": 3, "max_version": 2, "reason": "r"},
            "min_version 3 is above max_version 2",
        ),
        ({"outside": "refuse", "reason": "r"}, "version_gate"),  # neither bound
        ({"min_version": 1}, "reason"),  # no reason
    ],
)
def test_a_bad_version_gate_is_a_profile_error(tmp_path, gate, message):
    import yaml

    from validator.core.errors import ConfigError
    from validator.io.loaders import load_profile_file

    profile = yaml.safe_load(
        (EXAMPLES.parents[1] / "validator/profiles/open-llm-leaderboard-v1.yaml").read_text()
    )
    next(b for b in profile["benchmarks"] if b["id"] == "mmlu")["version_gate"] = gate
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(profile))
    with pytest.raises(ConfigError, match=message):
        load_profile_file(tmp_path / "p.yaml")


CLAIMS = {
    "every MATH task version 2.0": lambda doc: doc.update(
        versions={f"leaderboard_math_{k}_hard": 2.0 for k in MATH}
    ),
    "one MATH task version 1": lambda doc: doc.update(
        versions={"leaderboard_math_geometry_hard": 1}
    ),
    "a version as a string": lambda doc: doc.update(
        versions={"leaderboard_math_algebra_hard": "2.0"}
    ),
    "configs metadata only": lambda doc: doc.update(
        configs={"leaderboard_math_algebra_hard": {"metadata": {"version": 2.0}}}
    ),
    "the group's version": lambda doc: doc.update(versions={"leaderboard_math_hard": 2.0}),
}


@pytest.mark.parametrize("claim", sorted(CLAIMS))
@pytest.mark.parametrize("math_lvl5", [0.30, 0.91, 40.0])
def test_no_version_claim_turns_a_failing_submission_into_a_passing_one(
    tmp_path, example_doc, claim, math_lvl5
):
    reported = {
        "ifeval": 22.08,
        "bbh": 2.29,
        "math_lvl5": math_lvl5,
        "gpqa": 0.89,
        "musr": 2.73,
        "mmlu_pro": 1.51,
    }
    reported["average"] = round(sum(reported.values()) / 6, 2)
    write_json(
        tmp_path / "submission.json",
        {
            "schema_version": 1,
            "model": "EleutherAI/pythia-1b",
            "results": "results.json",
            "reported": reported,
        },
    )
    write_json(tmp_path / "results.json", example_doc)
    without_claim = invoke("check", "submission.json", cwd=tmp_path)[0]
    CLAIMS[claim](example_doc)
    write_json(tmp_path / "results.json", example_doc)
    assert (
        invoke("check", "submission.json", cwd=tmp_path)[0]
        == without_claim
        == (0 if math_lvl5 == 0.30 else 1)
    )


@pytest.mark.parametrize(
    "entry, where",
    [
        ({"original": None, "effective": 100}, "$['n-samples'].leaderboard_gpqa_diamond"),
        ({"effective": 100}, "$['n-samples'].leaderboard_gpqa_diamond"),
        ({"original": 198, "effective": None}, "$['n-samples'].leaderboard_gpqa_diamond"),
        ({"original": "198", "effective": 100}, "$['n-samples'].leaderboard_gpqa_diamond.original"),
        ([198, 100], "$['n-samples'].leaderboard_gpqa_diamond"),
        (100, "$['n-samples'].leaderboard_gpqa_diamond"),
    ],
)
def test_a_count_lm_eval_would_have_written_cannot_be_taken_away(
    tmp_path, example_doc, entry, where
):
    """A run of 100 of GPQA diamond's 198 documents with one count nulled, dropped or mistyped: read as no
    count, it passed (exit 0). lm-eval writes both counts as integers, so each of these is LB506."""
    example_doc["n-samples"]["leaderboard_gpqa_diamond"] = entry
    path = write_json(tmp_path / "results.json", example_doc)
    code, output = invoke(
        "check", "--output-format", "json", path.name, cwd=tmp_path, stdout_only=True
    )
    lb506 = [f["json_path"] for f in json.loads(output)["findings"] if f["rule"] == "LB506"]
    assert code == 1 and where in lb506


def test_a_task_without_an_n_samples_entry_among_others_is_no_old_file(tmp_path, example_doc):
    """lm-eval 0.4.3 on writes an entry for every task: one taken out of a file that has the others is LB506."""
    del example_doc["n-samples"]["leaderboard_gpqa_diamond"]
    path = write_json(tmp_path / "results.json", example_doc)
    code, output = invoke(
        "check", "--output-format", "json", path.name, cwd=tmp_path, stdout_only=True
    )
    messages = [f["message"] for f in json.loads(output)["findings"] if f["rule"] == "LB506"]
    assert code == 1 and messages == [
        "leaderboard_gpqa_diamond has no n-samples entry, though the file has them "
        "for other tasks: lm-eval writes one for every task"
    ]


@pytest.mark.parametrize(
    "newer_file, where",
    [
        ({"task_hashes"}, "$.task_hashes"),
        ({"lm_eval_version"}, "$.lm_eval_version"),
        ({"task_hashes", "lm_eval_version"}, "$.task_hashes"),
        (set(), None),
    ],
)
def test_a_file_of_lm_eval_0_4_3_or_later_cannot_lose_its_whole_n_samples(
    tmp_path, example_doc, newer_file, where
):
    """Deleting the whole n-samples block made a 0.4.3+ file read as an older one, which wrote no counts: a run of
    fewer documents than its split passed `check`. task_hashes or lm_eval_version still say which lm-eval wrote
    it; only a file with none of the three is an old one."""
    del example_doc["n-samples"]
    example_doc["lm_eval_version"] = "0.4.9.2"
    for key in {"task_hashes", "lm_eval_version"} - newer_file:
        del example_doc[key]
    path = write_json(tmp_path / "results.json", example_doc)
    code, output = invoke(
        "check", "--output-format", "json", path.name, cwd=tmp_path, stdout_only=True
    )
    found = [f["json_path"] for f in json.loads(output)["findings"] if f["rule"] == "LB506"]
    assert found == ([where] if where else []) and code == (1 if where else 0)


@pytest.mark.parametrize(
    "n_shot, config, disagrees",
    [
        (5, {"num_fewshot": 5}, False),
        (0, {"num_fewshot": 5}, True),  # n-shot rewritten to a leaderboard's 0-shot
        (5.0, {"num_fewshot": 5}, False),
        ("5", {"num_fewshot": 5}, False),  # lm-eval writes ints; a string equal in value
        (True, {"num_fewshot": 1}, True),  # a bool is no count
        (
            3,
            {"num_fewshot": 0, "metadata": {"num_fewshot": 3}},
            False,
        ),  # 0.4.3-0.4.9 write metadata's when it is 0
        (
            0,
            {"num_fewshot": 0, "metadata": {"num_fewshot": 3}},
            False,
        ),  # 0.4.13 writes num_fewshot itself
        (None, {"num_fewshot": None}, False),  # no count configured: written as null
        (0, {"num_fewshot": None}, False),  # ... or as 0
        (5, {"num_fewshot": None}, True),
        (None, {"num_fewshot": 5}, True),
    ],
)
def test_n_shot_is_what_lm_eval_writes_from_the_config(n_shot, config, disagrees):
    from validator.core.results import fewshot_disagrees

    assert fewshot_disagrees(n_shot, config) is disagrees


@pytest.mark.parametrize(
    "listed, declared, disagrees",
    [
        (1.0, 1.0, False),
        (1, 1.0, False),
        ("1.0", 1.0, False),
        (2.0, 1.0, True),
        ("v1", 1.0, True),
        (
            "Yaml",
            1.0,
            False,
        ),  # lm-eval 0.4.0: every YAML task's VERSION, whatever its metadata (as a real run writes it)
    ],
)
def test_versions_are_what_lm_eval_writes_from_the_config(listed, declared, disagrees):
    from validator.core.results import versions_disagree

    assert versions_disagree(listed, declared) is disagrees
