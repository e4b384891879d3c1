"""Sample-log audit: re-derive a results file's raw numbers from its per-sample logs.

Each log is streamed once (sample_logs.py); a TaskAuditor takes one record at
a time and keeps only counters, a doc_id bitmap and a running task hash, so
memory does not grow with the log. At the end of a log its sums are compared
with the results file (spec A.2.4 and B.2). Findings use the LB7xx rules
(rules/samples.py); nothing here prints.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..findings import Findings, format_json_path, make_finding
from ..io.documents import Document, DocumentError
from ..io.limits import DEFAULT_LIMITS, Limits
from ..io.loaders import read_document
from ..io.paths import PathRefused, Target, confine, display_path
from ..io.sample_logs import UNPLACED_LOG, SampleRecord, discover, read_records, task_of
from . import drop
from . import rules as _rules  # noqa: F401  (registers the LB7xx rules)
from .sample_scoring import (
    HASH_FIELDS,
    NotRecomputable,
    as_number,
    as_number_list,
    choice_scores,
    doc_hash,
    first_prompt,
    generation_until,
    sha256,
)

# Means are sum/len in log order; 1e-9 absorbs only the summation order of
# multi-rank runs (and Python 3.12's compensated sum()).
RAW_TOLERANCE = 1e-9
MAX_FLAGGED_SAMPLES = 200  # per task in the report; the counts and rates cover every sample
_DROP_METRICS = ("em", "f1")
_CHOICE_METRICS = ("acc", "acc_norm")


@dataclass(frozen=True)
class LogTarget:
    task: str
    target: Target  # confined: inside the workspace, a regular file


@dataclass
class MetricAudit:
    key: str                          # "acc_norm,none"
    reported: Any                     # as in the results file
    from_samples: float | None = None  # the aggregate of the logged per-sample values
    recomputed: float | None = None    # the aggregate of values recomputed from the samples' own fields
    samples: int = 0
    note: str | None = None


@dataclass
class DropAudit:
    """The submission-level DROP report of spec B.2.5."""

    n: int = 0
    n_expected: int | None = None
    em_reported: Any = None
    f1_reported: Any = None
    em_recomputed_sum: float = 0.0
    f1_recomputed_sum: float = 0.0
    n_mismatch: int = 0
    glued: int = 0
    glued_lost_gold: int = 0
    decimal_cut: int = 0
    possibly_cut: int = 0
    long_answer: int = 0
    long_answer_loss_sum: float = 0.0
    decimal_golds: int = 0
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(
        ("em_nl", "f1_nl", "em_nl_lstrip", "f1_nl_lstrip", "f1_ws"), 0.0))
    until_config: list[str] | None = None
    until_samples: list[list[str]] = field(default_factory=list)
    doc_to_text: Any = None
    num_fewshot: Any = None
    version: Any = None
    first: dict[str, tuple[int, int]] = field(default_factory=dict)  # flag -> (doc_id, line)
    flagged: list[dict] = field(default_factory=list)

    def rate(self, count: int) -> float | None:
        return count / self.n if self.n else None

    def mean(self, total: float) -> float | None:
        return total / self.n if self.n else None

    def as_dict(self) -> dict:
        return {
            "n": self.n, "n_expected": self.n_expected,
            "em_reported": self.em_reported, "f1_reported": self.f1_reported,
            "em_recomputed": self.mean(self.em_recomputed_sum), "f1_recomputed": self.mean(self.f1_recomputed_sum),
            "n_mismatch": self.n_mismatch,
            "rate_W": self.rate(self.glued), "rate_W_impacting": self.rate(self.glued_lost_gold),
            "rate_D": self.rate(self.decimal_cut), "rate_D_prime": self.rate(self.possibly_cut),
            "rate_L": self.rate(self.long_answer),
            "mean_L_f1_loss": self.long_answer_loss_sum / self.long_answer if self.long_answer else None,
            **{name: self.mean(total) for name, total in self.sums.items()},
            "counts": {"W": self.glued, "W_impacting": self.glued_lost_gold, "D": self.decimal_cut,
                       "D_prime": self.possibly_cut, "L": self.long_answer, "decimal_golds": self.decimal_golds},
            "variant": {"doc_to_text": self.doc_to_text, "until": self.until_config,
                        "until_in_samples": self.until_samples, "num_fewshot": self.num_fewshot,
                        "version": self.version},
            "flagged_samples": self.flagged,
        }


@dataclass
class TaskAudit:
    task: str
    log: str
    samples: int = 0
    filters: dict[str, int] = field(default_factory=dict)  # filter -> samples
    expected: int | None = None                             # n-samples.effective
    hashes_checked: int = 0
    hash_mismatches: int = 0
    task_hash: str = "not checked"
    metrics: list[MetricAudit] = field(default_factory=list)
    drop: DropAudit | None = None
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The task's entry in the JSON reports of `audit` and `check` (non-finite numbers become null)."""
        return _finite({
            "log": self.log, "samples": self.samples, "filters": self.filters, "expected": self.expected,
            "hashes_checked": self.hashes_checked, "hash_mismatches": self.hash_mismatches,
            "task_hash": self.task_hash,
            "metrics": {m.key: {"reported": m.reported, "from_samples": m.from_samples, "recomputed": m.recomputed,
                                "samples": m.samples, "note": m.note} for m in self.metrics},
            "drop": self.drop.as_dict() if self.drop else None,
            "notes": self.notes,
        })


