"""The answer opens with the can't-miss conditions and what to do first.

One step, applied where the final answer text is composed, to every answer of a turn
whose question fired a row of the red-flag table (``cant_miss``): the model's text, a
composed or fallback answer, or a question back. Code writes the block, so a model that
leaves subarachnoid haemorrhage out of a thunderclap headache's differential cannot leave
it out of the answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgemma.agent.cant_miss import CantMiss
from docgemma.red_flags.table import SYMPTOM_ROWS

HEADING = "**Can't miss — exclude first:**"
"""How the block begins."""
MAX_ROWS = 3
"""Rows shown; more would push the answer itself down the page."""
_QUALIFIER = re.compile(r"\s*\([^)]*\)")


def cant_miss_block(found: Sequence[CantMiss]) -> str:
    """One paragraph: every condition to exclude first on its opening line (each once, a
    bracketed qualifier not making it another; the rows in the table's order), then each
    row's first steps. The conditions come before any step, so a clinician reading the
    first line sees all of them, however long the steps of the first row are. A row that
    gives a symptom's whole differential adds its conditions but not its steps when a row
    naming the cause fired too: the cause's steps are the ones to take."""
    shown = found[:MAX_ROWS]
    named: dict[str, str] = {}
    for condition in (c for row in shown for c in row["exclude"]):
        # "ectopic pregnancy (early pregnancy)" and "ectopic pregnancy" are one condition,
        # shown once, in its fuller form, where it first appears
        key = _key(condition)
        named[key] = max(named.get(key, ""), condition, key=len)
    conditions = [c for c in (_unsaid(c, named) for c in named.values()) if c]
    lines = [f"{HEADING} {', '.join(conditions)}."]
    causes = [row for row in shown if row["rule_id"] not in SYMPTOM_ROWS]
    for row in causes or shown:
        presentation = row["presentation"][:1].lower() + row["presentation"][1:]
        lines.append(f"**Do first** ({presentation}): {row['first']}")
    return "\n".join(lines)


def _key(condition: str) -> str:
    return _QUALIFIER.sub("", condition).strip().lower()


def _unsaid(condition: str, named: dict[str, str]) -> str:
    """``condition`` without the alternatives another item names on their own: after
    "acute coronary syndrome", "acute coronary syndrome or acute heart failure" adds only
    "acute heart failure" (nothing when it adds nothing). An item is kept whole when it is
    qualified, or when a part is a single word, which may be an adjective of the condition
    the last part names ("ischaemic or haemorrhagic stroke")."""
    parts = condition.split(" or ")
    if _QUALIFIER.search(condition) or any(len(p.split()) < 2 for p in parts):
        return condition
    kept = [p for p in parts if p.strip().lower() not in named or len(parts) == 1]
    return " or ".join(kept)


def open_with_cant_miss(answer: str, found: Sequence[CantMiss]) -> str:
    """``answer`` opened by the can't-miss block of ``found`` (unchanged when none fired)."""
    if not found:
        return answer
    block = cant_miss_block(found)
    if answer.startswith(block):
        return answer
    return f"{block}\n\n{answer}" if answer.strip() else block
