"""The audit check: one concern of the sample-log audit, registered like a rule.

A check sees every sample of one log (`add`), then reports against the
results file (`finish`); one that can do neither for a log says so up front
(`applies`) and is not made. Checks run in `order`; a check that recomputes a
metric puts it in `sample.recomputed` for the checks after it.
"""

from __future__ import annotations

from typing import Any, Protocol

from ...harness.samples import as_number_list, choice_continuations, generation_until
from ...io.sample_logs import SampleRecord
from ..model import TaskAudit
from ..spec import TaskSpec


class AuditedLog(Protocol):
    """What a check sees of the log being audited (audit/auditor.py's LogAuditor): its task, its summary,
    the maintainer's bounds, and where findings go."""

    spec: TaskSpec
    name: str
    summary: TaskAudit
    tolerance: float
    expected_choices: int | None
    expected_split: int | None

    def at_record(self, rule_id: str, record: SampleRecord, path: tuple, message: str) -> None: ...

    def at_line(self, rule_id: str, line: int, message: str) -> None: ...

    def at_results(self, rule_id: str, path: tuple, message: str) -> None: ...


CHECKS: list[tuple[int, type[AuditCheck]]] = []


def audit_check(order: int):
    """Register a check class; lower `order` runs first on each sample (each order is one check's)."""

    def register(cls: type[AuditCheck]) -> type[AuditCheck]:
        if any(registered is cls for _, registered in CHECKS):
            raise ValueError(f"audit check {cls.__name__} registered twice")
        taken = [registered.__name__ for taken, registered in CHECKS if taken == order]
        if taken:
            raise ValueError(f"audit check {cls.__name__}: order {order} is {taken[0]}'s")
        CHECKS.append((order, cls))
        return cls

    return register


class Sample:
    """One well-formed record of a log: a JSON object with a non-negative doc_id."""

    __slots__ = (
        "record",
        "data",
        "doc_id",
        "filter",
        "recomputed",
        "recomputed_by",
        "doc_hash_ok",
        "doc_plain",
        "target_traced",
        "traced_target",
        "examples",
        "_continuations",
        "_until",
        "_number_lists",
    )

    record: SampleRecord
    data: dict
    doc_id: int
    filter: str
    recomputed: dict[str, float]  # metric -> value, from the sample's own fields
    recomputed_by: str  # how, for messages: "its log-likelihoods give", "the DROP scorer gives"
    doc_hash_ok: bool  # the logged doc_hash is the doc's own (the hashes check, which runs first)
    doc_plain: bool  # the doc holds only what orjson writes as json.dumps does (the hashes check)
    target_traced: (
        bool  # its target was held to what the config's doc_to_target gives (doc_templates)
    )
    traced_target: (
        Any  # that value, typed as lm-eval's doc_to_target gives it (an index, or a choice's text)
    )
    examples: (
        tuple | None
    )  # (prompt, start, end): where its few-shot examples lie, rebuilt (prompts)
    _continuations: list | None
    _until: Any  # False: not read yet (None is an answer)
    _number_lists: dict[str, list[float | int] | None] | None

    def __init__(self, record: SampleRecord, data: dict, doc_id: int, filter: str) -> None:
        self.record, self.data, self.doc_id, self.filter = record, data, doc_id, filter
        self.recomputed = {}
        self.recomputed_by = ""
        self.doc_hash_ok = self.doc_plain = self.target_traced = False
        self.traced_target = self.examples = self._continuations = self._number_lists = None
        self._until = False

    def continuations(self) -> list:
        """choice_continuations of the sample's arguments, read once: the templates and the scoring both ask."""
        if self._continuations is None:
            self._continuations = choice_continuations(self.data.get("arguments"))
        return self._continuations

    def until(self) -> list[str] | None:
        """generation_until of the sample's arguments, read once: the responses and the DROP scoring both ask."""
        if self._until is False:
            self._until = generation_until(self.data.get("arguments"))
        return self._until

    def number_list(self, name: str) -> list[float | int] | None:
        """as_number_list of the field `name`, read once: four checks ask for IFEval's instruction levels."""
        lists = self._number_lists
        if lists is None:
            lists = self._number_lists = {}
        elif name in lists:
            return lists[name]
        found = lists[name] = as_number_list(self.data.get(name))
        return found


class AuditCheck:
    """Base class: override `add` and/or `finish`."""

    def __init__(self, log: AuditedLog):
        self.log = log
        # The log's, copied: a property's call per use was a measurable share of the checks' per-sample work
        self.spec: Any = log.spec
        self.summary: Any = log.summary

    @classmethod
    def applies(cls, log: AuditedLog) -> bool:
        """Whether the check can do anything for this log, at a sample or at its finish (asked before it is made):
        a check that cannot is not made. On a log of a few samples, making and finishing every check is most of
        its audit."""
        return True

    def sees_samples(self) -> bool:
        """Whether `add` can do anything for this log (asked once, before its first sample): a check that
        cannot is not called per sample, where a call is a measurable share of a small sample's audit."""
        return True

    def add(self, sample: Sample) -> None:
        """See one sample."""

    def note_once(self, note: str) -> None:
        """A note on the task's summary, once however many samples give it."""
        if note not in self.summary.notes:
            self.summary.notes.append(note)

    def finish(self) -> None:
        """Compare what was seen with the results file."""

    def not_audited(self, key: str, why: str, path: tuple | None = None) -> None:
        """LB716 at the reported value of `key` (metric,filter), or at `path`: a number the log cannot vouch for."""
        self.log.at_results(
            "LB716",
            path or ("results", self.spec.name, key),
            (
                f"{self.spec.name} {key} is not audited: {why}; the number cannot be trusted until it is re-derived from "
                "its samples"
            ),
        )


def shown(value: Any, limit: int = 40) -> str:
    """A submitter's value as a message shows it: its repr, cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


UNTRACED_TEMPLATE = (
    "each sample's gold is its own target, which the config's "
    "doc_to_target (a template lbnorm does not evaluate for this doc) does not tie to its doc"
)
UNTRACED_FUNCTION = (
    "doc_to_target is a Python function no log replays: write it as a template of the doc's fields, "
    "or pass --warn LB716"
)


def untraced_target(config: Any) -> str:
    """Why a sample's gold is its own word: the task's doc_to_target is a function (lm-eval writes its source,
    or its repr), or a template lbnorm does not evaluate."""
    source = config.get("doc_to_target") if isinstance(config, dict) else None
    if isinstance(source, str) and source.lstrip().startswith(
        ("def ", "<function", "functools.partial")
    ):
        return UNTRACED_FUNCTION
    return UNTRACED_TEMPLATE
