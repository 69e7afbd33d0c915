"""A sourced answer keeps only the sentences its sources support (``agent.support``)."""

from __future__ import annotations

import pytest

from docgemma.agent.conditions import condition_names
from docgemma.agent.support import (
    Given,
    Support,
    invented_substances,
    keep_supported,
    states_nothing,
    unsupported_terms,
)

DIABETES_PAGE = (
    "Clinician's question: What is the first-line treatment for type 2 diabetes?\n"
    "Information retrieved:\n[1] Type 2 diabetes — Treatment: lifestyle changes, weight loss "
    "and exercise. Metformin is the usual first medicine, taken by mouth; other medicines are "
    "added if HbA1c stays above the target agreed with the patient."
)
PNEUMONIA_PAGE = (
    "Clinician's question: What are the symptoms of pneumonia?\n"
    "Information retrieved:\n[1] Pneumonia — Symptoms: a cough with phlegm, a high "
    "temperature, chills, shortness of breath and chest pain when breathing."
)
WARFARIN_LABEL = (
    "Clinician's question: Check FDA warnings for Coumadin\n"
    "Information retrieved:\n[1] Warfarin sodium tablets. Boxed warning: bleeding risk. "
    "Warfarin can cause major or fatal bleeding. Monitor INR regularly; target 2.0 to 3.0."
)


@pytest.mark.parametrize(
    ("sentence", "context", "unsupported"),
    [
        # what a small model writes, at high confidence, citing the page
        (
            "Metformin is usually taken as tablets, but it also comes as injections, and patches.",
            DIABETES_PAGE,
            ["injections", "patches"],  # tablets are taken by mouth
        ),
        (
            "These symptoms are similar to those of other respiratory infections, such as "
            "bronchitis, sepsis, asthma, COVID-19, and pneumonia.",
            PNEUMONIA_PAGE,
            ["other respiratory", "bronchitis", "sepsis", "asthma", "covid 19"],
        ),
        ("The first-line treatment is metformin [1].", DIABETES_PAGE, []),
        ("Metformin is taken orally.", DIABETES_PAGE, []),  # "by mouth" is not a dose form
        ("Keep HbA1c below 7%.", DIABETES_PAGE, ["7"]),
        ("Common symptoms include cough, chills and shortness of breath.", PNEUMONIA_PAGE, []),
        ("Patients may have chest pain when breathing [1].", PNEUMONIA_PAGE, []),
        # a brand named in the question is its generic in the label
        ("Coumadin can cause major or fatal bleeding.", WARFARIN_LABEL, []),
        ("Keep the INR between 2 and 3.", WARFARIN_LABEL, []),  # 2.0 and 2 are one number
        ("Warfarin is given intravenously.", WARFARIN_LABEL, ["intravenously"]),
        ("Avoid combining it with aspirin.", WARFARIN_LABEL, ["aspirin"]),
        ("Keep the INR between 2 and 4.", WARFARIN_LABEL, ["4"]),
        # a citation marker, a date or a patient id in the prompt is no dose
        ("Give 2 tablets.", PNEUMONIA_PAGE + "\n[2] Chart of abc-123", ["tablets", "2"]),
        ("Start at 5 mg daily.", WARFARIN_LABEL + " Updated 2025-05-01.", ["5"]),
        ("Give 123 units.", "Patient abc-123, seen 2025-05-01.", ["123"]),
        ("It is important to consult a healthcare provider.", WARFARIN_LABEL, []),
        ("Severe symptoms need prompt review.", PNEUMONIA_PAGE, []),  # generic words only
        # the condition pages say it in everyday words, and in British spelling
        ("Fever and dyspnoea are common.", PNEUMONIA_PAGE, []),
        ("Chills and haemoptysis are common.", PNEUMONIA_PAGE, ["hemoptysis"]),
    ],
)
def test_the_things_a_sentence_names_are_looked_for_in_its_sources(
    sentence: str, context: str, unsupported: list[str]
) -> None:
    assert unsupported_terms(sentence, Given.of(context)) == unsupported


