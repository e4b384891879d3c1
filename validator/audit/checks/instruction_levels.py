"""IFEval: a sample's prompt-level score is whether it followed every instruction of its instruction-level list.

The harness's IFEval (lm_eval/tasks/ifeval and leaderboard/ifeval, utils.py)
checks each instruction of doc.instruction_id_list against the response,
logs the list of outcomes as inst_level_*_acc, and logs all() of that list
as prompt_level_*_acc, strict and loose alike. The two must agree with each
other and with the doc: one flipped without the other, or a list of the
wrong length, is a sample's score edited (so an instruction flipped to
pass, with its aggregate recomputed, is still reported).
Each outcome against the response itself is instruction_checks.py's.
"""

from __future__ import annotations

from ...harness.samples import as_number
from .base import AuditCheck, Sample, audit_check

LEVELS = (
    ("prompt_level_strict_acc", "inst_level_strict_acc"),
    ("prompt_level_loose_acc", "inst_level_loose_acc"),
)


def reported_levels(spec) -> list[tuple[str, str]]:
    """The LEVELS pairs the results entry reports a metric of: the task is IFEval's, for both IFEval checks."""
    reported = spec.reported_metrics
    return [pair for pair in LEVELS if reported & set(pair)]


class IFEvalCheck(AuditCheck):
    """The IFEval checks' base: made for a task whose results entry reports one of the LEVELS."""

    levels: list

    @classmethod
    def applies(cls, log) -> bool:
        # Neither reports at its finish what its adds did not find
        return bool(reported_levels(log.spec))

    def sees_samples(self) -> bool:
        return bool(self.levels)


@audit_check(
    order=45
)  # before the aggregates, which compare sample.recomputed with the logged values
class InstructionLevels(IFEvalCheck):
    """LB708: prompt_level_*_acc is not all() of inst_level_*_acc, or that list has not one pass or fail
    per instruction of the doc (a doc without its instruction_id_list cannot be held to it)."""

    def __init__(self, log):
        super().__init__(log)
        self.levels = reported_levels(self.spec)

    def add(self, sample: Sample) -> None:
        data = sample.data
        instructions = instruction_list(data)
        for prompt_level, inst_level in self.levels:
            outcomes = sample.number_list(inst_level)
            if outcomes is None:
                continue  # not a list of numbers: the aggregates report it (LB702)
            problem = None
            if not isinstance(
                instructions, list
            ):  # the harness reads it for every doc: one cannot lack it
                problem = "the doc has no instruction_id_list to check it against"
            elif len(outcomes) != len(instructions):
                problem = (
                    f"it holds {len(outcomes)} outcomes, but the doc lists {len(instructions)} instructions "
                    "(the harness logs one per instruction)"
                )
            elif any(outcome not in (0, 1) for outcome in outcomes):
                problem = "an outcome is neither a pass nor a fail (true/false, 1/0)"
            if problem:
                self.log.at_record(
                    "LB708",
                    sample.record,
                    (inst_level,),
                    f"{self.spec.name} doc_id {sample.doc_id}: {inst_level}: {problem}",
                )
            if as_number(data.get(prompt_level)) is not None:
                sample.recomputed[prompt_level] = 1.0 if all(outcomes) else 0.0
                sample.recomputed_by = f"all() of its {inst_level} gives"


def instruction_list(data: dict):
    """The sample's doc's instruction_id_list (what the harness checks the response against), or None."""
    doc = data.get("doc")
    return doc.get("instruction_id_list") if isinstance(doc, dict) else None
