"""lm-eval's doc_to_target, doc_to_choice and doc_to_text, for the shapes lbnorm evaluates (harness/doc_templates.py, text_templates.py).

Each case is what lm-eval 0.4.3 to 0.4.13's Task.doc_to_target / doc_to_choice give for the doc (Jinja for
the templates); None is a doc on which the harness would have failed.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from validator.harness.doc_templates import UNTRACEABLE, Template, choices_of, target_of
from validator.harness.text_templates import (
    FUNCTION_TEMPLATES,
    TOO_LONG,
    TextTemplate,
    ending_of,
    ends_in_newline,
    texts_of,
    undefined_block,
)

ARC = {
    "id": "Mercury_1",
    "question": "Which?",
    "choices": {"text": ["a cell", "water", "sand"], "label": ["A", "B", "C"]},
    "answerKey": "B",
}
MMLU = {"question": "What?", "choices": ["w", "x", "y", "z"], "answer": 2}
MUSR = {
    "choices": "['option kappa 0', 'option tau 1']",
    "answer_choice": "option tau 1",
    "answer_index": 1,
}
BBH = {"input": "Is it?", "target": "(A)"}
GSM8K_COT = "{{answer.split('####')[-1].strip() if answer is defined else target}}"  # lm-eval's gsm8k-cot.yaml


@pytest.mark.parametrize(
    "template, doc, has_choices, expected",
    [
        (
            "{{choices.label.index(answerKey)}}",
            ARC,
            True,
            1,
        ),  # ARC: rendered "1", a number with choices
        (
            "{{ choices.label.index(answerKey) }}",
            ARC,
            False,
            "1",
        ),  # without choices a rendered target stays text
        ("answer", MMLU, True, 2),  # a field's name: the doc's value as it is
        (
            "answerKey",
            {"question": "?"},
            False,
            "answerKey",
        ),  # a name the doc lacks renders as itself
        ("{{target}}", BBH, True, "(A)"),
        ("{{answer_choice}}", MUSR, True, "option tau 1"),
        ("{{missing}}", BBH, False, None),  # lm-eval's StrictUndefined: the run fails
        (
            "{{choices.label.index(answerKey)}}",
            {**ARC, "answerKey": "E"},
            True,
            None,
        ),  # .index raises: no target
        ("{{choices.label.index(answerKey)}}", {"answerKey": "B"}, True, None),
        (0, MMLU, True, 0),  # truthfulqa's literal target
        ("{{choices}}", MMLU, True, UNTRACEABLE),  # a rendered list: several targets
        ("{{choices.keys}}", ARC, True, UNTRACEABLE),  # Jinja would find the dict's method
        (
            "{{choices.label.index(answerKey.lstrip())}}",
            {**ARC, "answerKey": " B"},
            True,
            1,
        ),  # OpenBookQA's
        (
            "{{choices.label.index(answerKey.lstrip())}}",
            {**ARC, "answerKey": 2},
            True,
            UNTRACEABLE,
        ),  # no str method
        (
            "{{ answer_index|int }}",
            {"answer_index": "2"},
            True,
            2,
        ),  # Jinja's int filter
        ("{{answer_index | string}}", {"answer_index": 2}, True, 2),
        (
            GSM8K_COT,
            {"answer": "3 * 4 = 12\n#### 12 "},
            False,
            "12",
        ),  # GSM8K-CoT: the part after the marker
        (
            GSM8K_COT,
            {"target": "The answer is 5."},
            False,
            "The answer is 5.",
        ),  # an example without `answer`
        (
            GSM8K_COT,
            {"answer": None},
            False,
            UNTRACEABLE,
        ),  # defined, but no string: another type's split
        ("{{answer.split(' (')[0]}}", {"answer": "Paris (France)"}, False, "Paris"),
        (
            "{{answer.split('#')[3]}}",
            {"answer": "a#b"},
            False,
            None,
        ),  # no such part: StrictUndefined fails the run
        ("{{answer.split('')[0]}}", {"answer": "a#b"}, False, None),  # str.split('') raises
    ],
)
def test_doc_to_target(template, doc, has_choices, expected):
    assert (
        target_of(Template.of(template), doc, has_choices) == expected
        or target_of(Template.of(template), doc, has_choices) is expected
    )


@pytest.mark.parametrize(
    "template, doc, expected",
    [
        ("{{choices.text}}", ARC, ["a cell", "water", "sand"]),
        ("choices", MMLU, ["w", "x", "y", "z"]),
        (
            "{{choices}}",
            MUSR,
            ["option kappa 0", "option tau 1"],
        ),  # MuSR keeps the list as a string
        (["A", "B"], MMLU, ["A", "B"]),
        ({"a": "yes", "b": "no"}, MMLU, ["yes", "no"]),  # a mapping's values, in order
        ("{{question}}", MMLU, None),  # literal_eval of "What?" fails
        ("{{nothing}}", MMLU, None),
        (
            "{{choices}}",
            {"choices": "[" * 1000 + "]" * 1000},
            None,
        ),  # nesting the parser refuses: no list
        (
            "{{choices}}",
            {"choices": "[" + "1," * 40_000 + "]"},
            UNTRACEABLE,
        ),  # longer than lbnorm reads
    ],
)
def test_doc_to_choice(template, doc, expected):
    found = choices_of(Template.of(template), doc)
    assert found is expected if expected is UNTRACEABLE or expected is None else found == expected


@pytest.mark.parametrize(
    "template",
    [
        "{{ answer|join(',') }}",  # a Jinja filter (DROP)
        "{{target}}\n",  # lm-eval keeps the trailing newline: not the field's value
        "{{ answer.split('####', 1)[-1] }}",  # a split with a limit
        "{{' '+text.split(' ')[-1]}}",  # text joined to it (lambada)
        "{{ answer.split('\\n')[0] }}",  # an escape in the separator, which Jinja reads
        "def doc_to_choice(doc):\n    return []\n",  # a Python function's source, as results files hold it
        "{% for x in range(10**9) %}{% endfor %}",  # a loop: never run
        True,
        None,
        1.5,
    ],
)
def test_other_shapes_are_not_evaluated(template):
    assert Template.of(template) is None


# --- doc_to_text and description, against Jinja itself (as lm-eval's utils.apply_template renders them) -----------

jinja2 = pytest.importorskip(
    "jinja2"
)  # a test dependency: the renderer lm-eval uses, so the cases are its output
TEXT_DOC = {
    "passage": "Brady threw 3.",
    "question": "  How many?\n",
    "query": "Q: done?",
    "score": 0.5,
    "n": 7,
    "choices": ["w", "x", "y", "z"],
    "nested": {"things": ["first", "second"], "word": "abc", "items": ["a dict's method's name"]},
}


def jinja_texts(template: str, doc: dict) -> set[str]:
    """What lm-eval's Jinja environment renders: 0.4.0-0.4.3 without keep_trailing_newline, 0.4.4 on with it."""
    return {
        jinja2.Environment(
            loader=jinja2.BaseLoader(), undefined=jinja2.StrictUndefined, keep_trailing_newline=keep
        )
        .from_string(template)
        .render(**doc)
        for keep in (False, True)
    }


