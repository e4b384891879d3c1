"""One few-shot example as lm-eval writes it into a prompt. Pure: no I/O.

Mirrors lm-evaluation-harness 0.4.0 to 0.4.13, lm_eval/api/samplers.py
(ContextSampler.get_context): the example's doc_to_text, the target delimiter,
its answer (doc_to_target, or the choice it names when the task has
doc_to_choice), then the few-shot delimiter. `way` 1 drops a template's last
newline, as 0.4.0 to 0.4.3 render it.
"""

from __future__ import annotations

from typing import Any

from .doc_templates import UNTRACEABLE, Template, choices_of, target_of
from .text_templates import TOO_LONG, texts_of

MAX_EXAMPLE = (
    1 << 20
)  # characters of one rendered example (BBH's: a few hundred); a longer one is not built


class ExampleRenderer:
    """One example as the harness writes it into a prompt, or None where lbnorm cannot say."""

    def __init__(
        self,
        text,
        target: Template,
        doc_to_choice: Any,
        target_delimiter: str,
        fewshot_delimiter: str,
        way: int = 0,
    ):
        self.text, self.target, self.way = (
            text,
            target,
            way,
        )  # way 1: a last newline dropped, as 0.4.0-0.4.3
        self.choices = Template.of(doc_to_choice) if doc_to_choice is not None else None
        self.has_choices = doc_to_choice is not None
        self.target_delimiter, self.fewshot_delimiter = target_delimiter, fewshot_delimiter

    def __call__(self, example: dict) -> str | None:
        parts = self.parts(example)
        return (
            None
            if parts is None
            else parts[0] + self.target_delimiter + parts[1] + self.fewshot_delimiter
        )

    def parts(self, example: dict) -> tuple[str, str] | None:
        """(its doc_to_text, its answer): what a chat template writes as a user's and an assistant's message."""
        if not isinstance(example, dict):
            return None
        texts = texts_of(self.text, example, MAX_EXAMPLE)
        answer = self._answer(example)
        if texts is UNTRACEABLE or texts is TOO_LONG or answer is None:
            return None
        return texts[min(self.way, len(texts) - 1)], answer

    def _answer(self, example: dict) -> str | None:
        target = target_of(self.target, example, self.has_choices)
        if type(target) is list:
            return str(target[0]) if target else None
        if type(target) is int and self.has_choices:
            choices = choices_of(self.choices, example) if self.choices is not None else None
            return (
                str(choices[target])
                if type(choices) is list and 0 <= target < len(choices)
                else None
            )
        return target if type(target) is str and target != "" else None
