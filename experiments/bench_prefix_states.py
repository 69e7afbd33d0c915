"""Prompt evaluation when nodes alternate, with and without saved prefix states.

``python -m experiments.bench_prefix_states [--model qwen2.5-1.5b] [--rounds 4]`` runs the
real prompts of intent, tool selection, argument extraction and synthesis in turn, as a
tool turn does, each for one output token (so the time is the prompt's evaluation), once
with the backend's saved prefix states and once without. The first round fills the
states; the later rounds show what alternating nodes cost.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import time
from collections.abc import Callable

from docgemma.agent.nodes.intent_classify import intent_messages
from docgemma.agent.nodes.synthesize import synthesis_messages
from docgemma.agent.nodes.tool_select import argument_messages, selection_messages
from docgemma.config import Settings
from docgemma.llm.llamacpp import LlamaCppBackend
from docgemma.llm.registry import create_backend
from docgemma.llm.types import Message
from docgemma.profiles import DEFAULT_PROFILE
from docgemma.tools.registry import build_registry

log = logging.getLogger("experiments.bench_prefix_states")
QUERIES = (
    "Check FDA warnings for dofetilide",
    "Can I give warfarin with aspirin?",
    "Find trials for lupus nephritis",
    "Check metformin safety in pregnancy",
)


def node_prompts(query: str) -> dict[str, list[Message]]:
    registry = build_registry()
    state = {"user_query": query, "task_summary": query, "tool_results": []}
    return {
        "intent": intent_messages(state),
        "tool": selection_messages(state, registry),
        "arguments": argument_messages(state, registry, registry.names[0]),
        "synthesis": synthesis_messages(state, registry, []),
    }


async def run(llm: LlamaCppBackend, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {}
    for n in range(rounds):
        for node, messages in node_prompts(QUERIES[n % len(QUERIES)]).items():
            start = time.perf_counter()
            await llm.generate(messages, temperature=0.0, max_tokens=1)
            times.setdefault(node, []).append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.bench_prefix_states")
    parser.add_argument("--model", default=DEFAULT_PROFILE)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    llm = create_backend(Settings(backend="llamacpp", model=args.model))
    assert isinstance(llm, LlamaCppBackend)
    tokens = {node: llm.count_tokens(llm.render(m)) for node, m in node_prompts(QUERIES[0]).items()}
    saved = asyncio.run(run(llm, args.rounds))
    prepare: Callable = llm.prefixes.prepare
    llm.prefixes.prepare = lambda prompt, chars: None  # type: ignore[method-assign]
    plain = asyncio.run(run(llm, args.rounds))
    llm.prefixes.prepare = prepare  # type: ignore[method-assign]
    log.info("| node | prompt tokens | without saved prefixes (s) | with (s) |")
    log.info("|---|---|---|---|")
    for node in tokens:
        before = statistics.median(plain[node][1:])
        after = statistics.median(saved[node][1:])
        log.info("| %s | %d | %.2f | %.2f |", node, tokens[node], before, after)


if __name__ == "__main__":
    main()
