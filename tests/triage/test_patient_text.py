"""What the patient reads: internals removed, red-flag advice first, one question last."""

from __future__ import annotations

from docgemma.severity import Severity
from docgemma.triage.patient_text import DEFAULT_QUESTION, clean_reply, compose
from docgemma.triage.red_flags import check


def test_clean_reply_drops_internals_and_tags():
    text = (
        "I'm sorry to hear that. The retrieved page scored 0.82. This may be a cold. "
        "<|im_start|>answer The model thinks so. Rest and drink fluids."
    )
    assert clean_reply(text) == "I'm sorry to hear that. This may be a cold. Rest and drink fluids."


def test_clean_reply_drops_echoed_prompt_scaffolding():
    echoed = (
        "Call 999. Key facts from the condition information: No single condition matched; "
        "give general advice. Urgency: A&E. Please stay calm."
    )
    assert clean_reply(echoed) == "Call 999. Please stay calm."


def test_compose_puts_red_flag_advice_first_and_ends_with_a_question():
    fired = check("crushing chest pain and short of breath")
    text = compose("This sounds worrying.", Severity.A_AND_E, fired)
    assert text.startswith("Call 999 now: chest pain")
    assert "This sounds worrying." in text and text.endswith(DEFAULT_QUESTION)
    kept = compose("Rest at home. Is it worse at night?", Severity.SELF_CARE, [])
    assert kept == f"Rest at home. {Severity.SELF_CARE.action} Is it worse at night?"
    assert compose("", None, []) == DEFAULT_QUESTION


def test_compose_opens_with_a_newer_rows_advice():
    fired = check("my waters broke and I can see the cord coming out")
    assert [f.rule_id for f in fired] == ["cord_prolapse"]
    text = compose("Stay calm.", Severity.A_AND_E, fired)
    assert text.startswith("Call 999 now and say the cord is showing")