@pytest.mark.parametrize(
    "template",
    [
        "{{passage}} {{question}}",  # DROP
        "Question: {{question}}\nAnswer:",  # ARC, GSM8K
        "{{question.strip()}}\nA. {{choices[0]}}\nB. {{choices[1]}}\nC. {{choices[2]}}\nD. {{choices[3]}}\nAnswer:",  # MMLU
        "Q: {{ nested.things[1] }} {{nested.word[0]}}\nA:",  # BBH's shape, a path, a str index
        "{{ score }} and {{n}}",  # numbers print as str() does
        "The following are questions about {{nested.word}}.\n\n",  # a description: last newline
        "Line one\r\nline two {{n}}\r",  # Jinja's own newlines become \n
        "Braces } and { and }} stay text {{n}}",
        "Plain description.\n",
        "{{passage}} {{question|trim}}",  # Jinja's trim: .strip()
        "{{ question | trim }}\nA:",
    ],
)
def test_doc_to_text_is_what_jinja_renders(template, doc=TEXT_DOC):
    texts = texts_of(TextTemplate.of(template), doc, 10**6)
    assert set(texts) == jinja_texts(template, doc)


def test_a_field_name_is_the_docs_value_not_a_template():
    """lm-eval's doc_to_text: a name in the doc's features is its value as it is (HellaSwag's `query`, IFEval's
    `prompt`); a name the doc lacks renders as itself."""
    assert texts_of(TextTemplate.of("query"), TEXT_DOC, 10**6) == ("Q: done?",)
    assert texts_of(TextTemplate.of("nothing"), TEXT_DOC, 10**6) == ("nothing",)


