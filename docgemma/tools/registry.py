"""The registry of the clinical tools: ten in a fixed order, then the knowledge base."""

from __future__ import annotations

from docgemma.tools import (
    drug_safety,
    image_analysis,
    interactions,
    knowledge_base,
    literature,
    trials,
)
from docgemma.tools.base import ToolRegistry
from docgemma.tools.ehr import EHR_TOOLS


def build_registry() -> ToolRegistry:
    remote = [drug_safety.SPEC, interactions.SPEC, literature.SPEC, trials.SPEC]
    return ToolRegistry([*remote, *EHR_TOOLS, image_analysis.SPEC, knowledge_base.SPEC])
