"""Prompts: each sample's prompt against what its config builds from its doc, and the few-shot count it shows.

Without a chat template, lm-eval builds every prompt the same way, from 0.4.0
to 0.4.13 (lm_eval/api/task.py fewshot_context): the system instruction and
the task's description, then `num_fewshot` examples, each ending in
`fewshot_delimiter`, then `doc_to_text` of the doc. So the prompt starts
with the first, ends with the last, and holds text between them when the
run was few-shot. The prompt is covered by `prompt_hash`, but hashes can be
recomputed: a doc edited after the run no longer gives the prompt the model
saw (LB722), and a few-shot run whose `n-shot` and `num_fewshot` were both
set to 0 still shows its examples in every prompt (LB723). Every request of
a sample has that one context (and, for acc_mutual_info only, one empty
context per choice), so another context is a prompt edited (LB722: examples
stripped from the first request alone, the one prompt_hash covers).

What the harness may honestly do, and is accepted: 0.4.0 and 0.4.1 put the
description in as written (not rendered), and up to 0.4.9 a description
that names a doc field is that name; a sampler drawing from the split it
evaluates drops the eval doc from its draw, so a 1-shot prompt can have no
example (LB723 the other way round needs ten prompts, every one without).

Not rebuilt, and noted: a `doc_to_text` or description of another shape
than harness/text_templates.py evaluates, a promptsource template (`use_prompt`),
a `gen_prefix`, a chat template (the run's `chat_template`: the template's
markup is the model's, not the task's; chat_prompts.py holds each prompt to
contain its doc's text instead), a chat API's messages, winogrande's
layout (doc_to_text gives a choice's number), a config without doc_to_text.
A submitter can claim a chat template, or write the examples into a doc's
own text (with its hash): neither can be told from the files.
"""

from __future__ import annotations

import re
from typing import Any

from ...harness.doc_templates import UNTRACEABLE
from ...harness.fewshot import example_mark
from ...harness.samples import request_contexts
from ...harness.text_templates import (
    TOO_LONG,
    TextTemplate,
    ending_of,
    ends_in_newline,
    prompt_template,
    texts_of,
    undefined_block,
)
from .base import AuditCheck, Sample, audit_check, shown

_DEFAULT_FEWSHOT_DELIMITER = "\n\n"  # lm-eval's TaskConfig default
_TEXT = re.compile(r"\S")  # searched between two offsets of a prompt, which it does not copy
# Under a chat template chat_prompts.py holds each prompt to its doc's text instead.
# None or "" (0.4.5) when no template was applied; fewshot_as_multiturn alone changes nothing (0.4.10 on set it)
CHAT_TEMPLATE_NOTE = (
    "a chat template (the results file's chat_template), where a prompt shows its markup; such a "
    "prompt is only held to contain its doc's text"
)
ZERO_SHOT_EVIDENCE = (
    10  # prompts, every one without an example, before a count above 0 is said to be false
)