@pytest.mark.parametrize(
    ("sentence", "context", "unsupported"),
    [
        # an English condition word is not said by another that merely begins like it
        ("It causes hyperkalemia.", "Risk of hypertension.", ["hyperkalemia"]),
        ("It can cause a pneumothorax.", PNEUMONIA_PAGE, ["pneumothorax"]),
        ("Watch for hypothyroidism.", "Risk of hypotension.", ["hypothyroidism"]),
        ("It may cause dysphasia.", "Dysphagia is common.", ["dysphasia"]),
        ("Seizures point to encephalitis.", "Encephalopathy is rare.", ["encephalitis"]),
        # nor by a word agreeing on less than half of the longer one
        ("It risks hyperkalemia.", "Patient hypertendu.", ["hyperkalemia"]),
        # but by its plural, and by a cognate agreeing on more than half of it
        ("Respiratory infections are common.", "A respiratory infection.", []),
        ("A respiratory infection is common.", "Respiratory infections.", []),
        ("It risks hyperkalemia.", "Risque d'hyperkaliémie.", []),
        ("Avoid in renal insufficiency.", "En cas d'insuffisance rénale.", []),
        ("It may cause pneumonia.", "Risque de pneumonie.", []),
        # and the thesaurus's French words that begin differently
        ("There is a risk of hemorrhage.", "Majoration du risque hémorragique.", []),
        ("It may cause thrombocytopenia.", "Risque de thrombopénie.", []),
        # English forms of one term: endings differing in the last two letters
        ("Watch for a hypertensive crisis.", "Hypertension crisis.", []),
        ("It raises the risk of ischemic stroke.", "Ischemia and stroke.", []),
        ("After a myocardial infarction.", "Old myocardial infarct.", []),
        ("Pulmonary embolism is possible.", "Pulmonary emboli.", []),
        ("Ovarian cysts are common.", "An ovarian cyst.", []),  # a word under five letters
        # a state by the word it is made from (the stroke page: an arm "may go weak")
        ("Sudden weakness of one arm.", "One arm may go weak.", []),
        ("Sudden weakness of one arm.", "The arm may be sore.", ["weakness"]),
    ],
)
def test_a_condition_word_is_said_only_by_itself_or_a_close_cognate(
    sentence: str, context: str, unsupported: list[str]
) -> None:
    assert unsupported_terms(sentence, Given.of(context)) == unsupported


@pytest.mark.parametrize(
    ("sentence", "context", "invented"),
    [
        ("The antidote is N-acetyphenamide (NAP).", "", ["acetyphenamide"]),
        ("Start spirolactazole daily.", "", ["spirolactazole"]),
        ("The antidote is N-acetyphenazine.", "", ["acetyphenazine"]),  # direct-09
        ("Chlorpromazine, or see the magazine.", "", []),
        ("The antidote is N-acetylcysteine.", "", []),  # in the drug dictionary
        ("Lisinopril and valsartan lower blood pressure.", "", []),
        ("Examine the patient and review the amide bond.", "", []),  # too short, or a word
        ("Give evalmetoprolol as charted.", "", ["evalmetoprolol"]),
        ("Give evalmetoprolol as charted.", "Order evalmetoprolol.", []),  # given
        # a later word of a dictionary name, a hyphenated name, a British-looking "oe",
        # drug classes
        ("Tenofovir alafenamide is taken daily.", "", []),
        ("Co-trimoxazole or cotrimoxazole.", "", []),
        ("Moexipril lowers blood pressure.", "", []),
        ("Sulfonamides and nitroimidazole antibiotics.", "", []),
    ],
)
def test_a_drug_shaped_word_no_dictionary_knows_is_invented(
    sentence: str, context: str, invented: list[str]
) -> None:
    assert invented_substances(sentence, Given.of(context)) == invented


def test_an_answer_from_memory_is_held_only_to_known_drugs() -> None:
    answer = "Hypertension is treated with lisinopril. Some use hypertensazole."
    kept = keep_supported(answer, "What treats hypertension?", invented_substances)
    assert kept == Support(
        "Hypertension is treated with lisinopril.", ("Some use hypertensazole.",)
    )


CHART = (
    "Linda Chen (ID lchen-002, born 1961-03-08, female). Creatinine 1.8 mg/dL (2025-05-29). "
    "Chart updated 2025-05-01."
)


