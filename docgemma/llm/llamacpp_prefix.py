"""Saved llama.cpp KV states of stable prompt prefixes, so alternating nodes never re-read them.

One llama.cpp context serves every node. llama-cpp-python reuses the KV cache only for
the prefix the new prompt shares with the previous one, so when intent, tool selection
and synthesis alternate, each evaluates its own system prompt (and tool list) again:
hundreds of tokens at about 90 tokens/s for Qwen 1.5B on 2 cores. Here each distinct
prefix is evaluated once, its sequence state (KV cells only, ~28 KB a token for Qwen
1.5B; not llama-cpp-python's whole-state snapshot, which also copies the logits buffer)
is kept in RAM, and is loaded back before a prompt that starts with it.
"""

from __future__ import annotations

import ctypes
import logging
from collections import OrderedDict
from collections.abc import Sequence
from enum import StrEnum

import llama_cpp
from llama_cpp import Llama

log = logging.getLogger(__name__)


class PrefixUse(StrEnum):
    SKIPPED = "skipped"
    """No stable prefix worth keeping (too short, or the whole prompt)."""
    LIVE = "live"
    """The context already holds the prefix (same node as the previous call)."""
    LOADED = "loaded"
    SAVED = "saved"


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class PrefixStates:
    """Per-prefix KV states of one ``Llama``, least recently used dropped past ``capacity``.

    Callers hold the backend's lock: this mutates the context the next completion uses.
    """

    def __init__(self, llm: Llama, capacity: int = 8, min_tokens: int = 32) -> None:
        self._llm = llm
        self._capacity = capacity
        self._min_tokens = min_tokens
        self._states: OrderedDict[tuple[int, ...], ctypes.Array] = OrderedDict()

    def tokens(self, text: str) -> list[int]:
        """Tokens as ``create_completion`` makes them from a string prompt."""
        llm = self._llm
        bos = [llm.token_bos()] if llm._model.add_bos_token() and llm.token_bos() != -1 else []
        return bos + llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)

    def prepare(self, prompt: str, prefix_chars: int) -> PrefixUse:
        """Leave the context holding ``prompt[:prefix_chars]``'s tokens, from a saved state
        when one exists; otherwise evaluate them once and save the state."""
        if prefix_chars <= 0:
            return PrefixUse.SKIPPED
        tokens = self.tokens(prompt)
        n = common_prefix(self.tokens(prompt[:prefix_chars]), tokens)
        if n < self._min_tokens or n >= len(tokens):
            return PrefixUse.SKIPPED
        key = tuple(tokens[:n])
        llm = self._llm
        live = common_prefix(llm.input_ids[: llm.n_tokens].tolist(), tokens)
        if key in self._states:
            self._states.move_to_end(key)
            if live >= n:
                return PrefixUse.LIVE
            self._load(key)
            return PrefixUse.LOADED
        self._truncate(min(live, n))
        if live < n:
            llm.eval(list(key[live:]))
        self._save(key)
        return PrefixUse.SAVED

    def _truncate(self, n: int) -> None:
        llm = self._llm
        llm._ctx.kv_cache_seq_rm(0, n, -1)
        llm.n_tokens = n
        llm._requires_eval = True

    def _save(self, key: tuple[int, ...]) -> None:
        ctx = self._llm._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0)
        if written == 0:
            log.warning("llama.cpp returned no state for a %d-token prefix", len(key))
            return
        self._states[key] = buffer
        while len(self._states) > self._capacity:
            self._states.popitem(last=False)

    def _load(self, key: tuple[int, ...]) -> None:
        llm = self._llm
        buffer = self._states[key]
        llm._ctx.kv_cache_seq_rm(0, 0, -1)
        if llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buffer, len(buffer), 0) == 0:
            log.warning("llama.cpp refused a saved prefix state; evaluating the prompt")
            del self._states[key]
            self._truncate(0)
            return
        llm.input_ids[: len(key)] = key
        llm.n_tokens = len(key)
        llm._requires_eval = True
