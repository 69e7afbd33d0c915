"""Embedding classifiers on the real MiniLM model: accuracy, seed rows, confidence."""

from __future__ import annotations

import pytest

from docgemma.config import Settings
from docgemma.embed import MiniLMEmbedder
from docgemma.routing import (
    Classifier,
    EmbeddingClassifier,
    Prediction,
    cross_validate,
    load_classifier,
    query_text,
    result_text,
)
from docgemma.routing.embedding import (
    RESULT_MARKER,
    class_probabilities,
    featurize,
    normalise_identifiers,
)
from docgemma.routing.examples import load_examples
from docgemma.tools.registry import build_registry

CV_FLOORS = {"intent": 0.85, "tool": 0.85, "result": 0.75}

SEED_INTENT = [
    ("Hello", "DIRECT"),
    ("Check FDA warnings for dofetilide", "TOOL_NEEDED"),
    ("What is hypertension?", "DIRECT"),
    ("Find patient John Smith and check his meds", "TOOL_NEEDED"),
    ("Hello, how are you?", "DIRECT"),
    ("Prescribe metformin 500mg for abc-123", "TOOL_NEEDED"),
]
SEED_TOOL = [
    ("Check FDA warnings for dofetilide", "check_drug_safety"),
    ("Check interactions between warfarin and aspirin", "check_drug_interactions"),
    ("Check amoxicillin info for my patient", "check_drug_safety"),
    ("Write a note for patient abc-123", "save_clinical_note"),
    ("Find patient Maria Garcia and check her chart", "search_patient"),
    ("Check interactions between warfarin, aspirin, and ibuprofen", "check_drug_interactions"),
    ("Search for patient James Wilson", "search_patient"),
    ("Prescribe metformin 500mg for abc-123", "prescribe_medication"),
]
DOFETILIDE_LABEL = (
    "[Drug Safety Report] Dofetilide (Tikosyn). BOXED WARNING: to minimise the risk of induced "
    "arrhythmia, start or restart dofetilide only in a facility that provides creatinine "
    "clearance calculation, continuous ECG monitoring and cardiac resuscitation for at least "
    "3 days. CONTRAINDICATIONS: congenital or acquired long QT syndrome (QTc > 440 ms), "
    "creatinine clearance < 20 mL/min, use with verapamil, cimetidine, trimethoprim, "
    "ketoconazole, prochlorperazine, megestrol, dolutegravir or hydrochlorothiazide. "
    "WARNINGS: torsade de pointes; dose by creatinine clearance and QTc."
)
TOOL_LABELS = [
    "Patient Search",
    "Patient Record",
    "Drug Safety Report",
    "Drug Interaction Check",
    "Medical Literature",
    "Clinical Trial Search",
    "Prescription",
    "Allergy Documentation",
    "Clinical Note",
    "Image Analysis",
]
NONSENSE = ["asdkj qwpoe zzxv", "purple monkey dishwasher", "lorem ipsum dolor sit amet"]


@pytest.mark.parametrize("task", list(CV_FLOORS))
def test_cross_validated_accuracy(task: str, capsys: pytest.CaptureFixture[str]) -> None:
    examples = load_examples(task)
    accuracy, guesses = cross_validate(task, examples)
    assert len(guesses) == len(examples)
    with capsys.disabled():
        print(f"\n[routing] {task}: 5-fold CV accuracy {accuracy:.3f} on {len(examples)} examples")
    assert accuracy >= CV_FLOORS[task]


@pytest.mark.parametrize(("query", "label"), SEED_INTENT)
def test_seed_intent_rows(query: str, label: str, settings: Settings) -> None:
    prediction = load_classifier("intent").predict(query_text(query))
    assert prediction.label == label
    assert prediction.is_confident(settings.classifier_threshold)


@pytest.mark.parametrize(("query", "label"), SEED_TOOL)
def test_seed_tool_rows(query: str, label: str) -> None:
    prediction = load_classifier("tool").predict(query_text(query))
    assert prediction.label == label, prediction.scores


def test_seed_tool_row_is_not_the_chart() -> None:
    """The design names the wrong answers: drug info is not a chart read, a note is not a chart."""
    tool = load_classifier("tool")
    drug = tool.predict("Check amoxicillin info for my patient")
    note = tool.predict("Write a note for patient abc-123")
    assert drug.scores["check_drug_safety"] > drug.scores["get_patient_chart"]
    assert note.scores["save_clinical_note"] > note.scores["get_patient_chart"]


def test_seed_result_rows() -> None:
    result = load_classifier("result")
    rich, empty = result.predict_many(
        [
            result_text("Check FDA warnings for dofetilide", DOFETILIDE_LABEL),
            result_text("Find studies on beta blockers in COPD", "No articles found"),
        ]
    )
    assert (rich.label, empty.label) == ("success_rich", "no_results")
    assert rich.is_confident(0.5)


