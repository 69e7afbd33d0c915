"""The red-flag table, assembled: every row, one tuple, ids unique.

The order is the order an answer's opening lists fired rows in (at most three of them), so
the chest's rows that name one diagnosis from one sign (a posterior infarct on the ECG, a
foreign body after choking) come before the broad symptom rows they fire with."""

from __future__ import annotations

from docgemma.red_flags import (
    abdomen_pelvis,
    blood_cancer,
    brain_nerves,
    brain_vessels,
    cancer_signs,
    children,
    children_hip_skin,
    deep_infections,
    drug_harms,
    ears_nose_throat,
    environment,
    eyes_mind,
    gullet,
    gut_liver_blood,
    heart,
    heart_lungs,
    heart_signs,
    hiv,
    hormones_salts,
    infants,
    infection_and_more,
    kidneys,
    lungs,
    mind_medicines,
    neuromuscular,
    poisoning_potassium,
    pregnancy_birth,
    pregnancy_signs,
    procedures,
    safeguarding,
    surgical,
    vessels,
)
from docgemma.red_flags.rule import RedFlagRule

SYMPTOM_ROWS = frozenset(
    {
        "chest_pain_breathless",
        "acute_breathlessness",
        "severe_breathing",
        "unconscious_or_seizure",
        "abdominal_pain_shock",
        "collapse_in_young_woman",
        "seriously_unwell_child",
        "sepsis_signs",
        "hypertensive_emergency",
    }
)
"""Rows that give a symptom's whole differential rather than a cause its signs point to.
They fire beside the rows that name the cause (a seizure in a tricyclic overdose, a
collapse after a knee replacement), so they come last: the cause is named first."""

_ROWS: tuple[RedFlagRule, ...] = (
    *heart.ROWS,
    *heart_signs.ROWS,
    *lungs.ROWS,
    *heart_lungs.ROWS,
    *brain_nerves.ROWS,
    *brain_vessels.ROWS,
    *eyes_mind.ROWS,
    *ears_nose_throat.ROWS,
    *neuromuscular.ROWS,
    *pregnancy_signs.ROWS,
    *abdomen_pelvis.ROWS,
    *surgical.ROWS,
    *procedures.ROWS,
    *vessels.ROWS,
    *pregnancy_birth.ROWS,
    *children.ROWS,
    *children_hip_skin.ROWS,
    *infants.ROWS,
    *safeguarding.ROWS,
    *gullet.ROWS,
    *gut_liver_blood.ROWS,
    *blood_cancer.ROWS,
    *cancer_signs.ROWS,
    *hormones_salts.ROWS,
    *kidneys.ROWS,
    *mind_medicines.ROWS,
    *drug_harms.ROWS,
    *infection_and_more.ROWS,
    *hiv.ROWS,
    *poisoning_potassium.ROWS,
    *deep_infections.ROWS,
    *environment.ROWS,
)
RULES: tuple[RedFlagRule, ...] = tuple(sorted(_ROWS, key=lambda row: row.id in SYMPTOM_ROWS))
BY_ID: dict[str, RedFlagRule] = {rule.id: rule for rule in RULES}
if len(BY_ID) != len(RULES):  # pragma: no cover - a data error, caught at import
    raise ValueError("two rows of the red-flag table share an id")
if not set(BY_ID) >= SYMPTOM_ROWS:  # pragma: no cover - a data error, caught at import
    raise ValueError("a symptom row names no row of the table")