@pytest.mark.parametrize(
    ("sentence", "unsupported"),
    [
        # a chart's dates, restated as written or in words, are supported by the chart
        ("Linda Chen (ID lchen-002, born 1961-03-08) is female.", []),
        ("She was born on March 8, 1961.", []),
        ("She was born 8th Mar 1961.", []),
        ("Creatinine was 1.8 mg/dL on May 29.", []),
        # a date the chart does not have is not, nor does a date support a dose
        ("She was born 1962-03-08.", ["1962-03-08"]),
        ("Creatinine was 1.8 mg/dL on May 30.", ["may 30"]),
        ("Give 29 mg daily.", ["29"]),
        ("It is marked 3 times.", ["3"]),  # "marked" is no month
    ],
)
def test_dates_are_held_to_the_dates_given(sentence: str, unsupported: list[str]) -> None:
    """Seen in the evaluation: "Linda Chen (ID lchen-002, born 1961-03-08, …)" was left out
    of a chart answer, its date's numbers taken for unsupported values."""
    assert unsupported_terms(sentence, Given.of(CHART)) == unsupported


def test_what_the_sources_do_not_support_is_left_out_and_listed() -> None:
    answer = (
        "The first-line treatment for type 2 diabetes is metformin [1], with lifestyle "
        "changes such as exercise. Metformin is usually taken as tablets, but it also comes "
        "as injections, and patches.\n\nCheck HbA1c against the agreed target."
    )
    kept = keep_supported(answer, DIABETES_PAGE)
    assert kept.text == (
        "The first-line treatment for type 2 diabetes is metformin [1], with lifestyle "
        "changes such as exercise.\n\nCheck HbA1c against the agreed target."
    )
    assert kept.left_out == (
        "Metformin is usually taken as tablets, but it also comes as injections, and patches.",
    )


THESAURUS = (
    "Clinician's question: Do sertraline and sumatriptan interact? Lisinopril and "
    "spironolactone?\nInformation retrieved:\n[1] sertraline + sumatriptan: risque "
    "d'apparition d'un syndrome sérotoninergique. lisinopril + spironolactone: association "
    "DECONSEILLEE, risque d'hyperkaliémie, surtout en cas d'insuffisance rénale."
)


def test_an_english_answer_is_supported_by_the_french_thesaurus_it_translates() -> None:
    answer = (
        "Combining lisinopril and spironolactone is not recommended: it risks hyperkalemia, "
        "especially in renal insufficiency [1]."
    )
    assert keep_supported(answer, THESAURUS).left_out == ()


def test_an_unsupported_last_clause_is_cut_and_the_sentence_stands() -> None:
    """A small model's answer to interact-04 appended symptoms no source gave."""
    answer = (
        "Sertraline and sumatriptan can cause a serotonin syndrome, such as nausea, vomiting, "
        "diarrhea, and dizziness."
    )
    kept = keep_supported(answer, THESAURUS)
    assert kept.text == "Sertraline and sumatriptan can cause a serotonin syndrome."
    assert kept.left_out == ("such as nausea, vomiting, diarrhea, and dizziness.",)


def test_a_clause_is_cut_where_it_begins() -> None:
    answer = (
        "Together they risk a serotonergic syndrome, which can include symptoms such as "
        "nausea and tremor."
    )
    kept = keep_supported(answer, THESAURUS)
    assert kept.text == "Together they risk a serotonergic syndrome."
    assert kept.left_out == ("which can include symptoms such as nausea and tremor.",)


def test_a_sentence_whose_head_is_unsupported_too_is_left_out_whole() -> None:
    answer = "Sumatriptan causes hypertension, especially with nausea."
    kept = keep_supported(answer, THESAURUS)
    assert (kept.text, kept.left_out) == ("", (answer,))


def test_a_list_keeps_its_supported_items_and_loses_an_emptied_lead_in() -> None:
    answer = (
        "Common symptoms include:\n- a cough with phlegm [1]\n- chills\n"
        "Similar illnesses:\n- bronchitis\n- asthma\n\nSee a doctor if breathing is hard."
    )
    kept = keep_supported(answer, PNEUMONIA_PAGE)
    assert kept.text == (
        "Common symptoms include:\n- a cough with phlegm [1]\n- chills\n\n"
        "See a doctor if breathing is hard."
    )
    assert kept.left_out == ("bronchitis", "asthma")


