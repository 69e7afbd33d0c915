"""The red-flag table, assembled: every row, one tuple, ids unique."""

from __future__ import annotations

from docgemma.red_flags import abdomen_pelvis, brain_nerves, heart_lungs, infection_and_more
from docgemma.red_flags.rule import RedFlagRule

RULES: tuple[RedFlagRule, ...] = (
    *heart_lungs.ROWS,
    *brain_nerves.ROWS,
    *abdomen_pelvis.ROWS,
    *infection_and_more.ROWS,
)
BY_ID: dict[str, RedFlagRule] = {rule.id: rule for rule in RULES}
if len(BY_ID) != len(RULES):  # pragma: no cover - a data error, caught at import
    raise ValueError("two rows of the red-flag table share an id")
