"""Chat prompts: under a chat template, each prompt still holds its doc's own text.

With a chat template (the results file's `chat_template`) lm-eval puts the
description, the examples and `doc_to_text(doc)` into messages and the
model's template writes them out with its own markup, so the prompt cannot
be rebuilt (prompts.py leaves such a log alone). But the doc's text is the
last user message, written as it is: chat templates insert a message's
content verbatim or trimmed (Llama 3, Gemma). So the prompt must contain
`doc_to_text(doc)`, stripped; a doc or prompt rewritten after the run, with
its hashes redone, no longer does (LB722).

The few-shot count is checked as far as the closing words of doc_to_text
(its last text, "Answer:", "\\nA:", "\\n\\nSolution:") tell it: every example is
doc_to_text of another doc, whether a turn of its own (fewshot_as_multiturn)
or part of the one message, so it writes them before the doc's own text.
Under a count of 0 they must not be there once the system instruction and
the description are taken out (LB723 at the first prompt that has them);
under a count above 0, ten prompts without them are a zero-shot run (LB723),
unless the config's fewshot_config writes its examples with a doc_to_text
of its own that ends otherwise (harness/fewshot.py example_mark). A count
of 5 written as 3 is told only of a prompt that shows no chat markup (the
prompts check holds it to the plain build, and shot_count.py counts its
closing words): examples can hold the closing words themselves.
"""

from __future__ import annotations

from typing import cast

from ...harness.doc_templates import UNTRACEABLE
from ...harness.fewshot import closing_words, example_mark
from ...harness.samples import request_contexts
from ...harness.text_templates import TOO_LONG, TextTemplate, prompt_template, texts_of
from .base import AuditCheck, Sample, audit_check, shown
from .prompts import ZERO_SHOT_EVIDENCE


@audit_check(order=19)
class ChatPrompts(AuditCheck):
    """LB722 under a chat template: the prompt does not contain what doc_to_text gives for its doc."""

    def __init__(self, log):
        super().__init__(log)
        config = self.spec.config
        self.text = prompt_template(config.get("doc_to_text"))
        self.has_choices = config.get("doc_to_choice") is not None
        self.shots = self.spec.declared_shots
        self.closing = closing_words(self.text)
        self.description = TextTemplate.of(config.get("description") or "")
        instruction = self.spec.system_instruction
        self.instruction = instruction if isinstance(instruction, str) else ""
        self.mark = example_mark(config)  # the closing words, where every example holds them
        self.shots_told = False
        self.without_examples: list = []  # [count, first record] of prompts without examples under a count above 0
        self.with_examples = False

    @classmethod
    def applies(cls, log) -> bool:
        return _under_chat_template(log.spec)  # finish reports only what add found

    def sees_samples(self) -> bool:
        return _under_chat_template(self.spec) and self.text is not None

    def add(self, sample: Sample) -> None:
        if sample.examples is not None:
            return  # the prompts check held it to the plain build, whose markup it shows none of
        data = sample.data
        contexts = request_contexts(data.get("arguments"))
        doc, prompt = data.get("doc"), contexts[0] if contexts else None
        if not isinstance(doc, dict) or type(prompt) is not str:
            return  # a chat API's messages, or a record whose shape is LB702's
        # A text may be longer than the prompt by the whitespace a trim removes: twice its length is room enough
        # (and bounds what a template of the submitter's can build).
        texts = texts_of(self.text, doc, 2 * len(prompt) + 64)
        if texts is UNTRACEABLE:
            return
        wanted = [] if texts is TOO_LONG else [text.strip() for text in texts]
        if wanted and wanted[0].isdigit() and self.has_choices:
            return  # a number with choices: lm-eval 0.4.3-0.4.9 put that choice in the prompt (winogrande's layout)
        found = next((text for text in wanted if text in prompt), None)
        if found is not None:
            if self.closing is not None and self.shots is not None and found:
                self._shots(sample, prompt, found, doc)
            return
        gives = "a text longer than the prompt" if texts is TOO_LONG else shown(wanted[0][-60:], 60)
        self.log.at_record(
            "LB722",
            sample.record,
            ("arguments",),
            (
                f"{self.spec.name} doc_id {sample.doc_id}: the prompt does not contain what the config's doc_to_text "
                f"{shown(self.text.text, 60)} gives for its doc ({gives}); under a chat template the doc's text is "
                "the last user message, written as it is; the prompt or the doc was edited after the run, or the "
                "config was"
            ),
        )

    def _shots(self, sample: Sample, prompt: str, text: str, doc: dict) -> None:
        """Whether examples come before the doc's text: its closing words there, once the instruction, the
        description and the doc's own text (a template may repeat it) are taken out."""
        before = prompt[: prompt.rfind(text)]
        descriptions = (
            texts_of(self.description, doc, len(prompt))
            if self.description is not None
            else UNTRACEABLE
        )
        if descriptions is UNTRACEABLE or descriptions is TOO_LONG:
            return  # a description lbnorm cannot write: what is left of the prompt is unknown
        descriptions = cast("tuple[str, ...]", descriptions)  # texts_of's only other answer
        for known in (self.instruction, *descriptions, *(d.strip() for d in descriptions), text):
            if known:
                before = before.replace(known, "")
        examples = self.closing in before
        if self.shots == 0 and examples and not self.shots_told:
            self.shots_told = True
            self._conflict(
                sample.record,
                f"configs.{self.spec.name}.num_fewshot is 0, but the prompt of doc_id "
                f"{sample.doc_id} holds {shown(self.closing, 30)}, the closing words of the task's "
                "doc_to_text, before the doc's own text: a few-shot example the file does not declare",
            )
        elif self.shots > 0 and examples:
            self.with_examples = True
        elif self.shots > 0 and self.mark is not None:
            count, first = self.without_examples or (0, sample.record)
            self.without_examples = [count + 1, first]

    def finish(self) -> None:
        if (
            self.without_examples
            and not self.with_examples
            and self.without_examples[0] >= ZERO_SHOT_EVIDENCE
        ):
            self._conflict(
                self.without_examples[1],
                f"configs.{self.spec.name}.num_fewshot (or n-shot) is "
                f"{self.shots}, but none of the {self.without_examples[0]:,} prompts holds "
                f"{shown(self.closing, 30)}, the closing words of the task's doc_to_text, before the "
                "doc's own text: the run was zero-shot",
            )

    def _conflict(self, record, message: str) -> None:
        self.log.at_record(
            "LB723",
            record,
            ("arguments",),
            f"{message} (under a chat template); n-shot and the "
            "config were edited after the run, or the prompts were",
        )


def _under_chat_template(spec) -> bool:
    """The file claims a chat template, and no promptsource prompt: without one, prompts.py rebuilds the whole
    prompt."""
    return spec.chat_template_claimed and not spec.config.get("use_prompt")
