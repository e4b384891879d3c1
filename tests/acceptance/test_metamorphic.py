"""Metamorphic fail-closed tests: what a submitter may edit never passes a changed number.

Each test takes an honest run (a submission, its results file, and for one its sample logs), applies
edits a submitter could make to any key or file (add, duplicate, re-spell, reorder, move), and checks
`lbnorm check` on the result: either every verdict and number is what the honest run gives, or the run
fails with an error finding. A run that passes with another number is a hole.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.common import REPO

from validator.check.checker import CheckOptions, run_check
from validator.findings import ERROR
from validator.io.loaders import load_builtin_profile

# Drawn edits of whole runs, each checked in full: whole-suite runs take them.
pytestmark = pytest.mark.slow

RUNS = {
    "pythia": REPO / "examples" / "pythia-1b",
    "with-logs": REPO / "tests" / "examples" / "positive" / "samples_honest",
    "lighteval": REPO / "tests" / "examples" / "positive" / "v1_lighteval",
}
PROFILE_OF = {"lighteval": "open-llm-leaderboard-v1"}
EDITS = ("reorder", "duplicate", "respell", "add", "move", "delete-and-add-back")
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def verdict(root: Path, profile: str | None) -> tuple[bool, dict[str, dict], list[str]]:
    """(passed, each file's recomputed numbers, the error findings) of `check` over the folder, after the
    submitter's last step: every submission reports exactly what lbnorm recomputes from its files. A run
    that then passes with numbers other than the honest run's has let an edit change a score."""
    options = CheckOptions(root=root, profile=load_builtin_profile(profile) if profile else None)
    for report in run_check(["."], options).files:
        path = root / report.path
        if report.kind == "submission" and report.recomputed and path.suffix == ".json":
            data = json.loads(path.read_text())
            if isinstance(data, dict) and isinstance(data.get("reported"), dict):
                data["reported"] |= report.recomputed
                path.write_text(json.dumps(data, indent=2))
    result = run_check(["."], options)
    numbers = {f.path: f.recomputed for f in result.files}
    errors = [
        f"{f.rule} {f.file}:{f.line} {f.message}" for f in result.findings if f.severity == ERROR
    ]
    return result.ok(False), numbers, errors


def copy_run(name: str, into: Path) -> Path:
    folder = into / name
    folder.mkdir(parents=True)
    for path in RUNS[name].iterdir():
        if path.suffix in (".json", ".jsonl"):
            shutil.copy(path, folder / path.name)
    return folder


HONEST: dict[str, tuple] = {}


def honest(name: str, tmp: Path) -> tuple:
    if name not in HONEST:
        HONEST[name] = verdict(copy_run(name, tmp / "honest"), PROFILE_OF.get(name))
        assert HONEST[name][0], HONEST[name][2]  # the honest run passes
    return HONEST[name]


# --- the edits ------------------------------------------------------------------------------------------------


def respellings(key: str, rng: random.Random) -> str | None:
    """Another spelling of a key: most often one a reader takes for the same key (the metric without its
    filter, a task's alias, another lighteval suite), else one a person might take for it."""
    metric, comma, flt = key.partition(",")
    same = (
        {metric, metric + ","}
        if comma and flt == "none"
        else {key + ",none"}
        if not comma
        else set()
    )
    if "|" in key:
        parts = key.split("|")
        same |= {"|".join(parts[1:]), "|".join(["lighteval", *parts[1:]])}
    for name, aliases in ALIASES.items():
        if name in key.split("|"):
            same |= {key.replace(name, alias) for alias in aliases}
    alike = {key + " ", key.upper(), key.replace("_", "-"), key + "\u200b", f"{metric}, {flt}"}
    choices = sorted((same if same and rng.random() < 0.7 else alike) - {key})
    return rng.choice(choices) if choices else None


SCORED = {
    name
    for profile in ("open-llm-leaderboard-v1", "open-llm-leaderboard-v2")
    for bench in load_builtin_profile(profile).benchmarks
    for task in bench.tasks
    for name in task.names
}
ALIASES = {
    task.name: task.aliases
    for profile in ("open-llm-leaderboard-v1", "open-llm-leaderboard-v2")
    for bench in load_builtin_profile(profile).benchmarks
    for task in bench.tasks
    if task.aliases
}


def objects(value, path=()) -> list[tuple]:
    """The JSON path of every object in the document, down to the depth results entries sit at."""
    found = [path] if isinstance(value, dict) else []
    if isinstance(value, dict) and len(path) < 3:
        for key, inner in value.items():
            found += objects(inner, (*path, key))
    return found


def at(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def edit_document(doc, kind: str, rng: random.Random):
    doc = copy.deepcopy(doc)
    places = [p for p in objects(doc) if at(doc, p)]
    if not places:
        return doc
    # Most edits go where the numbers are: the entries of tasks a profile scores, and their metric keys.
    entries = [p for p in places if p[:1] == ("results",) and len(p) == 2]
    scored = [p for p in entries if any(name in p[1].split("|") for name in SCORED)]
    where = rng.choice(rng.choice([scored, scored, entries, places]) or places)
    place = at(doc, where)
    metrics = [k for k in place if "," in k or k in ("acc", "acc_norm", "mc2", "f1")]
    key = rng.choice(metrics if metrics and rng.random() < 0.7 else list(place))
    if kind == "reorder":
        items = list(place.items())
        rng.shuffle(items)
        place.clear()
        place.update(items)
    elif kind in ("duplicate", "respell", "add"):
        new = rng.choice([respellings(key, rng), "samples", "reported"]) if kind == "add" else None
        new = new or respellings(key, rng)
        if new and new not in place:
            # duplicate and respell keep the value; add puts (as an attacker would) another number under the
            # new spelling: 1.0 and 0.0 are k/N for any N, so only the spelling can give them away
            value = place[key] if kind != "add" else rng.choice([1.0, 0.0, rng.random()])
            place[new] = copy.deepcopy(value)
            if kind == "respell":
                del place[key]
    elif kind == "move":
        target = rng.choice(places)
        other = at(doc, target)
        inside = target[: len(where) + 1] == (*where, key)  # into the moved value itself
        if other is not place and key not in other and not inside:
            other[key] = place.pop(key)
    elif kind == "delete-and-add-back":
        place[key] = place.pop(key)
    return doc


def apply_edits(folder: Path, edits: list[tuple[str, str, int]]) -> None:
    files = sorted(p for p in folder.iterdir() if p.suffix == ".json")
    for file_index, kind, seed in edits:
        path = files[file_index % len(files)]
        rng = random.Random(seed)
        doc = json.loads(path.read_text())
        path.write_text(json.dumps(edit_document(doc, kind, rng), indent=2))


def move_files(folder: Path, seed: int) -> None:
    """Move the results file (and a log) into a subfolder, the submission's references following them."""
    rng = random.Random(seed)
    submission_path = folder / "submission.json"
    submission = json.loads(submission_path.read_text())
    sub = folder / rng.choice(["runs", "a/b", "results.json.d"])
    sub.mkdir(parents=True)
    (folder / submission["results"]).rename(sub / "moved.json")
    submission["results"] = f"{sub.relative_to(folder).as_posix()}/moved.json"
    for index, log in enumerate(submission.get("samples", [])):
        if rng.random() < 0.5:
            (folder / log).rename(sub / log)
            submission["samples"][index] = f"{sub.relative_to(folder).as_posix()}/{log}"
    submission_path.write_text(json.dumps(submission, indent=2))


# --- the property ---------------------------------------------------------------------------------------------


def assert_unchanged_or_failed(name: str, folder: Path, tmp: Path, what) -> None:
    passed, numbers, errors = honest(name, tmp)
    now_passed, now_numbers, now_errors = verdict(folder, PROFILE_OF.get(name))
    if not now_passed:
        assert now_errors, f"failed without an error finding after {what}"
        return
    assert now_numbers == numbers, f"passed with other numbers after {what}: {now_numbers}"


EDIT = st.tuples(st.integers(0, 3), st.sampled_from(EDITS), st.integers(0, 2**32))


@SETTINGS
@given(name=st.sampled_from(sorted(RUNS)), edits=st.lists(EDIT, min_size=1, max_size=3))
def test_edited_keys_change_nothing_or_fail(tmp_path_factory, name, edits):
    tmp = tmp_path_factory.mktemp("run")
    folder = copy_run(name, tmp)
    apply_edits(folder, edits)
    assert_unchanged_or_failed(name, folder, tmp_path_factory.getbasetemp(), edits)


@SETTINGS
@given(name=st.sampled_from(["pythia", "with-logs"]), seed=st.integers(0, 2**32))
def test_moved_files_change_nothing(tmp_path_factory, name, seed):
    tmp = tmp_path_factory.mktemp("run")
    folder = copy_run(name, tmp)
    move_files(folder, seed)
    passed, numbers, errors = verdict(folder, None)
    assert passed, errors
    assert list(numbers.values()) == list(honest(name, tmp_path_factory.getbasetemp())[1].values())


def read_keys(name: str) -> dict[str, list[tuple[str, str]]]:
    """Benchmark id -> (task, metric key) of every number its score reads, as the honest run's results spell
    them. Drawn benchmark first: a benchmark of one task is as likely as BBH's 24."""
    profile = load_builtin_profile(PROFILE_OF.get(name, "open-llm-leaderboard-v2"))
    results = json.loads(next(p for p in RUNS[name].iterdir() if is_results(p)).read_text())
    keys: dict[str, list[tuple[str, str]]] = {}
    for bench in profile.benchmarks:
        names = {name for task in bench.tasks for name in task.names}
        for key, entry in results["results"].items():
            if names & set(key.split("|")) and isinstance(entry, dict):
                for metric in bench.metrics:
                    for spelled in (f"{metric},{bench.filter}", metric):
                        if spelled in entry:
                            keys.setdefault(bench.id, []).append((key, spelled))
    return keys


def is_results(path: Path) -> bool:
    return path.suffix == ".json" and path.name != "submission.json"


@SETTINGS
@pytest.mark.parametrize("name", sorted(RUNS))
@given(data=st.data())
def test_a_read_key_spelled_again_changes_nothing_or_fails(tmp_path_factory, name, data):
    """The hole of one key spelled two ways: the entries' keys the score reads, spelled another way beside or
    instead of the original, with the same number or (as an attacker would) another."""
    keys = read_keys(name)
    task, key = data.draw(st.sampled_from(keys[data.draw(st.sampled_from(sorted(keys)))]))
    metric, _, flt = key.partition(",")
    reader_same = [metric, metric + ","] if flt in ("", "none") else []
    spelled = data.draw(st.sampled_from([*reader_same, key + " ", key.upper(), f"{metric}, {flt}"]))
    mode = data.draw(st.sampled_from(["beside", "instead"]))
    # Beside the original, another number is the attack; instead of it, the same number (a new number alone
    # is an edited value, which only a sample log can refute: the audit's own tests hold that)
    value = data.draw(st.sampled_from([1.0, 0.0, "same"])) if mode == "beside" else "same"
    folder = copy_run(name, tmp_path_factory.mktemp("run"))
    path = next(p for p in folder.iterdir() if is_results(p))
    doc = json.loads(path.read_text())
    entry = doc["results"][task]
    if spelled in entry:
        return
    entry[spelled] = entry[key] if value == "same" else value
    if mode == "instead":
        del entry[key]
    path.write_text(json.dumps(doc, indent=2))
    what = (task, key, spelled, mode, value)
    assert_unchanged_or_failed(name, folder, tmp_path_factory.getbasetemp(), what)


@SETTINGS
@given(
    field=st.sampled_from(["reported", "samples", "schema_version", "model", "profile"]),
    into=st.sampled_from(["results", "submission-as-results"]),
)
def test_a_file_in_two_roles_is_judged_in_both_or_refused(tmp_path_factory, field, into):
    """A results file given a submission's field, or a submission named as another's results file."""
    folder = copy_run("pythia", tmp_path_factory.mktemp("run"))
    results_path = next(p for p in folder.iterdir() if is_results(p))
    submission = json.loads((folder / "submission.json").read_text())
    if into == "results":
        doc = json.loads(results_path.read_text())
        doc[field] = submission.get(field, []) if field != "reported" else {"bbh": 99.0}
        results_path.write_text(json.dumps(doc, indent=2))
    else:
        inflated = submission | {"reported": submission["reported"] | {"bbh": 99.0}}
        (folder / "inflated.json").write_text(json.dumps(inflated, indent=2))
        (folder / "submission.json").write_text(
            json.dumps(submission | {"results": "inflated.json"}, indent=2)
        )
    passed, _, errors = verdict(folder, None)
    assert not passed and errors, (field, into)
