"""How many few-shot examples the prompts hold, against the count the file declares.

lm-eval builds a few-shot prompt as the description, then each example
followed by the config's `fewshot_delimiter` ("\\n\\n" by default), then the
doc's own text (api/samplers.py get_context). So a prompt holds at least as
many delimiters between its head and its doc's text as it has examples, and
as many times the closing words of doc_to_text (MMLU's "\\nAnswer:",
harness/fewshot.py example_mark); an example's own text may hold more, never
fewer. A run declared 25-shot whose prompts were cut to one example (hashes
redone) agrees with everything but this count. The prompts check tells zero from
some (and a single prompt without examples is honest there); this one tells
too few among prompts that hold some. One fewer is honest: a sampler that
draws the eval doc drops it. Under a chat template the examples may be messages of their
own (fewshot_as_multiturn), joined by the template's markup rather than the delimiter: only
the closing words are counted there. Rule LB723.
"""

from __future__ import annotations

from ...harness.fewshot import example_mark
from .base import AuditCheck, Sample, audit_check

_DEFAULT_FEWSHOT_DELIMITER = "\n\n"  # lm-eval's TaskConfig default


@audit_check(order=18)  # after the prompts check, which finds where each prompt's examples lie
class ShotCount(AuditCheck):
    """LB723: the prompts hold fewer few-shot examples than the file declares."""

    def __init__(self, log):
        super().__init__(log)
        config = self.spec.config
        delimiter = config.get("fewshot_delimiter", _DEFAULT_FEWSHOT_DELIMITER)
        self.delimiter = delimiter if isinstance(delimiter, str) and delimiter else None
        # lm-eval fails on a count above the examples a fewshot_config lists (first_n asserts, a random draw
        # raises), so the declared count is what every honest prompt holds, less one at most (see above)
        self.expected = self.spec.declared_shots or 0
        self.mark = example_mark(config)
        self.chat = self.spec.chat_template_claimed
        self.told = False
        # The examples of the sample before and their count: a task with a fixed set of examples (GSM8K's and
        # MMLU-Pro's first_n sampler) puts the same ones in every prompt, and comparing them costs less than
        # counting them again. The empty text holds no delimiter, so it starts the log.
        self.last_examples, self.last_held = "", (0, False)

    @classmethod
    def applies(cls, log) -> bool:
        return (log.spec.declared_shots or 0) >= 2  # sees_samples's count; it has no finish

    def sees_samples(self) -> bool:
        counted = self.mark if self.chat else self.delimiter
        return counted is not None and self.expected >= 2

    def add(self, sample: Sample) -> None:
        if self.told or sample.examples is None:
            return
        prompt, start, end = sample.examples
        if end - start == len(self.last_examples) and prompt.startswith(self.last_examples, start):
            held, by_mark = self.last_held
        else:
            held, by_mark = self._held(prompt, start, end)
            self.last_examples, self.last_held = prompt[start:end], (held, by_mark)
        if (
            0 < held < self.expected - 1
        ):  # none at all is the prompts check's (LB723 when no prompt holds any)
            self.told = True
            what = (
                f"doc_to_text's closing words {self.mark!r} {_times(held)}"
                if by_mark
                else f"{held} few-shot delimiter{'s' if held != 1 else ''} ({self.delimiter!r})"
            )
            self.log.at_record(
                "LB723",
                sample.record,
                ("arguments",),
                (
                    f"configs.{self.spec.name}.num_fewshot is {self.spec.declared_shots}, but the prompt of doc_id "
                    f"{sample.doc_id} holds {what} before the doc's own text, so at most {held} "
                    f"example{'s' if held != 1 else ''}; n-shot and the config were edited after the run, or the "
                    "prompts were"
                ),
            )

    def _held(self, prompt: str, start: int, end: int) -> tuple[int, bool]:
        """The most examples the region can hold, and whether doc_to_text's closing words, which each example
        holds, bound it (else the delimiters that end them do): whichever is fewer."""
        if self.chat:  # sees_samples: the closing words are known
            return prompt.count(self.mark, start, end), True
        delimiters = prompt.count(self.delimiter, start, end)
        if self.mark is None:
            return delimiters, False
        marks = prompt.count(self.mark, start, end)
        return (marks, True) if marks < delimiters else (delimiters, False)


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")
