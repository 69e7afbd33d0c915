"""The deterministic answer check: junk a small model writes is caught, good answers pass."""

from __future__ import annotations

import pytest

from docgemma.agent.answer_check import (
    Defect,
    Findings,
    check_answer,
    drop_unfinished_end,
    is_degenerate,
    trim_to_last_sentence,
)
from docgemma.agent.nodes.synthesize import PROMPT_MARKERS
from docgemma.agent.prompts import SYNTHESIZE_SYSTEM
from docgemma.tools.registry import build_registry

INSTRUCTIONS = SYNTHESIZE_SYSTEM.render()
TOOLS = ("check_drug_safety", "search_patient", "find_clinical_trials")
LONG_CUT = (
    "Metformin is the usual first-line drug for type 2 diabetes because it lowers glucose "
    "without weight gain or hypoglycaemia, is inexpensive and has decades of outcome data. "
    "Start at 500 mg once daily with food and increase gradually to limit gastrointestinal "
    "effects, and the dose should be reduced when the eGFR falls below"
)


def check(answer: str, question: str = "What is the first-line treatment for type 2 diabetes?"):
    return check_answer(
        answer,
        question=question,
        instructions=INSTRUCTIONS,
        markers=PROMPT_MARKERS,
        tool_names=TOOLS,
        context="[Medical Literature]\nPubMed record; see ClinicalTrials.gov NCT01234567",
    )


@pytest.mark.parametrize(
    ("answer", "defect"),
    [
        (  # "Check FDA warnings for dofetilide" offline, on the smallest model
            "Guidelines: Clinician's question: Check FDA warnings for dofetilide\n"
            "No information was retrieved. mendatang LoginPage",
            Defect.PROMPT_ECHO,
        ),
        ("No information was retrieved. mendatang LoginPage", Defect.CODE_TOKEN),
        (  # a type 2 diabetes answer
            "Metformin lowers glucose in the bloodstream に通いroom.",
            Defect.FOREIGN_SCRIPT,
        ),
        ("Варфарин is an anticoagulant.", Defect.FOREIGN_SCRIPT),
        ("Warfarin ยา increases bleeding.", Defect.FOREIGN_SCRIPT),
        ("Metformin ＯＫ", Defect.FOREIGN_SCRIPT),
        (  # the base model echoing its system prompt, re-wrapped
            "You are a clinical decision-support assistant. Provide a clear, concise response "
            "to the clinician based on the information below.",
            Defect.PROMPT_ECHO,
        ),
        ("Clinical context: warfarin and bleeding.", Defect.PROMPT_ECHO),
        (
            "Warfarin increases bleeding risk.\nAvoid NSAIDs.\nWarfarin increases bleeding risk.",
            Defect.REPETITION,
        ),
        ("the dose the dose the dose the dose the dose the dose " * 3, Defect.REPETITION),
        (  # a small model on anaphylaxis: the loop numbers each copy anew
            "Anaphylaxis is managed by:\n1. Administering epinephrine\n"
            "2. Administering intravenous fluids\n3. Administering oxygen\n"
            "4. Administering antihistamines\n5. Administering intravenous fluids\n"
            "6. Administering oxygen",
            Defect.REPETITION,
        ),
        ("I used check_drug_safety to look this up.", Defect.TOOL_NAME),
        ("Searching for patient_name in the record.", Defect.CODE_TOKEN),
        ("Then call getPatientChart for the labs.", Defect.CODE_TOKEN),
        ("Traceback (most recent call last): ConnectionError: refused", Defect.RAW_ERROR),
        ("The service returned HTTP 503.", Defect.RAW_ERROR),
        ('{"drug_name": "warfarin"}', Defect.RAW_ERROR),
        ("", Defect.EMPTY),
        ("  \n* ", Defect.EMPTY),
        (LONG_CUT, Defect.CUT_OFF),
    ],
)
def test_junk_is_caught(answer: str, defect: Defect) -> None:
    verdict = check(answer)
    assert defect in verdict.defects and not verdict.ok
    assert defect.value in verdict.reason()


