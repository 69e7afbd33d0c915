"""Constrained generation on the real embedded model across every node schema.

Four requests per schema (56 calls): every output must validate and its keys must come
in the schema's order. Each prompt shows one worked example, which keeps the tiny model's
strings short; the token budget is the schema's own (``token_budget``).
"""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from pydantic import BaseModel, create_model

from docgemma.agent.schemas import (
    IntentClassification,
    ResultAssessment,
    RetryStrategy,
)
from docgemma.llm.schema import schema_key_order
from docgemma.llm.types import Message, messages
from docgemma.tools.registry import build_registry

REGISTRY = build_registry()

ToolSelection = create_model("ToolSelection", tool_name=(Literal[tuple(REGISTRY.names)], ...))

# schema -> (instruction, worked example request, its answer, four requests)
CASES: list[tuple[type[BaseModel], str, str, dict[str, Any], list[str]]] = [
    (
        IntentClassification,
        "Classify the clinician's request.",
        "Is aspirin safe in pregnancy?",
        {
            "intent": "TOOL_NEEDED",
            "task_summary": "Aspirin safety in pregnancy.",
            "suggested_tool": "check_drug_safety",
        },
        [
            "Hello!",
            "Check warfarin interactions with ibuprofen.",
            "What is sepsis?",
            "Find asthma trials.",
        ],
    ),
    (
        ToolSelection,
        "Pick the tool for the request.",
        "Any boxed warning for metformin?",
        {"tool_name": "check_drug_safety"},
        ["Look up Jane Doe", "Trials for lupus", "Save a progress note", "Papers on statins"],
    ),
    (
        REGISTRY["check_drug_safety"].args,
        "Extract the arguments.",
        "Check aspirin",
        {"drug_name": "aspirin"},
        ["Check metformin", "Is lisinopril safe?", "Safety of amoxicillin", "Warnings for digoxin"],
    ),
    (
        REGISTRY["check_drug_interactions"].args,
        "Extract the arguments.",
        "Warfarin with aspirin?",
        {"drug_names": ["warfarin", "aspirin"]},
        [
            "Simvastatin and clarithromycin",
            "Lithium with ibuprofen?",
            "SSRIs and tramadol",
            "Digoxin plus amiodarone",
        ],
    ),
    (
        REGISTRY["search_medical_literature"].args,
        "Extract the arguments.",
        "Papers on statins in the elderly",
        {"query": "statins elderly"},
        [
            "Evidence for SGLT2 in heart failure",
            "Studies on vitamin D",
            "Sepsis fluids research",
            "Long covid reviews",
        ],
    ),
    (
        REGISTRY["search_knowledge_base"].args,
        "Extract the arguments.",
        "My chest hurts when I breathe in",
        {"query": "chest pain on breathing in"},
        [
            "Itchy red rash on my arms",
            "Burning when I pass urine",
            "My toddler has a barking cough",
            "Sore tooth when I drink cold water",
        ],
    ),
    (
        REGISTRY["find_clinical_trials"].args,
        "Extract the arguments.",
        "Recruiting asthma trials",
        {"condition": "asthma", "status": "recruiting"},
        ["Trials for lupus", "Open melanoma studies", "Diabetes trials", "Completed COPD trials"],
    ),
    (
        REGISTRY["search_patient"].args,
        "Extract the arguments.",
        "Find John Smith",
        {"name": "John Smith"},
        ["Look up Jane Doe", "Search for Ali Khan", "Patient Maria Garcia", "Find Wei Chen"],
    ),
    (
        REGISTRY["get_patient_chart"].args,
        "Extract the arguments.",
        "Chart for p-001",
        {"patient_id": "p-001"},
        ["Open chart p-042", "Show record 17", "Chart of patient p-9", "Summary for p-123"],
    ),
    (
        REGISTRY["prescribe_medication"].args,
        "Extract the arguments.",
        "Give p-001 amoxicillin 500 mg tds",
        {
            "patient_id": "p-001",
            "medication_name": "amoxicillin",
            "dosage": "500 mg",
            "frequency": "tds",
        },
        [
            "p-002 metformin 500 mg bd",
            "Start p-7 on ramipril 5 mg daily",
            "p-3 needs salbutamol 2 puffs prn",
            "Prescribe p-9 atorvastatin 20 mg nightly",
        ],
    ),
    (
        REGISTRY["add_allergy"].args,
        "Extract the arguments.",
        "p-001 penicillin rash",
        {"patient_id": "p-001", "substance": "penicillin", "reaction": "rash", "severity": "mild"},
        [
            "p-2 allergic to latex, hives",
            "p-5 codeine vomiting",
            "p-8 peanuts anaphylaxis severe",
            "p-4 sulfa rash",
        ],
    ),
    (
        REGISTRY["save_clinical_note"].args,
        "Extract the arguments.",
        "Progress note p-001: stable",
        {"patient_id": "p-001", "note_type": "progress", "note_text": "Stable."},
        [
            "Note for p-2: improving",
            "Consult note p-5: refer",
            "p-8 procedure note: sutured",
            "p-4 progress: afebrile",
        ],
    ),
    (
        REGISTRY["analyze_medical_image"].args,
        "Extract the arguments.",
        "Any pneumonia on this X-ray?",
        {"query": "pneumonia"},
        ["Is there a fracture?", "Check for melanoma", "Diabetic retinopathy?", "Any effusion?"],
    ),
    (
        ResultAssessment,
        "Assess the tool result.",
        "Result: 2 interactions found",
        {"quality": "success_rich", "brief_summary": "Two interactions found."},
        ["Result: no trials", "Result: timeout", "Result: 1 paper", "Result: patient not found"],
    ),
    (
        RetryStrategy,
        "Choose how to retry.",
        "Error: timeout",
        {"strategy": "retry_same", "reasoning": "Transient."},
        ["Error: 503", "Error: drug not found", "Error: bad patient id", "Error: rate limited"],
    ),
]


