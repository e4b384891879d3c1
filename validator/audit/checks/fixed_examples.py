"""Fixed few-shot examples: each prompt's examples against the ones its config lists.

A task whose `fewshot_config` lists its examples (`samples`, a list of docs)
and draws them with the first_n sampler (every leaderboard BBH task, 3 each)
puts the same examples in every prompt: the first num_fewshot of the list,
in order, each written as its doc_to_text, the target delimiter, its target
(a choice's text where the target is an index; a list's first item) and the
fewshot delimiter (api/samplers.py get_context, 0.4.1 to 0.4.9; task.py
build_qa_turn, 0.4.10 on). So the examples of every prompt are known from the
config alone. An example rewritten inside every prompt (hashes redone) and a
count declared lower than the prompts hold agree with everything else in
the files; only the config's list tells them. The first such prompt of a
log is LB722, or LB723 where it holds another number of the
config's examples than the file declares.

Accepted as honest: the eval doc among the examples, dropped from the first
n (0.4.1 to 0.4.12) or from the whole list (0.4.13, when the few-shot split
is the test split, so one more is taken); a doc_to_text ending in a newline
rendered with it (0.4.4 on) or without it, every example alike. The default
sampler draws num_fewshot distinct listed examples at random: a prompt
holding them in any order is honest; a sampler lm-eval does not have is
LB722 at the config. Not checked, with a note: an
example whose doc_to_text or target lbnorm does not render, or whose target
is "" (0.4.5 on writes its text alone); a gen_prefix; a fewshot_config whose
delimiters are not the task's (versions read one or the other) or that
holds what lbnorm does not replay. Under a chat template the markup is the
model's: there each listed example's text must come in order before the
doc's own, its answer after it and before the next (a message is written as
it is or trimmed), and no further listed example before the doc's text.
The fewshot_config's own doc_to_text, doc_to_target
and doc_to_choice write the examples where it sets them (0.4.10 on write them
all into the config, the task's own inherited); a few-shot split takes
precedence over the listed samples, and is not checked here.
"""

from __future__ import annotations

from functools import partial
from typing import Any, cast

from ...harness.doc_templates import Template
from ...harness.fewshot import ExampleRenderer
from ...harness.samples import first_prompt
from ...harness.text_templates import ends_in_newline, prompt_template, texts_of
from .base import AuditCheck, Sample, audit_check, shown

FIRST_N, DEFAULT = "first_n", "default"
SAMPLERS = (
    FIRST_N,
    DEFAULT,
)  # api/samplers.py SAMPLER_REGISTRY, 0.4.0 to 0.4.13: any other name is a KeyError
MAX_ANY_ORDER = 64  # listed examples a random draw is matched against (BBH lists 3)
# What examples are written with: the fewshot_config's own where it sets one (0.4.10 on write every one, the
# task's inherited), else the task's. Delimiters are the task's up to 0.4.9, the fewshot_config's from 0.4.10.
TEMPLATES = ("doc_to_text", "doc_to_target", "doc_to_choice")
DELIMITERS = (("target_delimiter", " "), ("fewshot_delimiter", "\n\n"))


