"""Every statement is held to a quote found in a source it cites (``answer.statements``)."""

from __future__ import annotations

import pytest

from docgemma.agent.answer.sources import Passage
from docgemma.agent.answer.statements import (
    CitedAnswer,
    Statement,
    check,
    normalise,
    opposite,
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


def test_the_answer_type_is_bounded() -> None:
    check_bounded(CitedAnswer)


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


def test_a_unit_written_with_a_superscript_holds_the_same_number() -> None:
    chart = Passage(3, "EHR summary", "Latest labs: eGFR 31 mL/min/1.73 m² (2026-10-02)", "ehr")
    s = said("Her latest eGFR is 31 mL/min/1.73 m2.", "eGFR 31 mL/min/1.73 m²", [3])
    assert check(s, [chart], "What's her latest GFR?").ok
    wrong = said("Her latest eGFR is 31 mL/min/1.73 m3.", "eGFR 31 mL/min/1.73 m²", [3])
    assert "3" in check(wrong, [chart], "What's her latest GFR?").failure


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


def test_a_quote_that_holds_less_than_half_the_statement_fails() -> None:
    s = said("Monitor anti-Xa levels in renal impairment.", "1 mg/kg subcutaneously", [1])
    checked = check(s, [LABEL], "monitoring?")
    assert not checked.ok and checked.failure == "its quote does not say it"
    enough = said("Monitor anti-Xa levels in renal impairment.", "Monitor anti-Xa levels", [1])
    assert check(enough, [LABEL], "enoxaparin in renal impairment?").ok


def test_citation_markers_the_model_wrote_are_removed_from_the_statement() -> None:
    s = said("Croup gives a barking cough [2].", "A barking cough", [2])
    checked = check(s, [PAGE], "croup?")
    assert checked.ok and checked.statement.text == "Croup gives a barking cough."


@pytest.mark.parametrize(
    ("text", "quote", "ok"),
    [
        ("Warfarin is safe with ibuprofen: no interaction.", "warfarin + ibuprofen", False),
        ("There is no interaction with NSAIDs.", "Ibuprofen increases bleeding risk", False),
        ("It isn't advised in pregnancy.", "Ibuprofen increases bleeding risk", False),
        ("The combination is not recommended.", "Combination not recommended", True),
        ("Bleeding risk rises with ibuprofen.", "Ibuprofen increases bleeding risk", True),
        ("There is no antidote for ibuprofen.", "No interaction is listed here", False),
        ("No interaction is listed for warfarin.", "No interaction is listed here", True),
        ("Ibuprofen has no listed interaction.", "No interaction is listed here", True),
        # a missing entry is not a missing effect
        ("In practice warfarin never interacts with it.", "No interaction is listed here", False),
        ("There is no interaction with warfarin.", "No interaction is listed here", False),
    ],
)
def test_a_statement_denies_only_what_its_quote_denies(text: str, quote: str, ok: bool) -> None:
    source = Passage(
        1,
        "Interactions",
        "warfarin + ibuprofen. Combination not recommended. Ibuprofen increases bleeding risk. "
        "No interaction is listed here.",
    )
    checked = check(said(text, quote, [1]), [source], "Does warfarin interact with ibuprofen?")
    assert checked.ok is ok
    assert ok or checked.failure == "it denies what its quote does not"


def test_a_statement_that_only_restates_the_question_fails() -> None:
    s = said("When should a child with croup see a doctor?", "A barking cough", [2])
    checked = check(s, [PAGE], "When should a child with croup see a doctor?")
    assert not checked.ok and checked.failure == "it only restates the question"
    chart = Passage(3, "Patient record", "Latest labs: INR 2.6 (2025-05-29); potassium 4.1 mmol/L")
    value = said("The patient's INR is 2.6.", "Latest labs: INR 2.6 (2025-05-29);", [3])
    assert check(value, [chart], "What is her current INR?").ok  # the value is what it adds


def test_a_tools_own_source_markers_are_not_words_of_the_source() -> None:
    assert quote_in("the risk of bleeding rises", "[1] Label: the risk [2] of bleeding rises.")


def test_a_statement_that_only_names_its_quotes_label_says_nothing() -> None:
    chart = Passage(
        4, "EHR chart", "Active medications: spironolactone 25 mg once daily; lisinopril 10 mg"
    )
    quote = "Active medications: spironolactone 25 mg once daily; lisinopril 10 mg"
    empty = check(said("The patient's active medications.", quote, [4]), [chart], "Her meds?")
    assert "not what it says" in empty.failure
    told = said("She takes spironolactone and lisinopril.", quote, [4])
    assert check(told, [chart], "Is her potassium a problem with her meds?").ok
    dose = said("Her spironolactone dose is 25 mg once daily.", quote, [4])
    assert check(dose, [chart], "Her meds?").ok


def test_opposites_are_the_same_words_with_a_negation_in_one_only() -> None:
    denied = "Ibuprofen should not be taken with aspirin."
    assert opposite(denied, "Ibuprofen is taken with aspirin.")
    assert not opposite(denied, "Avoid ibuprofen.")
    assert not opposite("No interaction is listed.", "No interaction is listed.")
    assert not opposite("Not", "")


SPIRONOLACTONE = Passage(
    3,
    "FDA drug label: Aldactone / spironolactone",
    "Contraindications: hyperkalaemia, Addison's disease, anuria. Warnings: hyperkalaemia may "
    "occur with impaired renal function; monitor serum potassium.",
    "label",
)


@pytest.mark.parametrize(
    ("text", "quote", "kept"),
    [
        # a condition named from elsewhere in the label turns a contraindication into advice
        (
            "Hyperkalaemia may occur in Addison's disease; monitor serum potassium.",
            "hyperkalaemia may occur with impaired renal function; monitor serum potassium",
            False,
        ),
        (
            "Hyperkalaemia may occur with impaired renal function; monitor serum potassium.",
            "hyperkalaemia may occur with impaired renal function; monitor serum potassium",
            True,
        ),
        # the brand in the source's title may be named, and so may a sentence's first word
        (
            "The Aldactone label says to monitor serum potassium.",
            "hyperkalaemia may occur with impaired renal function; monitor serum potassium",
            True,
        ),
        (
            "Spironolactone is contraindicated in Addison's disease.",
            "Contraindications: hyperkalaemia, Addison's disease, anuria.",
            True,
        ),
    ],
)
def test_a_name_mid_sentence_comes_from_the_quote_or_the_sources_title(
    text: str, quote: str, kept: bool
) -> None:
    checked = check(said(text, quote, [3]), [SPIRONOLACTONE], "Spironolactone and potassium?")
    assert checked.ok is kept, checked.failure
    if not kept:
        assert checked.failure == "it names Addison's, which its quote does not"


def test_an_interaction_level_holds_what_it_asks_so_a_plain_statement_of_it_stands():
    """The thesaurus line a statement quotes says the level, what it asks and why: "must not
    be used together because of …" rests on it, where the level's name alone held nothing
    the statement could share."""
    from docgemma.tools.ansm import thesaurus
    from docgemma.tools.interactions import graded_lines

    ansm = thesaurus()
    found = ansm.interactions(ansm.resolve("clarithromycin"), ansm.resolve("simvastatin"))
    text = "\n".join(graded_lines(found))
    [level_line] = [line for line in text.splitlines() if "Contraindicated" in line]
    quote = level_line.strip().removeprefix("- ").split(", because of:")[0] + ","
    statement = Statement(
        sources=[1],
        quote=quote,
        text="Clarithromycin and simvastatin must never be used together.",
    )
    passages = [Passage(n=1, title="ANSM thesaurus", text=text)]
    assert check(statement, passages, "Does clarithromycin interact with simvastatin?").ok


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("Clarithromycin is safe to give with simvastatin.", False),
        ("Clarithromycin with simvastatin is fine if monitored.", False),
        ("Clarithromycin with simvastatin is contraindicated.", True),
        ("Clarithromycin with simvastatin is recommended.", False),  # the quote's "not"
    ],
)
def test_a_verdict_is_the_quotes(text: str, ok: bool) -> None:
    quote = (
        "clarithromycin + simvastatin is contraindicated and not recommended, a raised risk of "
        "rhabdomyolysis."
    )
    source = Passage(1, "Interactions", quote)
    checked = check(said(text, quote, [1]), [source], "Clarithromycin with simvastatin?")
    assert checked.ok is ok
    assert ok or checked.failure == "it judges what its quote does not"


