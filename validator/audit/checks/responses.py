"""Responses: what the model answered, against what was scored and where its generation had to stop.

lm-eval logs each request's raw responses (`resps`) beside the filtered ones
the metrics were computed from (`filtered_resps`). Every scorer of the audit
reads `filtered_resps`, so an edit there alone changed the scores and left
`resps` telling the truth. Two facts of the harness tie them:

- The default filter, `none`, is `take_first`: filtered_resps[i] is
  resps[i][0] (lm_eval/api/task.py builds it when a task declares no
  filter_list; the harness's own tasks never name another pipeline `none`).
  A pipeline of regex (any pattern, under RE2), remove_whitespace,
  lowercase, uppercase and map steps with take_first is re-applied too
  (harness/filters.py); other pipelines are not, and their numbers are
  LB716 with the reason.
- A generation is cut at the first occurrence of any of its request's stop
  sequences (`until`; models/utils.py postprocess_generated_text, and the
  HF backend's loop before it, 0.4.0 on): no logged generation holds one.
  A response that does was edited, or came from a backend that ignored the
  stops, and then the task's scores are not the task's either.

Rules LB719 and LB720; a sample without `resps` as lm-eval writes them is
LB702, since deleting them would switch both checks off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...findings import ERROR
from ...findings.registry import rule
from ...harness.not_linear import NotLinear
from ...harness.read_budget import ReadsRefused, reading
from ...harness.samples import requests, stop_sequences
from ..work_budget import run_budget
from .base import AuditCheck, Sample, audit_check, shown

if TYPE_CHECKING:
    from ...harness.filters import Pipeline

TAKE_FIRST = "none"  # the filter lm-eval applies when a task declares none
MAX_STOPS = 64  # stop sequences of one request; each is searched for in every response (a harness task has few)
# lm-eval's chat-API model classes: they send stop[:4] (or none, for some model names) and leave the reply uncut
# (models/openai_completions.py, 0.4.9 on); the rest cut every generation themselves (postprocess_generated_text).
CHAT_APIS = frozenset(
    {"local-chat-completions", "openai-chat-completions", "azure-openai-chat-completions"}
)


@rule("LB719", "filtered-response-mismatch", ERROR, runs=False)
def filtered_response_mismatch(ctx):
    """A sample's filtered_resps is not what its filter makes of its resps.

    lm-eval's default filter, `none`, takes each request's first response:
    filtered_resps[i] is resps[i][0]. A pipeline of lm-eval's regex (any
    pattern, run under RE2 with Python's results), remove_whitespace,
    lowercase, uppercase and map filters with take_first is re-applied the
    same way, and so is a filter of any name whose pipeline is take_first
    alone; other pipelines (multi_choice_regex, majority_vote) are not, and
    their numbers are LB716 with the reason.
    Every score is computed from filtered_resps, so one edited there changes
    the score while resps still holds what the model answered.
    """


@rule("LB720", "response-past-stop", ERROR, runs=False)
def response_past_stop(ctx):
    """A logged generation holds one of its request's stop sequences (`until`).

    lm-eval cuts every generation at the first occurrence of any stop
    sequence, so no logged response holds one. One that does was edited, or
    its stop sequences were (a DROP run's '.' stop rewritten to hide the
    deep dive's decimal cuts), or the backend ignored them; in every case the
    scores are not the task's. lm-eval's chat-API models send at most four
    stops (none to some model names) and do not cut the reply, so an honest
    API run can hold one: the message says so, and a leaderboard that takes
    such runs lists this rule under `warn` or `ignore` (a submitter's
    `config.model` cannot soften it). A request that logs no stops is held
    to the config's `generation_kwargs.until`; one of more than 64 stops is
    LB702.
    """


@audit_check(order=28)  # before the checks that score filtered_resps
class Responses(AuditCheck):
    """LB719: filtered_resps is not what the sample's filter makes of resps; LB720: a generation runs past a stop."""

    def __init__(self, log):
        super().__init__(log)
        # filter name -> how lbnorm replays it: TAKE_FIRST, its Pipeline, or why it does not (a phrase)
        self.pipelines: dict[str, str | Pipeline] = {TAKE_FIRST: TAKE_FIRST}
        # filters whose pipeline lbnorm does not re-apply -> why (LB716 on their numbers)
        self.unreplayed: dict[str, str] = {}
        self.budget = run_budget()  # shared with every replay of the run (audit/work_budget.py)
        # Once per log: a property's call per sample was a measurable share of a short sample's audit
        self.generative = self.spec.output_type == "generate_until"

    def add(self, sample: Sample) -> None:
        firsts = _first_responses(sample.data.get("resps"))
        if firsts is None:
            self.log.at_record(
                "LB702",
                sample.record,
                ("resps",),
                (
                    f"{self.spec.name}: resps must be a list of each request's responses (non-empty lists), as "
                    "lm-eval logs them: without them the scored filtered_resps cannot be verified"
                ),
            )
            return
        # A filter met before, without _pipeline's call (no pipeline is None)
        pipeline = self.pipelines.get(sample.filter)
        if pipeline is None:
            pipeline = self._pipeline(sample.filter)
        if pipeline is TAKE_FIRST:
            if sample.data.get("filtered_resps") != firsts:
                _take_first(self, sample, sample.data["resps"])
        elif isinstance(pipeline, str):  # not re-applied, so what was scored is the log's own word
            self.unreplayed.setdefault(sample.filter, pipeline)
        else:
            _replay(self, sample, firsts, pipeline)
        until = sample.until()
        if until is None and self.generative:
            until = (
                self.spec.until
            )  # a request that logs no stops was made with the config's (as DropScoring)
        if until:
            if len(until) > MAX_STOPS:
                self.log.at_record(
                    "LB702",
                    sample.record,
                    ("arguments",),
                    (
                        f"{self.spec.name}: the request has {len(until):,} stop sequences, more than the {MAX_STOPS} "
                        "lbnorm checks each response against"
                    ),
                )
                return
            self._stops(sample, sample.data["resps"], until)

    def finish(self) -> None:
        for key, (_, flt) in self.spec.metric_parts:
            if flt in self.unreplayed:
                self.not_audited(
                    key,
                    f"the filter {flt!r} is not replayed from resps: {self.unreplayed[flt]}",
                )

    def _pipeline(self, name: str) -> str | Pipeline:
        """How the config's filter of that name is replayed, once per log: take_first alone under any name (the
        filter 'none' renamed must not let filtered_resps say anything), a pipeline harness/filters.py replays,
        or why not."""
        if name not in self.pipelines:
            steps = self.spec.filter_steps(name)
            takes_first = (
                type(steps) is list
                and len(steps) == 1
                and type(steps[0]) is dict
                and steps[0].get("function") == "take_first"
            )
            if takes_first:
                self.pipelines[name] = TAKE_FIRST
            else:
                with reading(self.budget.spend):  # a pattern of the submitter's is compiled for RE2
                    self.pipelines[name] = _pipeline_of(steps)
        return self.pipelines[name]

    def _regex(self, sample: Sample, firsts: list, pipeline: Pipeline) -> None:
        """A pipeline of regex, remove_whitespace, lowercase, uppercase or map steps with take_first."""
        expected = [pipeline.apply(first) for first in firsts]
        filtered = sample.data.get("filtered_resps")
        if filtered != expected:
            index = next(
                (
                    i
                    for i, value in enumerate(expected)
                    if type(filtered) is not list or i >= len(filtered) or filtered[i] != value
                ),
                0,
            )
            logged = (
                shown(filtered[index], 60)
                if type(filtered) is list and index < len(filtered)
                else "missing"
            )
            self.log.at_record(
                "LB719",
                sample.record,
                ("filtered_resps", index),
                (
                    f"{self.spec.name}: filtered_resps[{index}] is {logged}, but the filter {sample.filter!r} "
                    f"({shown(pipeline.text, 80)}) makes {shown(expected[index], 60)} of resps[{index}][0]: what "
                    "was scored is not what the model answered"
                ),
            )

    def _stops(self, sample: Sample, resps: list, first_until: list[str]) -> None:
        every_until = (
            [first_until]
            if len(resps) == 1
            else [_until_of(call) for call in requests(sample.data.get("arguments"))]
        )
        for index, (responses, until) in enumerate(zip(resps, every_until, strict=False)):
            for position, text in enumerate(responses):
                stop = _first_stop(text, until) if type(text) is str else None
                if stop is not None:
                    self.log.at_record(
                        "LB720",
                        sample.record,
                        ("resps", index, position),
                        (
                            f"{self.spec.name}: the response holds its request's stop sequence {stop!r} at character "
                            f"{text.find(stop)}: {self._why_impossible()}"
                        ),
                    )
                    return

    def _why_impossible(self) -> str:
        backend = self.spec.backend
        if isinstance(backend, str) and backend in CHAT_APIS:
            return (
                f"lm-eval's {backend} sends a chat API at most four stop sequences (none to some models) and "
                "does not cut the reply itself, so this run's generations were not stopped as the task says and "
                "its scores are not the task's (a leaderboard that takes such runs lists LB720 under warn or "
                "ignore)"
            )
        return (
            "lm-eval cuts every generation at its first stop sequence, so the response or the stop sequences "
            "were edited (or the backend ignored them, and the scores are not the task's)"
        )


def _replay(check: Responses, sample: Sample, firsts: list, pipeline: Pipeline) -> None:
    """The sample's pipeline replayed on its first responses (LB719); where it cannot be, why, for LB716. A
    pattern of the submitter's has its searches counted against the run's work budget."""
    try:
        if pipeline.counts_matches:
            with reading(check.budget.spend):
                check._regex(sample, firsts, pipeline)
        else:
            check._regex(sample, firsts, pipeline)
    except NotLinear as error:
        check.unreplayed.setdefault(
            sample.filter, f"its regex holds {error.feature}, which RE2 cannot run"
        )
    except ReadsRefused:
        check.unreplayed.setdefault(
            sample.filter, "its regex's searches run past the run's work budget"
        )


def _pipeline_of(steps: Any) -> Pipeline | str:
    """harness/filters.py's replay of a filter's steps, imported with the first filter that is not take_first, so
    an audit of tasks without one never loads it (nor the harness's patterns and RE2 behind it)."""
    from ...harness.filters import pipeline_of

    return pipeline_of(steps)


def _first_responses(resps: Any) -> list | None:
    """Each request's first response, when resps is what lm-eval logs: one non-empty list per request."""
    if type(resps) is not list or not resps:
        return None
    firsts = []
    for responses in resps:  # a loop, not a comprehension over all(): this runs once per sample
        if type(responses) is not list or not responses:
            return None
        firsts.append(responses[0])
    return firsts


def _until_of(call: list) -> list[str]:
    """One request's stop sequences (none when it logs none), at most MAX_STOPS of them searched."""
    return (stop_sequences(call[1] if len(call) > 1 else None) or [])[:MAX_STOPS]


def _first_stop(text: str, until: list[str]) -> str | None:
    for stop in until:
        if stop and stop in text:  # lm-eval passes over an empty stop (a seq2seq model's empty EOS)
            return stop
    return None


def _take_first(check: Responses, sample: Sample, resps: list) -> None:
    """filtered_resps differs from each request's first response: say where."""
    filtered = sample.data.get("filtered_resps")
    if type(filtered) is list and len(filtered) == len(resps):
        index = next(
            i
            for i, (value, responses) in enumerate(zip(filtered, resps, strict=True))
            if value != responses[0]
        )
        check.log.at_record(
            "LB719",
            sample.record,
            ("filtered_resps", index),
            (
                f"{check.spec.name}: filtered_resps[{index}] is {shown(filtered[index], 60)}, but resps[{index}][0] is "
                f"{shown(resps[index][0], 60)}; the sample's filter {sample.filter!r} takes each request's first "
                "response, so what was scored is not what the model answered"
            ),
        )
        return
    check.log.at_record(
        "LB719",
        sample.record,
        ("filtered_resps",),
        (
            f"{check.spec.name}: filtered_resps is no list of one value per request ({len(resps)} in resps); the "
            f"sample's filter {sample.filter!r} takes each request's first response"
        ),
    )
