"""The audit's fast paths against their plain forms.

The DROP scorer as it runs (validator/harness/drop.py) against its plain transcription (drop_reference.py).

drop.py rearranges the harness's work for speed; these properties say it
still computes the harness's numbers, on predictions and gold answers built
from the characters that steer the scorer: digits (ASCII and others float()
reads), the words float() reads, articles, punctuation, hyphens and every
kind of whitespace.
"""

import json
from dataclasses import astuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import drop_reference as reference

from validator.harness import choice_scores, drop, drop_flags, samples
from validator.harness.samples import first_request, requests
from validator.io.documents import DocumentError
from validator.io.limits import DEFAULT_LIMITS, Limits

# Property tests of hundreds of drawn samples each: whole-suite runs take them.
pytestmark = pytest.mark.slow

PIECES = [
    "10",
    "1,001",
    "12.25",
    "3.",
    "-4",
    "1_000",
    "٣",
    "nan",
    "NaN",
    "inf",
    "Infinity",
    "infinite",
    "ınf",
    "a",
    "an",
    "the",
    "The",
    "A",
    "yards",
    "percent",
    "it's",
    "(19)",
    "$5",
    "e",
    "1e5",
    "_",
    "'",
    "—",
    "’s",
    "İ",
    "K",
]
SEPARATORS = [" ", "  ", "-", "\n", "\n\n", "\t", "\u00a0", "\u2009", "\x1c", ".", ",", ""]

text = st.lists(
    st.one_of(st.sampled_from(PIECES), st.sampled_from(SEPARATORS), st.text(max_size=4)),
    max_size=12,
).map("".join)
gold = st.lists(st.one_of(st.sampled_from(PIECES), text), min_size=1, max_size=3).map(tuple)
golds = st.lists(gold, min_size=1, max_size=3)
until = st.sampled_from([["."], ["\n\n"], [".", "\n"], []])


@settings(max_examples=400, deadline=None)
@given(text)
def test_normalize_is_the_harness_normalize(answer):
    assert drop.normalize(answer) == reference.normalize(answer)
    assert drop.is_number(answer) == reference.is_number(answer)


@settings(max_examples=400, deadline=None)
@given(golds, text)
def test_process_results_is_the_harness_process_results(golds, prediction):
    assert drop.process_results(golds, prediction) == reference.process_results(golds, prediction)


@settings(max_examples=300, deadline=None)
@given(golds, text, until)
def test_flags_and_rescoring_are_those_of_the_plain_scorer(golds, prediction, until):
    f1 = reference.process_results(golds, prediction)[1]
    # The reference's records are dataclasses, the module's named tuples: compare their fields.
    assert tuple(drop_flags.flag_sample(prediction, golds, until, f1)) == astuple(
        reference.flag_sample(prediction, golds, until, f1)
    )
    assert tuple(drop_flags.rescore(prediction, golds)) == astuple(
        reference.rescore(prediction, golds)
    )
    scored = drop.process_results(golds, prediction)
    assert tuple(drop_flags.rescore(prediction, golds, scored)) == astuple(
        reference.rescore(prediction, golds)
    )
    assert drop_flags.has_decimal_gold(golds) == reference.has_decimal_gold(golds)


@settings(max_examples=300, deadline=None)
@given(golds, text, until)
def test_the_one_pass_the_audit_runs_is_the_plain_scorer(golds, prediction, until):
    """score_sample shares the prediction's and the golds' bags between scoring, flags and rescoring."""
    score = drop_flags.score_sample(golds, prediction, until)
    em, f1 = reference.process_results(golds, prediction)
    assert (score.em, score.f1) == (em, f1)
    assert tuple(score.flags) == astuple(reference.flag_sample(prediction, golds, until, f1))
    assert tuple(score.rescored) == astuple(reference.rescore(prediction, golds))
    assert score.decimal_gold == reference.has_decimal_gold(golds)


# The usual sample score_sample takes in place: ASCII words and numbers, spaces only, decimals and the '.' stop.
PLAIN_PIECES = [
    "10",
    "12",
    "12.25",
    "1,012.5",
    "3.",
    "-4",
    "0.5",
    "1.1",
    "nan",
    "the",
    "a",
    "yards",
    "Tom",
    "Brady",
    "and",
    "percent",
    "(19)",
    "$5",
    "e",
]
plain_text = st.lists(
    st.one_of(st.sampled_from(PLAIN_PIECES), st.sampled_from([" ", "  ", "-", ".", ","])),
    max_size=8,
).map("".join)
plain_golds = st.lists(
    st.lists(st.sampled_from(PLAIN_PIECES) | plain_text, min_size=1, max_size=2).map(tuple),
    min_size=1,
    max_size=3,
)


