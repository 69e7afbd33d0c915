"""Prompts fail loudly, the generation table holds its chosen values, entities come from code."""

from __future__ import annotations

import pytest

from docgemma.agent import prompts
from docgemma.agent.entities import action_verbs, drug_dictionary, patient_ids
from docgemma.agent.generation import CAPS_THAT_CANNOT_HOLD, DEFAULTS, generation_for
from docgemma.agent.prompts import MissingPromptVariable, Prompt
from docgemma.agent.schemas import IntentClassification, ResultAssessment, RetryStrategy
from docgemma.config import Settings
from docgemma.llm.schema import token_budget
from docgemma.tools.registry import build_registry


def test_prompt_with_a_missing_variable_raises_naming_it() -> None:
    with pytest.raises(MissingPromptVariable, match="clinical_context"):
        prompts.RESULT_USER.render(user_query="q", tool_label="L", formatted_result="r")
    assert Prompt("p", "a $x b ${y}").render(x=1, y="z") == "a 1 b z"


def test_every_prompt_constant_renders_with_its_own_variables() -> None:
    templates = [v for v in vars(prompts).values() if isinstance(v, Prompt)]
    assert len(templates) >= 10
    for template in templates:
        text = template.render(**{name: "VALUE" for name in template.variables})
        assert "$" not in text


def test_generation_table_matches_seed_section_7(settings: Settings) -> None:
    expect = {
        "intent": (0.0, 256),
        "tool_select_1": (0.0, 64),
        "tool_select_2": (0.0, 128),
        "result_classify": (0.0, 128),
        "retry": (0.0, 64),
        "synthesize": (0.5, 256),
        "image": (0.3, 512),
    }
    assert {k: (v.temperature, v.max_tokens) for k, v in DEFAULTS.items()} == expect
    assert all(v.reason for v in DEFAULTS.values())


def node_schemas() -> list[tuple[str, type]]:
    registry = build_registry()
    fixed = [
        ("intent", IntentClassification),
        ("result_classify", ResultAssessment),
        ("retry", RetryStrategy),
        ("tool_select_1", registry.selection_model(allow_none=True)),
    ]
    return fixed + [("tool_select_2", spec.args) for spec in registry]


def _name(value: object) -> str:
    return getattr(value, "__name__", str(value))


@pytest.mark.parametrize(("node", "schema"), node_schemas(), ids=_name)
def test_the_seed_caps_hold_or_say_why_not(node: str, schema: type) -> None:
    """The per-node max_tokens are caps: each schema's worst case fits, or is excused."""
    fits = token_budget(schema) <= DEFAULTS[node].max_tokens
    assert fits != (schema.__name__ in CAPS_THAT_CANNOT_HOLD), (node, token_budget(schema))


def test_generation_override_from_settings(settings: Settings) -> None:
    s = settings.model_copy(update={"node_generation": {"synthesize": {"temperature": 0.2}}})
    cfg = generation_for("synthesize", s)
    assert (cfg.temperature, cfg.max_tokens) == (0.2, 256)
    bad = settings.model_copy(update={"node_generation": {"intent": {"top_k": 3}}})
    with pytest.raises(ValueError, match="top_k"):
        generation_for("intent", bad)


def test_drug_dictionary_is_the_real_one_with_brands_mapped_to_generics() -> None:
    d = drug_dictionary()
    assert d.names >= 5000
    assert d.find("Is TYLENOL ok with Coumadin and Glucophage?") == [
        "acetaminophen",
        "warfarin",
        "metformin",
    ]
    assert d.find("Check interactions between warfarin, aspirin, and ibuprofen") == [
        "warfarin",
        "aspirin",
        "ibuprofen",
    ]
    assert d.find("The patient takes insulin glargine") == ["insulin glargine"]
    # whole words only, and ordinary clinical words are not drugs
    assert d.find("warfarinX and preaspirin; what is hypertension? find patient chart note") == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("She is also on the pill. What next?", ["ethinylestradiol"]),
        ("On the combined pill and rifampicin", ["ethinylestradiol", "rifampin"]),
        ("Started COCP last month, now calf swelling", ["ethinylestradiol"]),
        ("Any interaction between HRT and warfarin?", ["hormone replacement therapy", "warfarin"]),
        ("Can she swallow a pill whole? She has dysphagia.", []),  # a pill, not the pill
    ],
)
def test_a_medicine_called_by_its_everyday_name_is_found(text: str, found: list[str]) -> None:
    assert drug_dictionary().find(text) == found


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("Write a note for patient abc-123", ["abc-123"]),
        (
            "chart f47ac10b-58cc-4372-a567-0e02b2c3d479 please",
            ["f47ac10b-58cc-4372-a567-0e02b2c3d479"],
        ),
        ("What is hypertension?", []),
        ("Pull up the record of patient lchen-002.", ["lchen-002"]),  # the records' own ids
        ("Compare jwilson-1945 with jwilson-1990", ["jwilson-1945", "jwilson-1990"]),
        ("COVID-19 codes in ICD-10 and an IL-6 level", []),
        ("pt abc123 chart pls", ["abc-123"]),  # the hyphen left out, after "pt"
        ("Patient ID: XYZ0042", ["xyz-0042"]),
        ("abc123 and a B12 level", []),  # letters and digits alone are no id
        ("patient was 85kg, id numbers later", []),
    ],
)
def test_patient_id_patterns(text: str, ids: list[str]) -> None:
    assert patient_ids(text) == ids


def test_action_verbs() -> None:
    assert action_verbs("Prescribe metformin, then document and save it") == [
        "prescribe",
        "document",
        "save",
    ]
