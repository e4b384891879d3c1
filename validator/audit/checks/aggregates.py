"""Aggregates: every metric of the results file re-derived as sum/len of the logged, and of the recomputed, samples."""

from __future__ import annotations

from math import isfinite, sqrt
from typing import Any, cast

from ...core.results import metric_key_parts
from ...findings import ERROR
from ...findings.registry import rule
from ...harness.samples import as_number, as_number_list
from ..model import MetricAudit
from .base import AuditCheck, Sample, audit_check, shown

# What lm-eval 0.4.x writes in a sample besides its metrics (evaluator.py, the logged example).
SAMPLE_FIELDS = frozenset(
    {
        "doc_id",
        "doc",
        "target",
        "arguments",
        "resps",
        "filtered_resps",
        "filter",
        "metrics",
        "doc_hash",
        "prompt_hash",
        "target_hash",
    }
)
MAX_UNREPORTED = 16  # names kept per log: a sample's keys are the submitter's
_ABSENT = object()  # a metric the sample does not log (None is a value it can log)
# Metrics lm-eval scores per sample as a pass (1) or a fail (0), or a share of one: acc and its kin in
# api/task.py, exact_match (api/metrics.py, and MATH's and BBH's process_results), IFEval's prompt levels.
# A sample above 1 or below 0 raises its task's mean, and tasks nothing re-scores (MATH) show it no other way.
RATES = frozenset(
    {
        "acc",
        "acc_norm",
        "acc_mutual_info",
        "exact_match",
        "prompt_level_strict_acc",
        "prompt_level_loose_acc",
    }
)


class RunningMean:
    """sum(values) / len(values) in log order, lists flattened; the first sample that differed. Sums of the
    values less the first one (`shift`), and of their squares, give lm-eval's mean_stderr (the sample standard
    deviation over sqrt(n)) without the cancellation of plain sums: 100,000 values near 10,000 lose every digit
    of their spread to sum(x * x) - sum(x) ** 2 / n."""

    __slots__ = ("total", "count", "shift", "shifted", "squares", "first_difference")  # per sample

    def __init__(self, shift: float = 0) -> None:
        self.total: float = 0
        self.shifted: float = 0
        self.squares: float = 0
        self.count, self.shift = 0, shift
        self.first_difference: tuple[Any, Any, Any] | None = None  # (doc_id, logged, recomputed)

    def add(self, value: float | list[float]) -> None:
        for item in value if isinstance(value, list) else (value,):
            deviation = item - self.shift
            self.total += item
            self.shifted += deviation
            self.squares += deviation * deviation
            self.count += 1

    def mean(self) -> float | None:
        return self.total / self.count if self.count else None

    def slack(self) -> float:
        """How far stderr() may be from lm-eval's two-pass value by rounding alone: the sum of squares carries
        about eps for each of its terms, and a first value far from the others (the shift) makes it large."""
        derived = self.stderr()
        if not derived:
            return 0.0
        return 64 * 2.3e-16 * self.squares / (2 * (self.count - 1) * self.count * derived)

    def stderr(self) -> float | None:
        """lm-eval's mean_stderr of the values (api/metrics.py), None for fewer than two (it writes "N/A")."""
        if self.count < 2:
            return None
        deviations = max(self.squares - self.shifted * self.shifted / self.count, 0.0)
        return sqrt(deviations / (self.count - 1)) / sqrt(self.count)


@rule("LB709", "aggregate-mismatch", ERROR, runs=False)
def aggregate_mismatch(ctx):
    """A task's metric in the results file is not the aggregate of its logged samples.

    Means are sum/len in log order, as the harness computes them; IFEval's
    instruction-level metrics flatten the per-prompt lists first. Where the
    samples can be recomputed (multiple choice, DROP), the recomputed mean is
    compared too, and the message names the first doc_id that differs.
    A mean's standard error must be lm-eval's mean_stderr of the same
    values (their sample standard deviation over sqrt(n)); "N/A" is left
    alone. Tolerance 1e-9: exact up to the summation order of multi-rank runs.
    A task whose config and sample log the file holds but which has no
    results entry is this rule too: lm-eval reports every task it runs (and
    pools it into its groups), so its numbers were taken out.
    """


