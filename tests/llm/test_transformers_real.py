"""The transformers backend on a real model: Outlines-constrained output from the embedded
Qwen 0.5B GGUF file, de-quantized by transformers, beside llama.cpp's grammar on the same file.

The only place Outlines runs against real weights; the field-order experiment relies on it
keeping the schema's property order."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from docgemma.agent.schemas import IntentClassification, ResultAssessment
from docgemma.llm.schema import emitted_key_order, schema_key_order
from docgemma.llm.types import Message

pytestmark = pytest.mark.real_model

QUESTIONS = (
    "Check the interactions between warfarin and ciprofloxacin.",
    "Hello, thank you for your help today.",
)
SYSTEM = (
    "Classify the clinician's message. TOOL_NEEDED when it needs a drug, literature, trial "
    "or record lookup; DIRECT otherwise."
)


def messages(question: str) -> list[Message]:
    return [Message(role="system", content=SYSTEM), Message(role="user", content=question)]


@pytest.fixture(scope="module")
def gguf_file() -> str:
    from docgemma.assets import model_file

    return str(model_file("qwen2.5-0.5b"))


@pytest.fixture(scope="module")
def transformers_llm(gguf_file: str) -> Iterator[object]:
    from docgemma.llm.transformers import TransformersBackend

    backend = TransformersBackend(gguf_file, seed=0)
    yield backend
    asyncio.run(backend.aclose())


def in_schema_order(raw: str, schema: type) -> bool:
    emitted = emitted_key_order(raw)
    order = schema_key_order(schema)
    return bool(emitted) and emitted == [k for k in order if k in emitted]


@pytest.mark.parametrize("schema", [IntentClassification, ResultAssessment])
async def test_outlines_output_is_valid_in_schema_order_and_repeatable(
    transformers_llm, schema: type
) -> None:
    first = await transformers_llm.structured(messages(QUESTIONS[0]), schema, temperature=0.0)
    again = await transformers_llm.structured(messages(QUESTIONS[0]), schema, temperature=0.0)
    assert isinstance(first.value, schema)
    assert in_schema_order(first.text, schema), first.text
    assert again.text == first.text  # greedy decoding is deterministic
    assert first.usage.prompt_tokens > 0 and first.usage.completion_tokens > 0


async def test_streamed_pieces_make_the_completed_text(transformers_llm) -> None:
    prompt = transformers_llm.render(messages("Name one loop diuretic."))
    whole = await transformers_llm.complete(prompt, temperature=0.0, max_tokens=24)
    pieces = [p async for p in transformers_llm.stream_complete(prompt, max_tokens=24)]
    assert (
        whole.text.strip()
        and "".join(pieces).strip() == whole.text.replace("<|im_end|>", "").strip()
    )


async def test_outlines_and_llama_cpp_grammars_agree_on_shape_over_the_same_file(
    transformers_llm, gguf_file: str
) -> None:
    """Both constrain the same weights to the same schema: each output parses and keeps the
    schema's order. Their labels may differ (float32 de-quantized vs Q4 kernels); the
    field-order experiment measures how often, this only that both run."""
    from docgemma.llm.llamacpp import LlamaCppBackend

    llama = LlamaCppBackend(gguf_file, n_ctx=2048, seed=0)
    try:
        for question in QUESTIONS:
            ours = await transformers_llm.structured(messages(question), IntentClassification)
            theirs = await llama.structured(messages(question), IntentClassification)
            for out in (ours, theirs):
                assert in_schema_order(out.text, IntentClassification), out.text
    finally:
        llama._llm.close()
