"""The streamed-answer filter on adversarial token splits."""

from __future__ import annotations

import random

import pytest

from docgemma.agent.answer import THINKING_SPANS, clean_answer
from docgemma.agent.prompts import SYNTHESIZE_SYSTEM
from docgemma.agent.stream_filter import StreamFilter

from .fakes import LABELS

INSTRUCTIONS = SYNTHESIZE_SYSTEM.render()


def shown(pieces: list[str], **kwargs) -> list[str]:
    """What the filter releases after each piece, then at the end of the stream."""
    f = StreamFilter(LABELS, INSTRUCTIONS, **kwargs)
    return [f.feed(p) for p in pieces] + [f.flush()]


def prefixes(out: list[str]) -> list[str]:
    """Everything the clinician has seen after each step."""
    return ["".join(out[: i + 1]) for i in range(len(out))]


@pytest.mark.parametrize(("open_", "close"), THINKING_SPANS)
def test_a_thinking_span_split_into_single_characters_never_shows(open_, close) -> None:
    text = f"Start with ECG. {open_}secret reasoning{close} Monitor QTc."
    out = shown(list(text))
    assert "".join(out) == "Start with ECG.  Monitor QTc."
    for seen in prefixes(out):
        assert "secret" not in seen and "reasoning" not in seen
        assert not seen.endswith(open_[:2])  # not even the opening of the tag


def test_a_tool_name_split_across_two_tokens_is_replaced_by_its_label() -> None:
    out = shown(["The check_drug", "_safety result shows a boxed warning."])
    assert "".join(out) == "The Drug Safety Report result shows a boxed warning."
    assert all("check_drug" not in seen for seen in prefixes(out))
    assert out[0] == "The "  # only the possible start of the name was held back


def test_a_false_start_is_released_as_soon_as_it_cannot_be_a_tag() -> None:
    out = shown(["<th", "e patient", " is stable."])
    assert out[0] == ""  # "<th" could still open <thinking>
    assert out[1].startswith("<the pat")  # released with the next piece
    assert "".join(out) == "<the patient is stable."


def test_an_unterminated_thinking_span_at_the_end_is_dropped() -> None:
    out = shown(["Avoid NSAIDs.", " <think>", "the patient might", " also have"])
    assert "".join(out) == "Avoid NSAIDs. "


def test_plain_text_is_not_held_back() -> None:
    assert shown(["Metformin is ", "first line. "])[:2] == ["Metformin is ", "first line. "]


def test_a_stray_end_of_thinking_and_turn_tokens_are_removed() -> None:
    out = shown(["Dose ", "</thi", "nk>", "is 500 mg", "<end_of", "_turn>"])
    assert "".join(out) == "Dose is 500 mg"


def test_medgemma_delimiters_split_inside_the_token() -> None:
    out = shown(["<unused9", "4>hidden<unus", "ed95>Visible."])
    assert "".join(out) == "Visible." and all("hidden" not in s for s in prefixes(out))


def test_qwen_thinking_is_not_mistaken_for_a_bare_turn_token() -> None:
    out = shown(["OK <|im_start|>", "think hidden <|im_start|>", "answer Done."])
    assert "".join(out) == "OK  Done."


def test_echoed_instructions_and_raw_errors_are_never_shown() -> None:
    text = (
        "Do not reference any system internals, tool names, or databases. "
        "Dofetilide needs ECG monitoring.\nTraceback (most recent call last) boom\nEnd."
    )
    out = shown([w + " " for w in text.split(" ")])
    for seen in prefixes(out):
        assert "system internals" not in seen and "Traceback" not in seen
    assert "Dofetilide needs ECG monitoring." in "".join(out)


def test_thinking_channel_filter_keeps_reasoning_but_hides_tags_and_tool_names() -> None:
    out = shown(
        ["<think>\nI should call get_patient", "_chart first.</th", "ink>"], hide_spans=False
    )
    assert "".join(out) == "\nI should call Patient Record first."


def test_any_split_gives_the_same_text_and_the_same_final_answer() -> None:
    raw = (
        "<think>plan: use [search_medical_literature]</think>Hypertension is raised "
        "blood pressure; see [check_drug_safety] and <unused94>more<unused95> the "
        "guideline. You are a clinical decision-support assistant. Treat to target.<end_of_turn>"
    )
    whole = "".join(shown([raw]))
    rng = random.Random(7)
    for _ in range(40):
        cuts = sorted(rng.sample(range(1, len(raw)), rng.randint(1, 30)))
        pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
        out = shown(pieces)
        assert "".join(out) == whole
        for seen in prefixes(out):
            assert not any(bad in seen for bad in ("plan", "more", "_", "<", "You are"))
    assert clean_answer(whole, LABELS, INSTRUCTIONS) == clean_answer(raw, LABELS, INSTRUCTIONS)
    assert "Medical Literature" not in whole and "Drug Safety Report" in whole


def test_a_link_target_never_shows_however_it_is_split() -> None:
    text = (
        "See the [ADA website](https://diabetes.org/x) and [1](https://a.org/b) now, "
        "or www.nice.org.uk/ng28."
    )
    out = shown(list(text))
    # streamed, the sentence's full stop goes with the URL; the final text keeps it
    assert "".join(out) == "See the [ADA website] and [1] now, or "
    assert all("diabetes.org" not in seen and "nice.org" not in seen for seen in prefixes(out))
    assert clean_answer(text, LABELS) == "See the [ADA website] and [1] now, or ."


def test_an_invented_author_year_citation_never_shows_however_it_is_split() -> None:
    text = "Peaked T waves point to hyperkalaemia (Nelson et al., 2012). Give calcium (10 mL)."
    out = shown(list(text))
    assert "".join(out) == "Peaked T waves point to hyperkalaemia . Give calcium (10 mL)."
    assert all("Nelson" not in seen for seen in prefixes(out))
    assert clean_answer(text, {}) == "Peaked T waves point to hyperkalaemia. Give calcium (10 mL)."
