"""Drug names no dictionary knows, and the known names nearest to them.

A misspelt drug ("simvastatn") that reaches a check is reported as "no interaction listed":
the interaction reference's French spelling rules may even read it as another substance.
A name is known when the drug dictionary (about 107k generic, brand and synonym names),
the interaction thesaurus (ANSM) or the record's RxNorm table has it. An unknown name spelt
nearly like a known one is checked for nothing and offered back as "did you mean …?" until
the clinician confirms; one near no known name (a food, a product no list holds) is not a
misspelling, and the check reports it as not in its references. A message's own words are
held to the same rule before any model call (``misspelt_drugs``), against a vocabulary of
words spelt right, so that "warfrin" is asked about rather than read as no drug at all.
"""

from __future__ import annotations

import difflib
import gzip
import json
import logging
import re
import threading
from collections.abc import Iterable
from functools import lru_cache

from docgemma.agent.entities import drug_dictionary
from docgemma.ehr.codes import RXNORM_CODES
from docgemma.errors import ConfigurationError
from docgemma.tools import ansm

log = logging.getLogger(__name__)
MAX_SUGGESTIONS = 3
SIMILARITY = 0.8
"""How alike a known name must be to be offered (difflib's ratio: one wrong, missing or
extra letter in a ten-letter name is 0.95; two in a six-letter name, 0.67)."""
_names: dict[int, list[str]] | None = None
_lock = threading.Lock()


def _thesaurus_knows(name: str) -> bool:
    """The thesaurus has this exact name, or its French form with a final "e" (metformine)."""
    norm = ansm.normalize(name)
    substances = ansm.thesaurus().substances
    return norm in substances or norm + "e" in substances


def is_known(name: str) -> bool:
    """Some dictionary the project holds knows this drug name."""
    cleaned = " ".join(name.split())
    if not cleaned:
        return False
    spellings = {cleaned, cleaned.replace("-", " "), cleaned.replace(" ", "-")}  # beta blockers
    return any(
        drug_dictionary().find(s) or s.lower() in RXNORM_CODES or _thesaurus_knows(s)
        for s in spellings
    )


def _known_names() -> dict[int, list[str]]:
    """The dictionary's one-word names, by length (a suggestion is within two letters of
    the typed length), loaded once."""
    global _names
    with _lock:
        if _names is None:
            by_length: dict[int, set[str]] = {}
            index = drug_dictionary().index.values()
            names = (words[0] for first in index for words in first if len(words) == 1)
            for name in (*names, *RXNORM_CODES):
                if " " not in name and len(name) >= 4:
                    by_length.setdefault(len(name), set()).add(name)
            _names = {n: sorted(v) for n, v in by_length.items()}
        return _names


SENTENCE_WORDS = 5
"""More words than the longest product name a clinician types ("amoxicillin and clavulanate
potassium" is four): a longer argument is a sentence, not a drug."""


def is_sentence(name: str) -> bool:
    """A drug argument that is a question or a sentence ("Is it safe in pregnancy?"), which a
    small model passes when the drug was only referred to: it names no drug."""
    return not is_known(name) and ("?" in name or len(name.split()) > SENTENCE_WORDS)


def nearest_known(name: str, limit: int = MAX_SUGGESTIONS) -> list[str]:
    """Known drug names spelt nearly like ``name``, nearest first."""
    word = name.strip().lower()
    if not word:
        return []
    names = _known_names()
    pool: list[str] = []
    for n in range(len(word) - 2, len(word) + 3):
        pool += names.get(n, [])
    offered: dict[str, str] = {}  # one spelling per drug: not ibuprofen, ibuprofeno, ibuprofene
    for close in difflib.get_close_matches(word, pool, n=4 * limit, cutoff=SIMILARITY):
        generic = next(iter(drug_dictionary().find(close)), close)
        offered.setdefault(generic, close)
    return list(offered.values())[:limit]


_TYPED_WORD = re.compile(r"(?<![\w-])[A-Za-z][a-z]{4,}(?![\w-])")
"""A word of five letters or more, lower case after its first letter (not an acronym)."""
MISSPELT_SIMILARITY = 0.85
"""How alike a word and a known drug must be for the word to be read as that drug misspelt:
stricter than for a drug argument, since any word of the message is a candidate."""


