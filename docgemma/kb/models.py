"""What retrieval returns: pages ranked by their best section and the words they share with the
query, and the record of a retrieval."""

from __future__ import annotations

from pydantic import BaseModel, Field

from docgemma.kb.topics import Severity

DEMO_NOTICE = (
    "Demonstration content written for DocGemma, not NHS text and not medical advice. "
    "In an emergency call 999."
)
"""Shown wherever pages of the demo corpus reach a user."""
DEMO_SOURCE_PREFIX = "DocGemma demonstration page"
USER_SOURCE_PREFIX = "Knowledge-base page"


class SectionScore(BaseModel):
    heading: str
    score: float = Field(ge=0.0, le=1.0)


class KBHit(BaseModel):
    """One condition page, scored by its best-matching section (plus "When to get help")."""

    page_id: str
    title: str
    category: str
    subcategory: str
    severity: Severity
    score: float = Field(
        ge=0.0,
        le=1.0,
        description="Cosine similarity of the best section; non-symptom sections are down-weighted",
    )
    relevance: float = Field(
        ge=0.0,
        description="What pages are ranked by: the score plus the page's word coverage "
        "of the query, weighted (docgemma.kb.lexical); the score alone decides relevance",
    )
    content: str = Field(description="The best-matching section, then 'When to get help'")
    source: str = Field(description="Source name shown to the reader")
    sections: list[SectionScore] = Field(
        default_factory=list, description="Matched sections, best first"
    )

    def render(self) -> str:
        """The hit as a block of text for a prompt or a tool result."""
        return (
            f"Source: {self.source} (similarity {self.score:.2f}; "
            f"usual urgency: {self.severity.display})\n{self.content}"
        )


class Attempt(BaseModel):
    """One pass of ``retrieve()``: the query searched and what came of it."""

    query: str
    category: str | None = None
    subcategory: str | None = None
    candidates: list[str] = Field(default_factory=list, description="Page ids above threshold")
    selected: list[str] = Field(default_factory=list, description="Page ids kept")
    rewritten: bool = False
    notes: list[str] = Field(default_factory=list, description="Steps that fell back, and why")


class Retrieval(BaseModel):
    query: str
    hits: list[KBHit] = Field(default_factory=list)
    attempts: list[Attempt] = Field(default_factory=list)
    found: bool = Field(description="At least one page passed the relevance threshold")
    context_summary: str = Field(
        "", description="What the conversation is about, as the model summed it up (steered)"
    )