@audit_check(order=20)  # after the prompts check, which finds where each prompt's examples lie
class FixedExamples(AuditCheck):
    """LB722: a prompt's examples are not the ones the config lists; LB723: it holds another number of them."""

    # Set by _plan where the config's examples can be rendered (each way, and the first one).
    renders: list[ExampleRenderer]
    render: ExampleRenderer

    def __init__(self, log):
        super().__init__(log)
        self.samples: list = []
        self.shots = 0
        self.rendered: list[list[str]] = [
            [],
            [],
        ]  # the config's examples as written, per rendering, as needed
        self.chat = self.spec.chat_template_claimed
        self.any_order = False  # the default sampler draws the examples at random from the list
        self.renderings = (0,)
        self.unknown_sampler: Any = None
        self.why_not = _plan(
            self,
        )
        self.told = False

    @classmethod
    def applies(cls, log) -> bool:
        # _plan's first test: a task that lists no examples, or declares no count, has nothing checked or noted
        fewshot = log.spec.config.get("fewshot_config")
        return (
            isinstance(fewshot, dict)
            and fewshot.get("samples") is not None
            and bool(log.spec.declared_shots)
        )

    def sees_samples(self) -> bool:
        if self.why_not:
            self.summary.notes.append(
                f"few-shot examples not held to the config's list: {self.why_not}"
            )
        return self.shots > 0 and not self.why_not

    def add(self, sample: Sample) -> None:
        if self.told:
            return
        if self.chat:
            self._in_chat(sample)
            return
        if sample.examples is None:
            return
        prompt, start, end = sample.examples
        held = prompt[start:end]
        # From the region's start, then past whitespace there (a system instruction's joint the prompts check may
        # leave before the examples): an example's own text may start with whitespace too
        starts = (0, len(held) - len(held.lstrip())) if held[:1].isspace() else (0,)
        counts = [
            self._drawn(held, way, start) if self.any_order else self._count(held, way, start)
            for way in self.renderings
            for start in starts
        ]
        count = (
            self.shots if self.shots in counts else next((c for c in counts if c is not None), None)
        )
        if count == self.shots:
            return
        doc = sample.data.get("doc")
        if self.any_order and count == self.shots - 1 and doc in self.samples:
            return  # the eval doc was drawn, and dropped
        if (
            not self.any_order
            and doc in self.samples[: self.shots + 1]
            and any(
                _holds(held, block)
                for way in self.renderings
                for block in _without(
                    # doc is among the samples, which _plan checked are all docs
                    self.samples,
                    self.shots,
                    partial(self._example, way=way),
                    cast(dict, doc),
                )
            )
        ):
            return  # the eval doc is one of the examples: the harness dropped it
        _tell(self, sample, count, "" if self.any_order else "the first ")

    def _in_chat(self, sample: Sample) -> None:
        """Under a chat template the markup is the model's: each example's text must come in order, its answer
        after it and before the next (messages written as they are or trimmed), and no further listed example
        before the doc's own text."""
        prompt, doc = first_prompt(sample.data.get("arguments")), sample.data.get("doc")
        if (
            type(prompt) is not str
            or not isinstance(doc, dict)
            or doc in self.samples[: self.shots + 1]
        ):
            return  # a chat API's messages (chat_prompts.py), or the eval doc among the examples
        own = texts_of(self.render.text, doc, len(prompt))
        end = prompt.rfind(own[0].strip()) if type(own) is tuple else -1
        if end < 0:
            return  # the doc's own text is missing: chat_prompts.py reports it
        parts = [self.render.parts(item) for item in self.samples[: self.shots + 1]]
        position = _answered_in_order(prompt, parts[: self.shots], end)
        if position is None:
            _tell(self, sample, None)
        elif (
            len(parts) > self.shots
            and parts[-1]
            and prompt.find(parts[-1][0].strip(), position, end) >= 0
        ):
            _tell(self, sample, self.shots + 1, "at least ")

    def finish(self) -> None:
        if self.unknown_sampler is not None:
            self.log.at_results(
                "LB722",
                ("configs", self.spec.name, "fewshot_config", "sampler"),
                (
                    f"{self.spec.name}: the fewshot_config's sampler {shown(self.unknown_sampler, 40)} is none lm-eval "
                    f"has ({', '.join(SAMPLERS)}), so no run drew its examples with it; the config was edited"
                ),
            )

    def _drawn(self, held: str, way: int, start: int) -> int | None:
        """How many distinct listed examples, in any order, the region is made of (the default sampler's
        rnd.sample of the list); None where it holds anything else."""
        return _distinct_cover(
            held, start, [self._example(index, way) for index in range(len(self.samples))], set()
        )

    def _example(self, index: int, way: int = 0) -> str | None:
        """The index-th listed example as written, rendered once; None past the list or where it cannot be."""
        rendered = self.rendered[way]
        while len(rendered) <= index < len(self.samples):
            written = self.renders[way](self.samples[len(rendered)])
            if written is None:
                return None
            rendered.append(written)
        return rendered[index] if index < len(rendered) else None

    def _count(self, held: str, way: int, position: int) -> int | None:
        """How many of the listed examples, from the first on, the region holds from `position`, and nothing
        else; None where it holds anything else. Each example is compared where it would lie."""
        count = 0
        while position < len(held):
            example = self._example(count, way)
            if example is None or not held.startswith(example, position):
                return None
            position += len(example)
            count += 1
        return count


def _tell(
    check: FixedExamples, sample: Sample, count: int | None, which: str = "the first "
) -> None:
    """LB723 where the prompt holds another number of the listed examples, LB722 where it holds others."""
    check.told = True
    task = check.spec.name
    if count is not None:
        check.log.at_record(
            "LB723",
            sample.record,
            ("arguments",),
            (
                f"configs.{task}.num_fewshot is {check.spec.declared_shots}, but the prompt of doc_id {sample.doc_id} "
                f"holds {which}{count} of the {len(check.samples)} examples its fewshot_config lists; "
                "n-shot and the config were edited after the run, or the prompts were"
            ),
        )
    else:
        drawn = f"{check.shots} drawn from" if check.any_order else f"the first {check.shots} of"
        check.log.at_record(
            "LB722",
            sample.record,
            ("arguments",),
            (
                f"{task} doc_id {sample.doc_id}: the prompt's few-shot examples are not {drawn} the "
                "fewshot_config's samples as lm-eval writes them (doc_to_text, target_delimiter, target, "
                "fewshot_delimiter each); the prompt was edited after the run, or the config was"
            ),
        )


def _without(samples: list, shots: int, example, doc: dict) -> list[str]:
    """The blocks an honest prompt holds when the eval doc is among the first examples (each version's way);
    `example(index)` gives the index-th example as written, rendered once for the log."""
    kept = [index for index in range(min(shots + 1, len(samples))) if samples[index] != doc]
    blocks = []
    for indices in (kept[:shots], [index for index in kept if index < shots]):
        written = [example(index) for index in indices]
        if None not in written:
            blocks.append("".join(written))
    return blocks