@pytest.mark.parametrize(
    "answer",
    [
        "Metformin is the usual first-line drug for type 2 diabetes, with lifestyle changes, "
        "unless contraindicated (eGFR below 30 mL/min/1.73 m²).",
        "FDA label data is unavailable offline, so dofetilide's warnings cannot be listed here. "
        "Check the label when a connection is available.",
        "β-blockers reduce mortality after myocardial infarction; the usual HbA1c target is "
        "below 7%.",
        "Give 500 µg (0.5 mg) in 1 ℓ; the 2º endpoint was met.",
        "Key points:\n- Monitor the INR weekly\n- Avoid NSAIDs\n- Check SpO2 and eGFR",
        "Ordered.",
        "A PubMed record and trial NCT01234567 on ClinicalTrials.gov support this.",
        "## Summary\nMetformin first; add an SGLT2 inhibitor in heart failure.",
        "One recruiting trial (NCT99000003) is listed on ClinicalTrials.gov.",
        "The image was not analysed: a vision-capable model such as MedGemma is needed.",
        "Source: DocGemma demonstration page: Urinary tract infection (cystitis).",
        "No trials were found in the ClinicalTrial Search.",  # three-05, a registry's name
        # direct-02's second draft, rejected in every run: a brand name is not code
        "1. Administering epinephrine (e.g., EpiPen) as soon as possible.",
        "Switch from NovoLog to HumaLog if needed.",
        LONG_CUT + " 45 mL/min.",
    ],
)
def test_good_answers_pass(answer: str) -> None:
    verdict = check(answer)
    assert verdict.ok, verdict.reason()


def test_degenerate_rate_helper_agrees_with_the_check() -> None:
    assert is_degenerate("bloodstream に通いroom", question="What is metformin?")
    assert not is_degenerate("Metformin lowers hepatic glucose output.", question="Metformin?")


def test_a_question_in_another_script_may_be_answered_in_it() -> None:
    question = "Что такое метформин?"
    assert check("Метформин — препарат для лечения диабета 2 типа.", question).ok


def test_a_cut_off_answer_is_ended_at_its_last_sentence() -> None:
    trimmed = trim_to_last_sentence(LONG_CUT)
    assert trimmed.endswith("outcome data.") and check(trimmed).ok
    assert trim_to_last_sentence("First point.\nThen the second and") == "First point."


@pytest.mark.parametrize(
    ("answer", "kept"),
    [
        (  # the token limit fell inside a list item, which the text alone cannot tell
            "Anaphylaxis is managed by:\n1. Epinephrine IM.\n2. Oxygen\n3. Administering intr",
            "Anaphylaxis is managed by:\n1. Epinephrine IM.\n2. Oxygen",
        ),
        ("Give naloxone. Repeat every two to", "Give naloxone."),
        (
            "Steps:\n1. Give epinephrine IM. Then start fluids and",
            "Steps:\n1. Give epinephrine IM.",
        ),
        ("Naloxone reverses an opioid overdose.", "Naloxone reverses an opioid overdose."),
        ("Cut in its only sentence", ""),
    ],
)
def test_an_answer_stopped_by_the_token_limit_loses_its_unfinished_end(answer, kept) -> None:
    assert drop_unfinished_end(answer) == kept


CHART_PROMPT = (
    "[Patient Record]\nLinda Chen (lchen-002): heart failure, CKD stage 3.\n"
    "[1] EHR chart of Linda Chen (lchen-002)"
)


@pytest.mark.parametrize(
    ("answer", "lists_only"),
    [
        ("[1] EHR chart of Linda Chen (lchen-002)", True),  # eval case chart-02
        ("[1] EHR chart of Linda Chen (lchen-002).", True),
        ("Linda Chen has heart failure and CKD stage 3 [1].", False),
        (
            "Linda Chen has heart failure and CKD stage 3.\n\n"
            "[1] EHR chart of Linda Chen (lchen-002)",
            False,
        ),
        ("[1] Linda Chen has heart failure and CKD stage 3.", False),  # a statement, not a copy
    ],
)
def test_an_answer_that_only_lists_its_sources_is_caught(answer: str, lists_only: bool) -> None:
    verdict = check_answer(
        answer, question="Pull up the record of patient lchen-002.", context=CHART_PROMPT
    )
    assert (Defect.ONLY_SOURCES in verdict.defects) is lists_only


FDA_CLAIMS = ("FDA", "boxed warning")  # the Drug Safety Report's ``claimed_by``


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        # offline: the label lookup failed and the interaction check answered
        (
            "The FDA boxed warnings for warfarin include:\n- Majoration du risque hémorragique.",
            True,
        ),
        (
            "The FDA label warnings for amiodarone are:\n- Augmentation of the risk of hemorrhage",
            True,
        ),
        ("For the interaction, the FDA labels did not provide warnings.", True),
        ("Warfarin carries a Boxed Warning for major bleeding.", True),
        ("The FDA label could not be retrieved. Aspirin with warfarin raises bleeding.", False),
        ("FDA boxed warnings for warfarin are unavailable offline.", False),
        ("FDA labels were not consulted (offline).", False),
        ("Aspirin with warfarin is contraindicated at anti-inflammatory doses.", False),
    ],
)
def test_an_answer_may_name_a_failed_source_only_to_say_it_is_missing(
    answer: str, claims: bool
) -> None:
    got = check_answer(answer, question="q", missing_claims=FDA_CLAIMS)
    assert (Defect.CLAIMS_MISSING_SOURCE in got.defects) is claims
    assert check_answer(answer, question="q").ok  # with every source answering, no defect


