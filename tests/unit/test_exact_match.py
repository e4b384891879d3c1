"""lm-eval's exact_match and regex filter with GSM8K's options (harness/exact_match.py, harness/filters.py), case by case.

Expected values are what lm-eval 0.4.13's exact_match_hf_evaluate and RegexFilter give for the same inputs
(api/metrics.py, filters/extraction.py) with tasks/gsm8k/gsm8k.yaml's options.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.harness_logs import GSM8K_EXACT_MATCH, GSM8K_FILTER_LIST

from validator.harness.exact_match import (
    FLEXIBLE_EXTRACT,
    HARNESS_PATTERNS,
    WithinClass,
    apply_regex_filter,
    exact_match,
    harness_regex,
    scorable_options,
)
from validator.harness.filters import pipeline_of

OPTIONS = {
    k: v
    for k, v in GSM8K_EXACT_MATCH.items()
    if k not in ("metric", "aggregation", "higher_is_better")
}
STRICT, FLEXIBLE = (pipeline_of(entry["filter"]) for entry in GSM8K_FILTER_LIST)


@pytest.mark.parametrize(
    "prediction, target, score",
    [
        (
            "72",
            "Natalia sold 48/2 = 24 clips in May.\n#### 72",
            1.0,
        ),  # the reference loses all before '#### '
        ("1,234", "#### 1234", 1.0),  # commas are ignored on both sides
        ("$18", "#### 18", 1.0),
        ("18.", "#### 18", 1.0),  # a trailing point is ignored
        ("18.0", "#### 18", 0.0),
        ("[invalid]", "#### 18", 0.0),
        ("ABC", "#### abc", 1.0),  # ignore_case
    ],
)
def test_gsm8k_exact_match(prediction, target, score):
    assert exact_match(prediction, target, OPTIONS) == score


@pytest.mark.parametrize(
    "response, strict, flexible",
    [
        (" So #### 72", "72", "72"),
        (" So #### 72, or maybe 1072", "72,", "1072"),
        (" The answer is 5.", "[invalid]", "5."),  # one digit: the second group of the alternation
        (" $1,200 then 300", "[invalid]", "300"),
        ("", "[invalid]", "[invalid]"),
    ],
)
def test_gsm8k_filters(response, strict, flexible):
    assert STRICT.apply(response) == strict
    assert FLEXIBLE.apply(response) == flexible


@pytest.mark.parametrize(
    "options, scorable",
    [
        (OPTIONS, True),
        ({}, True),  # plain equality
        (
            {**OPTIONS, "regexes_to_ignore": ["(a+)+$"]},
            False,
        ),  # a pattern the harness does not ship: never run
        ({**OPTIONS, "multiple_targets": True}, False),
    ],
)
def test_only_the_harness_patterns_are_run(options, scorable):
    assert (scorable_options(options) is None) is scorable


@pytest.mark.parametrize(
    "steps, reason",
    [
        (
            [
                {"function": "regex", "regex_pattern": "#### (\\-?[0-9\\.\\,]+)"},
                {"function": "majority_vote"},
            ],
            "it does not take each request's first response once (take_first)",
        ),
        (
            [{"function": "regex", "regex_pattern": "x", "unknown": 1}, {"function": "take_first"}],
            "its regex step holds arguments RegexFilter does not take",
        ),
        ("take_first", "its steps are not a list lbnorm reads"),
    ],
)
def test_pipelines_not_replayed_say_why(steps, reason):
    assert pipeline_of(steps) == reason


@pytest.mark.parametrize(
    "text", ["#### 72", "a #### 1 #### 2", "no marker", "", "####  x", "line\n#### 5\nmore"]
)
def test_the_marker_pattern_is_removed_as_re_removes_it(text):
    """(?s).*#### is quadratic in Python's re on a long text without the marker (300,000 characters took 17 s);
    lbnorm removes it in linear time, with the same result."""
    import re

    assert (
        exact_match(text, re.sub("(?s).*#### ", "", text), {"regexes_to_ignore": ["(?s).*#### "]})
        == 1.0
    )


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="#$,. 12\nx", max_size=30))
def test_the_patterns_removed_without_re_are_removed_as_re_removes_them(text):
    import re

    from validator.harness.exact_match import _LINEAR

    for pattern, remove in _LINEAR.items():
        assert remove(text) == re.sub(pattern, "", text), pattern


# Where flexible-extract's matches start and end: its class, its '-', and what breaks a run of them.
ANSWER_CHARACTERS = st.text(
    alphabet=st.sampled_from(list("-$0123456789.,  \n\tab=é𝔘\x00") + ["\ud800"]), max_size=60
)


@settings(max_examples=400, deadline=None)
@given(ANSWER_CHARACTERS)
def test_flexible_extract_over_the_runs_of_its_class_finds_what_re_finds(answer):
    """The replay runs flexible-extract over the answer's runs of [-$0-9.,] alone (WithinClass): the same
    matches, in the same order, as `re` over the whole answer."""
    import re

    pattern = harness_regex(FLEXIBLE_EXTRACT)
    assert isinstance(pattern, WithinClass)
    assert pattern.findall(answer) == re.findall(FLEXIBLE_EXTRACT, answer)


# Answers of many short runs, most of them without a match ('-', '.', '$'), so that the last matches lie past
# the few runs searched one by one as often as within them.
MANY_RUNS = st.lists(
    st.sampled_from(
        [
            "-",
            ".",
            "$",
            ",",
            "-.",
            "12",
            "-3",
            "4.5",
            "1,2",
            "$6",
            "--7",
            "1-2",
            "-5-3",
            "a",
            "é",
            "\n",
        ]
    ),
    max_size=40,
).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(ANSWER_CHARACTERS, MANY_RUNS), st.integers(min_value=-12, max_value=2))
def test_the_matches_a_group_select_keeps_are_found_as_re_finds_them(answer, group):
    """A negative group_select (flexible-extract's -1) searches the last runs first (WithinClass.last_matches):
    the filter keeps what `re`'s findall over the whole answer gives, and says so where there are fewer
    matches than the group asks."""
    import re

    pattern = harness_regex(FLEXIBLE_EXTRACT)
    assert isinstance(pattern, WithinClass)
    everything = re.findall(FLEXIBLE_EXTRACT, answer)
    if group < 0:
        assert pattern.last_matches(answer, -group) == everything[group:]
    assert apply_regex_filter(answer, pattern, group, "[invalid]") == apply_regex_filter(
        answer, re.compile(FLEXIBLE_EXTRACT), group, "[invalid]"
    )


def test_every_harness_filter_pattern_is_replayed_as_re_finds_it():
    import re

    answers = [
        "Natalia sold 48/2 = 24 clips in May.\n#### 72, or 1,000.5 -3 $5 --7 -$ 1.2.3",
        "The answer is 18. The final answer is $1,234 and The answer is -5.",
        "no number at all",
    ]
    for pattern in HARNESS_PATTERNS - {"(?s).*#### "}:
        found = harness_regex(pattern)
        assert found is not None, pattern
        for answer in answers:
            assert found.findall(answer) == re.findall(pattern, answer), (pattern, answer)
    assert harness_regex("(?s).*#### ") is None  # quadratic under re: RE2 replays it as a filter
    assert harness_regex("#### (\\d+)") is None  # a config's own pattern runs under RE2
