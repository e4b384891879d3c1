"""The DROP scorer against the real harness, and the deep dive's failure modes (docs/reference/drop.md)."""

import gc
import json
import sys
import types
from pathlib import Path

import pytest

from validator.harness import drop, drop_flags

VECTORS = json.loads(
    (Path(__file__).parents[1] / "data" / "drop_golden" / "vectors.json").read_text(
        encoding="utf-8"
    )
)


def _golds(raw):
    return [tuple(gold) for gold in raw]


@pytest.mark.parametrize("vector", VECTORS["process_results"], ids=lambda v: v["name"])
def test_process_results_matches_the_harness(vector):
    assert drop.normalize(vector["pred"]) == vector["normalized"]
    assert drop.process_results(_golds(vector["golds"]), vector["pred"]) == (
        vector["em"],
        vector["f1"],
    )


@pytest.mark.parametrize("vector", VECTORS["get_metrics"], ids=lambda v: v["name"])
def test_alignment_of_several_spans_matches_the_harness(vector):
    assert drop.get_metrics(vector["predicted"], vector["gold"]) == (vector["em"], vector["f1"])


def test_vectors_cover_matches_and_misses():
    outcomes = {(v["em"], v["f1"] > 0) for v in VECTORS["process_results"]}
    assert outcomes == {(1.0, True), (0.0, True), (0.0, False)}


# docs/reference/drop.md's worked examples: pred, gold, harness EM/F1, split@\n EM/F1, ws->space F1, flags under until=["."].
# D' marks any prediction ending in a digit under a '.' stop.
WORKED = [
    (
        "E1",
        "10\n\nPassage: The 2011 census recorded a population of 1,001,360",
        ("10",),
        (0, 0),
        (1, 1),
        0.22,
        {"W!", "D'"},
    ),
    ("E2", "10\n", ("10",), (1, 1), (1, 1), 1.0, set()),
    ("E3", "10 \n\nPassage: The 2011 census", ("10",), (0, 0.40), (1, 1), 0.40, {"L"}),
    ("E4", "10\tyards", ("10",), (0, 0), (0, 0), 0.67, {"W!"}),
    ("E5", " 12", ("12.25",), (0, 0), (0, 0), 0.0, {"D"}),
    ("E6", " The answer is 12", ("12.25",), (0, 0), (0, 0), 0.0, {"D"}),
    (
        "E9",
        " 10 yards were gained by the team in the second quarter",
        ("10",),
        (0, 0.20),
        (0, 0.20),
        0.20,
        {"L"},
    ),
    ("E17", "\n10", ("10",), (1, 1), (0, 0), 1.0, {"D'"}),
]


def _flag_names(flags: drop_flags.SampleFlags) -> set[str]:
    names = set()
    if flags.glued:
        names.add("W!" if flags.glued_lost_gold else "W")
    if flags.decimal_cut:
        names.add("D")
    if flags.possibly_cut:
        names.add("D'")
    if flags.long_answer_loss:
        names.add("L")
    return names


@pytest.mark.parametrize(
    "name,pred,gold,harness,split,ws_f1,flags", WORKED, ids=[w[0] for w in WORKED]
)
def test_worked_examples(name, pred, gold, harness, split, ws_f1, flags):
    golds = [gold]
    em, f1 = drop.process_results(golds, pred)
    assert (em, f1) == harness
    rescored = drop_flags.rescore(pred, golds)
    assert rescored.newline == split
    assert rescored.whitespace[1] == ws_f1
    assert _flag_names(drop_flags.flag_sample(pred, golds, ["."], f1)) == flags


def test_e7_and_e8_no_dot_stop_means_no_truncation_flag():
    assert drop.process_results([("12.25",)], " 12.25") == (1.0, 1.0)
    assert _flag_names(drop_flags.flag_sample(" 12.25", [("12.25",)], ["\n"], 1.0)) == set()
    # E8: with a "\n" stop the sentence-final period glues onto the decimal and destroys it.
    assert drop.normalize(" 12.25.") == "1225.0"
    assert drop.process_results([("12.25",)], " 12.25.") == (0.0, 0.0)
    assert _flag_names(drop_flags.flag_sample(" 12.25.", [("12.25",)], ["\n"], 0.0)) == set()


