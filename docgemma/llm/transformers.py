"""A Hugging Face model in-process, constrained by Outlines.

Outlines keeps the schema's property order, which the field-ordering experiment
relies on; that is why this backend exists beside vLLM. Text only: images need the
vllm or openai backend. Generation is synchronous and runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from docgemma.config import Settings
from docgemma.llm import chat_format
from docgemma.llm.errors import ConfigurationError
from docgemma.llm.grammar import GrammarCache
from docgemma.llm.schema import check_bounded, token_budget, validated
from docgemma.llm.threads import iterate_in_thread
from docgemma.llm.types import Generation, Message, StructuredGeneration, T, Usage

INSTALL_HINT = (
    "the transformers backend needs the 'transformers' extra (transformers, outlines, torch): "
    "pip install 'docgemma[transformers]'"
)


def _import_engine() -> tuple[Any, Any, Any]:
    try:
        import outlines
        import torch
        import transformers
    except ImportError as exc:
        raise ConfigurationError(INSTALL_HINT) from exc
    return torch, transformers, outlines


def model_source(model: str) -> tuple[str, dict[str, Any]]:
    """What ``from_pretrained`` is given for ``model``: a folder or a cached model id as it
    is, in the precision it was saved in; a GGUF file as its folder and ``gguf_file``,
    which transformers de-quantizes to float32 on load (the embedded profiles' files run
    on this backend that way, slower than llama.cpp and in about four times the memory)."""
    path = Path(model).expanduser()
    if path.suffix == ".gguf":
        return str(path.parent), {"gguf_file": path.name, "dtype": "float32"}
    return model, {"dtype": "auto"}


class TransformersBackend:
    name = "transformers"
    supports_vision = False

    def __init__(self, model: str, *, seed: int = 0, chat_format_name: str = "auto") -> None:
        torch, transformers, outlines = _import_engine()
        self.model = Path(model).name if Path(model).suffix == ".gguf" else model
        """As reports name it: a GGUF by its file name, as the llama.cpp backend does."""
        self.model_path = model
        self._torch = torch
        self._transformers = transformers
        torch.manual_seed(seed)
        where, kwargs = model_source(model)
        try:  # local path or local Hugging Face cache only: nothing is downloaded at run time
            self._tokenizer = transformers.AutoTokenizer.from_pretrained(
                where, local_files_only=True, **kwargs
            )
            self._hf = transformers.AutoModelForCausalLM.from_pretrained(
                where, local_files_only=True, **kwargs
            )
        except OSError as exc:
            raise ConfigurationError(
                f"model {model!r} is not on this machine; give DOCGEMMA_HF_MODEL a local folder, "
                "a GGUF file or a model already in the Hugging Face cache"
            ) from exc
        self._outlines_model = outlines.from_transformers(self._hf, self._tokenizer)
        self._outlines = outlines
        self._generators: GrammarCache[type[BaseModel], Any] = GrammarCache()
        self._format = (
            None if chat_format_name == "auto" else chat_format.get_format(chat_format_name)
        )
        self.chat_format = chat_format_name
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> TransformersBackend:
        return cls(settings.hf_model, seed=settings.seed, chat_format_name=settings.chat_format)

    def prepare(self, schemas: Sequence[type[BaseModel]]) -> None:
        for schema in schemas:
            self._generator(schema)

    def _generator(self, schema: type[BaseModel]) -> Any:
        return self._generators.get(schema, lambda: self._new_generator(schema))

    def _new_generator(self, schema: type[BaseModel]) -> Any:
        check_bounded(schema)
        return self._outlines.Generator(self._outlines_model, schema)

    def render(self, messages: Sequence[Message], *, add_generation_prompt: bool = True) -> str:
        if any(m.images for m in messages):
            raise ConfigurationError(
                "the transformers backend is text-only; use vllm or openai for images"
            )
        if self._format is not None:
            return self._format[0](messages, add_generation_prompt)
        turns = [{"role": m.role, "content": m.content} for m in messages]
        return self._tokenizer.apply_chat_template(
            turns, tokenize=False, add_generation_prompt=add_generation_prompt
        )

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False))

    @staticmethod
    def _sampling(temperature: float) -> dict[str, Any]:
        return (
            {"do_sample": True, "temperature": temperature}
            if temperature > 0
            else {"do_sample": False}
        )

    def _structured_sync(
        self, prompt: str, schema: type[BaseModel], temperature: float, max_tokens: int
    ) -> Generation:
        start = time.perf_counter()
        with self._lock:
            text = self._generator(schema)(
                prompt, max_new_tokens=max_tokens, **self._sampling(temperature)
            )
        return Generation(
            text=text,
            latency_s=time.perf_counter() - start,
            finish_reason="stop",
            usage=Usage(
                prompt_tokens=self.count_tokens(prompt), completion_tokens=self.count_tokens(text)
            ),
        )

    def _generate_kwargs(
        self, prompt: str, temperature: float, max_tokens: int, stop: Sequence[str]
    ) -> dict[str, Any]:
        inputs = self._tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(
            self._hf.device
        )
        kwargs: dict[str, Any] = {
            **inputs,
            "max_new_tokens": max_tokens,
            **self._sampling(temperature),
        }
        if stop:
            kwargs.update(stop_strings=list(stop), tokenizer=self._tokenizer)
        return kwargs

    def _complete_sync(
        self, prompt: str, temperature: float, max_tokens: int, stop: Sequence[str]
    ) -> Generation:
        start = time.perf_counter()
        kwargs = self._generate_kwargs(prompt, temperature, max_tokens, stop)
        with self._lock, self._torch.inference_mode():
            output = self._hf.generate(**kwargs)
        new_tokens = output[0][kwargs["input_ids"].shape[1] :]
        text = self._tokenizer.decode(new_tokens, skip_special_tokens=False)
        cut = [text.index(s) for s in stop if s in text]
        if cut:
            text = text[: min(cut)]
        text = text.replace(self._tokenizer.eos_token or "\0", "")
        return Generation(
            text=text,
            latency_s=time.perf_counter() - start,
            finish_reason="length" if len(new_tokens) >= max_tokens else "stop",
            usage=Usage(
                prompt_tokens=int(kwargs["input_ids"].shape[1]), completion_tokens=len(new_tokens)
            ),
        )

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        prefix: str = "",
    ) -> StructuredGeneration[T]:
        budget = max_tokens if max_tokens is not None else token_budget(schema)
        gen = await asyncio.to_thread(  # Outlines constrains only the tokens it generates
            self._structured_sync, self.render(messages) + prefix, schema, temperature, budget
        )
        return validated(schema, gen)

    async def generate(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation:
        return await self.complete(
            self.render(messages), temperature=temperature, max_tokens=max_tokens, stop=stop
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        return self.stream_complete(
            self.render(messages), temperature=temperature, max_tokens=max_tokens, stop=stop
        )

    async def complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation:
        return await asyncio.to_thread(self._complete_sync, prompt, temperature, max_tokens, stop)

    async def stream_complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        """Pieces from a ``TextIteratorStreamer`` while ``generate`` runs in a thread.

        Stop strings end generation but, as in HF's own streaming, the piece holding a
        stop string is cut at it and nothing after is yielded.
        """
        streamer = self._transformers.TextIteratorStreamer(
            self._tokenizer, skip_prompt=True, skip_special_tokens=True
        )
        kwargs = self._generate_kwargs(prompt, temperature, max_tokens, stop)

        def run() -> None:
            with self._lock, self._torch.inference_mode():
                self._hf.generate(**kwargs, streamer=streamer)

        threading.Thread(target=run, daemon=True).start()
        seen = ""
        async for piece in iterate_in_thread(iter(streamer)):
            seen += piece
            hits = [seen.index(s) for s in stop if s in seen]
            if hits:
                tail = min(hits) - (len(seen) - len(piece))
                if tail > 0:
                    yield piece[:tail]
                return
            yield piece

    async def aclose(self) -> None:
        self._generators = GrammarCache()
