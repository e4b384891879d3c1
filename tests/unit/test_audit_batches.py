"""The audit's units take a log's samples in batches (audit/sample_batches.py): the same audit as one at a time.

Each unit runs over a batch of samples before the next unit does, for the
CPU's caches. What must not change: every finding and count is what one
sample at a time through every unit gives, the per-rule caps keep the same
findings, a batch's memory stays that of a few lines, and a log that stops
(a broken line, a unit's failure) keeps what was audited before it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import harness_logs as hl

from validator.audit import sample_batches as batches
from validator.audit.auditor import audit_files
from validator.audit.checks.hashes import Hashes
from validator.audit.sample_batches import Batches
from validator.findings.collection import MAX_FINDINGS_PER_RULE


def audited(root: Path, results: Path, batch: int, monkeypatch):
    monkeypatch.setattr(batches, "BATCH_RECORDS", batch)
    monkeypatch.setattr(batches, "BATCH_CONTAINERS", 1 << 30)  # batches of `batch` records exactly
    result = audit_files(root, results.relative_to(root), None)
    return [(f.rule, Path(f.file).name, f.line, f.json_path, f.message) for f in result.findings], [
        {"task": task.task, **task.as_dict()} for task in result.tasks
    ]


@pytest.fixture
def batch_sizes(monkeypatch) -> list[int]:
    """The size of every batch the audits of this test run, in order (empty ones too)."""
    sizes: list[int] = []
    run = Batches.run

    def counted(self, batch):
        sizes.append(len(batch))
        run(self, batch)

    monkeypatch.setattr(Batches, "run", counted)
    return sizes


def faulty_run(tmp_path: Path, docs: int = 150) -> Path:
    """A multiple-choice log in which every sample draws LB702 from two units (its hashes in part, its resps
    gone), every fifth is no sample at all (a bad doc_id: LB702 before any unit) and every seventh has its acc
    flipped (LB708): more LB702 findings in the first batch than the cap keeps."""
    task = hl.choice_task("arc_easy", docs)
    results = hl.results_for([task])
    for index, sample in enumerate(task.samples):
        del sample["prompt_hash"], sample["target_hash"], sample["resps"]
        if index % 5 == 4:
            sample["doc_id"] = -1
        if index % 7 == 3:
            sample["acc"] = 1.0 - sample["acc"]
    return hl.write_run(tmp_path, [task], results)["results"]


@pytest.mark.parametrize("batch", [2, 7, 64])
def test_a_batch_of_any_size_finds_what_one_sample_at_a_time_finds(tmp_path, monkeypatch, batch):
    results = faulty_run(tmp_path)
    one_at_a_time = audited(tmp_path, results, 1, monkeypatch)
    findings, tasks = audited(tmp_path, results, batch, monkeypatch)
    assert (findings, tasks) == one_at_a_time
    lb702 = [f for f in findings if f[0] == "LB702"]
    # the cap was reached inside a batch, and it kept the same findings: sample order, then unit
    assert (
        len(lb702) == MAX_FINDINGS_PER_RULE + 1
        and sum("more LB702 findings" in f[4] for f in lb702) == 1
    )
    kept_lines = sorted({f[2] for f in lb702 if f[2] is not None})
    assert kept_lines[:3] == [1, 2, 3] and kept_lines[-1] < 40
    assert {f[0] for f in findings} >= {"LB702", "LB708", "LB709"}


def test_the_first_finding_of_each_kind_is_at_the_first_sample_that_has_it(tmp_path, monkeypatch):
    results = faulty_run(tmp_path)
    findings, _ = audited(tmp_path, results, 64, monkeypatch)
    assert ("LB702", 5) in {
        (f[0], f[2]) for f in findings if f[3] == "$.doc_id"
    }  # the first bad doc_id
    assert (
        min(f[2] for f in findings if f[0] == "LB708") == 4
    )  # the first flipped acc (index 3, line 4)


def test_a_batch_holds_at_most_a_megabyte_of_log_lines(tmp_path, batch_sizes):
    task = hl.choice_task("arc_easy", 12)
    for sample in task.samples:
        sample["doc"]["passage"] = "x" * 400_000  # a field no template reads
        hl.with_hashes(sample)
    paths = hl.write_run(tmp_path, [task])
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert [s for s in batch_sizes if s] == [3, 3, 3, 3]  # 3 lines of 400 kB pass 1 MiB
    assert result.tasks[0].hashes_checked == 12 and result.findings == []


def test_the_samples_before_a_broken_line_are_audited_as_they_were(tmp_path, monkeypatch):
    task = hl.choice_task("arc_easy", 100)
    task.samples[10]["doc"]["q"] = "edited"  # LB703 in the batch the broken line cuts short
    paths = hl.write_run(tmp_path, [task])
    lines = paths["arc_easy"].read_text(encoding="utf-8").splitlines(keepends=True)
    lines[79] = lines[79][:40] + "\n"
    paths["arc_easy"].write_text("".join(lines), encoding="utf-8")
    one_at_a_time = audited(tmp_path, paths["results"], 1, monkeypatch)
    findings, tasks = audited(tmp_path, paths["results"], 64, monkeypatch)
    assert (findings, tasks) == one_at_a_time
    assert tasks[0]["samples"] == 79 and tasks[0]["hashes_checked"] == 79
    assert [(f[0], f[2]) for f in findings if f[0] in ("LB701", "LB703")] == [
        ("LB703", 11),
        ("LB701", 80),
    ]


def test_a_unit_that_fails_inside_a_batch_keeps_what_was_found_before(tmp_path, monkeypatch):
    task = hl.choice_task("arc_easy", 30)
    for sample in task.samples[:5]:
        sample["target_hash"] = "0" * 64  # LB703 on the first five samples
    other = hl.drop_task(["4"] * 3, [[["4"]]] * 3)
    paths = hl.write_run(tmp_path, [task, other])
    add = Hashes.add

    def fails_at_doc_20(self, sample):
        if sample.doc_id == 20 and self.spec.name == "arc_easy":
            raise RuntimeError("a bug")
        add(self, sample)

    monkeypatch.setattr(Hashes, "add", fails_at_doc_20)
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    by_log = {(f.rule, Path(f.file).name, f.line) for f in result.findings}
    assert {("LB703", paths["arc_easy"].name, line) for line in range(1, 6)} <= by_log
    assert ("LB110", paths["arc_easy"].name, None) in by_log
    drop = next(t for t in result.tasks if t.task == "drop")
    assert drop.hashes_checked == 3 and not [
        f for f in result.findings if Path(f.file).name == paths["drop"].name
    ]


def test_a_log_of_only_bad_records_still_reports_them(tmp_path, monkeypatch):
    task = hl.choice_task("arc_easy", 3)
    paths = hl.write_run(tmp_path, [task])
    paths["arc_easy"].write_text(
        "".join(json.dumps(v) + "\n" for v in ({"doc_id": -1}, {"doc_id": "x"}, 5)),
        encoding="utf-8",
    )
    findings, tasks = audited(tmp_path, paths["results"], 64, monkeypatch)
    assert [(f[0], f[2]) for f in findings if f[0] == "LB702"] == [
        ("LB702", 1),
        ("LB702", 2),
        ("LB702", 3),
    ]
    assert tasks[0]["samples"] == 0


def test_what_a_batch_found_is_reported_when_the_batch_ends(tmp_path, monkeypatch):
    """Not held to the end of the log: each finding held keeps its record (a line of up to 64 MiB) alive."""
    results = faulty_run(tmp_path)
    held_after_each_batch: list[int] = []
    run = Batches.run

    def watched(self, batch):
        run(self, batch)
        held_after_each_batch.append(len(self.held))

    monkeypatch.setattr(Batches, "run", watched)
    monkeypatch.setattr(batches, "BATCH_RECORDS", 16)
    monkeypatch.setattr(batches, "BATCH_CONTAINERS", 1 << 30)
    audit_files(tmp_path, results.relative_to(tmp_path), None)
    assert len(held_after_each_batch) >= 8 and set(held_after_each_batch) == {0}


def test_records_that_are_no_samples_fill_a_batch_too(tmp_path, monkeypatch):
    """Their findings are held with them: 60 lines of 1 MB with a bad doc_id were all held to the log's end."""
    task = hl.choice_task("arc_easy", 3)
    paths = hl.write_run(tmp_path, [task])
    paths["arc_easy"].write_text(
        "".join(json.dumps({"doc_id": -1, "pad": "x" * 300_000}) + "\n" for _ in range(40)),
        encoding="utf-8",
    )
    most_held: list[int] = []
    hold = Batches.hold

    def watched(self, *finding):
        most_held.append(len(self.held or ()))
        return hold(self, *finding)

    monkeypatch.setattr(Batches, "hold", watched)
    findings, _ = audited(tmp_path, paths["results"], 16, monkeypatch)
    assert max(most_held) <= 3  # 4 lines of 300 kB pass 1 MiB
    assert len([f for f in findings if f[0] == "LB702"]) == 40


