"""Degenerate model text is found or removed by code (``answer.hygiene``)."""

from __future__ import annotations

from docgemma.agent.answer.hygiene import (
    clean,
    clean_reasoning,
    defects,
    unfinished_end,
    whole_sentences,
)

LABELS = {"check_drug_safety": "Drug Safety Report"}
INSTRUCTIONS = "Answer only from the numbered sources you are given, as a list of statements."


def test_clean_removes_reasoning_turn_tokens_links_and_tool_names() -> None:
    raw = (
        "<think>call check_drug_safety</think>See the `check_drug_safety` result "
        "[3](https://evil.example) at www.example.org.<|im_end|>"
    )
    assert clean(raw, LABELS) == "See the Drug Safety Report result at"


def test_reasoning_keeps_its_words_without_delimiters_or_tool_names() -> None:
    text = clean_reasoning("<think>first check_drug_safety<|im_end|>", LABELS)
    assert text == "first Drug Safety Report"


def test_defects() -> None:
    q = "What is croup?"
    assert defects("", question=q) == ["empty"]
    assert defects(
        "Answer only from the numbered sources you are given, as a list.",
        question=q,
        instructions=INSTRUCTIONS,
    ) == ["repeats its instructions"]
    assert "repeats itself" in defects("croup is a viral illness of children " * 3, question=q)
    assert defects("Croup は bloodstream に", question=q) == ["text in an unexpected script"]
    assert defects("Traceback: ValueError: bad", question=q) == ["raw error text"]
    assert defects("β-blockers at 5 µg are fine.", question=q) == []
    assert defects("Крупа is croup.", question="Что такое Крупа?") == []


def test_an_unfinished_long_text_ends_at_its_last_sentence() -> None:
    text = "Croup is common. " * 15 + "It usually"
    assert unfinished_end(text).endswith("Croup is common.")
    assert unfinished_end("Short and bare") == "Short and bare"


def test_whole_sentences_drops_a_cut_off_tail_or_everything_when_none_is_whole() -> None:
    assert whole_sentences("Croup is common. It causes a barking") == "Croup is common."
    assert whole_sentences("It causes a barking") == ""
    assert whole_sentences("Croup is common.") == "Croup is common."


def test_a_text_ending_on_an_article_or_joining_word_broke_off() -> None:
    assert "breaks off mid-phrase" in defects("A stiff neck, drowsiness, and a.", question="")
    assert "breaks off mid-phrase" in defects("Give it with", question="")
    assert not defects("Vaccinate against hepatitis A.", question="")