@pytest.mark.parametrize(
    "template, doc",
    [
        ("{{missing}} text", TEXT_DOC),  # StrictUndefined: the harness fails
        ("{{choices[9]}}", TEXT_DOC),  # past the end: undefined
        ("{{nested.keys}}", TEXT_DOC),  # a dict's method, not a field
        ("{{nested.items[0]}}", TEXT_DOC),  # Jinja finds the method first, even beside a field
        ("{{choices}}", TEXT_DOC),  # a list prints as its repr: not traced
        ("{{flag}}", {"flag": True}),  # True prints "True": not traced
        ("{{n.strip()}}", TEXT_DOC),  # a number has no strip()
        ("n", TEXT_DOC),  # a field's value that is no text (winogrande's number)
    ],
)
def test_values_lbnorm_does_not_print_are_untraceable(template, doc):
    assert texts_of(TextTemplate.of(template), doc, 10**6) is UNTRACEABLE


@pytest.mark.parametrize(
    "template, undefined",
    [
        ("{{missing}} text", "{{ missing }}"),
        ("{{choices[9]}}", "{{ choices[9] }}"),  # past the end
        ("{{nested.missing}}", "{{ nested.missing }}"),
        (
            "{{nested.word.nope}}",
            None,
        ),  # a text in the log may have been an object (a date's str())
        ("{{score[0]}}", None),  # so may a number
        ("{{ True }} {{ none }} {{ self }}", None),  # Jinja's constants, and the template itself
        ("{{ missing.__class__ }}", None),  # an attribute StrictUndefined has
        ("{{question}} {{nested.things[5]}}", "{{ nested.things[5] }}"),
        ("{{nested.keys}}", None),  # a dict's method: printed, not undefined
        ("{{nested.word.upper}}", None),  # a str's method
        ("{{choices}}", None),  # a list: printed as its repr
        ("{{range}}", None),  # Jinja's own
    ],
)
def test_a_block_the_doc_lacks_is_one_strict_jinja_fails_on(template, undefined):
    """undefined_block names a block only where lm-eval's StrictUndefined Jinja fails on the doc: a config
    whose doc_to_text names it cannot have made the run (the prompts check's LB722). Where it cannot be sure,
    it names none."""
    assert undefined_block(TextTemplate.of(template), TEXT_DOC) == undefined
    if undefined is not None:
        with pytest.raises(jinja2.UndefinedError):
            jinja_texts(template, TEXT_DOC)


NAMES = [
    "q",
    "choices",
    "items",
    "keys",
    "strip",
    "real",
    "none",
    "true",
    "range",
    "self",
    "__class__",
]
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 5), st.sampled_from(["", "x", " pad "])),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)
    ),
    max_leaves=8,
)
PATHS = st.tuples(
    st.sampled_from(NAMES),
    st.lists(
        st.one_of(st.integers(0, 3).map("[{}]".format), st.sampled_from(NAMES).map(".{}".format))
    ),
).map(lambda parts: parts[0] + "".join(parts[1]))


