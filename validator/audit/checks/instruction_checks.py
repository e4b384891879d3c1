"""IFEval: each instruction's logged outcome held to the response, where lm-eval's checker decides it alone.

An IFEval outcome flipped (a `no_comma` passed beside a comma in the
response) with the prompt level and every aggregate redone leaves files
that agree with each other: only the response says otherwise.
harness/ifeval.py replays the harness's checkers (the same code from lm-eval
0.4.1 to 0.4.13) on the logged response and the doc's kwargs; an outcome
they settle that differs from the log is LB708, and the prompt level is
recomputed as all() of the instruction outcomes, re-checked where settled,
so its aggregate is held to the response too (LB709).

Not every outcome is settled (harness/ifeval.py says which and why:
langdetect, nltk's punkt data, kwargs the harness draws at random); those
are counted in the task's notes, and two things hold of them all the same:
an empty or whitespace response follows nothing (the harness checks
`response.strip()` first), and loose tries the response as it is among its
variants, so an instruction strict passes cannot fail loose (but where it
asks the unseeded langdetect or draws a dropped kwarg at random).

Under IFEval's own task (its process_results in the config, or the name
ifeval or leaderboard_ifeval), a response that is not text, and an
instruction the harness cannot build a checker for (an id its registry
lacks, kwargs it rejects: harness/ifeval.rejected), are LB708: no run logged
such a doc, and the replay would settle nothing for it. Every pattern a doc
gives runs under RE2, in time linear in the response (harness/linear_regex.py);
one that RE2 cannot run as `re` does (a back-reference, a look-around) leaves
the levels LB716, naming the feature; one Python's `re` does not compile, where
the checker reaches it, is LB708 (the harness raised: no run logged the doc),
and one over PATTERN_MAX characters leaves the levels LB716. The replay's work is bounded
(MAX_INSTRUCTIONS per doc; the run's budget of characters read, shared by
every log of the run: audit/work_budget.py, counted read by read as the
replay does them, each loose variant too; at most MAX_WORDS keywords an
instruction):
outcomes past it leave the levels LB716, not audited, since a submitter
writes the docs and the responses' length.
"""

from __future__ import annotations

from functools import cache
from types import ModuleType

from ...harness.ifeval_kwargs import draws_at_random, rejected
from ...harness.samples import as_number, first_response
from ..work_budget import run_budget
from .base import Sample, audit_check, shown
from .instruction_levels import LEVELS, IFEvalCheck, instruction_list, reported_levels

IFEVAL_MARK = (
    "test_instruction_following_strict"  # in the source lm-eval writes of IFEval's process_results
)
IFEVAL_TASKS = frozenset({"ifeval", "leaderboard_ifeval"})  # lm-eval's own (0.4.1 to 0.4.13)
MAX_INSTRUCTIONS = 64  # per doc (the dataset's docs list at most a handful)
MAX_NAMED = 64  # instruction ids counted in the note: the submitter writes them
NOT_SETTLED = (None, None)
# IFEval's checkers that call langdetect.detect (lm_eval/tasks/ifeval/instructions.py), besides language:*
LANGDETECT = frozenset({"change_case:english_capital", "change_case:english_lowercase"})


