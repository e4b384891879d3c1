"""IFEval's checkers read a lower-cased reply's letter count, start and end without lowering all of it
(harness/lowered.py), and find what str.lower() of the whole reply gives."""

from hypothesis import given, settings
from hypothesis import strategies as st

from validator.harness.lowered import (
    BEYOND_ASCII,
    SIGMA,
    count_lowered,
    ends_lowered,
    starts_lowered,
)

ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
# Σ and what final sigma reads around it (letters, an apostrophe and a soft hyphen it skips, a space), the two
# characters beyond ASCII that lower to an ASCII letter, a combining dot (İ lowers to i and it), and others
texts = st.text(
    alphabet="aAiIkKsz \n'\xad\u03a3\u03c3\u03c2\u0130\u212a\u0307\xe9\xc9\u2014\u1e9e", max_size=12
)


def test_only_a_to_z_the_dotted_i_and_the_kelvin_sign_lower_to_an_ascii_letter():
    """What count_lowered rests on, asked of str.lower() for every code point: beyond ASCII, only İ and the
    Kelvin sign lower to text with an ASCII letter, one each; and no character lowers to nothing."""
    found = {}
    for point in range(0x80, 0x110000):
        lowered = chr(point).lower()
        assert lowered
        letters = [character for character in lowered if character in ASCII_LETTERS]
        if letters:
            found[chr(point)] = letters
    assert found == {beyond: [letter] for letter, beyond in BEYOND_ASCII.items()}


def test_every_character_but_sigma_lowers_alone_as_within_a_text():
    """What starts_lowered and ends_lowered rest on: str.lower() reads the characters around Σ alone."""
    every = "".join(
        chr(point) for point in range(0x110000) if point != 0x3A3 and not 0xD800 <= point < 0xE000
    )
    assert every.lower() == "".join(character.lower() for character in every)
    assert (
        "A" + SIGMA
    ).lower() != "a" + SIGMA.lower()  # final sigma: why a part holding Σ is not lowered alone


@settings(max_examples=3000, deadline=None)
@given(texts, st.sampled_from("aikszb"))
def test_a_letter_is_counted_as_in_the_lowered_text(text, letter):
    assert count_lowered(text, letter) == text.lower().count(letter)


@settings(max_examples=3000, deadline=None)
@given(texts, texts, st.integers(0, 12))
def test_a_start_and_an_end_are_compared_as_in_the_lowered_text(text, other, size):
    lowered = text.lower()
    # what a kwarg lowered may be: the lowered text's own start or end, or any other text lowered
    for prefix in (lowered[:size], other.lower()):
        assert starts_lowered(text, prefix) == lowered.startswith(prefix)
    for suffix in (lowered[len(lowered) - size :], other.lower()):
        assert ends_lowered(text, suffix) == lowered.endswith(suffix)