@audit_check(order=16)
class Prompts(AuditCheck):
    """LB722: a prompt is not built from its doc; LB723: the prompts show another few-shot count than the file."""

    def __init__(self, log):
        super().__init__(log)
        spec, config = self.spec, self.spec.config
        self.text = prompt_template(config.get("doc_to_text"))
        written = config.get("description") or ""
        self.description = TextTemplate.of(written)
        self.raw_description = (
            written if isinstance(written, str) else ""
        )  # 0.4.0-0.4.1 put it in as written
        delimiter = config.get("fewshot_delimiter", _DEFAULT_FEWSHOT_DELIMITER)
        self.delimiter = delimiter if isinstance(delimiter, str) else None
        self.shots = spec.declared_shots
        self.has_choices = config.get("doc_to_choice") is not None
        # acc_mutual_info adds one request without context per choice; no other metric does
        self.mutual_info = "acc_mutual_info" in spec.reported_metrics
        instruction = spec.system_instruction
        self.instruction = instruction if isinstance(instruction, str) else None
        # The file says so, and the submitter writes the file: a prompt that shows no chat markup at all (it is the
        # plain build, end to end) is held to the plain rules, so claiming a template hides no few-shot count.
        self.claimed_chat = spec.chat_template_claimed
        self.why_not = _why_not(self, config, instruction)
        self.shots_told = False
        self.zero_shot: list = []  # (count, first record) of prompts without examples under a count above 0
        # What every example holds (MMLU's "\nAnswer:"), None where nothing is known
        self.mark = example_mark(config)
        self.with_examples = False
        # Samples not rebuilt for a value Jinja prints otherwise; LB722 said of an undefined name
        self.untraceable, self.undefined_told = 0, False
        # A description without blocks (every leaderboard's) is the same for every doc: its heads, once.
        fixed = (
            self.why_not is None
            and self.description.field is None
            and all(type(part) is str for part in self.description.parts)
        )
        self.fixed_heads = _heads(self, {}, float("inf")) if fixed else None
        # The usual log: heads the same for every doc (two when the description ends with a newline, as MMLU's
        # and BBH's do), and a doc_to_text with one text, whose end is compared in place (ending_of).
        self.one_way = self.fixed_heads is not None and not ends_in_newline(self.text)

    def sees_samples(self) -> bool:
        if self.claimed_chat and self.why_not is None:
            self.summary.notes.append(f"prompts not rebuilt from the docs: {CHAT_TEMPLATE_NOTE}")
        if self.why_not:
            self.summary.notes.append(f"prompts not rebuilt from the docs: {self.why_not}")
        elif self.why_not is None and self.shots is None:
            self.summary.notes.append(
                f"the few-shot count is not checked against the prompts: neither "
                f"configs.{self.spec.name}.num_fewshot nor n-shot.{self.spec.name} is a count"
            )
        return self.why_not is None

    def add(self, sample: Sample) -> None:
        data = sample.data
        doc, contexts = data.get("doc"), request_contexts(data.get("arguments"))
        prompt = contexts[0] if contexts else None
        if not isinstance(doc, dict) or type(prompt) is not str:
            if type(prompt) is list:
                self.note_once("prompts not rebuilt from the docs: a chat API's messages")
            return  # the record's shape is LB702's
        if self.one_way and _as_usual(self, sample, contexts, prompt, doc):
            return
        questions = texts_of(self.text, doc, len(prompt))
        if questions is UNTRACEABLE:
            _untraceable(self, sample)
            return
        if questions is not TOO_LONG and questions[0].isdigit() and self.has_choices:
            return  # winogrande's choice number: not rebuilt
        heads = self.fixed_heads if self.fixed_heads is not None else _heads(self, doc, len(prompt))
        if heads is UNTRACEABLE:
            self.untraceable += 1  # a value Jinja prints otherwise: counted for the note
            return
        starts = [len(head) for head in heads if prompt.startswith(head)]
        tails = (
            []
            if questions is TOO_LONG
            else [len(question) for question in questions if prompt.endswith(question)]
        )
        pairs = [(head, tail) for head in starts for tail in tails if head + tail <= len(prompt)]
        between = [
            0 if self.claimed_chat and _joint(prompt, head, tail) else len(prompt) - head - tail
            for head, tail in pairs
        ]
        if self.claimed_chat and not (starts and between):
            return  # the template's markup, the model's: chat_prompts.py holds the prompt to its doc's text
        if not starts:
            told = (
                f"the system instruction {shown(self.instruction, 40)} and "
                if self.instruction is not None
                else ""
            )
            self._find(
                sample,
                f"the prompt does not start with {told}the task's description "
                f"{shown(self.raw_description, 60)}",
            )
        elif not between:
            gives = (
                "a text longer than the prompt"
                if questions is TOO_LONG
                else shown(questions[0][-60:], 60)
            )
            self._find(
                sample,
                f"the prompt does not end with what the config's doc_to_text "
                f"{shown(self.text.text, 60)} gives for its doc ({gives})",
            )
        elif (
            len(contexts) > 1
            and (other := _other_context(contexts, prompt, self.mutual_info)) is not None
        ):
            self._find(
                sample,
                f"request {other} has another context than request 0; lm-eval gives every request "
                "of a sample the one prompt (and, for acc_mutual_info only, one empty one per choice)",
            )
        elif self.shots is not None:
            sample.examples = (prompt, min(starts), len(prompt) - min(tails))
            _shots(
                self, sample, min(between), _widest(self, prompt, pairs, between), bool(max(starts))
            )

    def finish(self) -> None:
        if self.untraceable:
            self.summary.notes.append(
                f"prompts not rebuilt from the docs for {self.untraceable:,} samples: a value their doc_to_text "
                "or description prints is not one lbnorm writes as Jinja does"
            )
        if self.zero_shot and not self.with_examples and self.zero_shot[0] >= ZERO_SHOT_EVIDENCE:
            _shots_conflict(
                self,
                self.zero_shot[1],
                f"configs.{self.spec.name}.num_fewshot (or n-shot) is "
                f"{self.shots}, but none of the {self.zero_shot[0]:,} prompts rebuilt holds an "
                "example: the run was zero-shot",
            )

    def _find(self, sample: Sample, message: str) -> None:
        self.log.at_record(
            "LB722",
            sample.record,
            ("arguments",),
            f"{self.spec.name} doc_id {sample.doc_id}: "
            f"{message}; the prompt or the doc was edited after the run, or the config was",
        )


