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
    children,
    children_hip_skin,
    deep_infections,
    drug_harms,
    environment,
    eyes_mind,
    gullet,
    gut_liver_blood,
    heart,
    heart_lungs,
    heart_signs,
    hormones_salts,
    infection_and_more,
    kidneys,
    lungs,
    mind_medicines,
    neuromuscular,
    poisoning_potassium,
    pregnancy_birth,
    pregnancy_signs,
    surgical,
)
from docgemma.red_flags.rule import RedFlagRule

RULES: tuple[RedFlagRule, ...] = (
    *heart.ROWS,
    *heart_signs.ROWS,
    *lungs.ROWS,
    *heart_lungs.ROWS,
    *brain_nerves.ROWS,
    *brain_vessels.ROWS,
    *eyes_mind.ROWS,
    *neuromuscular.ROWS,
    *pregnancy_signs.ROWS,
    *abdomen_pelvis.ROWS,
    *surgical.ROWS,
    *pregnancy_birth.ROWS,
    *children.ROWS,
    *children_hip_skin.ROWS,
    *gullet.ROWS,
    *gut_liver_blood.ROWS,
    *blood_cancer.ROWS,
    *hormones_salts.ROWS,
    *kidneys.ROWS,
    *mind_medicines.ROWS,
    *drug_harms.ROWS,
    *infection_and_more.ROWS,
    *poisoning_potassium.ROWS,
    *deep_infections.ROWS,
    *environment.ROWS,
)
BY_ID: dict[str, RedFlagRule] = {rule.id: rule for rule in RULES}
if len(BY_ID) != len(RULES):  # pragma: no cover - a data error, caught at import
    raise ValueError("two rows of the red-flag table share an id")
