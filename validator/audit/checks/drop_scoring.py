"""DROP: em and f1 re-scored with the harness's scorer, and the deep dive's failure modes counted."""

from __future__ import annotations

import functools
from collections.abc import Callable
from math import isfinite
from typing import TYPE_CHECKING, Any

from ...harness.samples import as_number, first_response, is_drop_sample
from ..model import DropAudit, FlaggedSample
from .base import AuditCheck, Sample, audit_check

if TYPE_CHECKING:
    from ...harness import drop, drop_flags

DROP_DATASETS = frozenset(
    {"EleutherAI/drop", "drop", "ucinlp/drop"}
)  # the harness's DROP configs' dataset_path
DROP_TASKS = frozenset(
    {"drop"}
)  # lm-eval's name for it, which a leaderboard's manifest publishes scores under
MAX_FLAGGED_SAMPLES = 200  # per task in the report; the counts and rates cover every sample
# What a flagged sample keeps of each text, and of each list: a log line may run to 64 MiB, and the report holds
# 200 of them for the whole audit.
SHOWN_CHARACTERS, SHOWN_ITEMS = 300, 5
MAX_UNTIL_VARIANTS = 10


@audit_check(order=40)
class DropScoring(AuditCheck):
    """Recomputes em/f1 (LB708, LB709); LB710-LB712 (W, D, L flags), LB713 ('.' stop), LB714 (stop mismatch);
    LB721: doc.answers is not what lm-eval's process_docs makes of the doc's own answer fields."""

    def __init__(self, log):
        super().__init__(log)
        self.derived = 0  # docs whose answers were derived from their answer and validated_answers
        self.underived: Sample | None = None  # the first doc without them
        # lm-eval's DROP: its process_docs (dumped as source) builds answers from those fields, which stay in the doc
        config = self.spec.config
        process_docs = str(config.get("process_docs", ""))
        # What the results file says the task is, besides what each sample holds: the submitter writes both, and a
        # DROP sample without its em, or without doc.answers, was passed over with its f1 unchecked; a config
        # renamed away from DROP's, under the name a manifest publishes, left its golds untraced.
        self.fields_required = self.drop_task = (
            "get_answers" in process_docs
            or "validated_answers" in process_docs
            or str(config.get("dataset_path")) in DROP_DATASETS
            or self.spec.name in DROP_TASKS
        )

    def add(self, sample: Sample) -> None:
        data = sample.data
        # Neither branch below (is_drop_sample needs em): most samples return here, without its call
        if "em" not in data and not self.drop_task:
            return
        if is_drop_sample(data):
            self._score(sample, data["doc"].get("answers"))
        elif self.drop_task and ("em" in data or "f1" in data):
            self._score_without_its_fields(sample)

    def _score_without_its_fields(self, sample: Sample) -> None:
        """A sample of lm-eval's DROP that logs em or f1 but lacks the other, or doc.answers: scored all the same
        (see _answers_in_place_of), so a logged f1 is held to what the prediction earns."""
        doc = sample.data.get("doc")
        answers = (
            _answers_in_place_of(self, sample, doc)
            if isinstance(doc, dict) and "answers" not in doc
            else doc.get("answers")
            if isinstance(doc, dict)
            else None
        )
        if answers is not _NONE:
            self._score(sample, answers)

    def _score(self, sample: Sample, answers: Any) -> None:
        data = sample.data
        golds = drop_golds(answers)
        prediction = first_response(data.get("filtered_resps"))
        if golds is None or not isinstance(prediction, str):
            self.log.at_record(
                "LB702",
                sample.record,
                ("doc", "answers") if golds is None else ("filtered_resps",),
                "DROP needs doc.answers as lists of strings and filtered_resps[0] as a string",
            )
            return
        _gold_source(self, sample, golds)
        report = self._report()
        score = _score_sample()(golds, prediction, self._until(report, sample.until()))
        _count(self, report, sample, prediction, golds, score)
        sample.recomputed["em"], sample.recomputed["f1"] = score.em, score.f1
        sample.recomputed_by = "the DROP scorer gives"

    def _until(self, report: DropAudit, until: list[str] | None) -> list[str]:
        """The sample's stop sequences (the config's when it logged none); a new variant is kept for LB714."""
        if until is None:
            return self.spec.until or []
        if until not in report.until_samples and len(report.until_samples) < MAX_UNTIL_VARIANTS:
            report.until_samples.append(until)
        return until

    def _report(self) -> DropAudit:
        if self.summary.drop is None:
            self.summary.drop = _new_report(self.spec)
        return self.summary.drop

    def finish(self) -> None:
        report = self.summary.drop
        if report is None:
            return
        if self.underived is not None and (self.derived or self.fields_required):
            # taking the fields out of every doc, or of some, would hide LB721
            held = (
                f"{self.derived:,} other docs of this log hold"
                if self.derived
                else "lm-eval's DROP keeps in every doc (its process_docs builds answers from them)"
            )
            self.log.at_record(
                "LB721",
                self.underived.record,
                ("doc",),
                (
                    f"{self.spec.name} doc_id {self.underived.doc_id}: the doc lacks answer and validated_answers in "
                    f"the dataset's shape, which {held}: its doc.answers cannot be traced to them"
                ),
            )
        task, n, f1_scored = self.spec.name, report.n, _mean(report.f1_recomputed_sum, report.n)
        if report.glued:
            doc_id, line = report.first["W"]
            self.log.at_line(
                "LB710",
                line,
                f"{task}: {report.glued:,} of {n:,} predictions "
                f"({_percent(report.glued, n)}) have a number glued to text by a newline or tab; "
                f"{report.glued_lost_gold:,} of them lost a gold number (first: doc_id {doc_id}). "
                f"F1 {f1_scored} as scored, {_mean(report.sums['f1_ws'], n)} with whitespace made spaces",
            )
        if report.decimal_cut:
            doc_id, line = report.first["D"]
            self.log.at_line(
                "LB711",
                line,
                f"{task}: {report.decimal_cut:,} of {n:,} predictions "
                f"({_percent(report.decimal_cut, n)}) end with the integer part of a decimal gold "
                f"answer, cut by the '.' stop (first: doc_id {doc_id}); {report.possibly_cut:,} more "
                "end in a digit and were possibly cut; no rescoring can repair them",
            )
        if report.long_answer:
            doc_id, line = report.first["L"]
            self.log.at_line(
                "LB712",
                line,
                f"{task}: {report.long_answer:,} of {n:,} predictions "
                f"({_percent(report.long_answer, n)}) contain a gold answer but lose on average "
                f"{report.long_answer_loss_sum / report.long_answer:.2f} F1 to extra words (first: "
                f"doc_id {doc_id}). F1 {f1_scored} as scored, {_mean(report.sums['f1_nl'], n)} split "
                f"at the first newline, {_mean(report.sums['f1_nl_lstrip'], n)} after stripping "
                "leading whitespace first",
            )
        _finish_stops(self, report)


