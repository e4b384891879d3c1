"""Group rows: every metric of a declared group is its leaf tasks' pool, as lm-eval computes it.

lm-eval 0.4.4 on pools a group over the tasks under it at any depth (evaluator_utils.
consolidate_group_results), size-weighted or, with weight_by_size: false, plain; 0.4.3 pooled each
group from its subgroups, always size-weighted, which is the same number. These cases use a two-level
hierarchy: top = [sub, c], sub = [a, b], with sizes 10, 30 and 60.
"""

from __future__ import annotations

import pytest

from validator.survey.groups import MAX_GROUP_ROWS, STEP_BUDGET, group_rows

LEAVES = {"a": (0.2, 10), "b": (0.4, 30), "c": (0.9, 60)}
WEIGHTED = {"sub": (0.2 * 10 + 0.4 * 30) / 40, "top": (0.2 * 10 + 0.4 * 30 + 0.9 * 60) / 100}
PLAIN = {"sub": (0.2 + 0.4) / 2, "top": (0.2 + 0.4 + 0.9) / 3}  # over leaves, not (sub + c) / 2
SUB_POOLED = (
    ("sub", ((("a",), 10), (("b", "b_alias"), 30))),
)  # a profile pooling sub over a and b (an alias)


def hierarchy(sub: float, top: float) -> dict:
    results = {task: {"acc,none": value, "alias": task} for task, (value, _) in LEAVES.items()}
    results.update(sub={"acc,none": sub, "alias": " - sub"}, top={"acc,none": top, "alias": "top"})
    return {
        "results": results,
        "group_subtasks": {"top": ["sub", "c"], "sub": ["a", "b"]},
        "n-samples": {
            task: {"original": size, "effective": size} for task, (_, size) in LEAVES.items()
        },
        "configs": {task: {"task": task} for task in LEAVES},
    }


def findings_by_group(data: dict) -> dict[str, dict]:
    return {row["task"]: row["rules"] for row in group_rows("run", "results.json", "m", data)}


@pytest.mark.parametrize("pooled", [WEIGHTED, PLAIN], ids=["size-weighted", "plain over leaves"])
def test_honest_groups_of_groups_reproduce(pooled):
    """The plain case failed before: the top group was pooled from its subgroup's value, (0.3 + 0.9) / 2."""
    assert findings_by_group(hierarchy(pooled["sub"], pooled["top"])) == {"sub": {}, "top": {}}


def test_a_tampered_subgroup_is_its_own_rows_finding_not_its_parents():
    """An honest parent is not LB404 for pooling a tampered subgroup: the subgroup's row holds the finding."""
    rows = group_rows("run", "results.json", "m", hierarchy(0.99, WEIGHTED["top"]))
    by_group = {row["task"]: row for row in rows}
    assert by_group["sub"]["rules"] == {"LB404": 1} and by_group["top"]["rules"] == {}
    assert (
        "group sub acc,none: the results file says 0.99, but its subtasks pool to 0.35"
        in by_group["sub"]["first_finding"]
    )


def test_a_tampered_parent_is_found():
    assert findings_by_group(hierarchy(WEIGHTED["sub"], WEIGHTED["top"] + 1e-9)) == {
        "sub": {},
        "top": {"LB404": 1},
    }


def test_a_subgroup_named_many_times_at_every_level_is_bounded_work():
    """group_subtasks is the submitter's: nine levels, each naming the next 200 times, named 200^8 leaves
    (a hang). lm-eval pools a task as often as it is listed (under each subgroup that lists it), so such a
    file spends the budget of its results file, and its groups cannot be re-derived (LB404, saying why):
    every row comes back at once. Here each level has 200 groups, each naming all 200 of the next level
    (one group naming a task twice is no lm-eval output, test_a_group_naming_a_task_twice_is_not_pooled)."""
    data = hierarchy(WEIGHTED["sub"], WEIGHTED["top"])
    levels = [[f"g{i}_{k}" for k in range(200)] for i in range(8)] + [["g8_0"]]
    chain = {name: levels[i + 1] for i in range(8) for name in levels[i]}
    chain["g8_0"] = ["a"]
    data["group_subtasks"].update(chain)
    data["configs"].update(
        {name: {"task": name} for name in chain}
    )  # held by the file, as subtasks must be
    data["results"].update(
        {level[0]: {"acc,none": 0.2} for level in levels}
    )  # a row for each level's first
    rows = group_rows("run", "results.json", "m", data)
    assert len(rows) == 11 and all(
        row["rules"] == {"LB404": 1} for row in rows if row["task"] in chain
    )
    assert "nest deeper than 8" in rows[0]["first_finding"]  # g0: nine levels of groups
    assert all(
        "too many to re-derive" in row["first_finding"] for row in rows[1:] if row["task"] in chain
    )


