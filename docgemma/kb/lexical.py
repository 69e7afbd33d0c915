"""Shared words between a query and a page, weighted by how rare each word is in the corpus.

The embedder alone ranks "a blistering band of rash on one side of the chest" closest to
eczema and chickenpox, and shingles ninth, although the shingles page names the band,
the blisters, one side and the chest. A page's word coverage — the share of the query's
rare-word weight that the page contains — is added to its similarity when pages are
ranked (``LEXICAL_WEIGHT``); the similarity alone still decides what is relevant.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable

from docgemma.kb.corpus import Page
from docgemma.topic_words import topic_stems

LEXICAL_WEIGHT = 0.35
"""How much full word coverage adds to a page's similarity when ranking. Chosen on the even
half of the 86 lay-language descriptions (``data/kb/eval_queries.jsonl``): top-1 rose from
33 to 39 of 43 with any weight from 0.35 to 0.6; on the odd half, not used to choose, it rose
from 31 to 40 of 43. Top-5 stayed at 85 of 86."""
_WORD = re.compile(r"[a-z]+")
_MIN_CHARS = 4
"""Three-letter words ("day", "arm", "bad") are too common to tie a page to a query."""


@functools.lru_cache(maxsize=512)
def stems(text: str) -> frozenset[str]:
    """Remembered: one search asks for the query's stems once per candidate page."""
    return frozenset(topic_stems(_WORD.findall(text.lower()), _MIN_CHARS))


class WordIndex:
    """Each page's word stems (title and every section) and each stem's rarity."""

    def __init__(self, pages: Iterable[Page]) -> None:
        self._stems = {
            p.page_id: stems(" ".join([p.title, *(s.text for s in p.sections)])) for p in pages
        }
        count = Counter(s for page in self._stems.values() for s in page)
        self._unseen = math.log(len(self._stems) + 1)
        self._weight = {s: math.log((len(self._stems) + 1) / n) for s, n in count.items()}

    def coverage(self, query: str, page_id: str) -> float:
        """The share, from 0 to 1, of the query's word weight found on the page. A word no
        page has weighs most, so a query about something absent covers little anywhere."""
        asked = stems(query)
        total = sum(self._weight.get(s, self._unseen) for s in asked)
        if not total:
            return 0.0
        page = self._stems.get(page_id, set())
        return sum(self._weight[s] for s in asked & page) / total