def test_e17_lstrip_variant_repairs_what_the_literal_split_breaks():
    assert drop_flags.rescore("\n10", [("10",)]).newline_lstrip == (1.0, 1.0)


def test_glued_number_records_the_part_and_whether_gold_was_lost():
    flags = drop_flags.flag_sample("10\n\nPassage: x", [("10",)], ["."], 0.0)
    assert flags.glued == ["10"] and flags.glued_lost_gold
    other = drop_flags.flag_sample("7\n\nPassage: x", [("10",)], ["."], 0.0)
    assert other.glued == ["7"] and not other.glued_lost_gold


def test_a_decimal_written_in_full_was_not_cut_by_the_dot_stop():
    # " 1.1" holds the '.' the stop cuts at, so the stop cut nothing: the response ran past it (LB720's finding).
    # Its final digit run "1" is the fraction, not the integer part of the gold 1.1 (a case from a real run).
    assert drop_flags.decimal_cut(" 1.1", [("1.1",)], ["."]) is None
    assert drop_flags.decimal_cut(" 1,012.5\n", [("1012.5",)], ["."]) is None
    full = drop_flags.flag_sample(" 1.1", [("1.1",)], ["."], 1.0)
    assert full.decimal_cut is None and not full.possibly_cut and not full.any()
    assert not drop_flags.flag_sample(" it was 3.5", [("7",)], ["."], 0.0).possibly_cut
    scored = drop_flags.score_sample([("1.1",)], " 1.1", ["."])
    assert scored.flags.decimal_cut is None and not scored.flags.possibly_cut
    assert (
        drop_flags.decimal_cut(" 1", [("1.1",)], ["."]) == "1.1"
    )  # the integer part alone still is a cut


def test_decimal_cut_needs_the_dot_stop_and_a_matching_integer_part():
    assert drop_flags.decimal_cut(" 12", [("12.25",)], ["."]) == "12.25"
    assert drop_flags.decimal_cut(" 1,234", [("1,234.5",)], ["."]) == "1,234.5"
    assert drop_flags.decimal_cut(" 12", [("12.25",)], ["\n"]) is None
    assert drop_flags.decimal_cut(" 13", [("12.25",)], ["."]) is None
    assert (
        drop_flags.decimal_cut(" 12 ", [("12.25",)], ["."]) is None
    )  # the harness cut exactly at the '.'
    possibly = drop_flags.flag_sample(" it was 7", [("10",)], ["."], 0.0)
    assert possibly.possibly_cut and possibly.decimal_cut is None


def test_long_answer_loss_is_the_f1_the_extra_words_cost():
    flags = drop_flags.flag_sample(
        " 10 yards were gained by the team in the second quarter", [("10",)], ["."], 0.2
    )
    assert flags.long_answer_loss == pytest.approx(0.8)
    one_of_two = drop_flags.flag_sample(
        " Tom Brady threw it", [("Tom Brady", "Peyton Manning")], ["."], 0.33
    )
    assert one_of_two.long_answer_loss == pytest.approx(
        0.5 - 0.33
    )  # one span can score at most 1/2
    assert drop_flags.flag_sample(" 10", [("10",)], ["."], 1.0).long_answer_loss is None


@pytest.mark.parametrize(
    "prediction, scored",
    [
        (" Tom Brady and Peyton Manning", 0.29),  # 2/5 words: F1 0.57, / 2
        (" Peyton Manning, Tom Brady", 0.33),
    ],
)  # 2/4 words: F1 0.67, / 2
def test_a_whole_multi_span_answer_is_not_a_long_answer(prediction, scored):
    """Every span of a two-span gold in one prediction scores 0.29, not 1, because the harness scores a
    prediction as one span; L does not call that F1 lost "to extra words" on honest answers."""
    golds = [("Tom Brady", "Peyton Manning")]
    em, f1 = drop.process_results(golds, prediction)
    assert (em, f1) == (0.0, scored)
    assert drop_flags.flag_sample(prediction, golds, ["."], f1).long_answer_loss is None
    assert (
        drop_flags.flag_sample(prediction + " won", [("Tom Brady",)], ["."], 0.5).long_answer_loss
        is not None
    )