@pytest.mark.parametrize("root", ["a0", "z0"])
def test_how_deep_a_group_may_nest_does_not_depend_on_group_names(root):
    """A ten-deep chain gets the same verdict from `a0` as from `z0`, whatever order cached subgroups are
    met in. Each group's own height decides: the top two of ten are too deep."""
    names = [root[0] + str(i) for i in range(10)]
    data = {
        "results": {"t": {"acc,none": 0.5}, **{name: {"acc,none": 0.5} for name in names}},
        "group_subtasks": {
            name: [below] for name, below in zip(names, names[1:] + ["t"], strict=True)
        },
        "n-samples": {"t": {"effective": 3}},
    }
    found = {row["task"]: row for row in group_rows("run", "results.json", "m", data)}
    assert {name for name, row in found.items() if row["rules"]} == set(names[:2])
    assert "nest deeper than 8" in found[names[0]]["first_finding"]


def test_a_cycle_is_named_as_one():
    data = {
        "results": {"t": {"acc,none": 0.5}, "x": {"acc,none": 0.5}, "y": {"acc,none": 0.5}},
        "group_subtasks": {"x": ["y", "t"], "y": ["x", "t"]},
        "n-samples": {"t": {"effective": 3}},
    }
    rows = group_rows("run", "results.json", "m", data)
    assert [row["rules"] for row in rows] == [{"LB404": 1}, {"LB404": 1}]
    assert all("form a cycle" in row["first_finding"] for row in rows)


def test_a_task_under_two_subgroups_is_pooled_twice_as_lm_eval_does():
    """consolidate_group_results extends a group's task list with each subgroup's (v0.4.5)."""
    data = hierarchy(WEIGHTED["sub"], 0.0)
    data["group_subtasks"] = {"top": ["sub", "other"], "sub": ["a", "b"], "other": ["b", "c"]}
    twice = (0.2 * 10 + 0.4 * 30 * 2 + 0.9 * 60) / (10 + 30 * 2 + 60)
    data["results"]["top"]["acc,none"] = twice
    data["results"]["other"] = {"acc,none": (0.4 * 30 + 0.9 * 60) / 90}
    assert findings_by_group(data) == {"other": {}, "sub": {}, "top": {}}


def test_subgroups_naming_more_leaves_than_the_budget_cannot_be_re_derived():
    leaves = STEP_BUDGET // 1000 + 1
    data = {
        "results": {
            **{f"t{i}": {"acc,none": 0.5} for i in range(leaves)},
            "wide": {"acc,none": 0.5},
            "many": {"acc,none": 0.5},
        },
        "group_subtasks": {
            "wide": [f"t{i}" for i in range(leaves)],
            "many": [f"w{j}" for j in range(1000)],
            **{f"w{j}": ["wide"] for j in range(1000)},
        },  # 1000 subgroups, each the wide one
        "n-samples": {f"t{i}": {"effective": 1} for i in range(leaves)},
        "configs": {f"w{j}": {"task": f"w{j}"} for j in range(1000)},
    }
    by_group = {row["task"]: row for row in group_rows("run", "results.json", "m", data)}
    assert by_group["many"]["rules"] == {"LB404": 1}
    assert "too many to re-derive" in by_group["many"]["first_finding"]


def test_rows_for_groups_stop_at_a_bound():
    groups = MAX_GROUP_ROWS + 5
    data = {
        "results": {"a": {"acc,none": 0.5}, **{f"g{i}": {"acc,none": 0.5} for i in range(groups)}},
        "group_subtasks": {f"g{i}": ["a"] for i in range(groups)},
        "n-samples": {"a": {"effective": 4}},
    }
    rows = group_rows("run", "results.json", "m", data)
    assert len(rows) == MAX_GROUP_ROWS + 1
    assert (
        rows[-1]["rules"] == {"LB404": 1}
        and "5 more groups are not re-derived" in rows[-1]["first_finding"]
    )


