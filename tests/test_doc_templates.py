"""lm-eval's doc_to_target / doc_to_choice, for the template shapes lbnorm evaluates (core/doc_templates.py).

Each case is what lm-eval 0.4.3 to 0.4.13's Task.doc_to_target / doc_to_choice give for the doc (Jinja for
the templates); None is a doc on which the harness would have failed.
"""

from __future__ import annotations

import pytest

from validator.core.doc_templates import UNTRACEABLE, Template, choices_of, target_of

ARC = {"id": "Mercury_1", "question": "Which?", "choices": {"text": ["a cell", "water", "sand"],
                                                           "label": ["A", "B", "C"]}, "answerKey": "B"}
MMLU = {"question": "What?", "choices": ["w", "x", "y", "z"], "answer": 2}
MUSR = {"choices": "['option kappa 0', 'option tau 1']", "answer_choice": "option tau 1", "answer_index": 1}
BBH = {"input": "Is it?", "target": "(A)"}


@pytest.mark.parametrize("template, doc, has_choices, expected", [
    ("{{choices.label.index(answerKey)}}", ARC, True, 1),            # ARC: rendered "1", a number with choices
    ("{{ choices.label.index(answerKey) }}", ARC, False, "1"),       # without choices a rendered target stays text
    ("answer", MMLU, True, 2),                                       # a field's name: the doc's value as it is
    ("answerKey", {"question": "?"}, False, "answerKey"),            # a name the doc lacks renders as itself
    ("{{target}}", BBH, True, "(A)"),
    ("{{answer_choice}}", MUSR, True, "option tau 1"),
    ("{{missing}}", BBH, False, None),                               # lm-eval's StrictUndefined: the run fails
    ("{{choices.label.index(answerKey)}}", {**ARC, "answerKey": "E"}, True, None),  # .index raises: no target
    ("{{choices.label.index(answerKey)}}", {"answerKey": "B"}, True, None),
    (0, MMLU, True, 0),                                              # truthfulqa's literal target
    ("{{choices}}", MMLU, True, UNTRACEABLE),                        # a rendered list: several targets
    ("{{choices.keys}}", ARC, True, UNTRACEABLE),                    # Jinja would find the dict's method
])
def test_doc_to_target(template, doc, has_choices, expected):
    assert target_of(Template.of(template), doc, has_choices) == expected or \
        target_of(Template.of(template), doc, has_choices) is expected


@pytest.mark.parametrize("template, doc, expected", [
    ("{{choices.text}}", ARC, ["a cell", "water", "sand"]),
    ("choices", MMLU, ["w", "x", "y", "z"]),
    ("{{choices}}", MUSR, ["option kappa 0", "option tau 1"]),      # MuSR keeps the list as a string
    (["A", "B"], MMLU, ["A", "B"]),
    ({"a": "yes", "b": "no"}, MMLU, ["yes", "no"]),                  # a mapping's values, in order
    ("{{question}}", MMLU, None),                                    # literal_eval of "What?" fails
    ("{{nothing}}", MMLU, None),
    ("{{choices}}", {"choices": "[" * 1000 + "]" * 1000}, None),     # nesting the parser refuses: no list
    ("{{choices}}", {"choices": "[" + "1," * 40_000 + "]"}, UNTRACEABLE),  # longer than lbnorm reads
])
def test_doc_to_choice(template, doc, expected):
    found = choices_of(Template.of(template), doc)
    assert found is expected if expected is UNTRACEABLE or expected is None else found == expected


@pytest.mark.parametrize("template", [
    "{{ answer|join(',') }}",           # a Jinja filter (DROP)
    "{{target}}\n",                     # lm-eval keeps the trailing newline: not the field's value
    "{{ answer.split('####')[-1] }}",   # a method call with arguments (gsm8k)
    "def doc_to_choice(doc):\n    return []\n",  # a Python function's source, as results files hold it
    "{% for x in range(10**9) %}{% endfor %}",   # a loop: never run
    True, None, 1.5,
])
def test_other_shapes_are_not_evaluated(template):
    assert Template.of(template) is None
