"""Chat prompts: under a chat template, each prompt still holds its doc's own text.

With a chat template (the results file's `chat_template`) lm-eval puts the
description, the examples and `doc_to_text(doc)` into messages and the
model's template writes them out with its own markup, so the prompt cannot
be rebuilt (prompts.py leaves such a log alone). But the doc's text is the
last user message, written as it is: chat templates insert a message's
content verbatim or trimmed (Llama 3, Gemma). So the prompt must contain
`doc_to_text(doc)`, stripped; a doc or prompt rewritten after the run, with
its hashes redone, no longer does (LB722). The few-shot count is not checked
under a chat template: examples may be turns of their own.
"""

from __future__ import annotations

from ...core.doc_templates import UNTRACEABLE
from ...core.text_templates import TOO_LONG, prompt_template, texts_of
from ..sample_scoring import request_contexts
from .base import AuditUnit, Sample, audit_unit, shown


@audit_unit(order=18)
class ChatPrompts(AuditUnit):
    """LB722 under a chat template: the prompt does not contain what doc_to_text gives for its doc."""

    def __init__(self, log):
        super().__init__(log)
        self.text = prompt_template(self.spec.config.get("doc_to_text"))
        self.has_choices = self.spec.config.get("doc_to_choice") is not None

    def sees_samples(self) -> bool:
        if self.spec.chat_template in (None, "") or self.spec.config.get("use_prompt"):
            return False  # no chat template: prompts.py rebuilds the whole prompt
        return self.text is not None

    def add(self, sample: Sample) -> None:
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
        if any(text in prompt for text in wanted) or (wanted and not any(wanted)):
            return
        gives = "a text longer than the prompt" if texts is TOO_LONG else shown(wanted[0][-60:], 60)
        self.log.at_record("LB722", sample.record, ("arguments",), (
            f"{self.spec.name} doc_id {sample.doc_id}: the prompt does not contain what the config's doc_to_text "
            f"{shown(self.text.text, 60)} gives for its doc ({gives}); under a chat template the doc's text is "
            "the last user message, written as it is; the prompt or the doc was edited after the run, or the "
            "config was"))