# render(**doc) takes no "self"; "__class__" stays a name no doc holds
@given(st.dictionaries(st.sampled_from(NAMES[:-2]), JSON_VALUES, max_size=4), PATHS)
@settings(max_examples=300, deadline=None)
def test_no_block_is_named_that_strict_jinja_renders(doc, path):
    block = undefined_block(TextTemplate.of("{{ " + path + " }}\nAnswer:"), doc)
    if block is not None:
        with pytest.raises(jinja2.UndefinedError):
            jinja_texts(block, doc)


@pytest.mark.parametrize(
    "template",
    [
        "{{ passage|upper }}",  # a filter other than trim
        "{{ question.split('?')[0] }}",  # a call with arguments
        "{% if n %}{{n}}{% endif %}",  # a statement
        "{# a comment #}{{n}}",
        "{{- passage }}",  # whitespace control
        "{{ passage",  # never closed
        "def doc_to_text(doc):\n    return doc['passage']\n",  # a function's source, as a results file holds it
        "<function doc_to_text at 0x7f54559b1bc0>",  # lm-eval 0.4.0 writes str(function)
        None,
        3,
        ["a"],
    ],
)
def test_other_text_templates_are_not_evaluated(template):
    assert TextTemplate.of(template) is None


_LITERAL = st.text(alphabet="ab \n\r{}:.?", max_size=12)
_BLOCK_TEXT = st.sampled_from(
    [
        "passage",
        " question ",
        "question.strip()",
        "choices[2]",
        "nested.things[0]",
        "nested.word[1]",
        "score",
        " n ",
    ]
)


@pytest.mark.slow  # hundreds of drawn templates, each rendered by jinja
@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab# (\n", max_size=12),
    st.sampled_from(["#", "##", " (", "a"]),
    st.integers(-4, 4),
    st.sampled_from(["", ".strip()", ".lstrip()", ".rstrip()"]),
    st.booleans(),
    st.booleans(),
)
@example(
    "###", "##", -1, "", False, True
)  # overlapping separators: rsplit cut "###" as "#" + "", split as "" + "#"
def test_a_split_target_is_what_jinja_renders(text, separator, index, strip, conditional, defined):
    """{{ a.split(s)[i].strip() [if a is defined else target] }}, as lm-eval's StrictUndefined Jinja renders it."""
    otherwise = " if answer is defined else target" if conditional else ""
    template = f"{{{{answer.split('{separator}')[{index}]{strip}{otherwise}}}}}"
    doc = {"answer": text, "target": "from target"} if defined else {"target": "from target"}
    try:
        expected = (
            jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(template).render(**doc)
        )
    except jinja2.UndefinedError:
        expected = None
    assert target_of(Template.of(template), doc, False) == expected


@pytest.mark.slow  # hundreds of drawn templates, each rendered by jinja
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_LITERAL, _BLOCK_TEXT), max_size=4), _LITERAL)
@example([], "{{b}}")  # a field the doc lacks renders as jinja does, not as a refusal
def test_any_template_lbnorm_evaluates_renders_as_jinja_does(pieces, last):
    """Random text around blocks: whatever lbnorm evaluates, Jinja renders the same (both harness settings)."""
    template = "".join(literal + "{{" + block + "}}" for literal, block in pieces) + last
    parsed = TextTemplate.of(template)
    if parsed is None:
        return  # not evaluated: never a finding
    try:
        expected = jinja_texts(template, TEXT_DOC)
    except (
        jinja2.UndefinedError
    ):  # a field the doc lacks ("{{b}}" from the literals): the harness fails on it
        assert texts_of(parsed, TEXT_DOC, 10**6) is UNTRACEABLE
        return
    except jinja2.TemplateError:
        pytest.fail(f"lbnorm evaluates {template!r}, which Jinja refuses")
    texts = texts_of(parsed, TEXT_DOC, 10**6)
    assert texts is not UNTRACEABLE and set(texts) == expected