@pytest.mark.parametrize("failing", ["Hashes", "Aggregates"])
def test_a_unit_that_fails_leaves_the_findings_one_sample_at_a_time_leaves(
    tmp_path, monkeypatch, failing
):
    """Units before it ran past the failure in the batch, units after it had not reached the samples before it."""
    from validator.audit.checks import check_classes

    task = hl.choice_task("arc_easy", 40)
    for sample in task.samples:
        sample["target_hash"] = "0" * 64  # LB703 on every sample (Hashes)
        sample["acc"] = 1.0 - sample["acc"]  # LB708 on every sample (Aggregates)
    paths = hl.write_run(tmp_path, [task])
    unit = next(cls for cls in check_classes() if cls.__name__ == failing)
    add = unit.add

    def fails_at_doc_20(self, sample):
        if sample.doc_id == 20:
            raise RuntimeError("a bug")
        add(self, sample)

    monkeypatch.setattr(unit, "add", fails_at_doc_20)
    one_at_a_time, _ = audited(tmp_path, paths["results"], 1, monkeypatch)
    findings, _ = audited(tmp_path, paths["results"], 16, monkeypatch)
    assert findings == one_at_a_time
    lines = {rule: sorted(f[2] for f in findings if f[0] == rule) for rule in ("LB703", "LB708")}
    assert lines["LB703"] == list(range(1, 21 if failing == "Hashes" else 22))
    assert lines["LB708"] == list(range(1, 21))
    assert "LB110" in {f[0] for f in findings}


