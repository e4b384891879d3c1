"""One few-shot example as lm-eval writes it into a prompt. Pure: no I/O.

Mirrors lm-evaluation-harness 0.4.0 to 0.4.13, lm_eval/api/samplers.py
(ContextSampler.get_context): the example's doc_to_text, the target delimiter,
its answer (doc_to_target, or the choice it names when the task has
doc_to_choice), then the few-shot delimiter. `way` 1 drops a template's last
newline, as 0.4.0 to 0.4.3 render it.
"""

from __future__ import annotations

import re
from typing import Any

from .doc_templates import UNTRACEABLE, Template, choices_of, target_of
from .text_templates import TOO_LONG, TextTemplate, prompt_template, texts_of

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


def closing_words(template: TextTemplate | None) -> str | None:
    """The text doc_to_text ends with, when it has words of its own there ("Answer:", "\\nA:"), right-trimmed as
    a chat template may trim a message and 0.4.0-0.4.3 drop a last newline; None when it ends with a field or
    mere whitespace, or is a field's name (the doc's field is then the whole text)."""
    if template is None or template.field is not None:
        return None
    last = template.parts[-1] if template.parts else None
    if type(last) is not str or len(last.strip()) < 2:
        return None
    return last.rstrip()


def examples_written_alike(examples: object, task: object) -> bool:
    """Whether fewshot_config's doc_to_text (`examples`) writes the examples as the task's writes its docs: none of
    its own, the same, or (0.4.10 on fill fewshot_config from the task, functions as their repr) the same function's
    repr."""
    if examples is None or examples == task:
        return True
    name = re.match(r"def (\w+)\(", task.lstrip()) if isinstance(task, str) else None
    return (
        name is not None
        and isinstance(examples, str)
        and re.fullmatch(rf"<function {name[1]} at 0x[0-9a-f]+>", examples) is not None
    )


def example_mark(config: dict) -> str | None:
    """Text every few-shot example of the task holds: the closing words of its doc_to_text (MMLU's "\\nAnswer:"),
    or None where there are none or they are not known. lm-eval writes each example as its doc_to_text, the target
    and the few-shot delimiter, so a stretch of prompt without these words holds no example, whatever the config
    says its description or its delimiter is. A fewshot_config with a doc_to_text of its own, which a version
    writes the examples with and another does not, keeps the words only when both templates end with them."""
    task = closing_words(prompt_template(config.get("doc_to_text")))
    fewshot = config.get("fewshot_config")
    own = fewshot.get("doc_to_text") if isinstance(fewshot, dict) else None
    if examples_written_alike(own, config.get("doc_to_text")):
        return task
    return task if task is not None and closing_words(prompt_template(own)) == task else None
