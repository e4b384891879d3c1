"""MATH answers: each doc's `answer` against what lm-eval's leaderboard MATH process_docs makes of its solution.

The harness builds every MATH doc's answer from the same doc's solution
(harness/math_answers.py) and scores generations against it. A wrong answer
made right by setting `answer` (and `target`) to the model's, with the
scores, aggregates and hashes redone, agrees with everything else in the
files; the solution still says otherwise. The check runs when the task is a
leaderboard_math_* task whose config carries the leaderboard's process_docs
(its source, as lm-eval writes functions into configs; minerva_math's holds the
same words but normalizes the answer); a doc of such a task without its solution or answer
cannot be held to it, and is reported. Rule LB724.

The same task stops every generation at "Problem:" (its YAML's
generation_kwargs.until, 0.4.9 to 0.4.13): a config that carries its
process_docs without that stop is another task variant, whose generations
run on into the next problem (LB714, a warning, as for DROP).
"""

from __future__ import annotations

from ...findings import ERROR
from ...findings.registry import rule
from ...harness.math_answers import PROCESS_DOCS_MARK, boxed_answer
from .base import AuditCheck, Sample, audit_check, shown

MATH_STOP = "Problem:"
MATH_TASKS = "leaderboard_math_"  # the leaderboard's subtasks; minerva_math shares the process_docs but normalizes


def is_leaderboard_math(spec) -> bool:
    """The task is the leaderboard's MATH: its name, and its config's process_docs (the submitter writes both)."""
    source = spec.config.get("process_docs")
    return (
        spec.name.startswith(MATH_TASKS) and isinstance(source, str) and PROCESS_DOCS_MARK in source
    )


@rule("LB724", "math-answer-unexplained", ERROR, runs=False)
def math_answer_unexplained(ctx):
    """A leaderboard MATH doc's `answer` is not what lm-eval's process_docs takes from the doc's `solution`.

    The leaderboard's MATH tasks (lm_eval/tasks/leaderboard/math, 0.4.9 to
    0.4.13) build each doc's answer as
    remove_boxed(last_boxed_only_string(solution)) and score generations
    against it, so a wrong answer made right by rewriting `answer` (and
    `target`), with every score and hash redone, still contradicts its own
    solution. Checked when the task's config carries that process_docs; a
    doc without its solution or answer is reported too. The functions are
    ported with their quirks and held to the harness's output on 420 cases.
    """


@audit_check(order=17)
class MathAnswers(AuditCheck):
    """LB724: a MATH doc's answer is not what process_docs gives for its solution; LB714: its stop is gone."""

    def __init__(self, log):
        super().__init__(log)
        self.leaderboard_math = is_leaderboard_math(self.spec)

    @classmethod
    def applies(cls, log) -> bool:
        return is_leaderboard_math(log.spec)

    def sees_samples(self) -> bool:
        return self.leaderboard_math

    def finish(self) -> None:
        until = self.spec.until
        if not self.leaderboard_math or (until is not None and MATH_STOP in until):
            return
        task = self.spec.name
        self.log.at_results(
            "LB714",
            ("configs", task, "generation_kwargs", "until"),
            (
                f"{task}: the config carries the leaderboard MATH's process_docs, whose task stops every generation at "
                f"{MATH_STOP!r}, but its until is {shown(until, 60)}: a different task variant, whose generations run on "
                "into the next problem"
            ),
        )

    def add(self, sample: Sample) -> None:
        doc = sample.data.get("doc")
        if not isinstance(doc, dict):
            return  # the record's shape is LB702's
        solution, answer = doc.get("solution"), doc.get("answer")
        if type(solution) is not str or type(answer) is not str:
            message = (
                "the doc has no solution and answer as text, which the config's process_docs builds every "
                "doc with"
            )
        elif answer != (expected := boxed_answer(solution)):
            message = (
                f"doc.answer is {shown(answer, 50)}, but the config's process_docs takes {shown(expected, 50)} "
                "from the doc's solution (remove_boxed(last_boxed_only_string(solution))): the gold answer "
                "was edited"
            )
        else:
            return
        self.log.at_record(
            "LB724",
            sample.record,
            ("doc", "answer"),
            f"{self.spec.name} doc_id {sample.doc_id}: {message}",
        )