def test_a_numbered_list_item_keeps_its_number_and_the_number_is_not_a_claim() -> None:
    kept = keep_supported("1. Chills.\n2. Sepsis.", PNEUMONIA_PAGE)
    assert (kept.text, kept.left_out) == ("1. Chills.", ("Sepsis.",))


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        ("1. Sepsis.\n2. Chills.\n3. A cough.", "1. Chills.\n2. A cough."),
        (
            "Signs:\n1) Sepsis.\n\n2) Chills.\nAlso:\n1. Fever.",
            "Signs:\n\n1) Chills.\nAlso:\n1. Fever.",
        ),
    ],
)
def test_a_numbered_list_is_counted_again_when_an_item_is_left_out(answer: str, shown: str) -> None:
    assert keep_supported(answer, PNEUMONIA_PAGE).text == shown


@pytest.mark.parametrize(
    "sentence",
    [
        "Information on asthma could not be retrieved.",
        "The interaction with lisinopril could not be checked.",
        "Sepsis is not covered by the sources.",
        "No information on amoxicillin was available.",
    ],
)
def test_a_sentence_saying_something_could_not_be_looked_up_may_name_it(sentence) -> None:
    answer = f"{sentence} Chills are common [1]."
    assert keep_supported(answer, PNEUMONIA_PAGE).left_out == ()


@pytest.mark.parametrize(
    ("sentence", "unsupported"),
    [
        # "cannot" about the patient, not about the sources: a dose and route nobody gave
        ("If the patient cannot swallow, give 10 mg intravenously.", ["intravenously", "10"]),
        ("Patients unable to take tablets may be given amoxicillin.", ["amoxicillin", "tablets"]),
        ("Lisinopril could not be checked; give 20 mg.", ["20"]),
    ],
)
def test_a_sentence_merely_containing_cannot_is_still_held_to_the_sources(
    sentence: str, unsupported: list[str]
) -> None:
    assert unsupported_terms(sentence, Given.of(PNEUMONIA_PAGE)) == unsupported
    assert keep_supported(sentence, PNEUMONIA_PAGE).left_out == (sentence,)


def test_a_lead_in_left_at_the_end_goes_with_what_it_introduced() -> None:
    answer = "Chills are common [1]. The other signs are these:\n\nSepsis and meningitis."
    kept = keep_supported(answer, PNEUMONIA_PAGE)
    assert kept.text == "Chills are common [1]."
    assert kept.left_out == ("Sepsis and meningitis.",)


def test_an_answer_with_nothing_unsupported_is_returned_as_written() -> None:
    answer = "Symptoms:  cough, chills.\n\n\n"
    assert keep_supported(answer, PNEUMONIA_PAGE).text == answer


@pytest.mark.parametrize("word", ["pneumonia", "asthma", "sepsis", "bronchitis", "nausea"])
def test_one_word_diagnoses_are_read_from_icd_descriptions(word: str) -> None:
    assert word in condition_names().diagnoses


@pytest.mark.parametrize("word", ["patient", "active", "severe", "mouth", "level", "state"])
def test_common_words_in_icd_phrases_are_not_one_word_diagnoses(word: str) -> None:
    assert word not in condition_names().diagnoses


@pytest.mark.parametrize(
    ("answer", "nothing"),
    [
        ("Certainly! What's your clinical question today?", True),  # a reply to a greeting
        ("Hello!\nWhich patient do you mean?", True),
        ("You're welcome!", True),
        ("Yes, I can help.", False),  # a statement, however slight, keeps the label
        ("Metformin is first-line!", False),  # names a drug
        ("Is it pneumonia?", False),  # names a condition
        ("Shall I give 5 mg?", False),  # a number
        ("", False),
    ],
)
def test_a_reply_that_only_greets_or_asks_states_nothing(answer: str, nothing: bool) -> None:
    assert states_nothing(answer) is nothing
