"""Speed of the embedded model: free vs grammar-constrained decoding, cold vs cached prompts.

Run with ``python -m experiments.bench_llm``. Targets from the design: constrained
decoding at least 85% of free decoding tokens/s, and a ~700-token prompt whose prefix
is already in the KV cache evaluated at least 10x faster than cold. The stock
llama-cpp-python grammar chain is measured too, to show what the fast sampler buys.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import time
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field

from docgemma.llm.llamacpp import LlamaCppBackend
from docgemma.llm.schema import json_schema
from docgemma.llm.types import messages

log = logging.getLogger(__name__)


class Description(BaseModel):
    """One long bounded string, so constrained output can be as long as free output."""

    text: str = Field(max_length=600)


DECODE_PROMPT = messages(
    ("system", "You are a clinical educator."),
    ("user", "Describe the management of community-acquired pneumonia in detail."),
)


def long_prompt(n_sentences: int = 22) -> str:
    """About 700 tokens of clinical rules: a stable prefix, as the agent's system prompt is."""
    drugs = [
        "amoxicillin",
        "doxycycline",
        "clarithromycin",
        "ceftriaxone",
        "levofloxacin",
        "metformin",
    ]
    lines = [
        f"Rule {i}: review {drugs[i % len(drugs)]} dosing when eGFR falls below {15 + i} "
        f"and record the reason in note {1000 + i * 7}."
        for i in range(n_sentences)
    ]
    return "Guidance for the assistant.\n" + "\n".join(lines) + "\n"


def _decode_rate(
    backend: LlamaCppBackend, prompt: str, max_tokens: int, grammar: Any
) -> tuple[float, int]:
    gen = backend._complete_sync(
        prompt, temperature=0.0, max_tokens=max_tokens, stop=(), grammar=grammar
    )
    return gen.usage.completion_tokens / gen.latency_s, gen.usage.completion_tokens


def decode_speed(backend: LlamaCppBackend, repetitions: int, max_tokens: int) -> pd.DataFrame:
    """Median tokens/s for the same prompt, free and constrained (fast and stock samplers)."""
    from llama_cpp import LlamaGrammar

    prompt = backend.render(DECODE_PROMPT)
    grammar = LlamaGrammar.from_json_schema(json.dumps(json_schema(Description)), verbose=False)
    backend._complete_sync(prompt, temperature=0.0, max_tokens=1, stop=())  # prompt into the cache
    rates: dict[str, list[tuple[float, int]]] = {
        "free": [],
        "constrained": [],
        "constrained_stock_chain": [],
    }
    for _ in range(repetitions):
        rates["free"].append(_decode_rate(backend, prompt, max_tokens, None))
        rates["constrained"].append(_decode_rate(backend, prompt, max_tokens, grammar))
        backend._llm.fast_grammar = False
        try:
            rates["constrained_stock_chain"].append(
                _decode_rate(backend, prompt, max_tokens, grammar)
            )
        finally:
            backend._llm.fast_grammar = True
    rows = [
        {
            "mode": mode,
            "median_tok_s": statistics.median(r for r, _ in runs),
            "median_tokens": statistics.median(n for _, n in runs),
            "runs": len(runs),
        }
        for mode, runs in rates.items()
    ]
    frame = pd.DataFrame(rows)
    frame["vs_free"] = (
        frame["median_tok_s"] / frame.loc[frame["mode"] == "free", "median_tok_s"].iloc[0]
    )
    return frame


def prefix_cache_speed(backend: LlamaCppBackend, repetitions: int) -> pd.DataFrame:
    """Prompt evaluation of a ~700-token prompt: cold, then sharing the cached prefix."""
    prefix = long_prompt()
    rows = []
    for rep in range(repetitions):
        backend._complete_sync(f"Unrelated warm-up {rep}.", temperature=0.0, max_tokens=1, stop=())
        cold = backend._complete_sync(
            prefix + f"Question {rep}: first?", temperature=0.0, max_tokens=1, stop=()
        )
        warm = backend._complete_sync(
            prefix + f"Question {rep}: second?", temperature=0.0, max_tokens=1, stop=()
        )
        rows.append(
            {
                "prompt_tokens": cold.usage.prompt_tokens,
                "cold_s": cold.latency_s,
                "cached_prefix_s": warm.latency_s,
            }
        )
    frame = pd.DataFrame(rows)
    frame["speedup"] = frame["cold_s"] / frame["cached_prefix_s"]
    return frame


def run(
    repetitions: int = 5, max_tokens: int = 96, n_threads: int | None = None
) -> dict[str, pd.DataFrame]:
    from docgemma.assets import model_file

    config = {
        "model": str(model_file("gemma3-270m")),
        "repetitions": repetitions,
        "max_tokens": max_tokens,
        "n_threads": n_threads,
    }
    log.info("bench_llm config: %s", json.dumps(config))
    backend = LlamaCppBackend(model_file("gemma3-270m"), n_ctx=4096, n_threads=n_threads, seed=0)
    try:
        return {
            "decode": decode_speed(backend, repetitions, max_tokens),
            "prefix_cache": prefix_cache_speed(backend, repetitions),
        }
    finally:
        backend._llm.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    start = time.perf_counter()
    results = run(args.repetitions, args.max_tokens, args.threads)
    decode, cache = results["decode"], results["prefix_cache"]
    log.info("decode speed (medians):\n%s", decode.to_string(index=False, float_format="%.2f"))
    log.info(
        "prompt evaluation, ~700 tokens:\n%s", cache.to_string(index=False, float_format="%.4f")
    )
    ratio = decode.loc[decode["mode"] == "constrained", "vs_free"].iloc[0]
    speedup = cache["cold_s"].median() / cache["cached_prefix_s"].median()
    log.info(
        "constrained/free = %.0f%% (target >= 85%%); cached prefix %.1fx faster "
        "(target >= 10x); %.0f s",
        100 * ratio,
        speedup,
        time.perf_counter() - start,
    )


if __name__ == "__main__":
    main()