@audit_check(order=90)  # last: it compares what the recomputing checks put in sample.recomputed
class Aggregates(AuditCheck):
    """LB702 (a metric that is not a number), LB708 (one sample's score), LB709 (an aggregate), LB716 (an
    aggregate that cannot be re-derived)."""

    def __init__(self, log):
        super().__init__(log)
        # filter -> metric -> its running mean: a sample looks its filter up once, not a (metric, filter) key each
        self.logged: dict[str, dict[str, RunningMean]] = {}
        self.recomputed: dict[str, dict[str, RunningMean]] = {}
        self.metric_names = self.spec.reported_metrics
        self.sorted_metric_names = sorted(self.metric_names)
        # Metrics averaged per sample: a value that is not a number cannot just be left out of their mean.
        self.averaged = {
            name for name in self.metric_names if self.spec.aggregation(name) in ("mean", "flatten")
        }
        self.means = {
            name for name in self.averaged if self.spec.aggregation(name) == "mean"
        }  # no lists
        self.tolerance = log.tolerance
        # lm-eval reports every metric its samples log (each needs an aggregation to be logged at all), so a
        # number a sample logs under a name the results entry does not report is an aggregate taken out of the
        # file, and out of its group's pool. Not the config's metric_list: the submitter writes that too.
        self.expected_fields = SAMPLE_FIELDS | self.metric_names
        self.unreported: set[str] = set()
        # (filter, metric) -> [samples that log no value for an averaged metric, the first of them]
        self.absent: dict[tuple[str, str], list] = {}

    def add(self, sample: Sample) -> None:
        logged = _logged_values(self, sample)
        if (
            not self.expected_fields.issuperset(sample.data)
            and len(self.unreported) < MAX_UNREPORTED
        ):
            others = (
                sample.data.keys() - self.expected_fields
            )  # built only for a sample that has others
            self.unreported.update(
                name
                for name in others
                if as_number(sample.data[name]) is not None
                or as_number_list(sample.data[name]) is not None
            )
        tolerance, flt = self.tolerance, sample.filter
        recomputed = self.recomputed.get(flt)
        if recomputed is None:
            recomputed = self.recomputed[flt] = {}
        for metric, value in sample.recomputed.items():
            total = recomputed.get(metric)
            if total is None:
                total = recomputed[metric] = RunningMean()
            total.total += (
                value  # recomputed values are single numbers: RunningMean.add without its call
            )
            total.count += 1
            if metric in logged and abs(logged[metric] - value) > tolerance:
                if total.first_difference is None:
                    total.first_difference = (sample.doc_id, logged[metric], value)
                self.log.at_record(
                    "LB708",
                    sample.record,
                    (metric,),
                    f"{self.spec.name} doc_id {sample.doc_id}: "
                    f"{metric} is logged as {logged[metric]!r}, but {sample.recomputed_by} {value!r}",
                )

    def finish(self) -> None:
        if not self.spec.entry and self.spec.config:
            # lm-eval writes an entry for every task it runs, and pools it into its groups: a task taken out of the
            # results (its samples' values with it) also leaves its group's number without it
            self.log.at_results(
                "LB709",
                ("configs", self.spec.name),
                (
                    f"{self.spec.name}: the results file holds its config and its sample log but no results entry; "
                    "lm-eval reports every task it runs, so its numbers were taken out (and out of any group's)"
                ),
            )
        _named_but_unreported(self)
        for metric in sorted(self.unreported)[:MAX_UNREPORTED]:
            self.log.at_results(
                "LB709",
                ("results", self.spec.name),
                f"{self.spec.name}: the results file reports "
                f"no {metric}, but the samples log it; lm-eval reports every metric its samples "
                "give",
            )
        for key, (metric, flt) in self.spec.metric_parts:
            audit = MetricAudit(key, self.spec.entry.get(key))
            self.summary.metrics.append(audit)
            logged, recomputed = (
                self.logged.get(flt, {}).get(metric),
                self.recomputed.get(flt, {}).get(metric),
            )
            aggregation = self.spec.aggregation(metric)
            if aggregation not in ("mean", "flatten"):  # first: it is why nothing was averaged
                shown = repr(aggregation.splitlines()[0][:60] if aggregation else aggregation)
                audit.note = f"aggregation {shown} is not recomputed"
                self.not_audited(
                    audit.key,
                    f"its aggregation is {shown}, which the audit does not compute (it "
                    "computes the mean)",
                    _aggregation_path(self.spec, metric),
                )
                continue
            if logged is None:
                audit.note = "no per-sample values in the log"
                if self.summary.samples:  # an empty log is reported as such (LB706)
                    self.not_audited(
                        audit.key,
                        f"none of its {self.summary.samples:,} samples logs a number "
                        f"for {metric!r} under filter {flt!r}",
                    )
                continue
            _all_logged(self, audit.key, self.absent.get((flt, metric)))
            audit.samples, audit.from_samples = logged.count, logged.mean()
            audit.recomputed = recomputed.mean() if recomputed else None
            _compare(self, audit, recomputed)
            if aggregation == "mean":
                self._compare_stderr(self.spec.stderr_key(metric, flt), logged)

    def _compare_stderr(self, key: str | None, logged: RunningMean) -> None:
        """LB709 for a standard error that is not the mean's over the logged values. lm-eval writes "N/A" for
        fewer than two samples or with bootstrap_iters 0: a string, which moves no score, is left alone."""
        if key is None:
            return
        reported, derived = as_number(self.spec.entry.get(key)), logged.stderr()
        if (
            reported is None
            or derived is None
            or abs(reported - derived) <= self.log.tolerance + logged.slack()
        ):
            return
        self.log.at_results(
            "LB709",
            ("results", self.spec.name, key),
            (
                f"{self.spec.name} {key}: the results file says {reported!r}, but the {logged.count:,} logged samples "
                f"give {derived!r} (lm-eval's mean_stderr: their sample standard deviation over sqrt(n))"
            ),
        )


