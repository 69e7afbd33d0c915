"""The embedded default: llama.cpp in-process, constrained by its own JSON-schema grammar.

Why the native grammar and not Outlines here: Gemma's 262k-token vocabulary makes a
Python-side logits mask about ten times slower than llama.cpp's grammar sampler.
llama-cpp-python keeps the previous prompt's tokens in its KV cache and reuses the
longest common prefix, so prompts are built with their stable parts (system prompt,
tool descriptions) first.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from llama_cpp import StoppingCriteriaList
from pydantic import BaseModel

from docgemma.engine_build import usable_cores
from docgemma.llm import chat_format
from docgemma.llm.errors import (
    ConfigurationError,
    ModelUnavailable,
)
from docgemma.llm.fair_lock import FairLock
from docgemma.llm.grammar import GrammarCache, gbnf
from docgemma.llm.llamacpp_prefix import PrefixStates
from docgemma.llm.llamacpp_sampling import (
    FastGrammarLlama,
    StopOnTokens,
    checked_grammar,
    special_stop_ids,
)
from docgemma.llm.schema import token_budget, validated
from docgemma.llm.threads import iterate_in_thread
from docgemma.llm.types import Generation, Message, StructuredGeneration, T, Usage

log = logging.getLogger(__name__)


@contextmanager
def _context_limit() -> Iterator[None]:
    """llama.cpp refuses an over-long prompt with a bare ValueError; make it a typed error."""
    try:
        yield
    except ValueError as exc:
        if "context window" not in str(exc):
            raise
        raise ModelUnavailable(f"prompt too long for the model's context window: {exc}") from exc


def call_seed(seed: int, prompt: str, temperature: float) -> int:
    """The sampling seed of one call: fixed by the configured seed, the prompt and the
    temperature. llama-cpp-python's default draws each call's seed from a chain that
    advances with every call, so a sampled answer depended on how many calls the
    process had made before it: one changed case changed every later case of an
    evaluation. Now the same call samples the same text wherever it runs (from the same
    cache state: a prompt already cached is evaluated by its last token alone, which
    rounds the logits differently). Both engine kinds send this seed."""
    key = f"{seed}\x00{temperature}\x00{prompt}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=4).digest(), "big")


def existing_model(model_path: Path | str) -> Path:
    """The GGUF path, or a ``ConfigurationError`` that says which setting names it."""
    path = Path(model_path)
    if not path.is_file():
        raise ConfigurationError(
            f"model file not found: {path} (set DOCGEMMA_MODEL to a profile or a GGUF)"
        )
    return path


class LlamaCppBackend:
    name = "llamacpp"
    supports_vision = False

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        seed: int = 0,
        chat_format_name: str = "auto",
    ) -> None:
        model_path = existing_model(model_path)
        self.model = model_path.name
        self.model_path = model_path
        self._seed = seed
        try:
            self._llm = FastGrammarLlama(
                model_path=str(model_path),
                n_ctx=n_ctx,
                n_threads=n_threads or usable_cores(),
                seed=seed,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise ConfigurationError(f"llama.cpp could not load {model_path}: {exc}") from exc
        fmt = chat_format_name
        if fmt == "auto":
            fmt = chat_format.detect(self._llm.metadata.get("tokenizer.chat_template"))
        self.chat_format = fmt
        self._render, self._turn_stops = chat_format.get_format(fmt)
        self._lock = FairLock()  # model calls run in the order they were asked
        # Every model call runs on this one thread. llama.cpp's CPU threads are an OpenMP
        # team that belongs to the thread calling it and spins, awake, for a moment after
        # each step; a call from another thread gets a cold team of its own while the
        # last one still spins on the same cores (docs/engine.md has the measurement).
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama.cpp")
        self._grammars: GrammarCache[type[BaseModel], Any] = GrammarCache()
        self._grammar_texts: GrammarCache[str, Any] = GrammarCache()
        self.prefixes = PrefixStates(self._llm)

    # ── schemas ──
    def prepare(self, schemas: Sequence[type[BaseModel]]) -> None:
        for schema in schemas:
            self._grammar(schema)

    def _grammar(self, schema: type[BaseModel]) -> Any:
        """The compiled grammar of ``schema`` (see ``grammar.gbnf`` for its string rule)."""
        return self._grammars.get(
            schema, lambda: self.compile_grammar(gbnf(schema), schema.__name__)
        )

    def compile_grammar(self, text: str, name: str = "schema") -> Any:
        """GBNF text compiled and checked once; the engine process receives grammars as text."""
        return self._grammar_texts.get(text, lambda: checked_grammar(self._llm._model, text, name))

    # ── calls ──
    def render(self, messages: Sequence[Message], *, add_generation_prompt: bool = True) -> str:
        return self._render(messages, add_generation_prompt)

    def _rendered(self, messages: Sequence[Message]) -> tuple[str, int]:
        """The prompt and where its stable prefix ends (``chat_format.stable_prefix_end``)."""
        prompt = self.render(messages)
        return prompt, chat_format.stable_prefix_end(prompt, messages)

    def _token_stops(self, stop: Sequence[str]) -> StoppingCriteriaList | None:
        """Stop on special-token stop sequences by id: their text never reaches the output."""
        ids = special_stop_ids(self._llm, stop)
        return StoppingCriteriaList([StopOnTokens(ids)]) if ids else None

    def _call_seed(self, prompt: str, temperature: float) -> int:
        return call_seed(self._seed, prompt, temperature)

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _complete_sync(
        self,
        prompt: str,
        *,
        temperature: float,
        max_tokens: int,
        stop: Sequence[str],
        grammar: Any = None,
        prefix_chars: int = 0,
    ) -> Generation:
        start = time.perf_counter()
        with self._lock, _context_limit():
            self.prefixes.prepare(prompt, prefix_chars)
            out = self._llm.create_completion(
                prompt,
                max_tokens=max_tokens,
                temperature=temperature,
                stop=list(stop) or None,
                stopping_criteria=self._token_stops(stop),
                grammar=grammar,
                seed=self._call_seed(prompt, temperature),
            )
        choice = out["choices"][0]
        usage = out.get("usage", {})
        return Generation(
            text=choice["text"],
            usage=Usage(
                prompt_tokens=usage.get("prompt_tokens", 0),
                completion_tokens=usage.get("completion_tokens", 0),
            ),
            latency_s=time.perf_counter() - start,
            finish_reason=choice.get("finish_reason"),
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
        grammar = self._grammar(schema)
        budget = max_tokens if max_tokens is not None else token_budget(schema)
        prompt, prefix_chars = self._rendered(messages)
        gen = await self._on_model_thread(
            self._complete_sync,
            prompt + prefix,  # the grammar applies from the first generated token on
            temperature=temperature,
            max_tokens=budget,
            stop=(),
            grammar=grammar,
            prefix_chars=prefix_chars,
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
        prompt, prefix_chars = self._rendered(messages)
        return await self._on_model_thread(
            self._complete_sync,
            prompt,
            temperature=temperature,
            max_tokens=max_tokens,
            stop=(*self._turn_stops, *stop),
            prefix_chars=prefix_chars,
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        prompt, prefix_chars = self._rendered(messages)
        return self._stream(
            prompt,
            temperature=temperature,
            max_tokens=max_tokens,
            stop=(*self._turn_stops, *stop),
            prefix_chars=prefix_chars,
        )

    async def complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation:
        return await self._on_model_thread(
            self._complete_sync, prompt, temperature=temperature, max_tokens=max_tokens, stop=stop
        )

    def stream_complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        return self._stream(prompt, temperature=temperature, max_tokens=max_tokens, stop=stop)

    async def complete_prompt(
        self,
        prompt: str,
        *,
        temperature: float,
        max_tokens: int,
        stop: Sequence[str] = (),
        grammar_text: str | None = None,
        prefix_chars: int = 0,
    ) -> Generation:
        """A rendered prompt completed, optionally under GBNF text: the engine process's call."""
        grammar = self.compile_grammar(grammar_text) if grammar_text else None
        return await self._on_model_thread(
            self._complete_sync,
            prompt,
            temperature=temperature,
            max_tokens=max_tokens,
            stop=stop,
            grammar=grammar,
            prefix_chars=prefix_chars,
        )

    def stream_prompt(
        self,
        prompt: str,
        *,
        temperature: float,
        max_tokens: int,
        stop: Sequence[str] = (),
        prefix_chars: int = 0,
    ) -> AsyncIterator[str]:
        """A rendered prompt streamed: the engine process's streaming call."""
        return self._stream(
            prompt,
            temperature=temperature,
            max_tokens=max_tokens,
            stop=stop,
            prefix_chars=prefix_chars,
        )

    async def _stream(
        self,
        prompt: str,
        *,
        temperature: float,
        max_tokens: int,
        stop: Sequence[str],
        prefix_chars: int = 0,
    ) -> AsyncIterator[str]:
        def pieces() -> Iterator[str]:
            with self._lock, _context_limit():
                self.prefixes.prepare(prompt, prefix_chars)
                for chunk in self._llm.create_completion(
                    prompt,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    stop=list(stop) or None,
                    stopping_criteria=self._token_stops(stop),
                    stream=True,
                    seed=self._call_seed(prompt, temperature),
                ):
                    yield chunk["choices"][0]["text"]

        async for piece in iterate_in_thread(pieces(), self._thread):
            yield piece

    async def _on_model_thread(self, call: Any, *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, functools.partial(call, *args, **kwargs))

    async def aclose(self) -> None:
        self._thread.shutdown(wait=True, cancel_futures=True)
        self._llm.close()