@settings(max_examples=500, deadline=None)
@given(plain_golds, plain_text, st.sampled_from([["."], [".", "\n"], ["\n\n"]]))
def test_the_usual_sample_is_scored_and_flagged_as_the_plain_scorer_does(golds, prediction, until):
    """score_sample's in-place path (no whitespace but spaces): decimal golds, cuts, long answers."""
    score = drop_flags.score_sample(golds, prediction, until)
    em, f1 = reference.process_results(golds, prediction)
    assert (score.em, score.f1) == (em, f1)
    assert tuple(score.flags) == astuple(reference.flag_sample(prediction, golds, until, f1))
    assert score.decimal_gold == reference.has_decimal_gold(golds)


@settings(max_examples=200, deadline=None)
@given(st.lists(text, min_size=1, max_size=4), st.lists(text, min_size=1, max_size=4))
def test_several_spans_align_as_in_the_plain_scorer(predicted, gold):
    assert drop.get_metrics(predicted, gold) == reference.get_metrics(predicted, gold)


def test_the_reference_is_the_harness_too():
    """The oracle itself passes the harness's vectors (tests/unit/test_drop.py checks drop.py on the same ones)."""
    from test_drop import VECTORS, _golds

    for vector in VECTORS["process_results"]:
        assert reference.process_results(_golds(vector["golds"]), vector["pred"]) == (
            vector["em"],
            vector["f1"],
        )
    for vector in VECTORS["get_metrics"]:
        assert reference.get_metrics(vector["predicted"], vector["gold"]) == (
            vector["em"],
            vector["f1"],
        )


json_values = st.recursive(
    st.none() | st.integers() | st.text(max_size=3),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_the_first_request_is_the_first_of_all_requests(arguments):
    calls = requests(arguments)
    assert first_request(arguments) == (calls[0] if calls else [])


# Requests as lm-eval logs them ({"gen_args_0": {"arg_0": ..., "arg_1": ...}}), with keys and shapes it never writes.
request_arguments = st.dictionaries(
    st.sampled_from(["gen_args_0", "gen_args_1", "x"]),
    st.dictionaries(st.sampled_from(["arg_0", "arg_1", "arg_2", "b"]), json_values, max_size=3)
    | json_values,
    max_size=3,
)


@settings(max_examples=300, deadline=None)
@given(request_arguments | json_values)
def test_the_choices_are_every_request_s_second_argument(arguments):
    """choice_continuations reads the second argument by its key: the same value as [call[1] for call in calls]."""
    expected = [call[1] if len(call) > 1 else None for call in requests(arguments)]
    assert samples.choice_continuations(arguments) == expected


def _plain_generation_until(arguments):
    """generation_until as first written: the first request's second argument's until, a list of strings."""
    call = first_request(arguments)
    settings = call[1] if len(call) > 1 else None
    until = settings.get("until") if isinstance(settings, dict) else None
    if isinstance(until, str):
        return [until]
    return (
        until if isinstance(until, list) and all(isinstance(stop, str) for stop in until) else None
    )


generation_arguments = st.one_of(
    json_values,
    st.dictionaries(
        st.text(max_size=3),
        st.dictionaries(
            st.text(max_size=3),
            json_values
            | st.fixed_dictionaries(
                {"until": json_values | st.lists(st.text(max_size=2), max_size=3)}
            ),
            max_size=3,
        ),
        max_size=2,
    ),
)


@settings(max_examples=400, deadline=None)
@given(generation_arguments)
def test_the_stop_sequences_are_those_of_the_first_request(arguments):
    assert samples.generation_until(arguments) == _plain_generation_until(arguments)


finite_or_not = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [0.0, -0.0, -1.5, 1e308, -1e308]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(finite_or_not, min_size=1, max_size=12))
def test_argmax_is_numpy_argmax(values):
    """numpy itself is the oracle (it comes with the test extra's pyarrow and dask)."""
    numpy = pytest.importorskip("numpy")
    assert choice_scores._argmax(values) == int(
        numpy.argmax(numpy.array(values, dtype=numpy.float64))
    )


# A log line as the reader sees it: a JSON value, maybe with whitespace (JSON's and other) or junk around it.
json_texts = st.tuples(
    st.sampled_from(["", " ", "\ufeff", "\t", "\x0c", "x"]),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(st.text(max_size=3), children, max_size=3)
        ),
        max_leaves=10,
    ).map(json.dumps)
    | st.text(max_size=8),
    st.sampled_from(["", "\n", "\r\n", " \n", "\n\n", "\x0c", "\u2028", "}", " 1", "\n\x00"]),
).map("".join)