@pytest.mark.parametrize("tool_label", TOOL_LABELS)
def test_preformatted_timeout_is_retryable(tool_label: str) -> None:
    message = f"The {tool_label} was temporarily unavailable. Please try again shortly."
    prediction = load_classifier("result").predict(result_text("Look this up please", message))
    assert prediction.label == "error_retryable"


@pytest.mark.parametrize("task", ["intent", "tool"])
@pytest.mark.parametrize("text", NONSENSE)
def test_nonsense_falls_below_the_threshold(task: str, text: str, settings: Settings) -> None:
    prediction = load_classifier(task).predict(text)
    assert prediction.support < 0.3
    assert not prediction.is_confident(settings.classifier_threshold)
    assert prediction.confidence <= max(prediction.scores.values())


def test_nonsense_tool_result_falls_below_the_threshold() -> None:
    prediction = load_classifier("result").predict(result_text("ok", NONSENSE[1]))
    assert not prediction.is_confident(0.5)


def test_threshold_semantics() -> None:
    prediction = Prediction(label="DIRECT", confidence=0.5, scores={"DIRECT": 0.5})
    assert prediction.is_confident(0.5)
    assert not prediction.is_confident(0.51)
    assert prediction.is_confident(0.0)
    with pytest.raises(ValueError):
        Prediction(label="DIRECT", confidence=1.2, scores={})


def test_scores_are_a_distribution_over_the_task_labels() -> None:
    tool = load_classifier("tool")
    prediction = tool.predict("Are there trials for sickle cell anaemia recruiting in Leeds?")
    assert set(prediction.scores) == set(tool.labels)
    assert sum(prediction.scores.values()) == pytest.approx(1.0, abs=1e-6)
    assert prediction.label == max(prediction.scores, key=prediction.scores.get)


@pytest.mark.parametrize("task", list(CV_FLOORS))
def test_probabilities_are_sklearns(task: str) -> None:
    """The classifier computes the probabilities itself; they must be the fitted model's."""
    classifier = load_classifier(task)
    texts = [
        "Check FDA warnings for dofetilide",
        "What is hypertension?",
        f"Check FDA warnings for dofetilide{RESULT_MARKER}{DOFETILIDE_LABEL}",
    ]
    features = featurize(task, texts, classifier.embedder)
    ours = class_probabilities(classifier.model, features)
    assert ours == pytest.approx(classifier.model.predict_proba(features), abs=1e-6)


def test_classifier_is_cached_per_process_and_embedder() -> None:
    first = load_classifier("intent")
    assert load_classifier("intent") is first
    assert isinstance(first, Classifier)
    other = load_classifier("intent", MiniLMEmbedder(batch_size=8))
    assert other is not first
    with pytest.raises(ValueError, match="unknown routing task"):
        load_classifier("plan")  # type: ignore[arg-type]


def test_the_tool_classifier_must_know_exactly_the_callers_tools() -> None:
    names = build_registry().names
    assert set(load_classifier("tool", tool_names=names).labels) == set(names)
    with pytest.raises(ValueError, match="no examples for"):
        load_classifier("tool", tool_names=[*names, "order_lab_test"])


def test_predict_many_matches_predict() -> None:
    intent = load_classifier("intent")
    texts = ["Thanks a lot", "Order ramipril 5 mg daily for patient pq-77"]
    many = intent.predict_many(texts)
    assert [p.label for p in many] == [intent.predict(t).label for t in texts]
    assert intent.predict_many([]) == []


def test_history_prefix_keeps_the_query_decisive() -> None:
    text = query_text("and his meds?", ["Find patient Omar Haddad", "Found 1 patient: Omar Haddad"])
    assert text.endswith("\nand his meds?")
    assert query_text("  Hi  ") == "Hi"
    assert load_classifier("intent").predict(text).label == "TOOL_NEEDED"


def test_training_from_examples_gives_a_working_classifier() -> None:
    examples = load_examples("intent")
    classifier = EmbeddingClassifier.train("intent", examples[::2])
    assert classifier.labels == ("DIRECT", "TOOL_NEEDED")
    assert classifier.predict("Good afternoon!").label == "DIRECT"


def test_patient_identifiers_are_normalised_but_drug_names_are_not() -> None:
    text = "Note for patient abc-123 on GLP-1, patient id 123e4567-e89b-12d3-a456-426614174000"
    assert normalise_identifiers(text) == "Note for patient ID on GLP-1, patient id ID"
    assert (
        normalise_identifiers("Chart for Patient pt-1042's visit") == "Chart for Patient ID's visit"
    )