def _distinct_cover(held: str, position: int, examples: list, used: set) -> int | None:
    """The number of distinct examples that, one after another, make held[position:]; None if none do. An
    example that is a prefix of another is tried both ways (the list is at most MAX_ANY_ORDER long)."""
    if position == len(held):
        return len(used)
    for index, example in enumerate(examples):
        if index not in used and example and held.startswith(example, position):
            found = _distinct_cover(held, position + len(example), examples, used | {index})
            if found is not None:
                return found
    return None


def _answered_in_order(prompt: str, parts: list, end: int) -> int | None:
    """Where the last example's answer ends, when each example's text comes in order before `end`, its answer
    after it and before the next; None otherwise."""
    position = 0
    for index, part in enumerate(parts):
        if part is None:
            return None
        found = prompt.find(part[0].strip(), position, end)
        if found < 0:
            return None
        position = found + len(part[0].strip())
        following = (
            end
            if index + 1 == len(parts) or parts[index + 1] is None
            else prompt.find(parts[index + 1][0].strip(), position, end)
        )
        answer = prompt.find(part[1].strip(), position, following) if following >= 0 else -1
        if answer < 0:
            return None
        position = answer + len(part[1].strip())
    return position


def _effective(config: dict, fewshot: dict) -> dict | str:
    """The templates and delimiters the examples are written with, or why lbnorm cannot say. Keys lm-eval does
    not read are ignored, as lm-eval up to 0.4.9 ignores them (0.4.10 on fail on them)."""
    if fewshot.get("fewshot_indices") is not None:
        return "its fewshot_config's fewshot_indices, which lbnorm does not replay"
    if fewshot.get("gen_prefix") is not None or config.get("gen_prefix") is not None:
        return "a gen_prefix, written after each example's target delimiter"
    effective = {
        name: fewshot[name] if fewshot.get(name) is not None else config.get(name)
        for name in TEMPLATES
    }
    for name, default in DELIMITERS:
        own, task = fewshot.get(name), config.get(name, default)
        if own is not None and own != task:
            return f"its fewshot_config's {name} is not the task's (versions read one or the other)"
        effective[name] = task
    return effective


def _holds(held: str, block: str) -> bool:
    """The examples region is the block, but for whitespace the prompts check may leave at its start (as _count)."""
    return held == block or (held.endswith(block) and not held[: len(held) - len(block)].strip())


def _plan(check: FixedExamples) -> str | None:
    """Set the examples up, or say why they are not checked (None too where the task lists none)."""
    spec, config = check.spec, check.spec.config
    fewshot = config.get("fewshot_config")
    samples = fewshot.get("samples") if isinstance(fewshot, dict) else None
    shots = spec.declared_shots
    if samples is None or not shots:
        return None
    sampler = fewshot.get("sampler", DEFAULT)
    if sampler not in SAMPLERS:
        check.unknown_sampler = sampler
        return None
    if config.get("fewshot_split") is not None or fewshot.get("split") is not None:
        return (
            "they come from a dataset split (fewshot_split), which takes precedence over the list"
        )
    if not isinstance(samples, list):
        return "its fewshot_config's samples are a function (its source or name in the config), not run here"
    check.any_order = sampler == DEFAULT
    if check.any_order and (check.chat or len(samples) > MAX_ANY_ORDER):
        return f"a sampler that draws at random from {len(samples):,} listed examples" + (
            " under a chat template" if check.chat else ""
        )
    templates = _effective(config, fewshot)
    if isinstance(templates, str):
        return templates
    drawn = (
        samples if check.any_order else samples[:shots]
    )  # first_n reads no further (but for the eval doc)
    if not all(isinstance(item, dict) for item in drawn):
        return "its fewshot_config's samples are not all docs"
    text, target = (
        prompt_template(templates["doc_to_text"]),
        Template.of(templates["doc_to_target"]),
    )
    if text is None or target is None:
        return (
            "its doc_to_text or doc_to_target is of a shape whose examples lbnorm does not render"
        )
    # A doc_to_text ending in a newline renders with it (0.4.4 on) or without it: every example alike
    check.renderings = (0, 1) if ends_in_newline(text) else (0,)
    delimiters = templates["target_delimiter"], templates["fewshot_delimiter"]
    if not all(isinstance(delimiter, str) for delimiter in delimiters):
        return "its delimiters are not text"
    check.samples, check.shots = samples, min(shots, len(samples))
    check.renders = [
        ExampleRenderer(text, target, templates["doc_to_choice"], *delimiters, way)
        for way in (0, 1)
    ]
    check.render = check.renders[0]
    if check._example(check.shots - 1) is None:
        check.shots = 0
        return (
            'an example whose doc_to_text or target lbnorm does not render (or whose target is "")'
        )
    return None