@pytest.mark.parametrize(
    "prediction, golds",
    [
        (
            " Tom Brady and Peyton Manning\n\nPassage: The Broncos won the game",
            [("Tom Brady", "Peyton Manning")],
        ),
        (" Denver Broncos", [("Denver", "Denver")]),  # the same span twice
        (" Peyton Manning threw it", [("Manning", "Peyton Manning")]),  # one span inside the other
        (
            " Tom Brady and Peyton Manning",
            [("Tom Brady", "Peyton Manning"), ("Tom Brady",)],
        ),  # a one-span gold too
    ],
)
def test_words_beyond_every_span_of_a_multi_span_gold_are_a_long_answer(prediction, golds):
    """Sparing whole multi-span answers does not spare these, the blog's "...\n\nPassage:" among
    them. The loss is against the prediction cut to the gold's words."""
    em, f1 = drop.process_results(golds, prediction)
    loss = drop_flags.flag_sample(prediction, golds, ["."], f1).long_answer_loss
    assert loss is not None and 0 < loss <= 1 - f1


def test_assignment_handles_more_rows_than_columns_and_empty():
    assert drop.max_weight_assignment([]) == []
    assert drop.max_weight_assignment([[0.1], [0.9], [0.5]]) == [(1, 0)]
    assert drop.max_weight_assignment([[1.0, 0.0], [1.0, 0.9]]) == [(0, 0), (1, 1)]


def test_has_decimal_gold():
    assert drop_flags.has_decimal_gold([("12.25",)]) and not drop_flags.has_decimal_gold(
        [("12",), ("Tom",)]
    )


# --- the scorer's caches hold only what the submitter cannot grow -------------------------------


def _words(start: int, characters: int) -> str:
    """Distinct numbers separated by spaces, `characters` long."""
    text, number = "", start
    while len(text) + len(str(number)) + 1 <= characters:
        text, number = text + f"{number} ", number + 1
    return text.strip().rjust(characters, "1")


WIDE = "\U00020000\U00020001"  # 4 bytes a character in memory: never cached, however short


def _clear_caches():
    for cached in drop.CACHES:
        cached.clear()


@pytest.mark.parametrize(
    "golds, prediction",
    [
        ([(_words(0, 5000), _words(10_000, 5000))], _words(20_000, 5000) + "\n12"),  # long
        ([(WIDE + " 12.5",)], WIDE + " 12"),  # short, but not ASCII
    ],
    ids=["long", "wide"],
)
def test_long_or_wide_golds_and_predictions_are_never_cached(golds, prediction):
    _clear_caches()
    score = drop_flags.score_sample(golds, prediction, ["."])
    (
        drop.process_results(golds, prediction),
        drop_flags.flag_sample(prediction, golds, ["."], score.f1),
    )
    assert [len(cached) for cached in drop.CACHES] == [0, 0]


def test_golds_of_many_spans_or_words_are_not_cached():
    _clear_caches()
    for gold in [
        tuple(f"{k}.5" for k in range(drop._CACHED_SPANS + 1)),
        ("1 2 3 4 5 6 7 8 9 10",),
        ("1-2-3-4-5-6-7-8-9-10",),
    ]:
        drop_flags.score_sample([gold], "1", ["."])
    assert [len(cached) for cached in drop.GOLD_CACHES] == [0]
    drop_flags.score_sample([("12.5",)], "12", ["."])
    assert all(len(cached) for cached in drop.CACHES)


