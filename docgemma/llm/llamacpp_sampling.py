"""Greedy grammar sampling that checks the best tokens first, for large vocabularies.

llama-cpp-python puts the grammar sampler in the chain, so every step runs the grammar
over all 262k Gemma tokens: constrained decoding ran at a fraction of free decoding.
At temperature 0 the answer under a grammar is the highest-logit token the grammar
allows, so this sampler tests candidates one at a time in logit order (usually the
first is allowed) and only masks the whole vocabulary when the top few all fail —
the same result as the full mask, found much faster. llama.cpp's own server samples
the same way (sample first, check the grammar, re-sample on rejection).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

import llama_cpp
import numpy as np
from llama_cpp import Llama, LlamaGrammar

from docgemma.llm.errors import SchemaNotSupported

_TIERS = (32, 4096, 32768)
"""How many top-logit tokens to test after the best one fails; the full vocabulary comes last."""


def grammar_loads(model: Any, grammar: LlamaGrammar) -> bool:
    """Whether llama.cpp itself accepts the grammar; its parser refuses some the converter emits
    (a long ``maxLength`` unrolls into more repetitions than it allows)."""
    sampler = llama_cpp.llama_sampler_init_grammar(
        model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
    )
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


class GreedyGrammarSampler:
    """Stands in for llama-cpp-python's sampler chain; ``sample`` also accepts the token."""

    def __init__(self, model: Any, grammar: LlamaGrammar, n_vocab: int) -> None:
        self._grammar = llama_cpp.llama_sampler_init_grammar(
            model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
        if not self._grammar:
            raise ValueError("llama.cpp could not initialise the grammar sampler")
        self._n_vocab = n_vocab
        self._buffer = (llama_cpp.llama_token_data * n_vocab)()
        self._view = np.ctypeslib.as_array(self._buffer)
        self._all_ids = np.arange(n_vocab, dtype=np.int32)

    def _best_allowed(self, ids: np.ndarray, logits: np.ndarray) -> int | None:
        """The highest-logit token among ``ids`` that the grammar allows, if any."""
        size = len(ids)
        view = self._view[:size]
        view["id"], view["logit"], view["p"] = ids, logits, 0.0
        array = llama_cpp.llama_token_data_array(
            data=self._buffer, size=size, selected=-1, sorted=False
        )
        llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(array))
        best = int(np.argmax(view["logit"]))
        return int(view["id"][best]) if np.isfinite(view["logit"][best]) else None

    def sample(self, ctx: Any, idx: int = -1) -> int:
        pointer = llama_cpp.llama_get_logits_ith(ctx.ctx, idx)
        logits = np.ctypeslib.as_array(pointer, shape=(self._n_vocab,))
        best = np.array([np.argmax(logits)], dtype=np.int32)
        token = self._best_allowed(best, logits[best])
        for tier in _TIERS if token is None else ():
            top = np.argpartition(logits, -tier)[-tier:].astype(np.int32)
            token = self._best_allowed(top, logits[top])
            if token is not None:
                break
        if token is None:
            token = self._best_allowed(self._all_ids, logits)
        if token is None:
            raise RuntimeError("the grammar allows no token at this point")
        llama_cpp.llama_sampler_accept(self._grammar, token)
        return token

    def close(self) -> None:
        if self._grammar:
            llama_cpp.llama_sampler_free(self._grammar)
            self._grammar = None

    def __del__(self) -> None:
        self.close()


class FastGrammarLlama(Llama):
    """``Llama`` whose greedy grammar-constrained calls use ``GreedyGrammarSampler``."""

    fast_grammar = True
    """Switch back to llama-cpp-python's own chain (the equivalence test compares both)."""

    def _init_sampler(self, *args: Any, **kwargs: Any) -> Any:
        grammar = kwargs.get("grammar")
        plain = (
            self.fast_grammar
            and kwargs.get("temp") == 0.0
            and kwargs.get("logits_processor") is None
            and kwargs.get("repeat_penalty", 1.0) == 1.0
            and not kwargs.get("frequency_penalty")
            and not kwargs.get("presence_penalty")
            and not args
        )
        if grammar is None or not plain:
            return super()._init_sampler(*args, **kwargs)
        return GreedyGrammarSampler(self._model, grammar, self._n_vocab)


def checked_grammar(model: Any, text: str, name: str) -> LlamaGrammar:
    """GBNF ``text`` parsed and accepted by llama.cpp for ``model``; ``SchemaNotSupported``
    says which step refused it."""
    try:
        grammar = LlamaGrammar.from_string(text, verbose=False)
    except ValueError as exc:
        raise SchemaNotSupported(f"{name}: llama.cpp grammar conversion failed: {exc}") from exc
    if not grammar_loads(model, grammar):
        raise SchemaNotSupported(
            f"{name}: llama.cpp refused the grammar (too many repetitions: "
            "lower the max_length of long string fields)"
        )
    return grammar


def special_stop_ids(llm: Llama, stops: Sequence[str]) -> frozenset[int]:
    """Ids of the stop sequences that are one special token, e.g. MedGemma's ``<unused95>``.

    llama-cpp-python renders special tokens as empty text, so a stop string like these
    is never seen in the output; generation has to stop on the token id instead.
    """
    ids: set[int] = set()
    for stop in stops:
        tokens = llm.tokenize(stop.encode("utf-8"), add_bos=False, special=True)
        if len(tokens) == 1 and not llm.detokenize(tokens, special=False):
            ids.add(tokens[0])
    return frozenset(ids)


class StopOnTokens:
    """A llama-cpp-python stopping criterion: the last generated token is one of ``ids``.

    The library calls it with the tokens evaluated so far, before the newest sampled
    token is evaluated, so it fires one step after that token; the first call sees only
    the prompt, whose length marks where generated tokens begin (a prompt may itself end
    in a delimiter, which must not count).
    """

    def __init__(self, ids: frozenset[int]) -> None:
        self.ids = ids
        self._prompt_len: int | None = None
        self.fired = False

    def __call__(self, input_ids: np.ndarray, logits: np.ndarray) -> bool:
        if self._prompt_len is None:
            self._prompt_len = len(input_ids)
            return False
        if len(input_ids) > self._prompt_len and int(input_ids[-1]) in self.ids:
            self.fired = True
        return self.fired
