"""The ANSM thesaurus in English: every level, and its most frequent French terms."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from docgemma.tools import ansm
from docgemma.tools.ansm_english import english, glossary, tokens


@pytest.fixture(scope="module")
def entries() -> list[dict]:
    folder = ansm._data_dir() / "thesauri" / ansm.VERSION
    return json.loads(next(folder.glob("thesaurus-*.json")).read_text(encoding="utf-8"))


def test_every_level_of_the_thesaurus_has_its_english_name(entries):
    levels = {lvl["level"] for e in entries for lvl in e["severity_levels"]}
    assert len(levels) == 5
    for level in levels:
        name, rank = ansm.SEVERITY_EN[ansm.normalize(level)]
        assert rank >= 1 and english(level).text.lower() == name.lower()


def test_the_30_most_frequent_french_terms_have_an_english_form(entries):
    """Counted in the thesaurus itself: the words of its mechanisms and advice, leaving out
    the glossary's function words and the drugs' own names."""
    names = {
        w
        for name in ansm.thesaurus().substances
        for w in tokens(name)  # substances and their French classes
    } | {w for e in entries for d in (e["main_drug"], e["plus_drug"]) for w in tokens(d)}
    function = {k[0] for k, v in glossary().entries.items() if len(k) == 1 and v[0] in "=-"}
    counts = Counter(
        w
        for e in entries
        for text in (e["interaction_mechanism"], *(lvl["info"] for lvl in e["severity_levels"]))
        for w in tokens(text)
        if w.isalpha() and len(w) > 2 and w not in names and w not in function
    )
    top = [w for w, _ in counts.most_common(30)]
    assert len(top) == 30 and "concentrations" in top
    untranslated = [w for w in top if glossary().english((w,)) is None]
    assert untranslated == []


@pytest.mark.parametrize(
    ("french", "expected"),
    [
        (
            "Augmentation de l'hyperammoniémie, avec risque accru d'encéphalopathie.",
            "Increase of hyperammonaemia, with increased risk of encephalopathy.",
        ),
        (
            "Risque majoré de troubles du rythme ventriculaire, notamment de torsades de pointes.",
            "Increased risk of ventricular arrhythmias, notably of torsades de pointes.",
        ),
        (
            "Augmentation des concentrations plasmatiques de bédaquiline par diminution de son "
            "métabolisme hépatique par l’inhibiteur.",
            "Increase of plasma concentrations of bedaquiline by decrease of its hepatic "
            "metabolism by inhibitor.",
        ),
        ("Association DECONSEILLEE", "Combination not recommended"),
        (
            "Corriger toute hypokaliémie avant d'administrer le produit et réaliserune "
            "surveillance clinique, électrolytique et électrocardiographique.",
            "Correct any hypokalaemia before giving the product and carry out clinical, "
            "electrolyte and ECG monitoring.",
        ),
        ("Si l'association ne peut être évitée", "If the combination cannot be avoided"),
    ],
)
def test_thesaurus_sentences_read_in_english(french, expected):
    rendering = english(french)
    assert rendering.complete and rendering.text == expected


def test_a_text_with_an_unknown_word_gives_its_terms_not_french():
    rendering = english("Risque d'hyperkaliémie chez le zorglub.")
    assert not rendering.complete
    assert rendering.text == "risk; hyperkalaemia"


def test_every_text_of_the_thesaurus_reads_whole(entries):
    """Mechanisms and advice alike: a text that falls back to its key terms reads as a word
    list on the clinician's screen ("any; hypokalaemia; give; clinical monitoring; ECG")."""
    texts = {e["interaction_mechanism"] for e in entries} | {
        level.get("info", "") for e in entries for level in e["severity_levels"]
    }
    partial = [t for t in texts if t.strip() and not english(t).complete]
    assert partial == []


def test_no_french_accent_or_level_name_survives_a_rendering(entries):
    for e in entries[:300]:
        text = english(e["interaction_mechanism"]).text
        assert not re.search(r"[éèêàçôû]", text)
