"""Budget forcing (s1, "simple test-time scaling") on any backend with raw completion.

The model thinks between an open and a close delimiter. Generation stops on the close
delimiter (or an end-of-turn marker); if that comes too early — before ``min_tokens``,
or before the end has been suppressed ``num_ignore`` times — the stop is ignored,
``wait_text`` is appended and thinking continues. When the ``max_tokens`` budget runs
out, the close delimiter is written for the model. Then the answer is generated.

Only ``render``, ``complete``/``stream_complete`` and ``count_tokens`` are used, so the
same loop runs on llama.cpp in-process and on any OpenAI-compatible server.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from docgemma.llm.base import LLMBackend
from docgemma.llm.errors import ConfigurationError
from docgemma.llm.types import Message, StreamChunk


class ThinkingDelimiters(BaseModel):
    model_config = ConfigDict(frozen=True)

    open: str
    close: str


DELIMITERS: dict[str, ThinkingDelimiters] = {
    "medgemma": ThinkingDelimiters(open="<unused94>", close="<unused95>"),
    "qwen": ThinkingDelimiters(open="<|im_start|>think", close="<|im_start|>answer"),
    "generic": ThinkingDelimiters(open="<think>", close="</think>"),
}

END_OF_TURN = ("<end_of_turn>", "<|im_end|>", "<eos>", "</s>")
"""Markers that end a model turn in the supported chat formats; they stop both phases."""


def delimiters_for(family: str) -> ThinkingDelimiters:
    try:
        return DELIMITERS[family]
    except KeyError:
        raise ConfigurationError(
            f"unknown thinking family {family!r}; valid: {', '.join(DELIMITERS)}"
        ) from None


class ThinkingConfig(BaseModel):
    family: str = "generic"
    delimiters: ThinkingDelimiters | None = Field(
        None, description="Explicit delimiters; overrides the family's"
    )
    min_tokens: int = Field(
        0, ge=0, description="Ignore an end of thinking before this many tokens"
    )
    max_tokens: int = Field(512, ge=1, description="Force the close delimiter at this many tokens")
    num_ignore: int = Field(0, ge=0, description="Ignore the first N ends of thinking regardless")
    wait_text: str = "Wait"
    answer_max_tokens: int = Field(256, ge=1)
    temperature: float = 0.0
    end_of_turn: tuple[str, ...] = END_OF_TURN

    def resolved(self) -> ThinkingDelimiters:
        return self.delimiters or delimiters_for(self.family)


class ThinkingResult(BaseModel):
    thinking: str
    answer: str
    waits_inserted: int
    forced_close: bool
    close_emitted_naturally: bool
    thinking_tokens: int
    answer_tokens: int
    latency_s: float


async def _segment(
    backend: LLMBackend,
    prompt: str,
    *,
    streaming: bool,
    temperature: float,
    max_tokens: int,
    stop: Sequence[str],
    channel: str,
    sink: list[str],
) -> AsyncIterator[StreamChunk]:
    """Run one completion: its pieces when streaming, then ``tokens``/``hit_budget`` in data."""
    if streaming:
        async for piece in backend.stream_complete(
            prompt, temperature=temperature, max_tokens=max_tokens, stop=stop
        ):
            if not piece:
                continue
            sink.append(piece)
            yield StreamChunk(text=piece, channel=channel)
        # servers send about one piece per token; re-tokenizing the text can undercount
        tokens = max(backend.count_tokens("".join(sink)), len(sink))
        hit = tokens >= max_tokens
    else:
        gen = await backend.complete(
            prompt, temperature=temperature, max_tokens=max_tokens, stop=stop
        )
        sink.append(gen.text)
        tokens = gen.usage.completion_tokens or backend.count_tokens(gen.text)
        hit = gen.finish_reason == "length" or tokens >= max_tokens
    yield StreamChunk(text="", channel=channel, data={"tokens": tokens, "hit_budget": hit})


def _prompt(backend: LLMBackend, prompt_or_messages: str | Sequence[Message]) -> str:
    if isinstance(prompt_or_messages, str):
        return prompt_or_messages
    return backend.render(prompt_or_messages)


async def _think(
    backend: LLMBackend,
    prompt_or_messages: str | Sequence[Message],
    config: ThinkingConfig,
    *,
    streaming: bool,
) -> AsyncIterator[StreamChunk]:
    """The forcing loop of the thinking phase; its last chunk carries ``data["thought"]``:
    the prompt head, the thinking, its token count, waits, and how it ended."""
    delims = config.resolved()
    head = f"{_prompt(backend, prompt_or_messages)}{delims.open}\n"
    thinking = ""
    tokens = waits = 0
    forced = natural = False
    while True:
        remaining = config.max_tokens - tokens
        if remaining <= 0:
            forced = True
            break
        pieces: list[str] = []
        async for chunk in _segment(
            backend,
            head + thinking,
            streaming=streaming,
            temperature=config.temperature,
            max_tokens=remaining,
            stop=(delims.close, *config.end_of_turn),
            channel="thinking",
            sink=pieces,
        ):
            if "tokens" in chunk.data:
                tokens += chunk.data["tokens"]
                hit_budget = chunk.data["hit_budget"]
            else:
                yield chunk
        thinking += "".join(pieces)
        if hit_budget:
            forced = True
            break
        if waits < config.num_ignore or tokens < config.min_tokens:
            wait = ("" if not thinking or thinking[-1].isspace() else " ") + config.wait_text
            thinking += wait
            tokens += backend.count_tokens(wait)
            waits += 1
            yield StreamChunk(text=wait, channel="thinking")
            continue
        natural = True
        break
    thought = {
        "head": head,
        "thinking": thinking,
        "tokens": tokens,
        "waits": waits,
        "forced": forced,
        "natural": natural,
    }
    yield StreamChunk(text="", channel="thinking", data={"thought": thought})


async def stream_thinking(
    backend: LLMBackend, prompt_or_messages: str | Sequence[Message], config: ThinkingConfig
) -> AsyncIterator[StreamChunk]:
    """Only the thinking phase, streamed; the last chunk's ``data["thought"]`` holds the
    whole thinking (``thinking``) and its token count (``tokens``). For an answer that is
    generated some other way (under a schema) with the thinking in its prompt."""
    async for chunk in _think(backend, prompt_or_messages, config, streaming=True):
        yield chunk


async def _run(
    backend: LLMBackend,
    prompt_or_messages: str | Sequence[Message],
    config: ThinkingConfig,
    *,
    streaming: bool,
) -> AsyncIterator[StreamChunk]:
    """The forcing loop, then the answer; every text piece is yielded, the last chunk
    carries the result."""
    start = time.perf_counter()
    delims = config.resolved()
    thought: dict[str, Any] = {}
    async for chunk in _think(backend, prompt_or_messages, config, streaming=streaming):
        if "thought" in chunk.data:
            thought = chunk.data["thought"]
        else:
            yield chunk
    head, thinking, tokens = thought["head"], thought["thinking"], thought["tokens"]
    answer_pieces: list[str] = []
    answer_tokens = 0
    async for chunk in _segment(
        backend,
        f"{head}{thinking}\n{delims.close}\n",
        streaming=streaming,
        temperature=config.temperature,
        max_tokens=config.answer_max_tokens,
        stop=config.end_of_turn,
        channel="answer",
        sink=answer_pieces,
    ):
        if "tokens" in chunk.data:
            answer_tokens = chunk.data["tokens"]
        else:
            yield chunk
    result = ThinkingResult(
        thinking=thinking,
        answer="".join(answer_pieces).strip(),
        waits_inserted=thought["waits"],
        forced_close=thought["forced"],
        close_emitted_naturally=thought["natural"],
        thinking_tokens=tokens,
        answer_tokens=answer_tokens,
        latency_s=time.perf_counter() - start,
    )
    yield StreamChunk(text="", channel="answer", data={"result": result.model_dump()})


async def think_then_answer(
    backend: LLMBackend, prompt_or_messages: str | Sequence[Message], config: ThinkingConfig
) -> ThinkingResult:
    """Think under the budget, then answer; the whole result at once."""
    async for chunk in _run(backend, prompt_or_messages, config, streaming=False):
        if "result" in chunk.data:
            return ThinkingResult.model_validate(chunk.data["result"])
    raise AssertionError("the forcing loop always ends with a result")  # pragma: no cover


async def stream_think_then_answer(
    backend: LLMBackend, prompt_or_messages: str | Sequence[Message], config: ThinkingConfig
) -> AsyncIterator[StreamChunk]:
    """Stream thinking then answer pieces on separate channels.

    Inserted ``wait_text`` is streamed on the thinking channel too. The final chunk has
    empty text and ``data["result"]``: the ``ThinkingResult`` fields as a dict.
    """
    async for chunk in _run(backend, prompt_or_messages, config, streaming=True):
        yield chunk