def test_a_batch_is_run_once_even_when_its_findings_fail_to_be_made(tmp_path, monkeypatch):
    from validator.audit.auditor import LogAuditor

    task = hl.choice_task("arc_easy", 16)
    task.samples[0]["target_hash"] = "0" * 64
    paths = hl.write_run(tmp_path, [task])

    def fails(self, *finding):
        raise RuntimeError("a bug in making a finding")

    monkeypatch.setattr(LogAuditor, "_at_record_now", fails)
    _, tasks = audited(tmp_path, paths["results"], 16, monkeypatch)
    assert tasks[0]["hashes_checked"] == 16  # not 32: the batch did not go through the units again


def test_a_batch_is_sized_by_the_containers_its_records_parsed_into(
    tmp_path, monkeypatch, batch_sizes
):
    """Samples of many objects and arrays (multiple choice) make small batches, samples of few make large ones:
    a batch ends at the record that takes its openers past BATCH_CONTAINERS."""
    from validator.io.limits import DEFAULT_LIMITS
    from validator.io.sample_logs import read_records

    task = hl.choice_task("arc_easy", 120)
    paths = hl.write_run(tmp_path, [task])
    weights = [record.containers for record in read_records(paths["arc_easy"], DEFAULT_LIMITS)]
    assert min(weights) > 0
    monkeypatch.setattr(batches, "BATCH_CONTAINERS", 10 * weights[0])
    audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    expected, total, count = [], 0, 0
    for weight in weights:
        total, count = total + weight, count + 1
        if total > batches.BATCH_CONTAINERS:
            expected.append(count)
            total, count = 0, 0
    assert batch_sizes == [*expected, count] and 5 < max(batch_sizes) < 20
