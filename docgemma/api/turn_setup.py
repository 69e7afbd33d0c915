"""What a request decides about its turn besides the message: its tenant, and whether
retrieval and tools are on (``enable_rag``, ``enable_tools``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TurnSetup:
    tenant: str
    rag: bool = True
    """Search the knowledge base (condition pages and the tenant's documents) and ground
    direct answers in it."""
    tools: bool = True
    """Use the profile's other tools (record, drugs, literature, trials, images)."""