def test_a_worker_that_imports_only_the_survey_knows_every_rule_its_rows_name():
    """A fresh worker process (Dask's, or a forkserver's) imports the survey's unit module and nothing of the
    CLI: a group row's LB404 was a KeyError there, a "failed" row, until work.py registered the check's rules."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    survey = Path(__file__).resolve().parents[2] / "validator" / "survey"
    named = sorted(
        {
            rule
            for path in survey.glob("*.py")
            for rule in re.findall(
                r'(?:make_finding|survey_error)\(\s*"(LB\d{3})"', path.read_text(encoding="utf-8")
            )
        }
    )
    assert {"LB101", "LB404", "LB707"} <= set(named)
    code = (
        "import validator.survey.work; from validator.findings.registry import RULES; "
        f"print(sorted(set({named!r}) - set(RULES)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def surveyed_top_group(tmp_path, data: dict, published: float) -> dict:
    """The `top` group's row of a survey of one run holding `data`, through a manifest that publishes
    top/acc (in percent) as `published`; its logs are empty."""
    import json

    from test_survey import lbnorm

    from validator.survey.tables import read_jsonl

    run = tmp_path / "runs" / "org__model"
    run.mkdir(parents=True)
    (run / "results_2024-06-17T17-37-25.144953.json").write_text(json.dumps(data), encoding="utf-8")
    for task in LEAVES:
        (run / f"samples_{task}_2024-06-17T17-37-25.144953.jsonl").write_text("", encoding="utf-8")
    manifest = tmp_path / "runs" / "manifest.csv"
    manifest.write_text(
        f"results,top/acc\norg__model/results_2024-06-17T17-37-25.144953.json,{published}\n",
        encoding="utf-8",
    )
    lbnorm(
        "survey",
        str(manifest),
        "--out",
        str(tmp_path / "out"),
        "--no-plots",
        "--published-scale",
        "100",
    )
    [row] = [row for row in read_jsonl(tmp_path / "out" / "survey.jsonl") if row["task"] == "top"]
    return row


@pytest.mark.parametrize(
    "published, reproduced", [(round(100 * WEIGHTED["top"], 2), True), (71.0, False)]
)
def test_a_published_score_of_a_group_written_without_values_is_its_pool(
    tmp_path, published, reproduced
):
    """lm-eval 0.4.4 to 0.4.8 wrote the leaderboard's GPQA and MATH groups with an alias only. An honest
    published leaderboard_gpqa/acc_norm has no value in the results file to reproduce, so it is compared
    with the pool of the group's tasks, as the leaderboard computed it."""
    data = hierarchy(WEIGHTED["sub"], 0.0)
    data["results"]["top"] = {"alias": "top"}  # 0.4.5: no aggregate_metric_list, no value
    row = surveyed_top_group(tmp_path, data, published)
    assert (row["status"], row["reproduced"], row["error"]) == ("group", reproduced, None)
    assert row["metrics"]["acc,none"]["reported"] is None
    assert row["metrics"]["acc,none"]["recomputed"] == pytest.approx(WEIGHTED["top"])


@pytest.mark.parametrize("pooled", [WEIGHTED, PLAIN], ids=["size-weighted", "plain over leaves"])
def test_a_group_shows_the_pool_its_own_value_is(pooled):
    """An honest plain-mean group (weight_by_size: false) shows its own pool as recomputed, not the size-weighted
    one, so max_abs_diff is 0 and its published score reproduced."""
    rows = {
        row["task"]: row
        for row in group_rows("run", "results.json", "m", hierarchy(pooled["sub"], pooled["top"]))
    }
    for group in ("sub", "top"):
        assert rows[group]["metrics"]["acc,none"]["recomputed"] == pooled[group]
        assert rows[group]["max_abs_diff"] == 0.0 and rows[group]["rules"] == {}


def test_a_tampered_group_shows_the_size_weighted_pool():
    rows = {
        row["task"]: row
        for row in group_rows("run", "results.json", "m", hierarchy(0.99, WEIGHTED["top"]))
    }
    assert rows["sub"]["metrics"]["acc,none"]["recomputed"] == WEIGHTED["sub"]


@pytest.mark.parametrize(
    "published, reproduced",
    [(round(100 * PLAIN["top"], 2), True), (round(100 * WEIGHTED["top"], 2), False)],
)
def test_a_published_score_of_a_plain_mean_group_is_held_to_the_plain_mean(
    tmp_path, published, reproduced
):
    """The file's group is the plain mean of its leaves, as lm-eval writes a group with weight_by_size: false:
    its published score is that mean, and the size-weighted pool is another number."""
    row = surveyed_top_group(tmp_path, hierarchy(PLAIN["sub"], PLAIN["top"]), published)
    assert (row["status"], row["rules"], row["reproduced"]) == ("group", {}, reproduced)
    assert row["metrics"]["acc,none"]["recomputed"] == pytest.approx(PLAIN["top"])


def with_groups_section(data: dict, **edits) -> dict:
    """lm-eval writes a `groups` section too: a copy of each group's results entry (its alias indented)."""
    data["groups"] = {
        group: {**data["results"][group], "alias": f" - {group}", **edits.get(group, {})}
        for group in ("sub", "top")
    }
    return data


def test_the_groups_section_is_a_copy_of_the_groups_results():
    honest = with_groups_section(hierarchy(WEIGHTED["sub"], WEIGHTED["top"]))
    assert findings_by_group(honest) == {"sub": {}, "top": {}}
    nan = hierarchy(WEIGHTED["sub"], WEIGHTED["top"])
    nan["results"]["top"]["acc_stderr,none"] = float("nan")
    assert findings_by_group(with_groups_section(nan)) == {"sub": {}, "top": {}}


