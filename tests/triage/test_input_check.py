"""Bad input before the graph: language, length, emptiness."""

from __future__ import annotations

import pytest

from docgemma.triage.input_check import check_input, looks_english


def test_input_check_truncates_and_flags():
    checked = check_input("x" * 50, max_chars=10)
    assert checked.text == "x" * 10 and "only the first 10" in checked.notices[0]
    assert check_input("  \n ", max_chars=10).empty


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("I have had a headache since yesterday", True),
        ("sore throat", True),
        ("J'ai mal à la tête depuis hier", False),
        ("Tengo dolor de cabeza y fiebre", False),
        ("Ich habe seit gestern Kopfschmerzen und Fieber", False),
        ("У меня болит голова", False),
        ("头痛发烧", False),
        ("paracetamol 500mg?", True),
    ],
)
def test_language_check(text, english):
    assert looks_english(text) is english