# lm-eval's DROP scorer, imported with the first DROP sample, so an audit without one never loads it; cached
# since it is asked for every DROP sample.
@functools.cache
def _score_sample() -> Callable[[list[drop.Gold], str, list[str]], drop_flags.SampleScore]:
    from ...harness.drop_flags import score_sample

    return score_sample


@functools.cache
def _answers_of() -> Callable[[dict], list[tuple[str, ...]] | None]:
    from ...harness.drop_helpers import answers_of

    return answers_of


def _logged_number(value: Any) -> float | int | None:
    """as_number(value), without its calls for the float the harness logs (this runs twice per sample)."""
    return value if type(value) is float and isfinite(value) else as_number(value)


def tally_flags(report: DropAudit, flags: drop_flags.SampleFlags) -> list[str]:
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


def _new_report(spec) -> DropAudit:
    config, metadata = spec.config, spec.config.get("metadata")
    return DropAudit(
        n_expected=spec.n_original,
        em_reported=spec.entry.get("em,none"),
        f1_reported=spec.entry.get("f1,none"),
        until_config=spec.until,
        doc_to_text=config.get("doc_to_text"),
        num_fewshot=config.get("num_fewshot"),
        version=metadata.get("version") if isinstance(metadata, dict) else None,
    )


_NONE = object()  # no answers to score a sample against


def _answers_in_place_of(check: DropScoring, sample: Sample, doc: dict) -> Any:
    """A DROP doc without answers (LB721: lm-eval's DROP process_docs adds them to every doc): the golds it makes
    of the doc's answer and validated_answers, or _NONE when the doc lacks those too."""
    derived = _answers_of()(doc)
    check.log.at_record(
        "LB721",
        sample.record,
        ("doc",),
        (
            f"{check.spec.name} doc_id {sample.doc_id}: the doc has no answers, which lm-eval's DROP process_docs adds "
            "to every doc from its answer and validated_answers"
            + ("; the sample is scored against those" if derived else ", which it lacks too")
        ),
    )
    return _NONE if derived is None else [list(gold) for gold in derived]


def _flagged(
    report: DropAudit,
    sample: Sample,
    prediction: str,
    golds: list[drop.Gold],
    em: float,
    f1: float,
    flags: drop_flags.SampleFlags,
    rescored: drop_flags.Rescored,
) -> None:
    """Tally a sample's deep-dive flags, and keep it (up to MAX_FLAGGED_SAMPLES) for the report."""
    names = tally_flags(report, flags)
    for name in names:
        report.first.setdefault(name.rstrip("!"), (sample.doc_id, sample.record.line))
    if len(report.flagged) < MAX_FLAGGED_SAMPLES:
        shown_golds = [
            tuple(span[:SHOWN_CHARACTERS] for span in gold[:SHOWN_ITEMS])
            for gold in golds[:SHOWN_ITEMS]
        ]
        report.flagged.append(
            FlaggedSample(
                sample.doc_id,
                sample.record.line,
                names,
                prediction[:SHOWN_CHARACTERS],
                shown_golds,
                em,
                f1,
                [number[:SHOWN_CHARACTERS] for number in flags.glued[:SHOWN_ITEMS]],
                flags.decimal_cut,
                flags.long_answer_loss,
                rescored.newline[1],
                rescored.whitespace[1],
            )
        )