@lru_cache(maxsize=1)
def spelt_words() -> frozenset[str]:
    """Words as they are spelt in English and medical text: an English word list of about
    160,000 words with their inflections, the embedding model's whole-word vocabulary, the
    offline PubMed abstracts, the condition pages, the words of the diagnosis names (ICD-10)
    and the words of the drug dictionary's names of several words ("fusidic", "fumarate").
    A word among them is not a misspelt drug ("nothing" is not "norethin", "nitrites" is
    not "nitrates", "migrans" is not "imigran")."""
    from docgemma.agent.conditions import condition_names
    from docgemma.assets import pinned_file
    from docgemma.kb.corpus import DEMO_PAGES_DIR, page_files
    from docgemma.tools.literature_index import load_abstracts

    words: set[str] = set()
    try:
        vocabulary = json.loads(pinned_file("tokenizer").read_text(encoding="utf-8"))
        words |= {w for w in vocabulary["model"]["vocab"] if w.isalpha() and w.islower()}
        texts = [f"{a.title} {a.text}" for a in load_abstracts()]
        texts += [path.read_text(encoding="utf-8") for path in page_files(DEMO_PAGES_DIR)]
    except (FileNotFoundError, OSError, KeyError, ConfigurationError):
        return frozenset()
    try:
        with gzip.open(pinned_file("english_words"), "rt", encoding="utf-8") as f:
            words |= {w for w in json.load(f) if w.isalpha()}
    except (OSError, ValueError, ConfigurationError):  # the check goes on, asking more often
        log.exception("the English word list could not be read")
    words |= {w for phrase in condition_names().phrases for w in phrase.split() if w.isalpha()}
    index = drug_dictionary().index.values()
    words |= {w for first in index for name in first if len(name) > 1 for w in name}
    return frozenset(words | {w.lower() for t in texts for w in re.findall(r"[A-Za-z]+", t)})


_BRITISH_DIGRAPH = re.compile(r"(?<=[a-z])ae|^ae|oe(?=[a-z])")


def american_spelling(word: str) -> str:
    """``word`` with the British "ae" and "oe" of medical words as American spelling has them
    ("melaena" → "melena", "oesophageal" → "esophageal", "anaesthetic" → "anesthetic"). The
    vocabularies are mostly American; a British spelling of a word they hold is that word,
    not a misspelt drug."""
    return _BRITISH_DIGRAPH.sub("e", word)


def misspelt_drugs(message: str, skip: Iterable[str] = ()) -> dict[str, list[str]]:
    """Words of a message that no dictionary or medical text knows and that are spelt nearly
    like a known drug ("warfrin", "ibuprofn"), with the known names nearest to them. A
    message naming such a word is asked about before anything runs: read as no drug, the
    question went to the condition pages. ``skip``: words that are something else (the
    name of a patient the message introduces)."""
    known = spelt_words()
    if not known:
        return {}  # without a vocabulary every rare word would be a suspect
    skipped = {w.lower() for s in skip for w in s.split()}
    found: dict[str, list[str]] = {}
    for word in _TYPED_WORD.findall(message):
        low = word.lower()
        if low in found or low in known or low in skipped or is_known(low):
            continue
        american = american_spelling(low)
        if american in known or is_known(american):
            continue
        near = [n for n in nearest_known(low) if _misspelt_as(low, n.lower())]
        if near:
            found[word] = near
    return found


def _misspelt_as(word: str, name: str) -> bool:
    """``word`` reads as ``name`` misspelt: alike enough, a name of five letters or more
    of letters only (shorter ones, or ones with a prefix, are alike to too many words), and
    not the same word in another number ("sedative" is not the entry "sedatives")."""
    alike = difflib.SequenceMatcher(None, word, name).ratio() >= MISSPELT_SIMILARITY
    plain = name.isalpha() and len(name) >= 5  # not "r-antidote" for "antidote"
    return alike and plain and word.rstrip("s") != name.rstrip("s")


def typed_as(name: str, words: Iterable[str]) -> str | None:
    """The word the clinician typed that ``name`` (a known drug) corrects, if any."""
    lowered = name.lower()
    for word in words:
        if difflib.SequenceMatcher(None, word.lower(), lowered).ratio() >= SIMILARITY:
            return word
    return None
