"""Knowledge base of condition pages: section-level retrieval in Chroma, role-scoped topics."""

from docgemma.kb.corpus import CorpusError, Page
from docgemma.kb.models import DEMO_NOTICE, Attempt, KBHit, Retrieval
from docgemma.kb.store import KnowledgeBase, get_knowledge_base, prepare_knowledge_base
from docgemma.kb.topics import Role, Severity

__all__ = [
    "DEMO_NOTICE",
    "Attempt",
    "CorpusError",
    "KBHit",
    "KnowledgeBase",
    "Page",
    "Retrieval",
    "Role",
    "Severity",
    "get_knowledge_base",
    "prepare_knowledge_base",
]