def drop_golds(answers: Any) -> list[drop.Gold] | None:
    """doc.answers as golds: a list of non-empty lists of strings (JSON has no subclasses: `type` is exact)."""
    if type(answers) is not list:
        return None
    golds = []
    for answer in answers:
        if type(answer) is not list or not answer:
            return None
        for span in answer:
            if type(span) is not str:
                return None
        golds.append(tuple(answer))
    return golds


def _show_golds(golds: list[drop.Gold]) -> str:
    shown = repr([list(gold) for gold in golds[:4]])
    return (shown if len(shown) <= 80 else shown[:77] + "...") + (
        " and more" if len(golds) > 4 else ""
    )


def _percent(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%" if total else "-"


def _mean(total: float, count: int) -> str:
    return f"{total / count:.4f}" if count else "-"


def _show(until: list[str]) -> str:
    return "[" + ", ".join(repr(u) for u in until[:8]) + (", ...]" if len(until) > 8 else "]")


def _gold_source(check: DropScoring, sample: Sample, golds: list[drop.Gold]) -> None:
    """lm-eval's DROP builds doc.answers from doc.answer and doc.validated_answers, which the log keeps (the
    dataset's columns): golds edited to a model's predictions, with the doc hash recomputed, contradict them."""
    derived = _answers_of()(sample.data["doc"])
    if derived is None:
        if check.underived is None:
            check.underived = sample
        return
    check.derived += 1
    if derived != golds:
        check.log.at_record(
            "LB721",
            sample.record,
            ("doc", "answers"),
            (
                f"{check.spec.name} doc_id {sample.doc_id}: doc.answers is {_show_golds(golds)}, but the doc's answer "
                f"and validated_answers give {_show_golds(derived)} (lm-eval's DROP process_docs): the gold "
                "answers were edited"
            ),
        )


def _count(
    check,
    report: DropAudit,
    sample: Sample,
    prediction: str,
    golds: list[drop.Gold],
    score: drop_flags.SampleScore,
) -> None:
    em, f1, flags, rescored, decimal_gold = score
    report.n += 1
    report.em_recomputed_sum += em
    report.f1_recomputed_sum += f1
    logged_em, logged_f1 = (
        _logged_number(sample.data.get("em")),
        _logged_number(sample.data.get("f1")),
    )
    tolerance = check.log.tolerance
    if (
        logged_em is None
        or logged_f1 is None
        or abs(logged_em - em) > tolerance
        or abs(logged_f1 - f1) > tolerance
    ):
        report.n_mismatch += 1
    report.decimal_golds += decimal_gold
    sums = report.sums
    sums["em_nl"] += rescored.newline[0]
    sums["f1_nl"] += rescored.newline[1]
    sums["em_nl_lstrip"] += rescored.newline_lstrip[0]
    sums["f1_nl_lstrip"] += rescored.newline_lstrip[1]
    sums["f1_ws"] += rescored.whitespace[1]
    if flags.any():
        _flagged(report, sample, prediction, golds, em, f1, flags, rescored)


def _finish_stops(check: DropScoring, report: DropAudit) -> None:
    task, path = check.spec.name, ("configs", check.spec.name, "generation_kwargs", "until")
    untils = [u for u in [report.until_config, *report.until_samples] if u is not None]
    # Where the '.' stop cut a prediction (LB711): the config, not the model, lost those questions. A run
    # whose predictions never reached a decimal lost nothing to it, and flagging every such DROP log of a
    # leaderboard (most of them, under lm-eval's own config) buried the runs it did cost.
    if report.decimal_cut and report.decimal_golds and any("." in u for u in untils):
        check.log.at_results(
            "LB713",
            path,
            f"{task}: the stop sequences {_show(untils[0])} include '.', and "
            f"{report.decimal_golds:,} of {report.n:,} questions have a decimal gold answer; "
            f"every decimal is cut at its point, as {report.decimal_cut:,} predictions of this "
            "log show (LB711; DROP deep dive)",
        )
    if report.until_config is not None and any(
        u != report.until_config for u in report.until_samples
    ):
        other = next(u for u in report.until_samples if u != report.until_config)
        check.log.at_results(
            "LB714",
            path,
            f"{task}: configs say until {_show(report.until_config)}, but samples "
            f"in {check.log.name} were generated with {_show(other)}; this is a different task "
            "variant",
        )
