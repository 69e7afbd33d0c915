"""Every statement is held to a quote found in a source it cites (``answer.statements``)."""

from __future__ import annotations

import pytest

from docgemma.agent.answer.sources import Passage
from docgemma.agent.answer.statements import (
    CitedAnswer,
    Statement,
    check,
    normalise,
    quote_in,
    word_share,
)
from docgemma.llm.schema import check_bounded

LABEL = Passage(
    1,
    "FDA drug label: enoxaparin",
    "Dosage: 1 mg/kg subcutaneously once daily when creatinine clearance is below "
    "30 mL/min. Monitor anti-Xa levels in renal impairment.",
    "label",
)
PAGE = Passage(
    2, "Croup — demonstration page", "A barking cough and a hoarse voice, worse at night."
)


def said(text: str, quote: str, sources: list[int]) -> Statement:
    return Statement(sources=sources, quote=quote, text=text)


def test_the_schema_is_bounded_and_orders_sources_and_quote_before_the_statement() -> None:
    check_bounded(CitedAnswer)
    assert list(Statement.model_fields) == ["sources", "quote", "text"]


def test_normalising_folds_case_accents_unicode_punctuation_and_spacing() -> None:
    assert (
        normalise("  Hyperkaliémie —  RISK\u00a0of “bleeding”! ")
        == "hyperkaliemie risk of bleeding"
    )
    assert normalise("ﬁrst-line") == "first line"


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        ("1 mg/kg subcutaneously once daily", True),
        ("1 MG/KG  subcutaneously,\nonce daily", True),  # case, spacing, punctuation
        ("once daily … anti-Xa levels", True),  # pieces joined by an ellipsis
        ("10 mg/kg/day", False),
        ("once", False),  # one word proves nothing
        ("daily when creat", False),  # words are whole words
    ],
)
def test_a_quote_is_found_only_as_the_source_wrote_it(quote: str, found: bool) -> None:
    assert quote_in(quote, LABEL.text) is found


def test_a_statement_whose_quote_is_in_its_source_passes() -> None:
    s = said(
        "In severe renal impairment give 1 mg/kg once daily.",
        "1 mg/kg subcutaneously once daily",
        [1],
    )
    checked = check(s, [LABEL, PAGE], "enoxaparin dose in renal impairment?")
    assert checked.ok and checked.cited == (1,)


def test_a_quote_from_another_source_than_the_one_cited_fails() -> None:
    s = said("Croup causes a barking cough.", "A barking cough", [1])
    checked = check(s, [LABEL, PAGE], "croup?")
    assert not checked.ok and "not in source [1]" in checked.failure


def test_a_statement_citing_no_given_source_fails() -> None:
    assert not check(said("Croup causes a barking cough.", "A barking cough", [7]), [PAGE], "").ok


def test_a_number_that_is_not_in_the_quote_fails_even_if_the_quote_is_real() -> None:
    s = said("Give 10 mg/kg once daily.", "1 mg/kg subcutaneously once daily", [1])
    checked = check(s, [LABEL], "enoxaparin dose?")
    assert not checked.ok and "10" in checked.failure


def test_numbers_from_the_question_may_be_restated() -> None:
    s = said(
        "With a creatinine clearance of 20 mL/min, give 1 mg/kg once daily.",
        "1 mg/kg subcutaneously once daily",
        [1],
    )
    assert check(s, [LABEL], "dose at a creatinine clearance of 20 mL/min?").ok


def test_a_statement_made_of_what_its_source_does_not_say_fails() -> None:
    s = said(
        "Enoxaparin inhibits hepatic gluconeogenesis via mitochondrial complex blockade.",
        "Monitor anti-Xa levels",
        [1],
    )
    checked = check(s, [LABEL], "mechanism of enoxaparin?")
    assert not checked.ok and "its sources do not" in checked.failure
    assert word_share("Monitor anti-Xa levels in renal impairment", LABEL.text) == 1.0


def test_a_quote_unrelated_to_its_statement_fails() -> None:
    s = said("Monitor anti-Xa levels in renal impairment.", "1 mg/kg subcutaneously", [1])
    checked = check(s, [LABEL], "monitoring?")
    assert not checked.ok and "not about what it says" in checked.failure


def test_citation_markers_the_model_wrote_are_removed_from_the_statement() -> None:
    s = said("Croup gives a barking cough [2].", "A barking cough", [2])
    checked = check(s, [PAGE], "croup?")
    assert checked.ok and checked.statement.text == "Croup gives a barking cough."
