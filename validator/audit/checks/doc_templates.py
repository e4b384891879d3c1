"""Targets and choices: each sample's `target` and choice continuations against what its config makes of its doc.

lm-eval logs the doc beside what it built from it: `target` is the config's
`doc_to_target` applied to the doc, and a multiple-choice request's
continuation is `target_delimiter` + each choice of `doc_to_choice`
(lm_eval/api/task.py; under a chat template 0.4.7 on leave the delimiter
out: TaskSpec.choice_delimiters). A target moved to the model's pick, or a gold choice's
continuation lengthened until acc_norm prefers it, agrees with every score
and hash recomputed after the edit; the doc still says otherwise.

Only the template shapes the leaderboards' tasks use are evaluated
(harness/doc_templates.py): a doc field's name, `{{ field.path }}`,
`{{ list.index(field) }}`, `{{ field.split(s)[i].strip() }}`, a literal number
or list. Any other template (a
Jinja filter, a Python function) is noted and not traced. The config is
the submitter's too: edited with the doc to agree, it is a different task,
which only a maintainer's reference (a profile) can name.
Rule LB722.
"""

from __future__ import annotations

from ...harness.choice_scores import is_multiple_input
from ...harness.doc_templates import UNTRACEABLE, Template, choices_of, target_of
from ...harness.samples import requests
from .base import AuditCheck, Sample, audit_check, shown


@audit_check(order=15)
class DocTemplates(AuditCheck):
    """LB722: a sample's target or a choice's continuation is not what the config's templates give for its doc."""

    joined_choices: list | None = None  # _joined's, once a log

    def __init__(self, log):
        super().__init__(log)
        config = self.spec.config
        self.target = Template.of(config.get("doc_to_target"))
        self.has_choices = config.get("doc_to_choice") is not None
        self.choices = Template.of(config["doc_to_choice"]) if self.has_choices else None
        self.delimiters = self.spec.choice_delimiters
        self.multiple_choice = self.spec.output_type == "multiple_choice"
        if config.get("use_prompt"):  # a promptsource template replaces both
            self.target = self.choices = None

    def sees_samples(self) -> bool:
        config = self.spec.config
        untraced = [
            name
            for name, template in (("doc_to_target", self.target), ("doc_to_choice", self.choices))
            if config.get(name) is not None and template is None
        ]
        if untraced:
            self.summary.notes.append(
                f"{' and '.join(untraced)} of the config: no template shape lbnorm evaluates "
                "(it is not run), so the log is not traced to its docs there"
            )
        return self.target is not None or (self.multiple_choice and self.choices is not None)

    def add(self, sample: Sample) -> None:
        doc = sample.data.get("doc")
        if not isinstance(doc, dict):
            return  # the record's shape is LB702's
        if self.target is not None:
            self._target(sample, doc)
        if self.multiple_choice and self.choices is not None:
            self._choices(sample, doc)

    def _target(self, sample: Sample, doc: dict) -> None:
        expected = target_of(self.target, doc, self.has_choices)
        if expected is UNTRACEABLE:
            return
        # A scorer takes this for the gold, typed as the harness has it: the log's str() of it loses whether "1" was
        # an index or a choice's text (LB722 says when the two differ)
        sample.target_traced, sample.traced_target = True, expected
        logged = sample.data.get("target")
        if expected is None or str(logged) != str(expected):
            gives = (
                "does not give a target for it"
                if expected is None
                else f"gives {shown(expected, 60)}"
            )
            self._find(
                sample,
                ("target",),
                f"target is {shown(logged, 60)}, but the config's doc_to_target "
                f"{shown(self.target.text, 60)} {gives} (its doc)",
            )

    def _choices(self, sample: Sample, doc: dict) -> None:
        choices = choices_of(self.choices, doc)
        if choices is UNTRACEABLE:
            return
        if choices is None:
            self._find(
                sample,
                ("doc",),
                f"the config's doc_to_choice {shown(self.choices.text, 60)} gives no list of "
                "choices for its doc",
            )
            return
        logged = sample.continuations()
        try:  # the usual case, in one comparison
            if logged == (
                _joined(self, choices)
                if choices is self.choices.text
                else list(map(self.delimiters[0].__add__, choices))
            ):
                return
        except TypeError:
            pass  # a choice that is no string (a number): the general path below writes it as str() does
        written = [choice if type(choice) is str else str(choice) for choice in choices]
        if any(
            self._written_so(sample, logged, written, delimiter) for delimiter in self.delimiters
        ):
            return
        # Told with the delimiter most continuations were written with, so the request named is the one edited
        # (under a chat template either may be lm-eval's; the other one names request 0 for an edit to request 2)
        delimiter = max(
            self.delimiters,
            key=lambda d: sum(got == d + want for got, want in zip(logged, written, strict=False)),
        )
        expected = [delimiter + choice for choice in written]
        calls = requests(sample.data.get("arguments"))
        if len(calls) == 2 * len(written) > 0:
            expected = _mutual_info_layout(expected, written, calls)
        if len(logged) != len(expected):
            self._find(
                sample,
                ("arguments",),
                f"{len(logged)} requests are logged, but the config's doc_to_choice "
                f"gives {len(choices)} choices for its doc: a choice was added or taken out",
            )
            return
        index = next(
            i
            for i, (got, wanted) in enumerate(zip(logged, expected, strict=False))
            if got != wanted
        )
        self._find(
            sample,
            ("arguments",),
            f"request {index} continues with {shown(logged[index], 60)}, but the "
            f"config's doc_to_choice gives {shown(expected[index], 60)} for its doc",
        )

    @staticmethod
    def _written_so(sample: Sample, logged: list, written: list[str], delimiter: str) -> bool:
        """Whether the continuations are what lm-eval writes for these choices with this delimiter."""
        expected = [delimiter + choice for choice in written]
        if logged == expected:
            return True
        calls = requests(sample.data.get("arguments"))
        if is_multiple_input(
            logged,
            [call[0] if call else None for call in calls],
            sample.data.get("target"),
            delimiter,
        ):
            return True  # winogrande's shape: the choices are in the contexts, every continuation is the target
        # acc_mutual_info: one request without context per choice
        return len(calls) == 2 * len(written) > 0 and logged == _mutual_info_layout(
            expected, written, calls
        )

    def _find(self, sample: Sample, path: tuple, message: str) -> None:
        self.log.at_record(
            "LB722",
            sample.record,
            path,
            f"{self.spec.name} doc_id {sample.doc_id}: {message}; "
            "the log was edited after the run, or its config was",
        )


def _mutual_info_layout(
    continuations: list[str], choices: list[str], calls: list[list]
) -> list[str]:
    """lm-eval 0.4.4 on appends the unconditional requests, with the delimiter; 0.4.3 put each right after its
    choice's, without it (api/task.py construct_requests): the layout the log's empty contexts show."""
    if all(len(call) > 1 and call[0] == "" for call in calls[1::2]) and any(
        call[0] != "" for call in calls[::2]
    ):
        return [item for pair in zip(continuations, choices, strict=False) for item in pair]
    return continuations * 2


def _joined(check: DocTemplates, choices: list) -> list:
    """The config's own list of choices (a doc_to_choice that is a list), each after the delimiter. choices_of
    gives that one list for every doc, and neither it nor the delimiter changes in a log: joined at the first
    sample, not at each."""
    if check.joined_choices is None:
        check.joined_choices = list(map(check.delimiters[0].__add__, choices))
    return check.joined_choices
