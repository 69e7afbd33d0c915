"""Drug classes as a pharmacist lists them, for allergy checks of a new prescription.

A recorded allergy names a substance ("amoxicillin") or a class ("penicillins", "sulfa
drugs"); a prescription names one drug. They meet when the allergy names the drug itself,
its class or another member of its class, or a class known to cross-react with the
drug's class (``CROSS_REACTIONS``). Members are English generic names; brand names reach
them through the drug dictionary's synonyms (``names_of``).

The same table says which drugs are antibacterials: an antibiotic started in a patient on
an antivitamin K is a reason to check the INR (``docgemma.tools.rx_check``). A combination
is checked as its parts (``components``, ``substances``), including those British practice
names with "co-" ("co-trimoxazole" is sulfamethoxazole with trimethoprim), which the drug
dictionary holds without their parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from docgemma.tools import ansm
from docgemma.tools.ansm import drug_synonyms, normalize

BRITISH_COMBINATIONS = {
    "cotrimoxazole": "sulfamethoxazole/trimethoprim",
    "coamoxiclav": "amoxicillin/clavulanic acid",
    "cofluampicil": "flucloxacillin/ampicillin",
    "cocodamol": "codeine/paracetamol",
    "codydramol": "dihydrocodeine/paracetamol",
    "cocareldopa": "carbidopa/levodopa",
    "cobeneldopa": "benserazide/levodopa",
    "coamilofruse": "amiloride/furosemide",
    "coamilozide": "amiloride/hydrochlorothiazide",
    "cotriamterzide": "triamterene/hydrochlorothiazide",
    "coflumactone": "hydroflumethiazide/spironolactone",
    "cozidocapt": "captopril/hydrochlorothiazide",
    "cotenidone": "atenolol/chlortalidone",
    "cocyprindiol": "cyproterone/ethinylestradiol",
    "cophenotrope": "diphenoxylate/atropine",
    "comagaldrox": "magnesium hydroxide/aluminium hydroxide",
}
"""British approved names of combinations ("co-" names), by the name without hyphen or space,
and their parts."""


@dataclass(frozen=True)
class DrugClass:
    name: str
    """How the card names the class: "penicillins"."""
    members: frozenset[str]
    called: tuple[str, ...] = ()
    """What an allergy entry may call the class itself ("penicillin", "sulfa")."""
    antibacterial: bool = False
    allergy_class: bool = True
    """An allergy to one member is a reason to avoid the others (not so for a grouping such
    as "other antibacterials")."""


def _class(
    name: str,
    members: str,
    called: tuple[str, ...] = (),
    *,
    antibacterial: bool = False,
    allergy_class: bool = True,
) -> DrugClass:
    return DrugClass(name, frozenset(members.split(", ")), called, antibacterial, allergy_class)


CLASSES: tuple[DrugClass, ...] = (
    _class(
        "penicillins",
        "amoxicillin, ampicillin, penicillin, benzylpenicillin, phenoxymethylpenicillin, "
        "penicillin g, penicillin v, benzathine penicillin, procaine penicillin, piperacillin, "
        "ticarcillin, flucloxacillin, cloxacillin, dicloxacillin, oxacillin, nafcillin, "
        "temocillin, mecillinam, pivmecillinam, pivampicillin, bacampicillin, co-amoxiclav",
        ("penicillin", "penicillins", "penicillin class"),
        antibacterial=True,
    ),
    _class(
        "cephalosporins",
        "cefalexin, cephalexin, cefadroxil, cefradine, cephradine, cefazolin, cefaclor, "
        "cefuroxime, cefprozil, cefoxitin, cefotetan, cefamandole, ceftriaxone, cefotaxime, "
        "ceftazidime, cefixime, cefpodoxime, cefdinir, cefditoren, cefepime, ceftaroline, "
        "ceftobiprole, ceftolozane, cefiderocol",
        ("cephalosporin", "cephalosporins"),
        antibacterial=True,
    ),
    _class(
        "carbapenems",
        "meropenem, imipenem, ertapenem, doripenem",
        ("carbapenem", "carbapenems"),
        antibacterial=True,
    ),
    _class("monobactams", "aztreonam", ("monobactam",), antibacterial=True),
    _class(
        "sulfonamide antibiotics",
        "sulfamethoxazole, sulfadiazine, sulfasalazine, sulfacetamide, sulfisoxazole, "
        "sulfafurazole, sulfadoxine, co-trimoxazole, cotrimoxazole",
        ("sulfa", "sulpha", "sulfonamide", "sulfonamides", "sulphonamide", "sulphonamides"),
        antibacterial=True,
    ),
    _class(
        "non-antibiotic sulfonamides",
        "furosemide, bumetanide, torasemide, torsemide, hydrochlorothiazide, chlorthalidone, "
        "indapamide, metolazone, acetazolamide, celecoxib, sumatriptan, glipizide, "
        "glibenclamide, glyburide, gliclazide, glimepiride",
    ),
    _class(
        "NSAIDs",
        "aspirin, ibuprofen, naproxen, diclofenac, ketoprofen, dexketoprofen, flurbiprofen, "
        "indometacin, indomethacin, ketorolac, piroxicam, meloxicam, tenoxicam, etodolac, "
        "nabumetone, mefenamic acid, sulindac, aceclofenac, fenoprofen, oxaprozin",
        ("nsaid", "nsaids", "anti-inflammatory", "anti-inflammatories"),
    ),
    _class("COX-2 inhibitors", "celecoxib, etoricoxib, parecoxib", ("cox-2 inhibitor",)),
    _class(
        "macrolides",
        "erythromycin, clarithromycin, azithromycin, roxithromycin, spiramycin",
        ("macrolide", "macrolides"),
        antibacterial=True,
    ),
    _class(
        "fluoroquinolones",
        "ciprofloxacin, levofloxacin, moxifloxacin, ofloxacin, norfloxacin, delafloxacin",
        ("quinolone", "quinolones", "fluoroquinolone", "fluoroquinolones"),
        antibacterial=True,
    ),
    _class(
        "tetracyclines",
        "doxycycline, minocycline, tetracycline, oxytetracycline, lymecycline, "
        "demeclocycline, tigecycline",
        ("tetracycline", "tetracyclines"),
        antibacterial=True,
    ),
    _class(
        "aminoglycosides",
        "gentamicin, tobramycin, amikacin, streptomycin, neomycin",
        ("aminoglycoside", "aminoglycosides"),
        antibacterial=True,
    ),
    _class(
        "other antibacterials",
        "trimethoprim, nitrofurantoin, fosfomycin, metronidazole, tinidazole, clindamycin, "
        "lincomycin, vancomycin, teicoplanin, linezolid, daptomycin, rifampicin, rifampin, "
        "chloramphenicol, fusidic acid",
        antibacterial=True,
        allergy_class=False,
    ),
    _class(
        "ACE inhibitors",
        "lisinopril, enalapril, ramipril, perindopril, captopril, benazepril, quinapril, "
        "fosinopril, trandolapril, moexipril",
        ("ace inhibitor", "ace inhibitors"),
    ),
)


@dataclass(frozen=True)
class CrossReaction:
    allergy_class: str
    drug_class: str
    severity: str
    note: str


CROSS_REACTIONS: tuple[CrossReaction, ...] = (
    CrossReaction(
        "penicillins",
        "cephalosporins",
        "caution",
        "partial cross-reactivity with penicillin allergy: low overall, higher for "
        "cephalosporins sharing a side chain with the penicillin (cefalexin, cefadroxil and "
        "cefaclor with amoxicillin or ampicillin); check the reaction recorded before giving",
    ),
    CrossReaction(
        "cephalosporins",
        "penicillins",
        "caution",
        "partial cross-reactivity with cephalosporin allergy, mostly through shared side "
        "chains; check the reaction recorded before giving",
    ),
    CrossReaction(
        "penicillins",
        "carbapenems",
        "caution",
        "cross-reactivity with penicillin allergy is rare; after a severe reaction, give "
        "only with specialist advice",
    ),
    CrossReaction(
        "cephalosporins",
        "carbapenems",
        "caution",
        "cross-reactivity with cephalosporin allergy is rare; after a severe reaction, give "
        "only with specialist advice",
    ),
    CrossReaction(
        "NSAIDs",
        "COX-2 inhibitors",
        "caution",
        "most patients with NSAID hypersensitivity tolerate a selective COX-2 inhibitor, "
        "but reactions occur; consider a supervised first dose",
    ),
    CrossReaction(
        "sulfonamide antibiotics",
        "non-antibiotic sulfonamides",
        "info",
        "cross-reactivity between sulfonamide antibiotics and non-antibiotic sulfonamides "
        "is unlikely; an allergy to a sulfa antibiotic is not by itself a reason to withhold",
    ),
)


def names_of(drug: str) -> frozenset[str]:
    """The drug's name and its dictionary synonyms, normalised (brand → generic)."""
    return _names(normalize(drug))