# The largest entries found for each cache under its limits: many short words (a set of words costs
# hundreds of bytes), numbers normalization makes 4.5 times longer ("1e15" -> "1000000000000000.0").
LARGEST_GOLDS = {
    "hyphens": lambda k: tuple(f"{k}-{span}-1e15" for span in range(4)),
    "spaces": lambda k: tuple(f"{k}x{span} 1 2" for span in range(4)),
    "one span": lambda k: (f"{k}e9 " + " ".join(f"{i}e15" for i in range(1, 9)),),
}


def _bytes_held_by(roots) -> int:
    """What the objects reachable from `roots` occupy, each counted once by sys.getsizeof (which counts an
    OrderedDict's links too). Classes, modules and functions are shared with the rest of the process, so not
    counted. It agrees with tracemalloc's count of the same fill to within a percent, in a fraction of its time."""
    seen, total, stack = set(), 0, list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


@pytest.mark.slow  # fills every cache to its bound: seconds a shape
@pytest.mark.parametrize("shape", LARGEST_GOLDS)
def test_the_caches_stay_under_100_mb_full_of_the_largest_entries_they_keep(shape):
    """What a hostile log can make a survey worker hold: every cache full, every entry as large as it may be."""
    gold_of = LARGEST_GOLDS[shape]
    assert drop._cacheable(gold_of(drop._CACHE_ENTRIES))
    _clear_caches()
    for k in range(drop._CACHE_ENTRIES):
        prediction = (f"{k}" + " 1e15" * 60)[: drop._CACHED_LENGTH]
        drop_flags.score_sample([gold_of(k)], prediction, ["."])
    assert [len(cached) for cached in drop.CACHES] == [drop._CACHE_ENTRIES] * 2
    held = _bytes_held_by(drop.CACHES)
    assert held < 100 * 2**20, f"{held / 2**20:.0f} MB"
    # The walk reaches inside the entries: it counts more than the keys and values themselves
    entries = sum(sys.getsizeof(k) + sys.getsizeof(v) for c in drop.CACHES for k, v in c.items())
    assert held > 2 * entries, (held, entries)
    print(f"the caches full of {shape} golds hold {held / 2**20:.0f} MB")
    _clear_caches()


def test_gold_answers_as_lists_or_empty_are_scored_as_the_reference_scores_them():
    """The public functions take what the harness's do: spans in a list, an empty gold among others."""
    from support import drop_reference as reference

    assert drop.process_results([["ü"]], "x") == reference.process_results([["ü"]], "x")
    golds = [("1.5",), ()]
    assert (
        drop_flags.decimal_cut("1", golds, ["."])
        == reference.decimal_cut("1", golds, ["."])
        == "1.5"
    )
    assert drop_flags.has_decimal_gold([()]) is reference.has_decimal_gold([()]) is False
    assert drop_flags.gold_numbers([()]) == reference.gold_numbers([()]) == set()


def test_a_flagged_sample_keeps_only_the_start_of_each_long_text():
    """The report keeps up to 200 flagged samples per log, and a log line may run to 64 MiB: each kept prediction,
    gold span and glued number is cut short, and so are the lists of them (a gold of many spans, many golds)."""
    from types import SimpleNamespace

    from validator.audit.checks.drop_scoring import _flagged
    from validator.audit.model import DropAudit

    long = "9" * 10_000
    report = DropAudit()
    flags = drop_flags.SampleFlags(glued=[long] * 8, possibly_cut=True)
    rescored = drop_flags.Rescored((0.0, 0.0), (0.0, 0.0), (0.0, 0.0))
    sample = SimpleNamespace(doc_id=3, record=SimpleNamespace(line=4))
    _flagged(report, sample, long, [tuple([long] * 20)] * 7, 0.0, 0.0, flags, rescored)
    [entry] = report.as_dict()["flagged_samples"]
    assert (entry["doc_id"], entry["line"], entry["flags"]) == (3, 4, ["W", "D'"])
    assert [len(gold) for gold in entry["golds"]] == [5] * 5
    assert {len(span) for gold in entry["golds"] for span in gold} == {300}
    assert [len(number) for number in entry["glued"]] == [300] * 5
    assert len(entry["prediction"]) == 300
