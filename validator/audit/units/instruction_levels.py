"""IFEval: a sample's prompt-level score is whether it followed every instruction of its instruction-level list.

The harness's IFEval (lm_eval/tasks/ifeval and leaderboard/ifeval, utils.py)
checks each instruction of doc.instruction_id_list against the response,
logs the list of outcomes as inst_level_*_acc, and logs all() of that list
as prompt_level_*_acc, strict and loose alike. Neither can be re-scored
here (that needs the instruction checkers), but the two must agree with each
other and with the doc: one flipped without the other, or a list of the
wrong length, is a sample's score edited (an outside judge found an
instruction flipped to pass, with its aggregate recomputed, unreported).

Two more things the checkers' code settles without running them: loose
tries the response as it is among its variants, so an instruction strict
passes cannot fail loose (except response_language, whose langdetect is not
seeded, and an instruction whose kwargs the harness drops as falsy and
draws at random); and an empty or whitespace response follows nothing
(`response.strip() and ...`), strict and loose alike.
"""

from __future__ import annotations

from ..sample_scoring import as_number, as_number_list, first_response
from .base import AuditUnit, Sample, audit_unit, shown

LEVELS = (("prompt_level_strict_acc", "inst_level_strict_acc"), ("prompt_level_loose_acc", "inst_level_loose_acc"))


@audit_unit(order=45)  # before the aggregates, which compare sample.recomputed with the logged values
class InstructionLevels(AuditUnit):
    """LB708: prompt_level_*_acc is not all() of inst_level_*_acc, or that list has not one pass or fail
    per instruction of the doc (a doc without its instruction_id_list cannot be held to it)."""

    def __init__(self, log):
        super().__init__(log)
        reported = {key.partition(",")[0] for key in self.spec.metric_keys()}
        self.levels = [pair for pair in LEVELS if reported & set(pair)]

    def sees_samples(self) -> bool:
        return bool(self.levels)

    def add(self, sample: Sample) -> None:
        data = sample.data
        doc = data.get("doc")
        instructions = doc.get("instruction_id_list") if isinstance(doc, dict) else None
        for prompt_level, inst_level in self.levels:
            outcomes = as_number_list(data.get(inst_level))
            if outcomes is None:
                continue  # not a list of numbers: the aggregates report it (LB702)
            problem = None
            if not isinstance(instructions, list):  # the harness reads it for every doc: one cannot lack it
                problem = "the doc has no instruction_id_list to check it against"
            elif len(outcomes) != len(instructions):
                problem = (f"it holds {len(outcomes)} outcomes, but the doc lists {len(instructions)} instructions "
                           "(the harness logs one per instruction)")
            elif any(outcome not in (0, 1) for outcome in outcomes):
                problem = "an outcome is neither a pass nor a fail (true/false, 1/0)"
            if problem:
                self.log.at_record("LB708", sample.record, (inst_level,),
                                   f"{self.spec.name} doc_id {sample.doc_id}: {inst_level}: {problem}")
            if as_number(data.get(prompt_level)) is not None:
                sample.recomputed[prompt_level] = 1.0 if all(outcomes) else 0.0
                sample.recomputed_by = f"all() of its {inst_level} gives"
        if not isinstance(instructions, list):
            return
        response = first_response(data.get("filtered_resps"))
        if isinstance(response, str) and not response.strip():
            self._empty_response(sample, response)
        elif len(self.levels) == 2:
            self._loose_below_strict(sample, doc, instructions)

    def _empty_response(self, sample: Sample, response: str) -> None:
        for _, inst_level in self.levels:
            outcomes = as_number_list(sample.data.get(inst_level))
            if outcomes and any(outcomes):
                self.log.at_record("LB708", sample.record, (inst_level,), (
                    f"{self.spec.name} doc_id {sample.doc_id}: {inst_level} passes an instruction, but the response "
                    f"is {shown(response, 20)}, which follows none (the harness checks response.strip() first)"))

    def _loose_below_strict(self, sample: Sample, doc: dict, instructions: list) -> None:
        strict = as_number_list(sample.data.get("inst_level_strict_acc"))
        loose = as_number_list(sample.data.get("inst_level_loose_acc"))
        if not strict or not loose or not len(strict) == len(loose) == len(instructions):
            return
        kwargs = doc.get("kwargs")
        for index, (passed, loosely) in enumerate(zip(strict, loose)):
            if passed == 1 and loosely == 0 and _deterministic(instructions[index], kwargs, index):
                self.log.at_record("LB708", sample.record, ("inst_level_loose_acc",), (
                    f"{self.spec.name} doc_id {sample.doc_id}: instruction {index} ({shown(instructions[index], 50)}) "
                    "passes strict but fails loose; loose also tries the response as it is, so it cannot"))
                return


# IFEval's checkers that call langdetect.detect (lm_eval/tasks/ifeval/instructions.py), besides language:*
LANGDETECT = frozenset({"change_case:english_capital", "change_case:english_lowercase"})


def _deterministic(instruction: object, kwargs: object, index: int) -> bool:
    """Whether the harness checks this instruction the same way twice: none that asks langdetect, which is
    unseeded (an outside tester saw an honest english_lowercase pass strict and fail loose), and every kwarg it
    was given kept (it builds each from {k: v for k, v in kwargs.items() if v} and draws the missing ones at
    random)."""
    if not isinstance(instruction, str) or instruction.startswith("language:") or instruction in LANGDETECT:
        return False
    given = kwargs[index] if isinstance(kwargs, list) and index < len(kwargs) else None
    return isinstance(given, dict) and all(value is None or bool(value) for value in given.values())