# The metrics lm-eval's own scoring gives every sample when the config's metric_list names them (api/task.py
# process_results, no process_results of the config's own): each is then logged and reported for the task.
ALWAYS_SCORED = {
    "multiple_choice": ("acc", "acc_norm", "acc_mutual_info"),
    "generate_until": ("exact_match",),
}


def _named_but_unreported(check: Aggregates) -> None:
    """LB709 for a metric the config names that lm-eval would have scored and reported, missing from the results
    entry (and its samples): taking a weak MMLU subtask's acc out of both would let the group pool without
    it. Not for a config with its own process_results, which scores what it returns."""
    spec = check.spec
    items = spec.config.get("metric_list")
    if not spec.entry or spec.config.get("process_results") or not isinstance(items, list):
        return
    named = {item.get("metric") for item in items if isinstance(item, dict)}
    reported = spec.reported_metrics
    for metric in ALWAYS_SCORED.get(spec.output_type, ()):
        if (
            metric in named and metric not in reported and metric not in check.unreported
        ):  # else told below
            check.log.at_results(
                "LB709",
                ("results", spec.name),
                (
                    f"{spec.name}: the config's metric_list names {metric}, which lm-eval scores for every sample and "
                    f"reports, but the results file reports no {metric}; it was taken out (and out of any group's)"
                ),
            )


def _all_logged(check: Aggregates, key: str, absent: list | None) -> None:
    """LB702 when some samples log the metric and others do not: lm-eval logs every metric of its task in every
    sample (evaluator.py), so a mean over the rest has left samples out (the field deleted from the failed
    samples alone makes every score 1.0)."""
    if absent:
        count, sample = absent
        check.log.at_record(
            "LB702",
            sample.record,
            (),
            (
                f"{check.spec.name} {key}: {count:,} of its samples log no {metric_key_parts(key)[0]} (this is the first, "
                f"doc_id {sample.doc_id}); lm-eval logs every metric of its task in every sample, and a mean over the "
                "others leaves them out"
            ),
        )


