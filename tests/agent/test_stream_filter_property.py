"""Property: however a stream is cut into tokens, reasoning spans go to the thinking
channel whole and never reach the answer channel.

Texts are built from plain runs and reasoning spans of the three delimiter pairs the
issue names; the plain alphabet is rich in tag characters (``<``, ``/``, ``>``, the
letters of the tags) so partial and near-miss tags are common, but it cannot spell a
complete delimiter or anything else the filter removes (raw-error words, turn tokens).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from docgemma.agent.stream_filter import StreamFilter

PAIRS = (("<thinking>", "</thinking>"), ("<think>", "</think>"), ("<unused94>", "<unused95>"))
DELIMITERS = tuple(d for pair in PAIRS for d in pair)
ALPHABET = "<>/thinkgu a.\n"


def _clean(text: str) -> bool:
    return not any(d in text for d in DELIMITERS) and "<unused" not in text


plain = st.text(alphabet=ALPHABET, max_size=12).filter(_clean)


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[str], str, str]:
    """(tokens, expected answer, expected thinking) for one random stream."""
    text, answer, thinking = "", "", ""
    for _ in range(draw(st.integers(0, 5))):
        before = draw(plain)
        opening, closing = draw(st.sampled_from(PAIRS))
        inside = draw(plain.filter(lambda s, c=closing: c not in s))
        text += before + opening + inside + closing
        answer += before
        thinking += inside
    tail = draw(plain)
    text, answer = text + tail, answer + tail
    cuts = sorted(draw(st.sets(st.integers(1, max(len(text) - 1, 1)), max_size=len(text))))
    bounds = [0, *(c for c in cuts if c < len(text)), len(text)]
    tokens = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
    return tokens, answer, thinking


@settings(max_examples=400, deadline=None)
@given(streams())
def test_spans_go_to_thinking_and_never_to_tokens(case: tuple[list[str], str, str]) -> None:
    tokens, answer, thinking = case
    channel = StreamFilter()
    shown, reasoning = [], []
    for token in tokens:
        shown.append(channel.feed(token))
        reasoning.append(channel.take_reasoning())
    shown.append(channel.flush())
    reasoning.append(channel.take_reasoning())
    assert "".join(shown) == answer
    assert "".join(reasoning) == thinking


def test_an_unclosed_span_at_the_end_is_thinking_only() -> None:
    channel = StreamFilter()
    out = channel.feed("Dose is 5 mg. <thi") + channel.feed("nk>check renal") + channel.flush()
    assert out == "Dose is 5 mg. "
    assert channel.take_reasoning() == "check renal"
