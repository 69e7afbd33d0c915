"""The app's default profile (Qwen2.5 1.5B Instruct) as the app builds it: chat turns,
constrained output and a correct, readable answer to a plain clinical question."""

from __future__ import annotations

import pytest

from docgemma.llm.types import Message
from docgemma.tools.registry import build_registry

REGISTRY = build_registry()

pytestmark = pytest.mark.real_model


def test_the_default_profile_runs_chatml(default_llm) -> None:
    assert default_llm.chat_format == "chatml"
    assert default_llm.model == "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


async def test_it_answers_a_knowledge_question_correctly(default_llm) -> None:
    out = await default_llm.generate(
        [
            Message(role="system", content="You are a concise clinical assistant."),
            Message(
                role="user",
                content="What is the first-line drug for type 2 diabetes? One sentence.",
            ),
        ],
        temperature=0.0,
        max_tokens=60,
    )
    assert "metformin" in out.text.lower()
    assert "<|im_end|>" not in out.text and "<|im_start|>" not in out.text


async def test_it_extracts_arguments_under_the_schema(default_llm) -> None:
    schema = REGISTRY["check_drug_safety"].args
    out = await default_llm.structured(
        [
            Message(role="system", content="Extract the tool arguments from the request."),
            Message(role="user", content="Check FDA warnings for dofetilide"),
        ],
        schema,
    )
    assert out.value.drug_name.lower() == "dofetilide"
