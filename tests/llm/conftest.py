"""Fixtures of the LLM-layer tests: few-shot thinking prompts (``llama_server`` is in the
suite's conftest, shared with the API's scale-out test)."""

from __future__ import annotations

import pytest


@pytest.fixture
def few_shot() -> str:
    """A prompt whose examples close their thinking, so even the tiny base model ends it early."""
    return (
        "Question: What is 2+2?\n<think>\n2 plus 2 makes 4.\n</think>\nAnswer: 4\n\n"
        "Question: What is the capital of France?\n"
        "<think>\nFrance's capital city is Paris.\n</think>\n"
        "Answer: Paris\n\nQuestion: Is aspirin an NSAID?\n"
    )


@pytest.fixture
def special_few_shot() -> str:
    """Few-shot thinking closed by a special token that renders as empty text.

    The base 270M model never emits MedGemma's ``<unused95>`` (its embedding is
    untrained) but copies ``<unused0>``, another such token, so that one stands in.
    """
    return (
        "Question: What is 2+2?\n<unused94>\n2 plus 2 makes 4.\n<unused0>\nAnswer: 4\n\n"
        "Question: What is the capital of France?\n"
        "<unused94>\nFrance's capital city is Paris.\n<unused0>\nAnswer: Paris\n\n"
        "Question: What is the capital of Spain?\n"
        "<unused94>\nSpain's capital city is Madrid.\n<unused0>\nAnswer: Madrid\n\n"
        "Question: Is aspirin an NSAID?\n"
    )
