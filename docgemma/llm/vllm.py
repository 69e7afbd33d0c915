"""vLLM in-process (GPU only) for batched experiments.

Structured calls use vLLM's own structured outputs (``StructuredOutputsParams`` from
v0.12, ``GuidedDecodingParams`` before). ``structured_batch`` sends a whole set of
prompts to the engine at once — the reason to run vLLM in-process at all. The engine
is synchronous, so single calls run in a worker thread behind a lock.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

from pydantic import BaseModel

from docgemma.config import Settings
from docgemma.llm import chat_format
from docgemma.llm.errors import ConfigurationError, StructuredOutputError
from docgemma.llm.schema import check_bounded, json_schema, token_budget, validated
from docgemma.llm.types import Generation, Message, StructuredGeneration, T, Usage

INSTALL_HINT = "the vllm backend needs the 'gpu' extra (a CUDA GPU): pip install 'docgemma[gpu]'"


def _import_vllm() -> Any:
    # Weights come from the user's own path or local Hugging Face cache, never the Hub.
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        import vllm
    except ImportError as exc:
        raise ConfigurationError(INSTALL_HINT) from exc
    return vllm


def _structured_params(schema: type[BaseModel]) -> dict[str, Any]:
    """SamplingParams keyword for a JSON-schema constraint, for old and new vLLM alike."""
    try:
        from vllm.sampling_params import StructuredOutputsParams
    except ImportError:
        from vllm.sampling_params import GuidedDecodingParams

        return {"guided_decoding": GuidedDecodingParams(json=json_schema(schema))}
    return {"structured_outputs": StructuredOutputsParams(json=json_schema(schema))}


class VLLMBackend:
    name = "vllm"

    def __init__(
        self,
        model: str,
        *,
        max_model_len: int = 4096,
        seed: int = 0,
        chat_format_name: str = "auto",
        supports_vision: bool = False,
        **engine_args: Any,
    ) -> None:
        vllm = _import_vllm()
        self.model = model
        self.seed = seed
        self.supports_vision = supports_vision
        self._llm = vllm.LLM(model=model, max_model_len=max_model_len, seed=seed, **engine_args)
        self._tokenizer = self._llm.get_tokenizer()
        self._sampling = vllm.SamplingParams
        self.chat_format = chat_format_name
        self._format = (
            None if chat_format_name == "auto" else chat_format.get_format(chat_format_name)
        )
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> VLLMBackend:
        return cls(
            settings.hf_model,
            max_model_len=settings.n_ctx,
            seed=settings.seed,
            chat_format_name=settings.chat_format,
            supports_vision=settings.hf_supports_vision,
        )

    def prepare(self, schemas: Sequence[type[BaseModel]]) -> None:
        for schema in schemas:
            check_bounded(schema)

    # ── prompts ──
    def render(self, messages: Sequence[Message], *, add_generation_prompt: bool = True) -> str:
        """The model's own chat template (``auto``) or one of ours by name."""
        if self._format is not None:
            return self._format[0](messages, add_generation_prompt)
        turns = []
        for m in messages:
            content: Any = m.content
            if m.images:
                content = [{"type": "image"} for _ in m.images] + [
                    {"type": "text", "text": m.content}
                ]
            turns.append({"role": m.role, "content": content})
        return self._tokenizer.apply_chat_template(
            turns, tokenize=False, add_generation_prompt=add_generation_prompt
        )

    def _inputs(self, messages: Sequence[Message], prefix: str = "") -> dict[str, Any]:
        """The engine's input; ``prefix`` opens the model's turn, before any constrained token."""
        images = [img for m in messages for img in m.images]
        inputs: dict[str, Any] = {"prompt": self.render(messages) + prefix}
        if images:
            if not self.supports_vision:
                raise ConfigurationError(
                    "this model does not accept images; set DOCGEMMA_HF_SUPPORTS_VISION=true"
                )
            import io

            from PIL import Image

            inputs["multi_modal_data"] = {"image": [Image.open(io.BytesIO(i.data)) for i in images]}
        return inputs

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False))

    # ── engine ──
    def _run(self, inputs: list[Any], params: Any) -> list[Generation]:
        start = time.perf_counter()
        with self._lock:
            outputs = self._llm.generate(inputs, params, use_tqdm=False)
        latency = (time.perf_counter() - start) / max(len(outputs), 1)
        return [
            Generation(
                text=out.outputs[0].text,
                latency_s=latency,
                finish_reason=out.outputs[0].finish_reason,
                usage=Usage(
                    prompt_tokens=len(out.prompt_token_ids or ()),
                    completion_tokens=len(out.outputs[0].token_ids),
                ),
            )
            for out in outputs
        ]

    def _params(
        self,
        *,
        temperature: float,
        max_tokens: int,
        stop: Sequence[str] = (),
        schema: type[BaseModel] | None = None,
    ) -> Any:
        extra = _structured_params(schema) if schema is not None else {}
        return self._sampling(
            temperature=temperature,
            max_tokens=max_tokens,
            stop=list(stop) or None,
            seed=self.seed,
            **extra,
        )

    def structured_batch(
        self,
        batch: Sequence[Sequence[Message]],
        schema: type[T],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        prefix: str = "",
    ) -> list[StructuredGeneration[T] | StructuredOutputError]:
        """Constrain a batch of conversations in one engine call; invalid items come back
        as ``StructuredOutputError`` values rather than failing the batch."""
        check_bounded(schema)
        params = self._params(
            temperature=temperature,
            max_tokens=max_tokens if max_tokens is not None else token_budget(schema),
            schema=schema,
        )
        results: list[StructuredGeneration[T] | StructuredOutputError] = []
        for gen in self._run([self._inputs(m, prefix) for m in batch], params):
            try:
                results.append(validated(schema, gen))
            except StructuredOutputError as exc:
                results.append(exc)
        return results

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        prefix: str = "",
    ) -> StructuredGeneration[T]:
        check_bounded(schema)
        params = self._params(
            temperature=temperature,
            max_tokens=max_tokens if max_tokens is not None else token_budget(schema),
            schema=schema,
        )
        [gen] = await asyncio.to_thread(self._run, [self._inputs(messages, prefix)], params)
        return validated(schema, gen)

    async def generate(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation:
        params = self._params(temperature=temperature, max_tokens=max_tokens, stop=stop)
        [gen] = await asyncio.to_thread(self._run, [self._inputs(messages)], params)
        return gen

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        """The offline engine does not stream: the whole text arrives as one piece."""
        yield (
            await self.generate(messages, temperature=temperature, max_tokens=max_tokens, stop=stop)
        ).text

    async def complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation:
        params = self._params(temperature=temperature, max_tokens=max_tokens, stop=stop)
        [gen] = await asyncio.to_thread(self._run, [prompt], params)
        return gen

    async def stream_complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        yield (
            await self.complete(prompt, temperature=temperature, max_tokens=max_tokens, stop=stop)
        ).text

    async def aclose(self) -> None:
        del self._llm
