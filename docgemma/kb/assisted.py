"""The knowledge search the triage graph is given: the store's own search, and retrieval
assisted by the model in one of two flows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from docgemma.kb.models import KBHit, Retrieval
from docgemma.kb.orchestrate import orchestrate
from docgemma.kb.retrieve import PageSearch, retrieve
from docgemma.kb.topics import Role


class AssistedSearch:
    """A store's plain search together with model-assisted ``retrieve`` over it.

    What the triage graph is given as its knowledge search: ``search`` is the store's own
    (no model call); ``retrieve`` runs the fixed classify, filter and rewrite loop
    (``flow="loop"``, ``docgemma.kb.retrieve``) or lets the model steer those steps within
    code's bounds (``"steered"``, ``docgemma.kb.orchestrate``)."""

    def __init__(self, kb: PageSearch, flow: Literal["loop", "steered"] = "loop") -> None:
        self.kb = kb
        self.flow = flow

    def search(self, query: str, **kwargs: Any) -> list[KBHit]:
        return self.kb.search(query, **kwargs)

    async def retrieve(
        self,
        query: str,
        *,
        llm: Any,
        role: Role | None = None,
        k: int = 5,
        earlier: Sequence[str] = (),
    ) -> Retrieval:
        """``earlier``: the person's earlier messages, which the steered flow sums up; the
        fixed loop searches the latest message alone."""
        if self.flow == "steered":
            return await orchestrate(self.kb, query, llm=llm, role=role, k=k, earlier=earlier)
        return await retrieve(self.kb, query, llm=llm, role=role, k=k)
