"""The red-flag table, assembled: every row, one tuple, ids unique."""

from __future__ import annotations

from docgemma.red_flags import (
    abdomen_pelvis,
    brain_nerves,
    children,
    deep_infections,
    environment,
    gut_liver_blood,
    heart_lungs,
    hormones_salts,
    infection_and_more,
    mind_medicines,
    neuromuscular,
    pregnancy_birth,
)
from docgemma.red_flags.rule import RedFlagRule

RULES: tuple[RedFlagRule, ...] = (
    *heart_lungs.ROWS,
    *brain_nerves.ROWS,
    *neuromuscular.ROWS,
    *abdomen_pelvis.ROWS,
    *pregnancy_birth.ROWS,
    *children.ROWS,
    *gut_liver_blood.ROWS,
    *hormones_salts.ROWS,
    *mind_medicines.ROWS,
    *infection_and_more.ROWS,
    *deep_infections.ROWS,
    *environment.ROWS,
)
BY_ID: dict[str, RedFlagRule] = {rule.id: rule for rule in RULES}
if len(BY_ID) != len(RULES):  # pragma: no cover - a data error, caught at import
    raise ValueError("two rows of the red-flag table share an id")
