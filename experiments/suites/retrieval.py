"""Suite — knowledge-base retrieval: the fixed loop against the model-steered flow.

The cases are the knowledge base's own lay-language symptom descriptions
(``data/kb/eval_queries.jsonl``), each with the page that should answer it. Both flows
run on the real store (Chroma and the embedding model) with the run's model making the
decisions: ``loop`` classifies the topic, searches, filters and rewrites once by code's
rules (``docgemma.kb.retrieve``); ``steered`` lets the model choose each next step among
those code allows, with rated topics (``docgemma.kb.orchestrate``). Scored: the expected
page first among the pages kept (top 1) or kept at all (top 5), model calls and time.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from pydantic import BaseModel

from docgemma.kb import prepare_knowledge_base
from docgemma.kb.assisted import AssistedSearch
from docgemma.kb.quality import EVAL_QUERIES, load_eval_queries
from docgemma.kb.store import get_knowledge_base
from experiments.calls import Caller, CallRecord
from experiments.trial import Context, RunConfig, Strategy, run_settings, trial_row

SUITE = "retrieval"
PRIMARY_METRICS = ("top1", "top5")
FLOWS = {
    "loop": "classify, search, filter, rewrite once: each step decided by code's rules",
    "steered": "the model chooses each next step (new query, search, answer) among those "
    "code allows; topics rated with confidence and reason",
}


class RetrievalCase(BaseModel):
    id: str
    query: str
    expected: str


def load(config: RunConfig) -> list[RetrievalCase]:
    path = (config.data_dir / EVAL_QUERIES.name) if config.data_dir else EVAL_QUERIES
    return [
        RetrievalCase(id=f"kbq-{n:02d}", query=q.query, expected=q.expected)
        for n, q in enumerate(load_eval_queries(path), start=1)
    ]


class CountingModel:
    """The run's model, counting the calls one retrieval makes."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.calls = 0

    async def structured(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return await self.llm.structured(*args, **kwargs)


async def prepare(ctx: Context, caller: Caller) -> None:
    settings = run_settings(ctx.config)
    prepare_knowledge_base(settings)
    kb = get_knowledge_base(settings)
    ctx.extras["searches"] = {flow: AssistedSearch(kb, flow=flow) for flow in FLOWS}  # type: ignore[arg-type]
    ctx.extras.setdefault("report", {}).update({"kb_pages": len(kb.pages)})


async def search(case: RetrievalCase, caller: Caller, ctx: Context, *, flow: str) -> dict:
    model = CountingModel(caller.backend)
    result, latency = await caller.run_exclusive(
        ctx.extras["searches"][flow].retrieve(case.query, llm=model)
    )
    kept = [h.page_id for h in result.hits]
    call = CallRecord(prompt=case.query, response=", ".join(kept), latency_s=latency)
    return trial_row(
        [call],
        temperature=0.0,
        parsed={"pages": kept},
        parse_ok=True,
        flow=flow,
        expected=case.expected,
        kept=kept,
        found=result.found,
        top1=bool(kept) and kept[0] == case.expected,
        top5=case.expected in kept[:5],
        searches=len(result.attempts),
        llm_calls=model.calls,
    )


STRATEGIES: dict[str, Strategy] = {
    flow: Strategy(flow, description, partial(search, flow=flow))
    for flow, description in FLOWS.items()
}
