"""MATH answers: each doc's `answer` against what lm-eval's leaderboard MATH process_docs makes of its solution.

The harness builds every MATH doc's answer from the same doc's solution
(core/math_answers.py) and scores generations against it. A wrong answer
made right by setting `answer` (and `target`) to the model's, with the
scores, aggregates and hashes redone, agrees with everything else in the
files; the solution still says otherwise. The check runs when the task's
config carries the leaderboard's process_docs (its source, as lm-eval writes
functions into configs); a doc of such a task without its solution or answer
cannot be held to it, and is reported. Rule LB724.
"""

from __future__ import annotations

from ...core.math_answers import PROCESS_DOCS_MARK, boxed_answer
from .base import AuditUnit, Sample, audit_unit, shown


@audit_unit(order=17)
class MathAnswers(AuditUnit):
    """LB724: a MATH doc's answer is not what process_docs gives for its solution."""

    def sees_samples(self) -> bool:
        source = self.spec.config.get("process_docs")
        return isinstance(source, str) and PROCESS_DOCS_MARK in source

    def add(self, sample: Sample) -> None:
        doc = sample.data.get("doc")
        if not isinstance(doc, dict):
            return  # the record's shape is LB702's
        solution, answer = doc.get("solution"), doc.get("answer")
        if type(solution) is not str or type(answer) is not str:
            message = ("the doc has no solution and answer as text, which the config's process_docs builds every "
                       "doc with")
        elif answer != (expected := boxed_answer(solution)):
            message = (f"doc.answer is {shown(answer, 50)}, but the config's process_docs takes {shown(expected, 50)} "
                       "from the doc's solution (remove_boxed(last_boxed_only_string(solution))): the gold answer "
                       "was edited")
        else:
            return
        self.log.at_record("LB724", sample.record, ("doc", "answer"), f"{self.spec.name} doc_id {sample.doc_id}: "
                           f"{message}")