def test_a_label_naming_safety_is_no_verdict_but_a_statement_calling_it_safe_is() -> None:
    quote = "Avoid use of NSAIDs in pregnant women at about 30 weeks gestation"
    label = Passage(1, "FDA drug label: ibuprofen", quote, label="Drug Safety Report")
    question = "Ibuprofen in pregnancy?"
    named = check(said("The Drug Safety Report says to avoid NSAIDs at 30 weeks.", quote, [1]),
                  [label], question)  # fmt: skip
    assert named.ok
    unsafe = check(said("Ibuprofen is safe in pregnant women before 30 weeks.", quote, [1]),
                   [label], question)  # fmt: skip
    assert unsafe.failure == "it judges what its quote does not"


@pytest.mark.parametrize(
    ("text", "quote", "ok"),
    [
        (
            "No interaction of these drugs is found in the reference, so they do not interact.",
            "No interaction between these drugs is listed in this reference.",
            False,
        ),
        (
            "Do not combine these drugs.",
            "Cases of bleeding have been reported; do not combine these drugs.",
            True,
        ),
    ],
)
def test_a_denial_of_record_is_read_clause_by_clause(text: str, quote: str, ok: bool) -> None:
    source = Passage(1, "Interactions", quote)
    checked = check(said(text, quote, [1]), [source], "Warfarin with aspirin?")
    assert checked.ok is ok