def _untraceable(check: Prompts, sample: Sample) -> None:
    """A doc_to_text lbnorm cannot render for this doc: LB722 (once) where it names what the doc lacks, since
    lm-eval's StrictUndefined fails on that and no run was made with it; else a value Jinja prints otherwise,
    counted for the task's note."""
    block = undefined_block(check.text, sample.data["doc"])
    if block is None:
        check.untraceable += 1
    elif not check.undefined_told:
        check.undefined_told = True
        check._find(
            sample,
            f"the config's doc_to_text {shown(check.text.text, 60)} names {block}, which its doc lacks, so "
            "lm-eval could not have built this prompt (its templates fail on an undefined name)",
        )


def _why_not(check: Prompts, config: dict, instruction) -> str | None:
    """Why this log's prompts cannot be rebuilt, as its note says; None when they can."""
    if config.get("doc_to_text") is None:
        return (
            "the config has no doc_to_text (every lm-eval 0.4 config writes one)" if config else ""
        )
    if config.get("use_prompt") or config.get("gen_prefix") is not None:
        return f"the config's {'use_prompt' if config.get('use_prompt') else 'gen_prefix'}"
    if check.text is None or check.description is None or check.delimiter is None:
        return "a doc_to_text or description of a template shape lbnorm does not evaluate (it is not run)"
    if instruction is not None and check.instruction is None:
        return "a system_instruction that is not text"
    return None


def _widest(check: Prompts, prompt: str, pairs: list[tuple[int, int]], between: list[int]) -> int:
    """The most room an example may have taken: the widest gap between a head and the doc's text that may hold
    one (_holds_example). Only a few-shot count reads it (_shots)."""
    if not check.shots:
        return 0
    holding = [
        gap
        for gap, pair in zip(between, pairs, strict=True)
        if gap and _holds_example(check, prompt, *pair)
    ]
    return max(holding, default=0)


def _holds_example(check: Prompts, prompt: str, head: int, tail: int) -> bool:
    """Whether the gap between the head and the doc's text may hold an example: it holds the text every example
    holds (example_mark), or, where that is not known, anything but whitespace. A gap of whitespace alone (the
    blank line that ends a description, read as rendered without it), or of text without the mark (a zero-shot
    run's description, with the config's blanked), is no example, and cannot make a zero-shot prompt look
    few-shot."""
    if check.mark is not None:
        return prompt.find(check.mark, head, len(prompt) - tail) >= 0
    return _holds_text(prompt, head, tail)


def _holds_text(prompt: str, head: int, tail: int) -> bool:
    """Whether anything but whitespace lies between the head and the doc's text."""
    return _TEXT.search(prompt, head, len(prompt) - tail) is not None


def _joint(prompt: str, head: int, tail: int) -> bool:
    """Whether what lies between the head and the doc's text is whitespace: under a chat template without role
    markup, the template's joint between the system and the user message, never an example (an honest 0-shot run
    has that one newline there)."""
    return not _holds_text(prompt, head, tail)


def _other_context(contexts: list, prompt: str, mutual_info: bool) -> int | None:
    """The first request whose context is not the prompt; an empty one counts only under acc_mutual_info, and
    then as many as the others (0.4.3 interleaves them, 0.4.4 on appends them). Ten 4 KB contexts compare in
    under a microsecond."""
    if contexts.count(prompt) == len(
        contexts
    ):  # the usual sample, every context compared at C speed
        return None
    empty = 0
    for index, context in enumerate(contexts):
        if context == "" and mutual_info:
            empty += 1
        elif context != prompt:
            return index
    return None if 2 * empty in (0, len(contexts)) else len(contexts) - 1