@audit_check(
    order=46
)  # after InstructionLevels, which recomputes the prompt levels from the logged outcomes
class InstructionChecks(IFEvalCheck):
    """LB708: an instruction's logged outcome is not what IFEval's checker gives on the response, or its id is
    none the harness knows; LB716: outcomes past the replay's bounds."""

    def __init__(self, log):
        super().__init__(log)
        self.levels = [(LEVELS.index(pair), pair) for pair in reported_levels(self.spec)]
        source = self.spec.config.get("process_results")
        # IFEval's task by its scorer, or by its name (deleting the scorer's source from the config is no way out)
        self.ifeval_config = (
            isinstance(source, str) and IFEVAL_MARK in source or self.spec.name in IFEVAL_TASKS
        )
        self.budget = run_budget()
        self.past_bounds = 0
        self.not_linear: dict[str, int] = {}  # what RE2 cannot run -> outcomes it left unsettled
        self.beyond: dict[str, int] = {}  # a kwarg past the replay's bounds -> outcomes it left
        self.unsettled: dict[str, int] = {}  # instruction id -> outcomes the replay did not settle

    def add(self, sample: Sample) -> None:
        data = sample.data
        doc, instructions = data.get("doc"), instruction_list(data)
        response = first_response(data.get("filtered_resps"))
        if not isinstance(instructions, list):
            return  # InstructionLevels reports a doc without its list
        if not isinstance(response, str):
            if self.ifeval_config:  # lm-eval's IFEval scores generated text, and logs it as text
                self.log.at_record(
                    "LB708",
                    sample.record,
                    ("filtered_resps",),
                    (
                        f"{self.spec.name} doc_id {sample.doc_id}: the response is {shown(response, 30)}, not text; "
                        "IFEval's checkers read generated text, so no run logged this sample"
                    ),
                )
            return
        assert isinstance(doc, dict)  # instruction_list gives a list only from a dict doc
        kwargs = doc.get("kwargs")
        given = _given(kwargs, len(instructions))
        if self.ifeval_config:
            _unbuildable(self, sample, instructions, kwargs, given)
        blank = (
            not response or response.isspace()
        )  # the harness's `not response.strip()`, without the copy
        replayed = _replay(self, sample, instructions, given, response, blank)
        for level, (prompt_level, inst_level) in self.levels:
            outcomes = sample.number_list(inst_level)
            if outcomes is None or len(outcomes) != len(instructions):
                continue  # InstructionLevels reports it
            checked = [
                logged if found[level] is None else float(found[level])
                for logged, found in zip(outcomes, replayed, strict=False)
            ]
            changed = checked != outcomes  # else nothing to report or recompute
            if blank:
                self._blank_response(sample, inst_level, outcomes, response)
            elif changed:
                self._compare(sample, inst_level, instructions, outcomes, checked)
            if as_number(data.get(prompt_level)) is not None and changed:
                sample.recomputed[prompt_level] = 1.0 if all(checked) else 0.0
                sample.recomputed_by = (
                    "all() of its instruction outcomes, re-checked on the response, gives"
                )
        if len(self.levels) == 2 and not blank:
            _loose_below_strict(self, sample, instructions, kwargs, replayed)

    def _replay_one(self, sample: Sample, index: int, instruction, given, response: str):
        """(strict, loose) as replayed, or None past the budget."""
        ifeval = _ifeval()
        found, feature = ifeval.replay_explained(instruction, given, response, self.budget.spend)
        if feature == ifeval.PAST_BUDGET:
            return None
        if feature == ifeval.HARNESS_RAISES and self.ifeval_config:
            _harness_raises(self, sample, index, instruction)
        elif feature in ifeval.BEYOND_BOUNDS or feature == ifeval.HARNESS_RAISES:
            self.beyond[feature] = self.beyond.get(feature, 0) + 1
        elif feature is not None and len(self.not_linear) < MAX_NAMED:
            self.not_linear[feature] = self.not_linear.get(feature, 0) + 1
        elif feature is None:
            self._count(instruction, found)
        return found

    def _count(self, instruction, found: tuple) -> None:
        for level, _ in self.levels:
            if found[level] is None:
                name = instruction if isinstance(instruction, str) else "(not text)"
                if name in self.unsettled or len(self.unsettled) < MAX_NAMED:
                    self.unsettled[name] = self.unsettled.get(name, 0) + 1

    def _compare(
        self, sample: Sample, inst_level: str, instructions: list, outcomes: list, checked: list
    ) -> None:
        for index, (logged, rechecked) in enumerate(zip(outcomes, checked, strict=False)):
            if logged != rechecked and logged in (0, 1):
                self.log.at_record(
                    "LB708",
                    sample.record,
                    (inst_level, index),
                    (
                        f"{self.spec.name} doc_id {sample.doc_id}: {inst_level}[{index}] "
                        f"({shown(instructions[index], 50)}) is logged as {'a pass' if logged else 'a fail'}, but "
                        f"IFEval's checker {'fails' if logged else 'passes'} the response on the doc's kwargs"
                    ),
                )

    def _blank_response(
        self, sample: Sample, inst_level: str, outcomes: list, response: str
    ) -> None:
        if any(outcomes):
            self.log.at_record(
                "LB708",
                sample.record,
                (inst_level,),
                (
                    f"{self.spec.name} doc_id {sample.doc_id}: {inst_level} passes an instruction, but the response "
                    f"is {shown(response, 20)}, which follows none (the harness checks response.strip() first)"
                ),
            )

    def finish(self) -> None:
        whys = []
        if self.past_bounds:
            whys.append(
                f"{self.past_bounds:,} instruction outcome(s) past the replay's bounds ({MAX_INSTRUCTIONS} per "
                f"doc, {self.budget.total:,} characters read per run)"
            )
        if self.not_linear:
            feature, count = sorted(self.not_linear.items())[0]
            whys.append(f"{count:,} outcome(s) whose pattern holds {feature}, which RE2 cannot run")
        whys.extend(
            f"{count:,} outcome(s) with {why}" for why, count in sorted(self.beyond.items())
        )
        for why in whys:
            for key, (metric, _) in self.spec.metric_parts:
                if any(metric in pair for _, pair in self.levels):
                    self.not_audited(key, f"IFEval: {why}")
        if self.unsettled:
            named = ", ".join(
                f"{name} ({count:,})" for name, count in sorted(self.unsettled.items())[:8]
            )
            self.note_once(
                f"IFEval outcomes not re-checked on the response, as the doc and the response do not "
                f"settle the harness's answer (langdetect, nltk's punkt, kwargs drawn at random): {named}"
            )