def _finite(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return None if isinstance(value, float) and not math.isfinite(value) else value


@dataclass
class AuditResult(Findings):
    results_file: str = ""
    tasks: list[TaskAudit] = field(default_factory=list)


# --- what the results file says about a task ---------------------------------------------

@dataclass
class TaskSpec:
    """A leaf task as the results file describes it (lm-eval 0.4.x keys, spec A.1.2)."""

    name: str
    entry: dict
    config: dict
    n_effective: int | None
    n_original: int | None
    task_hash: str | None

    @classmethod
    def from_results(cls, data: dict, task: str) -> "TaskSpec":
        def table(key: str) -> dict:
            value = data.get(key)
            return value if isinstance(value, dict) else {}

        counts = table("n-samples").get(task)
        counts = counts if isinstance(counts, dict) else {}
        task_hash = table("task_hashes").get(task)
        entry, config = table("results").get(task), table("configs").get(task)
        return cls(task, entry if isinstance(entry, dict) else {}, config if isinstance(config, dict) else {},
                   _count(counts.get("effective")), _count(counts.get("original")),
                   task_hash if isinstance(task_hash, str) and task_hash else None)

    @property
    def output_type(self) -> Any:
        return self.config.get("output_type")

    @property
    def target_delimiter(self) -> str:
        value = self.config.get("target_delimiter", " ")
        return value if isinstance(value, str) else " "

    @property
    def until(self) -> list[str] | None:
        kwargs = self.config.get("generation_kwargs")
        until = kwargs.get("until") if isinstance(kwargs, dict) else None
        if isinstance(until, str):
            return [until]
        return until if isinstance(until, list) and all(isinstance(u, str) for u in until) else None

    @property
    def filters(self) -> list[str]:
        names = [f.get("name") for f in self.config.get("filter_list") or [] if isinstance(f, dict)]
        names = [n for n in names if isinstance(n, str)]
        if not names:
            names = sorted({key.partition(",")[2] for key in self.metric_keys()})
        return names or ["none"]

    def metric_keys(self) -> list[str]:
        return [key for key in self.entry if "," in key and "_stderr" not in key.partition(",")[0]]

    def aggregation(self, metric: str) -> str:
        """"mean", "flatten" (IFEval's agg_inst_level_acc) or the aggregation as written."""
        for item in self.config.get("metric_list") or []:
            if isinstance(item, dict) and item.get("metric") == metric:
                aggregation = item.get("aggregation", "mean")
                text = str(aggregation)
                return "flatten" if "agg_inst_level_acc" in text else text
        return "mean"


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


# --- running sums --------------------------------------------------------------------------

@dataclass
class _Mean:
    """sum(values) / len(values) in log order, lists flattened; the first line and doc_id seen."""

    total: float = 0
    count: int = 0
    first_difference: tuple[Any, Any, Any] | None = None  # (doc_id, logged, recomputed)

    def add(self, value: float | list[float]) -> None:
        for item in value if isinstance(value, list) else [value]:
            self.total += item
            self.count += 1

    def mean(self) -> float | None:
        return self.total / self.count if self.count else None


class _Coverage:
    """Which doc_ids of 0..N-1 one filter has logged; a bitmap when N is known."""

    def __init__(self, expected: int | None):
        self.expected = expected
        self.seen: bytearray | set[int] = bytearray(expected) if expected is not None else set()
        self.lines = 0
        self.distinct = 0

    def add(self, doc_id: int) -> str | None:
        """Record a doc_id; the problem with it, if any."""
        self.lines += 1
        if self.expected is not None and doc_id >= self.expected:
            return f"doc_id {doc_id} is outside the split of {self.expected} documents (n-samples.effective)"
        if isinstance(self.seen, set):
            if doc_id in self.seen:
                return f"doc_id {doc_id} is logged twice"
            self.seen.add(doc_id)
        else:
            if self.seen[doc_id]:
                return f"doc_id {doc_id} is logged twice"
            self.seen[doc_id] = 1
        self.distinct += 1
        return None

    def missing(self, limit: int = 5) -> tuple[int, list[int]]:
        if not isinstance(self.seen, bytearray):
            return 0, []
        absent = self.expected - self.distinct
        first: list[int] = []
        while absent and len(first) < limit:
            start = first[-1] + 1 if first else 0
            index = self.seen.find(0, start)
            if index < 0:
                break
            first.append(index)
        return absent, first


# --- one log --------------------------------------------------------------------------------

class TaskAuditor:
    """Audits one task's log record by record, then against the results file."""

    def __init__(self, spec: TaskSpec, log: str, results_doc: Document, result: AuditResult,
                 tolerance: float = RAW_TOLERANCE, results_root: tuple = ()):
        self.spec, self.log, self.results_doc, self.result = spec, log, results_doc, result
        self.results_root = results_root  # where the results object sits in results_doc (embedded results)
        self.tolerance = tolerance
        self.summary = TaskAudit(spec.name, log, expected=spec.n_effective)
        self.coverage: dict[str, _Coverage] = {}
        self.logged: dict[tuple[str, str], _Mean] = {}
        self.recomputed: dict[tuple[str, str], _Mean] = {}
        self.task_hasher = hashlib.sha256()
        self.hashes_complete = True
        self.metric_names = {key.partition(",")[0] for key in spec.metric_keys()}

    # --- per record ---------------------------------------------------------------------
    def add(self, record: SampleRecord) -> None:
        data = record.data
        if not isinstance(data, dict):
            self._at_record("LB702", record, (), "a sample must be a JSON object")
            return
        doc_id = data.get("doc_id")
        if not (isinstance(doc_id, int) and not isinstance(doc_id, bool) and doc_id >= 0):
            self._at_record("LB702", record, ("doc_id",), "doc_id must be a non-negative integer")
            return
        self.summary.samples += 1
        flt = self._filter(data, record.index)
        self.summary.filters[flt] = self.summary.filters.get(flt, 0) + 1
        self._check_hashes(record, data)
        coverage = self.coverage.setdefault(flt, _Coverage(self.spec.n_effective))
        problem = coverage.add(doc_id)
        if problem:
            self._at_record("LB705", record, ("doc_id",), f"{self.spec.name} (filter {flt}): {problem}")
        logged = self._logged_values(record, data, flt)
        recomputed = self._recompute(record, data, doc_id)
        for metric, value in recomputed.items():
            self.recomputed.setdefault((metric, flt), _Mean()).add(value)
            if metric in logged and abs(logged[metric] - value) > self.tolerance:
                self._sample_mismatch(record, doc_id, flt, metric, logged[metric], value)

    def _filter(self, data: dict, index: int) -> str:
        flt = data.get("filter")
        if isinstance(flt, str):
            return flt
        # Before 0.4.7 a task with several filters logged each filter's samples as one block, in order.
        filters, size = self.spec.filters, self.spec.n_effective
        return filters[min(index // size, len(filters) - 1)] if size else filters[0]

    def _check_hashes(self, record: SampleRecord, data: dict) -> None:
        logged = [data.get(name) for name in HASH_FIELDS]
        if not all(isinstance(h, str) for h in logged):
            if self.spec.task_hash is not None or any(isinstance(h, str) for h in logged):
                self.hashes_complete = False
                self._at_record("LB702", record, (), "the sample lacks doc_hash, prompt_hash or target_hash "
                                "(lm-eval >= 0.4.3 logs all three)")
            return
        self.task_hasher.update("".join(logged).encode("utf-8", "surrogatepass"))
        prompt, target = first_prompt(data.get("arguments")), data.get("target")
        expected = (doc_hash(data.get("doc")), sha256(prompt) if prompt is not None else None,
                    sha256(target if isinstance(target, str) else str(target)))
        self.summary.hashes_checked += 1
        for name, written, actual in zip(HASH_FIELDS, logged, expected):
            if actual is None:
                self._at_record("LB702", record, ("arguments",), "no prompt in arguments, so prompt_hash cannot be checked")
            elif written != actual:
                self.summary.hash_mismatches += 1
                what = {"doc_hash": "doc", "prompt_hash": "prompt", "target_hash": "target"}[name]
                self._at_record("LB703", record, (name,), f"{name} of doc_id {data.get('doc_id')} is not the hash of "
                                f"its {what} ({written[:12]}... logged, {actual[:12]}... recomputed); the {what} "
                                "was changed after the run")

    def _logged_values(self, record: SampleRecord, data: dict, flt: str) -> dict[str, float]:
        names = data.get("metrics")
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            names = sorted(self.metric_names & data.keys())
        scalars = {}
        for name in names:
            raw = data.get(name)
            value = as_number(raw)
            items = as_number_list(raw) if value is None else None
            if value is None and items is None:
                if name in self.metric_names and raw is not None and not isinstance(raw, (dict, list, str)):
                    self._at_record("LB702", record, (name,), f"{name} is {raw!r}, not a number")
                continue  # tuples and dicts feed corpus-level aggregations: not averaged here
            self.logged.setdefault((name, flt), _Mean()).add(value if items is None else items)
            if value is not None:
                scalars[name] = value
        return scalars

    def _recompute(self, record: SampleRecord, data: dict, doc_id: int) -> dict[str, float]:
        names = data.keys()
        if self._is_drop(data):
            return self._recompute_drop(record, data, doc_id)
        if self.spec.output_type == "multiple_choice" and any(m in names for m in _CHOICE_METRICS):
            try:
                scores = choice_scores(data.get("filtered_resps"), data.get("arguments"), data.get("target"),
                                       self.spec.target_delimiter)
            except NotRecomputable as exc:
                self._at_record("LB702", record, ("filtered_resps",), f"acc cannot be recomputed: {exc}")
                return {}
            values = {"acc": scores.acc}
            if scores.acc_norm is not None:
                values["acc_norm"] = scores.acc_norm
            return {m: v for m, v in values.items() if m in names}
        return {}

    # --- DROP ---------------------------------------------------------------------------
    def _is_drop(self, data: dict) -> bool:
        doc = data.get("doc")
        return all(m in data for m in _DROP_METRICS) and isinstance(doc, dict) and "answers" in doc

    def _recompute_drop(self, record: SampleRecord, data: dict, doc_id: int) -> dict[str, float]:
        golds = _drop_golds(data["doc"].get("answers"))
        resps = data.get("filtered_resps")
        prediction = resps[0] if isinstance(resps, list) and resps else None
        if golds is None or not isinstance(prediction, str):
            self._at_record("LB702", record, ("doc", "answers") if golds is None else ("filtered_resps",),
                            "DROP needs doc.answers as lists of strings and filtered_resps[0] as a string")
            return {}
        report = self._drop_report()
        until = generation_until(data.get("arguments"))
        if until is not None and until not in report.until_samples and len(report.until_samples) < 10:
            report.until_samples.append(until)
        until = until if until is not None else (self.spec.until or [])
        em, f1 = drop.process_results(golds, prediction)
        flags = drop.flag_sample(prediction, golds, until, f1)
        rescored = drop.rescore(prediction, golds)
        self._count_drop(report, record, doc_id, data, prediction, golds, em, f1, flags, rescored)
        return {"em": em, "f1": f1}

    def _drop_report(self) -> DropAudit:
        if self.summary.drop is None:
            self.summary.drop = DropAudit(
                n_expected=self.spec.n_original, em_reported=self.spec.entry.get("em,none"),
                f1_reported=self.spec.entry.get("f1,none"), until_config=self.spec.until,
                doc_to_text=self.spec.config.get("doc_to_text"), num_fewshot=self.spec.config.get("num_fewshot"),
                version=(self.spec.config.get("metadata") or {}).get("version")
                if isinstance(self.spec.config.get("metadata"), dict) else None)
        return self.summary.drop

    def _count_drop(self, report: DropAudit, record: SampleRecord, doc_id: int, data: dict, prediction: str,
                    golds: list[drop.Gold], em: float, f1: float, flags: drop.SampleFlags,
                    rescored: drop.Rescored) -> None:
        report.n += 1
        report.em_recomputed_sum += em
        report.f1_recomputed_sum += f1
        logged = (as_number(data.get("em")), as_number(data.get("f1")))
        if any(v is None or abs(v - r) > self.tolerance for v, r in zip(logged, (em, f1))):
            report.n_mismatch += 1
        report.decimal_golds += drop.has_decimal_gold(golds)
        names = _tally_flags(report, flags)
        for name in names:
            report.first.setdefault(name.rstrip("!"), (doc_id, record.line))
        for key, value in (("em_nl", rescored.newline[0]), ("f1_nl", rescored.newline[1]),
                           ("em_nl_lstrip", rescored.newline_lstrip[0]), ("f1_nl_lstrip", rescored.newline_lstrip[1]),
                           ("f1_ws", rescored.whitespace[1])):
            report.sums[key] += value
        if names and len(report.flagged) < MAX_FLAGGED_SAMPLES:
            report.flagged.append({
                "doc_id": doc_id, "line": record.line, "flags": names, "prediction": prediction[:300],
                "golds": [list(g) for g in golds[:5]], "em": em, "f1": f1, "glued": flags.glued[:5],
                "decimal_gold": flags.decimal_cut, "f1_loss": flags.long_answer_loss,
                "f1_split_newline": rescored.newline[1], "f1_whitespace_repaired": rescored.whitespace[1]})

    # --- at the end of the log ----------------------------------------------------------
    def finish(self) -> TaskAudit:
        self._finish_counts()
        self._finish_task_hash()
        self._finish_metrics()
        if self.summary.drop is not None:
            self._finish_drop(self.summary.drop)
        return self.summary

    def _finish_counts(self) -> None:
        expected = self.spec.n_effective
        if expected is None:
            self.summary.notes.append("the results file has no n-samples entry: the sample count is not checked")
            return
        for flt in self.spec.filters:
            coverage = self.coverage.get(flt)
            lines = coverage.lines if coverage else 0
            if lines != expected:
                self._at_results("LB706", ("n-samples", self.spec.name, "effective"),
                                 f"{self.spec.name} (filter {flt}): {self.log} has {lines:,} samples, "
                                 f"n-samples.effective says {expected:,}")
            if coverage:
                absent, first = coverage.missing()
                if absent:
                    self._at_results("LB705", ("n-samples", self.spec.name, "effective"),
                                     f"{self.spec.name} (filter {flt}): {absent:,} of {expected:,} documents have "
                                     f"no sample in {self.log} (first missing doc_ids: "
                                     f"{', '.join(map(str, first))})")

    def _finish_task_hash(self) -> None:
        if self.spec.task_hash is None:
            self.summary.task_hash = "not in the results file"
            return
        if not self.hashes_complete:
            self.summary.task_hash = "not checked: samples lack hashes"
            return
        actual = self.task_hasher.hexdigest()
        if actual == self.spec.task_hash:
            self.summary.task_hash = "ok"
            return
        self.summary.task_hash = "mismatch"
        self._at_results("LB704", ("task_hashes", self.spec.name),
                         f"task_hashes.{self.spec.name} is {self.spec.task_hash[:12]}..., but the samples in "
                         f"{self.log} hash to {actual[:12]}...; the log is not the one these results were written "
                         "with (samples added, removed, reordered or edited)")

    def _finish_metrics(self) -> None:
        for key in self.spec.metric_keys():
            metric, _, flt = key.partition(",")
            audit = MetricAudit(key, self.spec.entry.get(key))
            self.summary.metrics.append(audit)
            logged, recomputed = self.logged.get((metric, flt)), self.recomputed.get((metric, flt))
            aggregation = self.spec.aggregation(metric)
            if logged is None:
                audit.note = "no per-sample values in the log"
                continue
            if aggregation not in ("mean", "flatten"):
                audit.note = f"aggregation {aggregation.splitlines()[0][:60]!r} is not recomputed"
                continue
            audit.samples, audit.from_samples = logged.count, logged.mean()
            audit.recomputed = recomputed.mean() if recomputed else None
            self._compare(audit, metric, flt, recomputed)

    def _compare(self, audit: MetricAudit, metric: str, flt: str, recomputed: _Mean | None) -> None:
        reported = as_number(audit.reported)
        if reported is None:
            audit.note = "the results value is not a number (reported by check)"
            return
        off = [name for name, value in (("logged samples", audit.from_samples), ("recomputed samples", audit.recomputed))
               if value is not None and abs(value - reported) > self.tolerance]
        if not off:
            return
        parts = [f"the {audit.samples:,} logged samples give {audit.from_samples!r}"]
        if audit.recomputed is not None:
            parts.append(f"recomputed from their own fields {audit.recomputed!r}")
        first = recomputed.first_difference if recomputed else None
        if first:
            parts.append(f"first differing sample: doc_id {first[0]} (logged {first[1]!r}, recomputed {first[2]!r})")
        self._at_results("LB709", ("results", self.spec.name, audit.key),
                         f"{self.spec.name} {audit.key}: the results file says {reported!r}, " + "; ".join(parts))

    def _finish_drop(self, report: DropAudit) -> None:
        task = self.spec.name
        if report.glued:
            doc_id, line = report.first["W"]
            self._at_line("LB710", line, f"{task}: {report.glued:,} of {report.n:,} predictions ({_percent(report.glued, report.n)}) "
                          f"have a number glued to text by a newline or tab; {report.glued_lost_gold:,} of them lost a "
                          f"gold number (first: doc_id {doc_id}). F1 {_mean(report.f1_recomputed_sum, report.n)} as "
                          f"scored, {_mean(report.sums['f1_ws'], report.n)} with whitespace made spaces")
        if report.decimal_cut:
            doc_id, line = report.first["D"]
            self._at_line("LB711", line, f"{task}: {report.decimal_cut:,} of {report.n:,} predictions "
                          f"({_percent(report.decimal_cut, report.n)}) end with the integer part of a decimal gold "
                          f"answer, cut by the '.' stop (first: doc_id {doc_id}); {report.possibly_cut:,} more end in "
                          "a digit and were possibly cut; no rescoring can repair them")
        if report.long_answer:
            doc_id, line = report.first["L"]
            self._at_line("LB712", line, f"{task}: {report.long_answer:,} of {report.n:,} predictions "
                          f"({_percent(report.long_answer, report.n)}) contain a gold answer but lose on average "
                          f"{report.long_answer_loss_sum / report.long_answer:.2f} F1 to extra words (first: doc_id "
                          f"{doc_id}). F1 {_mean(report.f1_recomputed_sum, report.n)} as scored, "
                          f"{_mean(report.sums['f1_nl'], report.n)} split at the first newline, "
                          f"{_mean(report.sums['f1_nl_lstrip'], report.n)} after stripping leading whitespace first")
        untils = [u for u in [report.until_config, *report.until_samples] if u is not None]
        if report.decimal_golds and any("." in u for u in untils):
            path = ("configs", task, "generation_kwargs", "until")
            self._at_results("LB713", path, f"{task}: the stop sequences {_show(untils[0])} include '.', and "
                             f"{report.decimal_golds:,} of {report.n:,} questions have a decimal gold answer; every "
                             "decimal is cut at its point (DROP deep dive)")
        if report.until_config is not None and any(u != report.until_config for u in report.until_samples):
            other = next(u for u in report.until_samples if u != report.until_config)
            self._at_results("LB714", ("configs", task, "generation_kwargs", "until"),
                             f"{task}: configs say until {_show(report.until_config)}, but samples in {self.log} were "
                             f"generated with {_show(other)}; this is a different task variant")

    # --- findings -----------------------------------------------------------------------
    def _sample_mismatch(self, record: SampleRecord, doc_id: int, flt: str, metric: str, logged: float,
                         recomputed: float) -> None:
        total = self.recomputed[(metric, flt)]
        if total.first_difference is None:
            total.first_difference = (doc_id, logged, recomputed)
        how = "the DROP scorer gives" if self._is_drop(record.data) else "its log-likelihoods give"
        self._at_record("LB708", record, (metric,), f"{self.spec.name} doc_id {doc_id}: {metric} is logged as "
                        f"{logged!r}, but {how} {recomputed!r}")

    def _at_record(self, rule_id: str, record: SampleRecord, path: tuple, message: str) -> None:
        if not self.result.has_room(self.log, rule_id):
            return
        line, column = record_position(record, path, self.log)
        prefix = (record.index,) if record.in_array else ()
        self.result.findings.append(make_finding(rule_id, self.log, message, format_json_path(prefix + path),
                                                 line, column))

    def _at_line(self, rule_id: str, line: int, message: str) -> None:
        if self.result.has_room(self.log, rule_id):
            self.result.findings.append(make_finding(rule_id, self.log, message, line=line, column=1))

    def _at_results(self, rule_id: str, path: tuple, message: str) -> None:
        display, path = self.results_doc.display_path, self.results_root + path
        if self.result.has_room(display, rule_id):
            line, column = self.results_doc.position(path)
            self.result.findings.append(make_finding(rule_id, display, message, format_json_path(path), line, column))


def _tally_flags(report: DropAudit, flags: drop.SampleFlags) -> list[str]:
    """Count one sample's flags into the report; their short names (W! = a gold number was lost)."""
    names = []
    if flags.glued:
        report.glued += 1
        report.glued_lost_gold += flags.glued_lost_gold
        names.append("W!" if flags.glued_lost_gold else "W")
    if flags.decimal_cut:
        report.decimal_cut += 1
        names.append("D")
    if flags.possibly_cut:
        report.possibly_cut += 1
        names.append("D'")
    if flags.long_answer_loss:
        report.long_answer += 1
        report.long_answer_loss_sum += flags.long_answer_loss
        names.append("L")
    return names


def record_position(record: SampleRecord, path: tuple, display: str) -> tuple[int, int]:
    """Line and column in the log of the value at `path` inside one record."""
    line, column = Document(display, record.text, record.data, "json").position(path)
    if line is None:
        return record.line, record.column
    return record.line + line - 1, column + record.column - 1 if line == 1 else column


def _drop_golds(answers: Any) -> list[drop.Gold] | None:
    if not isinstance(answers, list):
        return None
    golds = []
    for answer in answers:
        if not (isinstance(answer, list) and answer and all(isinstance(span, str) for span in answer)):
            return None
        golds.append(tuple(answer))
    return golds


def _percent(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%" if total else "-"


def _mean(total: float, count: int) -> str:
    return f"{total / count:.4f}" if count else "-"


def _show(until: list[str]) -> str:
    return "[" + ", ".join(repr(u) for u in until[:8]) + (", ...]" if len(until) > 8 else "]")


# --- a whole results file -------------------------------------------------------------------

def audit_logs(results_doc: Document, logs: list[LogTarget], limits: Limits = DEFAULT_LIMITS,
               tolerance: float = RAW_TOLERANCE, results_root: tuple = ()) -> AuditResult:
    """Audit each log against the results file; one bad log never stops the others."""
    result = AuditResult(results_file=results_doc.display_path)
    data: Any = results_doc.data
    for part in results_root:
        data = data.get(part) if isinstance(data, dict) else None
    data = data if isinstance(data, dict) else {}
    for log in logs:
        auditor = TaskAuditor(TaskSpec.from_results(data, log.task), log.target.display, results_doc, result,
                              tolerance, results_root)
        try:
            for record in read_records(log.target.path, limits):
                auditor.add(record)
        except DocumentError as exc:
            # The rest of the log cannot be trusted; counts and sums over part of it would only repeat this.
            result.findings.append(make_finding(exc.rule, log.target.display, exc.message, line=exc.line,
                                                column=exc.column))
            auditor.summary.notes.append(f"the log could not be read to the end ({exc.message}); "
                                         "its counts, hashes and aggregates were not compared")
            result.tasks.append(auditor.summary)
            continue
        result.tasks.append(auditor.finish())
    _tasks_without_logs(results_doc, data, logs, result, results_root)
    return result


def _tasks_without_logs(results_doc: Document, data: dict, logs: list[LogTarget], result: AuditResult,
                        results_root: tuple) -> None:
    configs = data.get("configs")
    if not logs or not isinstance(configs, dict):
        return
    logged = {log.task for log in logs}
    missing = [task for task in configs if task not in logged]
    if missing:
        path = results_root + ("configs", missing[0])
        line, column = results_doc.position(path)
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5:,} more" if len(missing) > 5 else "")
        result.findings.append(make_finding("LB707", results_doc.display_path, (
            f"{len(missing):,} of {len(configs):,} tasks have no sample log, so their numbers are not audited: "
            f"{shown}; add their samples_<task>_<date>.jsonl"), format_json_path(path), line, column))


# --- from file names to an audit ------------------------------------------------------------

def known_tasks(data: Any) -> set[str]:
    """Leaf tasks a log can belong to: configs keys (lm-eval 0.4.x writes one log per config), else results keys."""
    if not isinstance(data, dict):
        return set()
    for key in ("configs", "results"):
        table = data.get(key)
        if isinstance(table, dict) and table:
            return set(table)
    return set()


def place_logs(root: Path, results: Target, data: Any, named: list[Path] | None,
               result: AuditResult) -> list[LogTarget]:
    """The logs to audit: those named (paths relative to root), or those found beside the results file."""
    tasks = known_tasks(data)
    if named is None:
        found, problems = discover(results.path, tasks)
        for problem in problems:
            result.findings.append(make_finding("LB700", results.display, problem))
        if not found and not problems:
            result.findings.append(make_finding("LB700", results.display, (
                "no sample log beside this results file; lm-eval writes samples_<task>_<date>.jsonl next to "
                "results_<date>.json with --log_samples (or name the logs after the results file)")))
        named = [log.path.relative_to(root) for log in found]
    logs: list[LogTarget] = []
    for path in named:
        target = _confined(root, path, result)
        if target is None:
            continue
        task = task_of(target.path.name, tasks)
        if task is None:
            result.findings.append(make_finding("LB700", target.display, UNPLACED_LOG))
            continue
        logs.append(LogTarget(task, target))
    return logs


def _confined(root: Path, path: Path, result: AuditResult) -> Target | None:
    try:
        return confine(root, path)
    except PathRefused as exc:
        result.findings.append(make_finding("LB700", display_path(root, path), f"{exc} (--root sets the workspace)"))
        return None


def audit_files(root: Path, results_path: Path, sample_paths: list[Path] | None,
                limits: Limits = DEFAULT_LIMITS) -> AuditResult:
    """`python -m validator audit`: read the results file, place the logs, audit them."""
    root = root.resolve()
    result = AuditResult(results_file=display_path(root, results_path))
    try:
        results = confine(root, results_path)
        document = read_document(results.path, results.display, limits)
    except PathRefused as exc:
        result.findings.append(make_finding("LB101", result.results_file, str(exc)))
        return result
    except DocumentError as exc:
        result.findings.append(make_finding(exc.rule, result.results_file, exc.message, line=exc.line,
                                            column=exc.column))
        return result
    if not known_tasks(document.data):
        result.findings.append(make_finding("LB202", results.display, (
            "no 'configs' or 'results' object: sample logs are audited against lm-eval 0.4.x results files")))
        return result
    logs = place_logs(root, results, document.data, sample_paths, result)
    audited = audit_logs(document, logs, limits)
    result.merge(audited)
    result.tasks = audited.tasks
    result.close()
    return result
