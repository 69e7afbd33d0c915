"""Citations, sources and notices in the final answer."""

from __future__ import annotations

import pytest

from docgemma.agent.outcome import ApprovalRequest, TurnResult
from docgemma.tools.base import Source
from docgemma.ui.patients import PatientMatch
from docgemma.ui.render import (
    FALLBACK_NOTICE,
    answer_markdown,
    approval_card,
    headings_apart,
    link_citations,
)

SOURCES = [
    Source(title="A trial", url="https://clinicaltrials.gov/study/NCT1", kind="trial"),
    Source(title="Chart", kind="ehr"),
]


def test_citations_link_only_to_known_sources_with_urls():
    text = link_citations("See [1], [2] and [3]; [x](y) stays.", SOURCES)
    assert text == "See [[1]](https://clinicaltrials.gov/study/NCT1), [2] and [3]; [x](y) stays."


def test_answer_lists_sources_and_notices():
    result = TurnResult(
        final_response="Answer [1].",
        sources_used=SOURCES,
        notices=["Message truncated."],
        fallback_used=True,
    )
    md = answer_markdown(result)
    assert md.startswith("> ℹ️ Message truncated.") and FALLBACK_NOTICE in md
    assert "1. [A trial](https://clinicaltrials.gov/study/NCT1)" in md and "2. Chart" in md


@pytest.mark.parametrize(
    ("level", "words"),
    [("high", "grounded in the sources"), ("medium", "in part"), ("low", "verify before acting")],
)
def test_the_answer_states_its_confidence(level, words):
    md = answer_markdown(TurnResult(final_response="Answer [1].", confidence_level=level))
    answer, confidence = md.split("\n\n")[:2]
    assert answer == "Answer [1]." and f"Confidence: **{level}**" in confidence
    assert words in confidence


def test_the_confidence_gives_the_reason_code_derived_not_a_generic_one():
    result = TurnResult(
        final_response="The sources I found do not answer this question.",
        confidence_level="low",
        confidence_reason="not grounded in a source",
    )
    confidence = answer_markdown(result).split("\n\n")[1]
    assert confidence == "_Confidence: **low** (not grounded in a source)_"
    assert "memory" not in confidence and "knowledge" not in confidence


def test_a_question_back_claims_no_confidence():
    asked = TurnResult(final_response="Which patient?", clarification_requested=True)
    assert "Confidence" not in answer_markdown(asked)


def test_empty_answer_is_visible():
    assert "_(no answer)_" in answer_markdown(TurnResult(final_response=" "))


def test_approval_card_shows_fields_and_the_promise():
    req = ApprovalRequest(
        tool="prescribe_medication",
        tool_label="Prescription",
        summary="Metformin for J",
        args={"medication_name": "metformin", "dosage": "500 mg", "notes": None},
        idempotency_key="k",
    )
    card = approval_card(req, req.args, edited=True)
    assert "| Medication name | metformin |" in card and "Notes" not in card
    assert "(edited)" in card and "until you press **Approve**" in card


def test_a_correction_card_names_the_entry_it_replaces_as_plain_text():
    req = ApprovalRequest(
        tool="prescribe_medication",
        tool_label="Prescription",
        summary="Prescription: atorvastatin, 20 mg",
        args={"medication_name": "atorvastatin", "dosage": "20 mg"},
        idempotency_key="k",
        replaces="Prescription: atorvastatin, 40 mg <b>",
    )
    card = approval_card(req, req.args, edited=False)
    assert "**Replaces** the saved Prescription: atorvastatin, 40 mg" in card
    assert "entered in error" in card and "<b>" not in card
    plain = req.model_copy(update={"replaces": None})
    assert "Replaces" not in approval_card(plain, plain.args, edited=False)


def test_approval_card_names_the_patient_beside_the_id():
    req = ApprovalRequest(
        tool="prescribe_medication",
        tool_label="Prescription",
        summary="Metformin",
        args={"patient_id": "abc-123", "medication_name": "metformin"},
        idempotency_key="k",
    )
    who = PatientMatch(id="abc-123", name="John Smith", birth_date="1958-04-12")
    card = approval_card(req, req.args, edited=False, patient=who)
    assert "| Patient id | **John Smith**, born 1958-04-12 (`abc-123`) |" in card
    other = PatientMatch(id="someone-else", name="Jane Doe")
    assert "Jane Doe" not in approval_card(req, req.args, edited=False, patient=other)
    assert "| Patient id | abc-123 |" in approval_card(req, req.args, edited=False)


def test_the_card_shows_every_field_of_the_record_and_the_chart_check():
    from docgemma.tools.args import PrescribeMedicationArgs
    from docgemma.tools.write_review import Finding, WriteReview
    from docgemma.ui.card_review import NOT_GIVEN

    review = WriteReview(
        checked="Checked against the chart of Jo Roe (jr-001): 1 active medication (warfarin).",
        findings=[
            Finding(kind="renal", severity="info", title="Latest eGFR: 52 (2025-01-02)"),
            Finding(
                kind="interaction",
                severity="warning",
                title="warfarin (in the chart) with an antibiotic: check the INR",
                detail='"De nombreux cas …"',
                source="ANSM",
            ),
        ],
    )
    args = {
        "patient_id": "jr-001",
        "medication_name": "doxycycline",
        "dosage": "100 mg",
        "frequency": "twice daily",
    }
    req = ApprovalRequest(
        tool="prescribe_medication",
        tool_label="Prescription",
        summary="Doxycycline",
        args=args,
        idempotency_key="k",
        review=review,
    )
    card = approval_card(req, args, edited=False, fields=PrescribeMedicationArgs.model_fields)
    for field in ("Route", "Duration", "Notes"):
        assert f"| {field} | {NOT_GIVEN} |" in card  # empty, and said to be
    assert "| Frequency | twice daily |" in card
    check = card.split("| Field |")[0]
    assert "**Chart check.** Checked against the chart of Jo Roe \\(jr-001\\)" in check
    warning, info = check.index("check the INR"), check.index("Latest eGFR")
    assert warning < info and "⚠️ **Warning**" in check and "*(ANSM)*" in check
    edited = approval_card(req, args, edited=True, fields=PrescribeMedicationArgs.model_fields)
    assert "Chart check (of the proposal as first made)" in edited


LIST_THEN_HEADINGS = (
    "Options:\n1. Rest\n2. Fluids\n**When to seek help**\nIf it gets worse.\n\n"
    "1. Paracetamol\n   ### Follow-up\nSee the GP."
)


def test_a_heading_after_a_numbered_list_starts_its_own_block():
    md = answer_markdown(TurnResult(final_response=LIST_THEN_HEADINGS))
    assert "2. Fluids\n\n**When to seek help**\n" in md
    assert "1. Paracetamol\n\n### Follow-up\n" in md
    markdown_it = pytest.importorskip("markdown_it")
    page = markdown_it.MarkdownIt("commonmark").render(md)
    assert "<li>Fluids</li>" in page and "<li>Paracetamol</li>" in page
    assert "<p><strong>When to seek help</strong>" in page and "<h3>Follow-up</h3>" in page


def test_headings_in_code_and_headed_text_stay_as_written():
    code = "```\n1. step\n# a comment\n```"
    assert headings_apart(code) == code
    assert headings_apart("## Dose\n\nText") == "## Dose\n\nText"
    assert headings_apart("Text\n#hashtag") == "Text\n#hashtag"