def test_a_text_is_not_built_past_its_limit():
    """The prompt it must fit in bounds it: 50,000 blocks of a 10 KB field are never joined into 500 MB."""
    template = TextTemplate.of("{{q}}" * 50_000 + "\n")
    assert texts_of(template, {"q": "x" * 10_000}, 4_000_000) is TOO_LONG
    assert texts_of(TextTemplate.of("{{q}} {{q}}"), {"q": "ab"}, 5) == ("ab ab",)
    assert texts_of(TextTemplate.of("{{q}} {{q}}"), {"q": "ab"}, 4) is TOO_LONG
    assert texts_of(TextTemplate.of("q"), {"q": "abc"}, 2) is TOO_LONG  # a field's own value, too


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_LITERAL, _BLOCK_TEXT), min_size=1, max_size=4),
    _LITERAL,
    st.text(max_size=8),
)
@example(
    [("", "passage")], "{{b}}", ""
)  # found on a fresh clone: the literal spells a field the doc lacks
def test_the_in_place_ending_agrees_with_the_built_text(pieces, last, before):
    """ending_of (the audit's usual path) says what texts_of's text says about a prompt's end, and None where
    texts_of says UNTRACEABLE."""
    template = "".join(literal + "{{" + block + "}}" for literal, block in pieces) + last.rstrip(
        "\n\r"
    )
    parsed = TextTemplate.of(template)
    if parsed is None or ends_in_newline(parsed):
        return
    texts = texts_of(parsed, TEXT_DOC, 10**6)
    if texts is UNTRACEABLE:  # a field the doc lacks: neither path traces it
        assert ending_of(parsed, TEXT_DOC, before + "x") is None
        return
    [text] = texts
    assert ending_of(parsed, TEXT_DOC, before + text) == len(text)
    assert (
        ending_of(parsed, TEXT_DOC, before + text + "§") is None
    )  # a character no doc field holds


@pytest.mark.parametrize(
    "source", [source for source, same in FUNCTION_TEMPLATES.items() if type(same) is str]
)
@pytest.mark.parametrize(
    "problem", ["What is $1+1$?", "  spaced  \n", "", "{{ not a block }}", "é\u2028\t"]
)
def test_a_known_functions_template_writes_what_the_function_returns(source, problem):
    """FUNCTION_TEMPLATES holds a task function by its source: its template must give what running it gives
    (the function is lbnorm's own copy of the harness's, run here; a submitter's source never is). The functions
    with loops (MMLU-Pro, MuSR) are held to theirs in test_function_prompts.py."""
    namespace: dict = {}
    exec(source, namespace)  # noqa: S102 - the harness's function, from this repository, not from a log
    doc = {"problem": problem}
    for written in (
        source,
        source + "\n",
        "  " + source,
    ):  # as dumped: a last newline, or indented, or not
        assert texts_of(TextTemplate.of(written), doc, 10_000) == (namespace["doc_to_text"](doc),)
    assert (
        TextTemplate.of(source.replace("Solution:", "Answer:")) is None
    )  # another function: not evaluated


@pytest.mark.parametrize(
    "value", [2, 2.7, -3.5, "2", " 7 ", "2.7", "-4", "1e3", "x", "", "inf", "nan", "1e999"]
)
def test_the_int_filter_renders_as_jinjas(value):
    template = "{{ answer_index|int }}"
    rendered = (
        jinja2.Environment(undefined=jinja2.StrictUndefined)
        .from_string(template)
        .render(answer_index=value)
    )
    assert target_of(Template.of(template), {"answer_index": value}, False) == rendered