def test_a_group_edited_in_the_groups_section_alone_is_found():
    """The results entry honest, the groups section's copy raised: a finding."""
    data = with_groups_section(hierarchy(WEIGHTED["sub"], WEIGHTED["top"]), top={"acc,none": 0.9})
    rows = {row["task"]: row for row in group_rows("run", "results.json", "m", data)}
    assert rows["sub"]["rules"] == {} and rows["top"]["rules"] == {"LB404": 1}
    assert (
        "group top acc,none: the groups section says 0.9, but results says 0.68"
        in rows["top"]["first_finding"]
    )


def test_a_profile_that_pools_a_group_accepts_only_the_pool():
    """A GPQA group swapped for the plain mean of its tasks is a finding under --profile
    open-llm-leaderboard-v2, which scores GPQA and MATH from the size-weighted pool alone."""
    data = hierarchy(PLAIN["sub"], WEIGHTED["top"])
    assert findings_by_group(data) == {
        "sub": {},
        "top": {},
    }  # no profile: weight_by_size may be false
    rows = {
        row["task"]: row for row in group_rows("run", "results.json", "m", data, pooled=SUB_POOLED)
    }
    assert rows["sub"]["rules"] == {"LB404": 1} and rows["top"]["rules"] == {}
    assert "size-weighted, as the profile scores it" in rows["sub"]["first_finding"]


def test_the_leaderboard_profile_pools_gpqa_and_math():
    from validator.io.loaders import load_builtin_profile

    pooled = dict(load_builtin_profile("open-llm-leaderboard-v2").pooled_groups())
    assert sorted(pooled) == ["leaderboard_gpqa", "leaderboard_math_hard"]
    assert [(names[0], size) for names, size in pooled["leaderboard_gpqa"]] == [
        ("leaderboard_gpqa_diamond", 198),
        ("leaderboard_gpqa_extended", 546),
        ("leaderboard_gpqa_main", 448),
    ]


@pytest.mark.parametrize(
    "original", [10, 30]
)  # a split said to be smaller, or a --limit run of the whole one
def test_a_pooled_group_of_tasks_that_are_not_the_profiles_whole_splits_is_named(original):
    """Sizes of 10/20/10 in n-samples instead of GPQA's 198/546/448 are a finding. The logs' coverage
    ties n-samples to their documents, so a weight moved is documents left out."""
    data = hierarchy(WEIGHTED["sub"], WEIGHTED["top"])
    data["n-samples"]["b"] = {"original": original, "effective": 10}
    data["results"]["sub"]["acc,none"] = (
        0.2 * 10 + 0.4 * 10
    ) / 20  # pooled as lm-eval did for this run
    rows = {
        row["task"]: row for row in group_rows("run", "results.json", "m", data, pooled=SUB_POOLED)
    }
    assert rows["sub"]["rules"] == {"LB404": 1}
    assert (
        "b scored 10 documents (n-samples), but its split has 30 (the profile)"
        in rows["sub"]["first_finding"]
    )


@pytest.mark.parametrize(
    "members, found",
    [
        (["a"], "group sub leaves out b: the profile pools a, b"),
        (["a", "b", "c"], "group sub takes in c: the profile pools a, b"),
    ],
)
def test_a_pooled_group_must_pool_the_profiles_tasks(members, found):
    """A group that leaves out its weakest task pools to a higher score that its remaining tasks
    reproduce. A profile that pools the group names its tasks."""
    data = hierarchy(WEIGHTED["sub"], WEIGHTED["top"])
    data["group_subtasks"]["sub"] = members
    values = [LEAVES[task] for task in members]
    data["results"]["sub"]["acc,none"] = sum(v * n for v, n in values) / sum(n for _, n in values)
    rows = {
        row["task"]: row for row in group_rows("run", "results.json", "m", data, pooled=SUB_POOLED)
    }
    assert rows["sub"]["rules"] == {"LB404": 1}
    assert found in rows["sub"]["first_finding"]
    assert (
        findings_by_group(data)["sub"] == {}
    )  # without the profile, the file's own membership stands


@pytest.mark.parametrize("listed", [["sub", "c", "c", "c"], ["sub", "c", "sub"]])
def test_a_group_naming_a_task_twice_is_not_pooled(listed):
    """MMLU's best subtask listed four times in its group would re-derive the group to a raised value.
    lm-eval lists a group's tasks from a dict's keys, so a repeat is no output of it: LB404, saying so."""
    data = hierarchy(WEIGHTED["sub"], WEIGHTED["top"])
    data["group_subtasks"]["top"] = listed
    rows = {row["task"]: row for row in group_rows("run", "results.json", "m", data)}
    assert rows["top"]["rules"] == {"LB404": 1} and rows["sub"]["rules"] == {}
    assert f"names {listed[-1]} twice, which lm-eval cannot write" in rows["top"]["first_finding"]