@cache
def _ifeval() -> ModuleType:
    """The replay's checkers, imported with the first IFEval sample: an audit without one never loads them."""
    from ...harness import ifeval

    return ifeval


def _deterministic(instruction: object, kwargs: object, index: int) -> bool:
    """Whether the harness checks this instruction the same way twice: none that asks langdetect, which is
    unseeded (an honest english_lowercase can pass strict and fail loose), and none whose checker draws
    a kwarg at random (one the doc leaves null or falsy: a multiple_sections without its num_sections can
    pass strict and fail loose in an honest run)."""
    if (
        not isinstance(instruction, str)
        or instruction.startswith("language:")
        or instruction in LANGDETECT
    ):
        return False
    given = kwargs[index] if isinstance(kwargs, list) and index < len(kwargs) else None
    return isinstance(given, dict) and not draws_at_random(instruction, given)


def _given(kwargs: object, count: int) -> list:
    """The doc's kwargs entries the checks read (up to one an instruction, MAX_INSTRUCTIONS at most), each object
    without its falsy values, as the harness builds a checker from it. rejected() and the replay each drop
    them too, which keeps such an entry as it is: dropped once here, not twice over IFEval's two dozen kwargs,
    most of them null."""
    if not isinstance(kwargs, list):
        return []
    return [
        {key: value for key, value in entry.items() if value} if isinstance(entry, dict) else entry
        for entry in kwargs[: min(count, MAX_INSTRUCTIONS)]
    ]


def _unbuildable(
    check: InstructionChecks, sample: Sample, instructions: list, kwargs, given: list
) -> None:
    """LB708 for each instruction IFEval's harness cannot build (an id its registry lacks, kwargs it rejects):
    no run logged such a doc, and the replay would settle nothing for it."""
    known = _ifeval().INSTRUCTIONS
    where: tuple[str | int, ...]
    for index, instruction in enumerate(instructions[:MAX_INSTRUCTIONS]):
        if not (isinstance(instruction, str) and instruction in known):
            where, why = (
                ("instruction_id_list", index),
                f"is {shown(instruction, 50)}, which IFEval's registry lacks",
            )
        elif not isinstance(kwargs, list) or index >= len(kwargs):
            where, why = ("kwargs",), "has no kwargs entry (the harness reads kwargs[index])"
        elif (reason := rejected(instruction, given[index])) is not None:
            where, why = ("kwargs", index), f"({instruction}): {reason}"
        else:
            continue
        check.log.at_record(
            "LB708",
            sample.record,
            ("doc",) + where,
            (
                f"{check.spec.name} doc_id {sample.doc_id}: instruction {index} {why}; the harness fails to build "
                "its checker, so no run logged this doc"
            ),
        )


def _harness_raises(check: InstructionChecks, sample: Sample, index: int, instruction) -> None:
    check.log.at_record(
        "LB708",
        sample.record,
        ("doc", "kwargs", index),
        (
            f"{check.spec.name} doc_id {sample.doc_id}: instruction {index} ({shown(instruction, 50)}) has "
            "a pattern Python's re does not compile; the harness raises on it, so no run logged this doc"
        ),
    )


def _replay(
    check, sample: Sample, instructions: list, given: list, response: str, blank: bool
) -> list[tuple]:
    replayed = []
    found: tuple[bool, bool] | tuple[None, None] | None
    for index, instruction in enumerate(instructions):
        if blank:
            found = (False, False)  # before any checker: `if response.strip() and ...`
        else:
            kept = given[index] if index < len(given) else None
            found = (
                check._replay_one(sample, index, instruction, kept, response)
                if index < MAX_INSTRUCTIONS
                else None
            )
            if found is None:
                check.past_bounds += 1
                found = NOT_SETTLED
        replayed.append(found)
    return replayed


def _loose_below_strict(check, sample: Sample, instructions: list, kwargs, replayed: list) -> None:
    """Where the replay settled neither level: loose also tries the response as it is, so it passes what
    strict passes, unless the checker is not the same twice."""
    if NOT_SETTLED not in replayed:
        return  # the usual sample: every outcome the replay settled, nothing to look at
    strict = sample.number_list("inst_level_strict_acc")
    loose = sample.number_list("inst_level_loose_acc")
    if not strict or not loose or not len(strict) == len(loose) == len(instructions):
        return
    for index, (passed, loosely) in enumerate(zip(strict, loose, strict=True)):
        if (
            passed == 1
            and loosely == 0
            and replayed[index] == NOT_SETTLED
            and _deterministic(instructions[index], kwargs, index)
        ):
            check.log.at_record(
                "LB708",
                sample.record,
                ("inst_level_loose_acc",),
                (
                    f"{check.spec.name} doc_id {sample.doc_id}: instruction {index} ({shown(instructions[index], 50)}) "
                    "passes strict but fails loose; loose also tries the response as it is, so it cannot"
                ),
            )
            return