def _aggregation_path(spec: Any, metric: str) -> tuple:
    """Where the config names the metric's aggregation (spec.aggregation read it there)."""
    items = spec.config.get("metric_list")
    items = items if isinstance(items, list) else []
    for index, item in reversed(
        list(enumerate(items))
    ):  # the last entry of a name, as spec.aggregation reads
        if isinstance(item, dict) and item.get("metric") == metric:
            return ("configs", spec.name, "metric_list", index, "aggregation")
    return ("configs", spec.name, "metric_list")


def _logged_values(check: Aggregates, sample: Sample) -> dict[str, float]:
    data, flt = sample.data, sample.filter
    scalars: dict[str, float] = {}
    means = check.logged.get(flt)  # not setdefault(flt, {}): that builds a dict per sample
    if means is None:
        means = check.logged[flt] = {}
    # The results file's metrics, not the sample's own "metrics" list: the submitter writes that list, and
    # an empty one hid every logged value from the comparison.
    for name in check.sorted_metric_names:
        raw = data.get(name, _ABSENT)
        if raw is _ABSENT:
            if name in check.averaged:
                absent = check.absent.setdefault((flt, name), [0, sample])
                absent[0] += 1
            continue
        kind = type(raw)
        # as_number's answer for the usual plain int or finite float, without the call (this runs per metric)
        value = (
            raw
            if (kind is int and -(2**53) <= raw <= 2**53) or (kind is float and isfinite(raw))
            else as_number(raw)
        )
        items = sample.number_list(name) if value is None and name not in check.means else None
        if value is None and items is None:
            if name in check.averaged or raw is not None and not isinstance(raw, (dict, list, str)):
                shown = repr(raw) if len(repr(raw)) <= 40 else repr(raw)[:37] + "..."
                check.log.at_record(
                    "LB702",
                    sample.record,
                    (name,),
                    f"{name} is {shown}, not a number; a mean cannot leave a sample out",
                )
            continue  # tuples and dicts feed corpus-level aggregations (LB716): not averaged here
        total = means.get(name)
        if total is None:
            total = means[name] = RunningMean(
                # without a list of items, value is a number: an entry with neither was skipped above
                shift=cast(float, value) if items is None else items[0] if items else 0
            )
        if items is None:
            assert value is not None  # an entry with neither a number nor a list was skipped above
            if name in RATES and not 0 <= value <= 1:
                check.log.at_record(
                    "LB708",
                    sample.record,
                    (name,),
                    f"{check.spec.name} doc_id {sample.doc_id}: "
                    f"{name} is logged as {value!r}, but lm-eval scores a sample's {name} from "
                    "0 (fail) to 1 (pass)",
                )
            deviation = value - total.shift
            total.total += value
            total.shifted += deviation
            total.squares += deviation * deviation
            total.count += 1
            scalars[name] = value
        else:
            total.add(items)
    return scalars


def _compare(check: Aggregates, audit: MetricAudit, recomputed: RunningMean | None) -> None:
    reported = as_number(audit.reported)
    if reported is None or not isfinite(reported):
        audit.note = "the results value is not a number"
        check.not_audited(
            audit.key, f"the results file gives {shown(audit.reported)}, not a finite number"
        )
        return
    off = [
        value
        for value in (audit.from_samples, audit.recomputed)
        if value is not None and abs(value - reported) > check.log.tolerance
    ]
    if not off:
        return
    parts = [f"the {audit.samples:,} logged samples give {audit.from_samples!r}"]
    if audit.recomputed is not None:
        parts.append(f"recomputed from their own fields {audit.recomputed!r}")
    first = recomputed.first_difference if recomputed else None
    if first:
        parts.append(
            f"first differing sample: doc_id {first[0]} (logged {first[1]!r}, recomputed {first[2]!r})"
        )
    check.log.at_results(
        "LB709",
        ("results", check.spec.name, audit.key),
        f"{check.spec.name} {audit.key}: the results file says {reported!r}, " + "; ".join(parts),
    )
