"""The quotes an answer may use are the shown sources' own sentences (``answer.quotes``)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from docgemma.agent.answer.quotes import (
    MAX_QUOTES,
    answer_schema,
    ascii_form,
    attributed,
    quotables,
    resolved,
    sentences,
)
from docgemma.agent.answer.sources import PASSAGE_CHARS, Passage, gather
from docgemma.agent.answer.statements import MIN_QUOTE_WORDS, QUOTE_CHARS, Statement, check
from docgemma.llm.grammar import gbnf
from docgemma.llm.schema import check_bounded, schema_key_order, token_budget

from ..fakes import tool_result

LABEL = Passage(
    1,
    "FDA drug label: enoxaparin",
    "Dosage\nGive 1 mg/kg subcutaneously once daily when CrCl is < 30 mL/min. "
    "Monitor anti-Xa levels in renal impairment.\n- Avoid in active major bleeding",
    "label",
)
INTERACTION = Passage(
    2,
    "Interaction check",
    "[1] Enoxaparin + aspirin: the combination increases the risk of bleeding in elderly "
    "patients, in those with renal impairment, and in those on other antiplatelet drugs "
    "such as clopidogrel, prasugrel or ticagrelor, so monitor closely for signs of "
    "bleeding and stop one of them if bleeding occurs.\nMonitor anti-Xa levels in renal "
    "impairment.",
)


def test_sentences_and_list_items_are_offered_without_markers_or_headings() -> None:
    offered = [q.text for q in quotables([LABEL])]
    assert offered == [
        "Give 1 mg/kg subcutaneously once daily when CrCl is < 30 mL/min.",
        "Monitor anti-Xa levels in renal impairment.",
        "Avoid in active major bleeding",
    ]
    assert all(len(q.split()) >= MIN_QUOTE_WORDS for q in offered)


def test_a_long_sentence_is_offered_as_its_clauses_each_within_the_quote_length() -> None:
    pieces = sentences(INTERACTION.text)
    assert len(pieces) > 2 and all(len(p) <= QUOTE_CHARS for p in pieces)
    assert " ".join(pieces[:-1]) == " ".join(INTERACTION.text.split("\n")[0][4:].split())
    unbroken = "word " * 80
    assert all(len(p) <= QUOTE_CHARS for p in sentences(unbroken))


def test_a_sentence_in_two_sources_cites_both() -> None:
    both = [q for q in quotables([LABEL, INTERACTION]) if q.text.startswith("Monitor")]
    assert [q.sources for q in both] == [(1, 2)]


def test_only_the_part_of_a_source_the_prompt_shows_is_offered() -> None:
    long = Passage(3, "Page", "Heart failure is common. " * (PASSAGE_CHARS // 10) + "Hidden tail.")
    offered = quotables([long])
    assert [q.text for q in offered] == ["Heart failure is common."]


def test_the_number_of_choices_is_bounded() -> None:
    many = Passage(4, "Many", " ".join(f"Fact number {n} holds." for n in range(500)))
    assert len(quotables([many])) <= MAX_QUOTES


def test_choices_are_printable_ascii_and_map_back_to_the_source_words() -> None:
    page = Passage(5, "Page", "Give ≥ 5 µg/kg — “slowly” if the temperature is 38 °C.")
    [quote] = quotables([page])
    assert quote.choice == "Give >= 5 ug/kg - 'slowly' if the temperature is 38 degrees C."
    assert quote.text == page.text
    assert ascii_form("Hyperkaliémie") == "Hyperkaliemie"


def test_the_answer_schema_admits_only_offered_quotes_before_the_statement() -> None:
    choices = quotables([LABEL])
    schema = answer_schema(choices)
    check_bounded(schema)
    assert schema.__name__ == "CitedAnswer" and token_budget(schema) > 0
    item = schema.model_fields["statements"].annotation.__args__[0]
    assert schema_key_order(item) == ["quote", "text"]
    grammar = gbnf(schema)
    assert all(f'"\\"{q.choice}\\""' in grammar for q in choices)
    with pytest.raises(ValidationError):
        schema.model_validate({"statements": [{"quote": "Give 10 mg/kg", "text": "Give 10."}]})
    with pytest.raises(ValueError):
        answer_schema([])


def test_a_chosen_quote_is_resolved_to_its_words_and_sources_and_passes_the_check() -> None:
    choices = quotables([LABEL, INTERACTION])
    schema = answer_schema(choices)
    said = schema.model_validate(
        {
            "statements": [
                {
                    "quote": "Monitor anti-Xa levels in renal impairment.",
                    "text": "In renal impairment, monitor anti-Xa levels.",
                }
            ]
        }
    )
    [statement] = resolved(said, choices).statements
    assert statement.sources == [1, 2]
    assert check(statement, [LABEL, INTERACTION], "enoxaparin in renal impairment?").ok


def test_a_statement_pointing_at_the_wrong_sentence_is_held_to_the_one_that_says_it() -> None:
    choices = quotables([LABEL, INTERACTION])
    text = "Aspirin with enoxaparin increases the risk of bleeding."
    heading = Statement(sources=[1], quote=choices[0].text, text=text)
    checked = attributed(heading, choices, [LABEL, INTERACTION], "enoxaparin and aspirin?")
    assert checked.ok and checked.cited == (2,)
    assert checked.statement.quote.startswith("Enoxaparin + aspirin: the combination increases")


def test_a_statement_no_offered_sentence_holds_keeps_its_own_failure() -> None:
    choices = quotables([LABEL])
    wrong = Statement(sources=[1], quote=choices[0].text, text="Give 10 mg/kg once daily.")
    checked = attributed(wrong, choices, [LABEL], "enoxaparin dose?")
    assert not checked.ok and "10" in checked.failure and checked.statement.quote == choices[0].text


def test_the_heading_every_source_of_a_result_repeats_is_not_offered() -> None:
    pages = tool_result(
        "search_knowledge_base",
        "Condition pages on croup (demonstration content, not medical advice.):\n"
        "[1] Croup page\n    Croup causes a barking cough.\n"
        "[2] Cold page\n    A cold causes a runny nose.",
        sources=[{"title": "Croup page"}, {"title": "Cold page"}],
    )
    offered = {q.text: q.sources for q in quotables(gather([pages]))}
    assert not any("demonstration" in q for q in offered)
    assert offered["Croup causes a barking cough."] == (1,)
    assert offered["A cold causes a runny nose."] == (2,)


def test_a_long_list_line_of_a_chart_is_cut_between_its_items() -> None:
    labs = "; ".join(f"Lab{n} {n}.{n} mmol/L (2026-10-0{n % 9 + 1})" for n in range(12))
    chart = Passage(6, "Patient record", f"Allergies: penicillin\nLatest labs: {labs}")
    offered = [q.text for q in quotables([chart])]
    assert offered[0] == "Allergies: penicillin"
    assert all(p.endswith(";") or p.endswith(")") for p in offered[1:])


def test_only_what_a_tool_marked_citable_is_offered_not_its_notes_on_provenance() -> None:
    checked = tool_result(
        "check_drug_interactions",
        "Interaction check for: naproxen, lisinopril.\n"
        "Graded interactions — ANSM thesaurus, translated from French:\n"
        "- naproxen + lisinopril. Effect: acute kidney injury in patients at risk.\n"
        "FDA labels could not be consulted: openFDA timed out. The graded interactions "
        "above come from the offline ANSM reference alone.",
        sources=[{"title": "ANSM interaction thesaurus"}],
        passages=[
            {
                "source": 0,
                "section": "Graded interactions",
                "text": "- naproxen + lisinopril. Effect: acute kidney injury in patients at risk.",
            }
        ],
    )
    offered = [q.text for q in quotables(gather([checked]))]
    assert offered == ["naproxen + lisinopril.", "Effect: acute kidney injury in patients at risk."]


def test_a_result_that_marks_nothing_citable_offers_nothing_but_one_that_marks_none_all() -> None:
    text = "Label of drugx.\nThe label lists none of the sections asked about."
    marked = tool_result("check_drug_safety", text, sources=[{"title": "L"}], passages=[])
    unmarked = tool_result("get_patient_chart", "Allergies: penicillin.\nAge 64 years.")
    assert quotables(gather([marked])) == []
    assert [q.text for q in quotables(gather([unmarked]))] == [
        "Allergies: penicillin.",
        "Age 64 years.",
    ]


def test_a_citable_part_the_prompt_does_not_show_is_not_offered() -> None:
    tail = "Hidden finding beyond the shown head of the source."
    long = tool_result(
        "check_drug_safety",
        f"{'Filler words here. ' * 120}\n{tail}",
        sources=[{"title": "L"}],
        passages=[{"source": 0, "section": "S", "text": tail}],
    )
    assert quotables(gather([long])) == []