UNCHECKED = (("dofetilide", ("interact", "contraindicat", "graded")),)
"""The interaction check's ``claimed_by``, with the drug no reference listed."""


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        # offline, the thesaurus lacking dofetilide
        (
            "There is a graded interaction between dofetilide and azithromycin, which may "
            "prolong the QT interval.",
            True,
        ),
        ("Dofetilide interacts with azithromycin.", True),
        ("Azithromycin is contraindicated with Dofetilide.", True),
        ("Dofetilide is not in the available references, so its interactions were not "
         "checked.", False),
        ("The interactions of dofetilide could not be checked. Azithromycin and "
         "atorvastatin interact.", False),
        ("Dofetilide carries a boxed warning for QT prolongation.", False),  # not this source
        ("Azithromycin and atorvastatin have a graded interaction.", False),
    ],
    ids=["graded", "interacts", "contraindicated", "not-checked", "other-drugs", "other-claim",
         "checked-drugs"],
)  # fmt: skip
def test_an_answer_may_name_an_unchecked_drug_only_to_say_it_was_not_checked(
    answer: str, claims: bool
) -> None:
    got = check_answer(answer, question="q", unchecked=UNCHECKED)
    assert (Defect.CLAIMS_UNCHECKED in got.defects) is claims
    assert check_answer(answer, question="q").ok


SERTRALINE = Findings(
    (("sertraline", "sumatriptan"),), build_registry()["check_drug_interactions"].denied_by
)
"""The thesaurus grades sertraline + sumatriptan (serotonin syndrome)."""


@pytest.mark.parametrize(
    ("answer", "denies"),
    [
        ("Sertraline and sumatriptan do not interact.", True),  # recorded openFDA
        ("Sumatriptan doesn't interact with sertraline.", True),
        ("There is no known interaction between these drugs.", True),  # names neither
        ("They do not significantly interact.", True),
        ("No clinically significant interaction was found.", True),
        ("Yes, sertraline can be combined with sumatriptan safely.", True),
        ("It is safe to take sertraline with sumatriptan.", True),
        ("Sertraline and sumatriptan are compatible, but monitor.", True),  # eval case three-01
        ("Sertraline and sumatriptan interact: risk of serotonin syndrome.", False),
        ("Neither FDA label names the other drug.", False),
        ("Sertraline can not be combined with sumatriptan safely.", False),
        ("Sertraline and sumatriptan are not compatible.", False),
        ("Sertraline does not interact with metformin.", False),  # another pair
    ],
    ids=["do-not", "doesnt", "no-known", "pronoun", "no-clinically-significant", "safely",
         "safe-to-take", "compatible", "affirms",
         "label-silence", "can-not", "not-compatible", "another-pair"],
)  # fmt: skip
def test_an_answer_may_not_deny_what_a_source_found(answer: str, denies: bool) -> None:
    got = check_answer(answer, question="q", findings=(SERTRALINE,))
    assert (Defect.DENIES_FINDING in got.defects) is denies
    assert check_answer(answer, question="q").ok


DOFETILIDE = Findings(
    (("atorvastatin", "azithromycin"),),
    build_registry()["check_drug_interactions"].denied_by,
    others=("dofetilide",),
)
"""The thesaurus grades azithromycin + atorvastatin and does not list dofetilide."""


@pytest.mark.parametrize(
    ("answer", "denies"),
    [
        (  # in the app, the retry after a draft that claimed a dofetilide interaction
            "The interactions of dofetilide, azithromycin, and atorvastatin are not in the "
            "available references, so not checked for interactions.",
            True,
        ),
        ("None of these drugs was checked: they are not in the references.", True),
        ("Dofetilide is not in the available references, so its interactions were not "
         "checked.", False),
        ("Azithromycin with atorvastatin raises the risk of rhabdomyolysis.", False),
    ],
    ids=["all-unchecked", "none-named", "the-unchecked-drug", "the-finding"],
)  # fmt: skip
def test_a_finding_may_not_be_called_unchecked(answer: str, denies: bool) -> None:
    got = check_answer(answer, question="q", findings=(DOFETILIDE,))
    assert (Defect.DENIES_FINDING in got.defects) is denies
