"""Hashes: each sample's doc, prompt and target hashes, and the task hash over the whole log."""

from __future__ import annotations

import hashlib

from ..sample_scoring import HASH_FIELDS, doc_hash, first_prompt, sha256
from .base import AuditUnit, Sample, audit_unit

_WHAT = {"doc_hash": "doc", "prompt_hash": "prompt", "target_hash": "target"}


@audit_unit(order=10)
class Hashes(AuditUnit):
    """LB702 (hashes missing), LB703 (a sample's hash is not that of its content), LB704 (task hash)."""

    def __init__(self, log):
        super().__init__(log)
        self.task_hasher = hashlib.sha256()
        self.complete = True

    def add(self, sample: Sample) -> None:
        data, record = sample.data, sample.record
        logged = [data.get(name) for name in HASH_FIELDS]
        if not all(isinstance(h, str) for h in logged):
            if self.spec.task_hash is not None or any(isinstance(h, str) for h in logged):
                self.complete = False
                self.log.at_record("LB702", record, (), "the sample lacks doc_hash, prompt_hash or target_hash "
                                   "(lm-eval >= 0.4.3 logs all three)")
            return
        self.task_hasher.update("".join(logged).encode("utf-8", "surrogatepass"))
        prompt, target = first_prompt(data.get("arguments")), data.get("target")
        expected = (doc_hash(data.get("doc")), sha256(prompt) if prompt is not None else None,
                    sha256(target if isinstance(target, str) else str(target)))
        self.summary.hashes_checked += 1
        for name, written, actual in zip(HASH_FIELDS, logged, expected):
            if actual is None:
                self.log.at_record("LB702", record, ("arguments",),
                                   "no prompt in arguments, so prompt_hash cannot be checked")
            elif written != actual:
                self.summary.hash_mismatches += 1
                what = _WHAT[name]
                self.log.at_record("LB703", record, (name,), f"{name} of doc_id {sample.doc_id} is not the hash of "
                                   f"its {what} ({written[:12]}... logged, {actual[:12]}... recomputed); the {what} "
                                   "was changed after the run")

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
        self.log.at_results("LB704", ("task_hashes", spec.name),
                            f"task_hashes.{spec.name} is {spec.task_hash[:12]}..., but the samples in "
                            f"{self.log.name} hash to {actual[:12]}...; the log is not the one these results were "
                            "written with (samples added, removed, reordered or edited)")
