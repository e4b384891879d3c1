"""Prompts: each sample's prompt against what its config builds from its doc, and the few-shot count it shows.

Without a chat template, lm-eval builds every prompt the same way, from 0.4.0
to 0.4.13 (lm_eval/api/task.py fewshot_context): the system instruction and
the task's description (rendered for the doc), then `num_fewshot` examples,
each ending in `fewshot_delimiter`, then `doc_to_text` of the doc. So the
prompt starts with the first, ends with the last, and holds text between
them exactly when the run was few-shot. The prompt is covered by
`prompt_hash`, but hashes can be recomputed: a doc edited after the run no
longer gives the prompt the model saw (LB722), and a few-shot run whose
`n-shot` and `num_fewshot` were both set to 0 still shows its examples in
every prompt (LB723; with a count above 0 and no examples, the reverse).

Not rebuilt, and noted: a `doc_to_text` or description of another shape
than core/doc_templates.py evaluates, a promptsource template (`use_prompt`),
a `gen_prefix`, a chat template (the run's `chat_template`: the template's
markup is the model's, not the task's), a chat API's messages, and winogrande's layout (doc_to_text gives
a choice's number). A run that claims a chat template has no few-shot count
checked: a submitter can claim one; docs/audit.md says so.
"""

from __future__ import annotations

from ...core.doc_templates import UNTRACEABLE, TextTemplate, texts_of
from ..sample_scoring import first_request
from .base import AuditUnit, Sample, audit_unit, shown

_DEFAULT_FEWSHOT_DELIMITER = "\n\n"  # lm-eval's TaskConfig default


@audit_unit(order=16)
class Prompts(AuditUnit):
    """LB722: a prompt is not built from its doc; LB723: the prompts show another few-shot count than the file."""

    def __init__(self, log):
        super().__init__(log)
        spec, config = self.spec, self.spec.config
        text = TextTemplate.of(config.get("doc_to_text"))
        # A doc_to_text of plain text is a function written as its name or repr, never a task's prompt.
        self.text = text if text is not None and (text.field or len(text.parts) > 1 or type(text.parts[0]) is tuple) \
            else None
        self.description = TextTemplate.of(config.get("description") or "")
        delimiter = config.get("fewshot_delimiter", _DEFAULT_FEWSHOT_DELIMITER)
        self.delimiter = delimiter if isinstance(delimiter, str) else None
        shots = config.get("num_fewshot")
        self.shots = shots if type(shots) is int and shots >= 0 else None
        self.has_choices = config.get("doc_to_choice") is not None
        instruction = spec.system_instruction
        self.instruction = instruction if isinstance(instruction, str) else None
        self.why_not = self._why_not(config, instruction)
        self.shots_told = False

    def _why_not(self, config: dict, instruction) -> str | None:
        """Why this log's prompts cannot be rebuilt, as its note says; None when they can."""
        spec = self.spec
        if config.get("doc_to_text") is None:
            return "no doc_to_text"  # no config (lm-eval before 0.4, a v1 file): nothing to note
        if config.get("use_prompt") or config.get("gen_prefix") is not None:
            return f"the config's {'use_prompt' if config.get('use_prompt') else 'gen_prefix'}"
        # None or "" (0.4.5) when no template was applied; fewshot_as_multiturn alone changes nothing (0.4.13 sets it)
        if spec.chat_template not in (None, ""):
            return "a chat template (the results file's chat_template): its markup is the model's"
        if self.text is None or self.description is None or self.delimiter is None:
            return "a doc_to_text or description of a template shape lbnorm does not evaluate (it is not run)"
        if instruction is not None and self.instruction is None:
            return "a system_instruction that is not text"
        return None

    def sees_samples(self) -> bool:
        if self.why_not is not None and self.spec.config.get("doc_to_text") is not None:
            self.summary.notes.append(f"prompts not rebuilt from the docs: {self.why_not}")
        return self.why_not is None

    def add(self, sample: Sample) -> None:
        doc = sample.data.get("doc")
        request = first_request(sample.data.get("arguments"))
        prompt = request[0] if request else None
        if not isinstance(doc, dict) or type(prompt) is not str:
            if type(prompt) is list:
                self.note_once("prompts not rebuilt from the docs: a chat API's messages")
            return  # the record's shape is LB702's
        questions = texts_of(self.text, doc)
        descriptions = texts_of(self.description, doc)
        if questions is UNTRACEABLE or descriptions is UNTRACEABLE or (questions[0].isdigit() and self.has_choices):
            return  # a value Jinja prints otherwise, or winogrande's choice number: not rebuilt
        heads = [len(head) for head in self._heads(descriptions) if prompt.startswith(head)]
        if not heads:
            told = f"the system instruction {shown(self.instruction, 40)} and " if self.instruction is not None else ""
            self._find("LB722", sample, f"the prompt does not start with {told}the task's description "
                       f"{shown(descriptions[0], 60)}")
            return
        tails = [len(question) for question in questions if prompt.endswith(question)]
        between = [len(prompt) - head - tail for head in heads for tail in tails if head + tail <= len(prompt)]
        if not between:
            self._find("LB722", sample, f"the prompt does not end with what the config's doc_to_text "
                       f"{shown(self.text.text, 60)} gives for its doc ({shown(questions[0][-60:], 60)})")
        elif self.shots is not None and not self.shots_told:
            self._shots(sample, min(between), max(between), bool(max(heads)))

    def _heads(self, descriptions: tuple[str, ...]) -> list[str]:
        """What a prompt may start with before its examples. lm-eval 0.4.13 leaves the delimiter out between a
        system instruction and a description when either has whitespace there."""
        if self.instruction is None:
            return list(descriptions)
        return [self.instruction + joint + description for description in descriptions
                for joint in ((self.delimiter, "") if description else ("",))]

    def _shots(self, sample: Sample, least: int, most: int, after_description: bool) -> None:
        """LB723 once per log: text between the head and the doc's own text exactly when the run was few-shot
        (`least` and `most`: the text between, as each harness version's rendering leaves it)."""
        where = "the description" if after_description else "its start"
        task = self.spec.name
        if self.shots == 0 and least > 0:
            message = (f"configs.{task}.num_fewshot is 0, but the prompt of doc_id {sample.doc_id} holds "
                       f"{least:,} characters between {where} and the doc's own text (doc_to_text): few-shot "
                       "examples the file does not declare")
        elif self.shots > 0 and most == 0:
            message = (f"configs.{task}.num_fewshot is {self.shots}, but the prompt of doc_id {sample.doc_id} is "
                       "the doc's own text alone: the run was zero-shot")
        else:
            return
        self.shots_told = True
        self.log.at_record("LB723", sample.record, ("arguments",), f"{message}; n-shot and the config were edited "
                           "after the run, or the prompts were")

    def _find(self, rule: str, sample: Sample, message: str) -> None:
        self.log.at_record(rule, sample.record, ("arguments",), f"{self.spec.name} doc_id {sample.doc_id}: "
                           f"{message}; the prompt or the doc was edited after the run, or the config was")
