"""Words that name no topic, shared by every layer that matches texts by their words."""

from __future__ import annotations

from collections.abc import Iterable

_FILLER_WORDS_TEXT = (
    "a an the my our your this that these those his her hers him he she they them their "
    "patient patients pt name names person someone somebody unknown none null value x"
)
FILLER_WORDS = frozenset(_FILLER_WORDS_TEXT.split())
"""Words that refer to something without naming it; a value made only of them names nothing."""
_STOP_WORDS_TEXT = (
    "and or of in on for with to from by at about into than then what which who how when "
    "is are was were be been does do did can could should would will any all some more "
    "most latest recent new current study studies trial trials research evidence "
    "literature data information info search find look check show give get please "
    "treatment therapy"
)
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())
"""Words that carry no topic: a loose match on them alone proves nothing."""
STEM_CHARS = 5
"""Loose matching compares word beginnings: "diabetic" and "diabetes" agree on "diabe"."""


def topic_stems(words: Iterable[str], min_chars: int = 3) -> set[str]:
    """The beginnings of the words that carry a topic, of ``min_chars`` letters or more."""
    return {
        w[:STEM_CHARS]
        for w in words
        if len(w) >= min_chars and w not in STOP_WORDS and w not in FILLER_WORDS
    }
