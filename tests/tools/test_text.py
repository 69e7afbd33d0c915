"""``shorten`` keeps its promise: never longer than the limit, the ellipsis included."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from docgemma.tools.text import shorten, whole_words


@given(st.text(alphabet=st.sampled_from("ab. \n"), max_size=300), st.integers(3, 200))
def test_shortened_text_fits_its_limit(text: str, limit: int) -> None:
    assert len(shorten(text, limit)) <= limit


def test_cut_at_a_sentence_then_at_a_word() -> None:
    text = "Warfarin can cause major bleeding. Monitor the INR regularly in all patients."
    assert shorten(text, 64) == "Warfarin can cause major bleeding. …"
    assert (
        shorten("Monitor the INR regularly in all treated patients", 30)
        == "Monitor the INR regularly …"
    )


def test_a_text_cut_at_its_cap_keeps_only_whole_words() -> None:
    assert whole_words("The result is classified as 'E", 30) == "The result is classified as …"
    assert whole_words("Nothing found.", 30) == "Nothing found."