def prompt(instruction: str, example: str, answer: dict[str, Any], request: str) -> list[Message]:
    return messages(
        ("system", f"{instruction} Answer with JSON only."),
        ("user", example),
        ("assistant", json.dumps(answer)),
        ("user", request),
    )


def test_cases_cover_every_seed_schema() -> None:
    covered = {case[0] for case in CASES}
    assert {s.args for s in REGISTRY} | {
        IntentClassification,
        ResultAssessment,
        RetryStrategy,
    } < covered
    assert sum(len(case[4]) for case in CASES) >= 50
    for schema, _, _, answer, _ in CASES:
        schema.model_validate(answer)


@pytest.mark.real_model
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0].__name__)
async def test_constrained_outputs_are_valid_and_ordered(real_llm: Any, case: tuple) -> None:
    schema, instruction, example, answer, requests = case
    real_llm.prepare([schema])
    # the grammar writes the required fields in schema order, then the optional ones
    required = {name for name, f in schema.model_fields.items() if f.is_required()}
    order = sorted(schema_key_order(schema), key=lambda name: name not in required)
    for request in requests:
        out = await real_llm.structured(prompt(instruction, example, answer, request), schema)
        assert isinstance(out.value, schema)
        assert out.key_order, out.text
        assert out.key_order == [k for k in order if k in out.key_order], out.text
        assert set(schema.model_fields) - set(out.key_order) <= {
            name for name, f in schema.model_fields.items() if not f.is_required()
        }


@pytest.mark.real_model
async def test_fast_grammar_sampler_matches_llama_cpp_chain(real_llm: Any) -> None:
    """Testing top candidates first must pick exactly what the full-vocabulary mask picks."""
    schema = REGISTRY["prescribe_medication"].args
    prompt_text = real_llm.render(
        messages(("system", "Answer with JSON only."), ("user", "Hello there"))
    )
    texts = []
    for fast in (True, False):
        real_llm._llm.fast_grammar = fast
        try:
            gen = real_llm._complete_sync(
                prompt_text,
                temperature=0.0,
                max_tokens=60,
                stop=(),
                grammar=real_llm._grammar(schema),
            )
        finally:
            real_llm._llm.fast_grammar = True
        texts.append(gen.text)
    assert texts[0] == texts[1]
    assert texts[0].startswith('{ "patient_id": "')