@lru_cache(maxsize=512)
def _names(drug: str) -> frozenset[str]:
    if not drug:
        return frozenset()
    parts = BRITISH_COMBINATIONS.get(re.sub(r"[\s-]", "", drug))
    named = {drug, *(normalize(s) for s in drug_synonyms(drug)), *([parts] if parts else [])}
    return frozenset(named - {""})


def components(drug: str) -> list[str]:
    """A combination's parts ("amoxicillin-clavulanate", "sulfamethoxazole/trimethoprim")."""
    parts = re.split(r"\s*(?:[/+,-]|\band\b|\bwith\b)\s*", drug)
    return [p for p in parts if len(p) >= 4 and p != drug]


def substances(ref: ansm.AnsmThesaurus, drug: str) -> list[ansm.Substance]:
    """The thesaurus substances of a drug: itself, else the parts of the combination it is
    or that its dictionary name spells out ("Bactrim": trimethoprim/sulfamethoxazole)."""
    whole = ref.resolve(drug)
    if whole is not None:
        return [whole]
    names = (drug, *sorted(names_of(drug)))
    parts = dict.fromkeys(part for name in names for part in components(name))
    found = (ref.resolve(part) for part in parts)
    return list({s.name: s for s in found if s is not None}.values())


def _mentions(text: str, term: str) -> bool:
    """``term`` appears in ``text`` as whole words (both normalised); a hyphen or slash
    separates words, so "amoxicillin-clavulanate" names amoxicillin."""
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text) is not None


