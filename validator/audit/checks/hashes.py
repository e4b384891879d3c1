"""Hashes: each sample's doc, prompt and target hashes, and the task hash over the whole log."""

from __future__ import annotations

import hashlib

from ...findings import ERROR
from ...findings.registry import rule
from ...harness.indented_json import indent2_utf8, orjson_writes_it
from ...harness.samples import first_prompt
from .base import AuditCheck, Sample, audit_check

_WHAT = {"doc_hash": "doc", "prompt_hash": "prompt", "target_hash": "target"}
# samples.sha256 and doc_hash, in place: text as lm-eval hashes it (a lone surrogate passed through). Two
# arguments, not a tuple unpacked into the call: that call is slower, and it is made three times a sample.
_UTF8, _SURROGATES = "utf-8", "surrogatepass"
_sha256 = hashlib.sha256


@rule("LB703", "sample-hash-mismatch", ERROR, runs=False)
def sample_hash_mismatch(ctx):
    """A sample's doc_hash, prompt_hash or target_hash is not the hash of what the sample holds.

    lm-eval >= 0.4.3 logs sha256 of json.dumps(doc, indent=2,
    ensure_ascii=False), of the first request's prompt and of str(target). A
    mismatch means the document, prompt or target was edited after the run.
    """


@rule("LB704", "task-hash-mismatch", ERROR, runs=False)
def task_hash_mismatch(ctx):
    """The results file's task_hashes entry is not the hash of the log's samples, in file order.

    task_hashes[task] is sha256 of every sample's doc_hash + prompt_hash +
    target_hash concatenated. A mismatch means the log is not the one the
    results were written with: samples added, removed, reordered or edited.
    """


@audit_check(order=10)
class Hashes(AuditCheck):
    """LB702 (hashes missing), LB703 (a sample's hash is not that of its content), LB704 (task hash)."""

    def __init__(self, log):
        super().__init__(log)
        self.task_hasher = hashlib.sha256()
        self.complete = True

    def add(self, sample: Sample) -> None:
        # Written out, the hashes computed in place: this runs per sample, and its calls were a measurable share
        get = sample.data.get
        doc_hash, prompt_hash, target_hash = get("doc_hash"), get("prompt_hash"), get("target_hash")
        if not (type(doc_hash) is str and type(prompt_hash) is str and type(target_hash) is str):
            if self.spec.task_hash is not None or any(
                isinstance(h, str) for h in (doc_hash, prompt_hash, target_hash)
            ):
                self.complete = False
                self.log.at_record(
                    "LB702",
                    sample.record,
                    (),
                    "the sample lacks doc_hash, prompt_hash or target_hash "
                    "(lm-eval >= 0.4.3 logs all three)",
                )
            return
        self.task_hasher.update((doc_hash + prompt_hash + target_hash).encode(_UTF8, _SURROGATES))
        self.summary.hashes_checked += 1
        doc = get("doc")
        plain = orjson_writes_it(doc)
        actual = _sha256(indent2_utf8(doc, plain)).hexdigest()
        if doc_hash != actual:
            self._mismatch(sample, "doc_hash", doc_hash, actual)
        else:
            sample.doc_hash_ok, sample.doc_plain = True, plain
        prompt = first_prompt(get("arguments"))
        if prompt is None:
            self.log.at_record(
                "LB702",
                sample.record,
                ("arguments",),
                "no prompt in arguments, so prompt_hash cannot be checked",
            )
        elif prompt_hash != (actual := _sha256(prompt.encode(_UTF8, _SURROGATES)).hexdigest()):
            self._mismatch(sample, "prompt_hash", prompt_hash, actual)
        target = get("target")
        target = target if isinstance(target, str) else str(target)
        if target_hash != (actual := _sha256(target.encode(_UTF8, _SURROGATES)).hexdigest()):
            self._mismatch(sample, "target_hash", target_hash, actual)

    def _mismatch(self, sample: Sample, name: str, written: str, actual: str) -> None:
        """A hash that is not that of its content: LB703 at that hash."""
        self.summary.hash_mismatches += 1
        what = _WHAT[name]
        self.log.at_record(
            "LB703",
            sample.record,
            (name,),
            f"{name} of doc_id {sample.doc_id} is not the hash of "
            f"its {what} ({written[:12]}... logged, {actual[:12]}... recomputed); the {what} "
            "was changed after the run",
        )

    def finish(self) -> None:
        spec = self.spec
        if spec.task_hash is None:
            self.summary.task_hash = "not in the results file"
            return
        if not self.complete:
            self.summary.task_hash = "not checked: samples lack hashes"
            return
        actual = self.task_hasher.hexdigest()
        if actual == spec.task_hash:
            self.summary.task_hash = "ok"
            return
        self.summary.task_hash = "mismatch"
        self.log.at_results(
            "LB704",
            ("task_hashes", spec.name),
            f"task_hashes.{spec.name} is {spec.task_hash[:12]}..., but the samples in "
            f"{self.log.name} hash to {actual[:12]}...; the log is not the one these results were "
            "written with (samples added, removed, reordered or edited)",
        )