def _as_usual(check: Prompts, sample: Sample, contexts: list, prompt: str, doc: dict) -> bool:
    """The usual sample, settled by the doc's text at the prompt's end and a fixed head at its start: True when
    it is settled (as add() would settle it), False when add() must look again (a mismatch, to be told;
    winogrande's number)."""
    tail = ending_of(check.text, doc, prompt)
    # Anything else goes to add()'s general path, which words findings and settles the rest the same way
    # (a text of digits with choices is winogrande's number; an untraceable block, wherever it lies; a head
    # that runs into the doc's text).
    if tail is None or (
        check.has_choices and prompt[-1:].isdigit() and prompt[len(prompt) - tail :].isdigit()
    ):
        return False
    size, shortest, longest = len(prompt), -1, -1  # the heads the prompt starts with, by length
    for head in check.fixed_heads:  # one, or two when the description ends with a newline
        if prompt.startswith(head):
            length = len(head)
            if shortest < 0 or length < shortest:
                shortest = length
            if length > longest:
                longest = length
    if shortest < 0 or longest + tail > size:
        return False
    # Every context the prompt (the usual sample): _other_context's None, without its call
    if (
        len(contexts) > 1
        and contexts.count(prompt) != len(contexts)
        and _other_context(contexts, prompt, check.mutual_info)
    ):
        return False
    shots = check.shots
    if shots is not None:
        # add()'s gaps, one per head: each is a suffix of the next wider one, so the least is after the
        # longest head, and the widest that holds text (if any does) is after the shortest.
        least = 0 if check.claimed_chat and _joint(prompt, longest, tail) else size - longest - tail
        widest = size - shortest - tail
        most = widest if shots and widest and _holds_example(check, prompt, shortest, tail) else 0
        sample.examples = (prompt, shortest, size - tail)
        if (shots == 0 and least) or (
            shots and (most == 0 or not check.with_examples)
        ):  # agreement needs no call
            _shots(check, sample, least, most, bool(longest))
    return True


def _heads(check: Prompts, doc: dict, limit: int) -> list[str] | Any:
    """What a prompt may start with before its examples: the system instruction and the description, rendered
    or (0.4.0-0.4.1) as written. lm-eval 0.4.10 on leave the delimiter out between a system instruction and a
    description when either has whitespace there."""
    rendered = texts_of(check.description, doc, limit)
    if rendered is UNTRACEABLE:
        if undefined_block(check.description, doc) is None:
            return UNTRACEABLE  # a value Jinja prints otherwise
        rendered = ()  # 0.4.2 on fail on a name the doc lacks: only 0.4.0-0.4.1's description, as written
    descriptions = {check.raw_description, *(() if rendered is TOO_LONG else rendered)}
    if check.instruction is None:
        return list(descriptions)
    return [
        check.instruction + joint + description
        for description in descriptions
        for joint in ((check.delimiter, "") if description else ("",))
    ]


def _shots(check: Prompts, sample: Sample, least: int, most: int, after_description: bool) -> None:
    """Examples under a count of 0: LB723 at once (once per log). No example under a count above 0 is kept
    for finish(): a sampler that draws the eval doc drops it, so one such prompt is honest."""
    if check.shots == 0 and least > 0 and not check.shots_told:
        check.shots_told = True
        where = "the description" if after_description else "its start"
        _shots_conflict(
            check,
            sample.record,
            f"configs.{check.spec.name}.num_fewshot is 0, but the prompt of "
            f"doc_id {sample.doc_id} holds {least:,} characters between {where} and the doc's "
            "own text (doc_to_text): few-shot examples the file does not declare",
        )
    elif check.shots > 0 and most == 0:
        check.zero_shot = (
            [check.zero_shot[0] + 1, check.zero_shot[1]] if check.zero_shot else [1, sample.record]
        )
    elif check.shots > 0:
        check.with_examples = True


def _shots_conflict(check: Prompts, record, message: str) -> None:
    check.log.at_record(
        "LB723",
        record,
        ("arguments",),
        f"{message}; n-shot and the config were edited after the run, or the prompts were",
    )