def classes_of(names: frozenset[str], *, for_allergy: bool = False) -> list[DrugClass]:
    """The classes any of these names belongs to (a combination product can be in several);
    ``for_allergy``: only the classes an allergy extends to."""
    return [
        c
        for c in CLASSES
        if (c.allergy_class or not for_allergy)
        and any(_mentions(n, m) for n in names for m in c.members)
    ]


def classes_named(allergy: str) -> list[DrugClass]:
    """The classes an allergy entry names, by the class's own name or one of its members."""
    text = normalize(allergy)
    names = names_of(allergy) | {text}
    return [
        c
        for c in CLASSES
        if c.allergy_class
        and (
            any(_mentions(text, word) for word in c.called)
            or any(_mentions(n, m) for n in names for m in c.members)
        )
    ]


def same_substance(drug: frozenset[str], allergy: str) -> bool:
    """The allergy names the drug itself (or a name the dictionary gives it)."""
    text = normalize(allergy)
    return any(_mentions(text, n) or _mentions(n, text) for n in drug if len(n) >= 4)


def cross_reactions(allergy: list[DrugClass], drug: list[DrugClass]) -> list[CrossReaction]:
    held = {c.name for c in allergy}
    given = {c.name for c in drug}
    return [x for x in CROSS_REACTIONS if x.allergy_class in held and x.drug_class in given]


def is_antibacterial(names: frozenset[str]) -> bool:
    return any(c.antibacterial for c in classes_of(names))