@settings(max_examples=600, deadline=None)
@given(json_texts)
def test_a_log_line_parses_as_json_loads_parses_it(text):
    from validator.io.log_lines import parse_json

    try:
        expected = json.loads(text)
    except ValueError as exc:  # JSONDecodeError is a ValueError
        with pytest.raises(type(exc)) as raised:
            parse_json(text)
        assert str(raised.value) == str(exc)
        return
    actual = parse_json(text)
    assert json.dumps(actual) == json.dumps(expected)  # NaN != NaN: compared as text


@settings(max_examples=600, deadline=None)
@given(
    json_texts,
    st.booleans(),
    # max_depth=2: a line of 3 to MAX_DEPTH_CEILING openers is parsed first and its depth read from the value,
    # unless it is past the value budget
    st.sampled_from(
        [
            DEFAULT_LIMITS,
            Limits(max_depth=1, max_values=4),
            Limits(max_depth=2),
            Limits(max_depth=2, max_values=20),
        ]
    ),
)
def test_a_log_line_reads_as_decode_line_and_load_record_read_it(text, cut, limits):
    """The reader's one call per line (_line_value) gives load_record's value, or its finding, for any line."""
    from validator.io.budgets import line_openers
    from validator.io.log_lines import load_record
    from validator.io.sample_logs import _line_value

    raw = text.encode("utf-8")
    openers = line_openers(raw)
    try:
        expected = json.dumps(load_record(text, 7, 1, limits, cut=cut))
    except DocumentError as exc:
        with pytest.raises(DocumentError) as raised:
            _line_value(raw, 7, limits, cut, openers)
        assert (raised.value.rule, raised.value.message, raised.value.line) == (
            exc.rule,
            exc.message,
            exc.line,
        )
        return
    read_text, value = _line_value(raw, 7, limits, cut, openers)
    assert (read_text, json.dumps(value)) == (text, expected)  # NaN != NaN: compared as text


def _lm_eval_choice_scores(lls, continuations, target, delimiter):
    """lm-eval's process_results for multiple_choice, transcribed with numpy (lm_eval/api/task.py): the gold is
    an index, a choice's text or -100; acc_norm divides by each choice's length without the delimiter."""
    numpy = pytest.importorskip("numpy")
    choices = [c[len(delimiter) :] if c.startswith(delimiter) else c for c in continuations]
    if isinstance(target, int):
        gold = target if target < len(choices) else -100
    elif target.isdigit() and target in choices:
        gold = choices.index(target)
    elif target.isdigit():
        gold = int(target) if int(target) < len(choices) else -100
    else:
        gold = choices.index(target) if target in choices else -100
    values = numpy.array(lls, dtype=numpy.float64)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        normed = values / numpy.array([float(len(c)) for c in choices])
    acc = 1.0 if int(numpy.argmax(values)) == gold else 0.0
    return acc, 1.0 if int(numpy.argmax(normed)) == gold else 0.0


choice_texts = st.text(alphabet="ab 01\n", max_size=4)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.tuples(choice_texts, finite_or_not), min_size=2, max_size=8),
    st.sampled_from([" ", "", "\n", "  "]),
    st.booleans(),
    st.integers(0, 9) | choice_texts.filter(lambda t: not t.startswith("[")),
)
def test_choice_scores_are_lm_evals(pairs, delimiter, delimited, target):
    """Each continuation with or without the delimiter, lengths from 0, any log-likelihood: the scores are those
    numpy gives by lm-eval's formula."""
    continuations = [(delimiter if delimited else "") + text for text, _ in pairs]
    if continuations.count(continuations[0]) == len(continuations):
        return  # every continuation alike is multiple_input's layout, scored otherwise
    if isinstance(target, str) and target.isdigit() and not target.isascii():
        return
    lls = [ll for _, ll in pairs]
    arguments = {f"gen_args_{i}": {"arg_0": "Q", "arg_1": c} for i, c in enumerate(continuations)}
    scores = choice_scores.choice_scores(
        [[repr(ll), "False"] for ll in lls], arguments, target, delimiter
    )
    assert (scores.acc, scores.acc_norm) == _lm_eval_choice_scores(
        lls, continuations, target, delimiter
    )


request_values = (
    st.none() | st.integers() | st.text(max_size=3) | st.lists(st.integers(0, 3), max_size=3)
)
request_arguments = st.dictionaries(
    st.text(max_size=3),
    st.dictionaries(st.text(max_size=3), request_values, max_size=3) | request_values,
    max_size=4,
) | st.lists(st.lists(request_values, max_size=3) | request_values, max_size=4)


@settings(max_examples=400, deadline=None)
@given(request_arguments)
def test_request_contexts_are_each_requests_first_argument(arguments):
    plain = (
        [
            (next(iter(call.values()), None) if type(call) is dict else None)
            for call in arguments.values()
        ]
        if isinstance(arguments, dict)
        else [call[0] if call else None for call in requests(arguments)]
    )
    assert samples.request_contexts(arguments) == plain
