"""The llama.cpp grammar: strings admit no control characters and no escapes, so every
constrained output is valid JSON and fits the schema's token budget."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from pydantic import BaseModel, Field

from docgemma.agent.schemas import (
    ImageFindings,
    IntentClassification,
    ResultAssessment,
    RetryStrategy,
)
from docgemma.llm.grammar import STRING_CHAR_RULE, gbnf
from docgemma.llm.schema import token_budget
from docgemma.llm.types import Message, messages
from docgemma.tools.registry import build_registry

REGISTRY = build_registry()

SCHEMAS: list[type[BaseModel]] = [
    IntentClassification,
    ResultAssessment,
    RetryStrategy,
    ImageFindings,
    *(s.args for s in REGISTRY),
]
NOTE = REGISTRY["save_clinical_note"].args


class Word(BaseModel):
    word: str = Field(max_length=10)


def test_string_rule_admits_printable_ascii_only() -> None:
    """A GBNF character class reads like a regex one; check it against every code point."""
    char_class = re.compile(STRING_CHAR_RULE.removeprefix("char ::= "))
    for code in range(0x3000):
        ch = chr(code)
        expected = 0x20 <= code <= 0x7E and ch not in '"\\'
        assert bool(char_class.fullmatch(ch)) == expected, hex(code)


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: s.__name__)
def test_grammar_text_has_no_escapes_or_loose_char_rule(schema: type[BaseModel]) -> None:
    text = gbnf(schema)
    char_rules = [line for line in text.split("\n") if line.startswith("char ::= ")]
    assert char_rules in ([STRING_CHAR_RULE], [])
    assert '"\\\\"' not in text  # no literal backslash, hence no escape sequence


def test_budget_covers_the_longest_output_character_by_character() -> None:
    """The grammar's widest literals (booleans, null, numbers) count in full, plus EOS."""

    class Mixed(BaseModel):
        flag: bool
        score: float
        count: int
        tag: str | None = Field(None, max_length=5)

    longest = (
        '{ "flag": false , "score": -1234567890123456.1234567890123456e-1234567890123456 , '
        '"count": -1234567890123456 , "tag": "abcde" } '
    )
    assert token_budget(Mixed) > len(longest)


def few_shot(schema_example: str, request: str) -> list[Message]:
    """An example whose answer holds raw line breaks, which the tiny model copies if it can."""
    return messages(
        ("system", "Extract the arguments. Answer with JSON only."),
        ("user", "Progress note p-1:\nS: headache\nO: BP 150/90\nA: hypertension\nP: amlodipine"),
        ("assistant", schema_example),
        ("user", request),
    )


NOTE_EXAMPLE = (
    '{"patient_id": "p-1", "note_type": "progress", '
    '"note_text": "S: headache\nO: BP 150/90\nA: hypertension\nP: amlodipine"}'
)
INTENT_EXAMPLE = (
    '{"intent": "TOOL_NEEDED", "task_summary": "Headache with\nhigh BP:\ncheck drugs", '
    '"suggested_tool": "check_drug_safety"}'
)
MULTILINE_REQUESTS = [
    "Progress note p-7:\nS: cough\nO: T 38.2\nA: bronchitis\nP: fluids",
    "Note for p-2:\nS: rash\nO: hives\nA: urticaria\nP: cetirizine",
    "p-9 consult:\nS: chest pain\nO: ECG normal\nA: musculoskeletal\nP: NSAID",
]


@pytest.mark.real_model
@pytest.mark.parametrize(
    ("schema", "example"),
    [(NOTE, NOTE_EXAMPLE), (IntentClassification, INTENT_EXAMPLE)],
    ids=["ClinicalNoteArgs", "IntentClassification"],
)
async def test_multiline_prompts_still_give_valid_json(
    real_llm: Any, schema: type[BaseModel], example: str
) -> None:
    """Before the strict string rule the model copied the raw line breaks: invalid JSON."""
    for request in MULTILINE_REQUESTS:
        out = await real_llm.structured(few_shot(example, request), schema)
        assert isinstance(out.value, schema)
        assert out.finish_reason == "stop", out.text
        assert "\n" not in json.loads(out.text).get("note_text", "")


@pytest.mark.real_model
async def test_escape_heavy_example_cannot_run_past_the_budget(real_llm: Any) -> None:
    """An example full of ``\\uXXXX`` escapes once made ten characters cost sixty tokens."""
    escaped = '{"word": "' + "".join(f"\\u00{c}" for c in ("e9", "e8", "ea", "eb", "e0")) + '"}'
    prompt = messages(
        ("system", "Answer with JSON only."),
        ("user", "Accents"),
        ("assistant", escaped),
        ("user", "More accents"),
        ("assistant", escaped),
        ("user", "Accents again"),
    )
    out = await real_llm.structured(prompt, Word)
    assert out.finish_reason == "stop", out.text
    assert out.usage.completion_tokens < token_budget(Word)


@pytest.mark.real_model
def test_outputs_stay_within_their_budgets_across_the_schemas(real_llm: Any) -> None:
    """Raw constrained output (before Pydantic: the grammar does not enforce number ranges,
    e.g. ImageFindings.confidence) always closes its JSON inside the budget."""
    request = 'Patient p-3 said "my chest hurts" \\ since 2am.\nPlease act:\n\tcheck, note, treat.'
    prompt = real_llm.render(messages(("system", "Answer with JSON only."), ("user", request)))
    for schema in SCHEMAS:
        budget = token_budget(schema)
        gen = real_llm._complete_sync(
            prompt, temperature=0.0, max_tokens=budget, stop=(), grammar=real_llm._grammar(schema)
        )
        assert gen.finish_reason == "stop", (schema.__name__, gen.text)
        assert gen.usage.completion_tokens < budget
        assert isinstance(json.loads(gen.text), dict)


def test_the_grammar_cache_keeps_the_most_recently_used_and_makes_each_once() -> None:
    from docgemma.llm.grammar import GrammarCache

    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    cache: GrammarCache[str, str] = GrammarCache(size=2)
    assert cache.get("a", lambda: make("a")) == "A"
    cache.get("b", lambda: make("b"))
    cache.get("a", lambda: make("a"))  # used again: "b" is now the oldest
    cache.get("c", lambda: make("c"))
    assert made == ["a", "b", "c"] and len(cache) == 2
    assert "a" in cache and "c" in cache and "b" not in cache
