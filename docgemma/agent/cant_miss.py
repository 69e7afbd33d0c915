"""Can't-miss diagnoses in the clinician's question, recognised by code before any model
call.

The rows are the red-flag table the triage mode also uses (``docgemma.red_flags``). A
question that refers back to a case described earlier ("What's the differential?", "What
now?") is matched together with the clinician's recent messages, each a clause of its own
so a negation never reaches across them; any other question is matched on its own. The
answer then opens with the rows' conditions and first steps (``cant_miss_opening``),
whatever the model writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TypedDict

from docgemma.agent.references import describes_its_patient
from docgemma.red_flags.match import Match, matches

EARLIER_MESSAGES = 3
"""How many of the clinician's earlier messages a question that refers back reaches."""
REFERS_BACK = re.compile(
    r"\b(?:differentials?|ddx|d/dx|causes?|work-?up|rule out|r/o|exclude|red flags?"
    r"|next steps?|what now|what next|what (?:should|do|would|must) (?:i|we) do"
    r"|manag(?:e|ement)|what (?:could|might|would|is) (?:this|it|that)(?: be)?"
    r"|(?:likely|possible|most likely) diagnos[ie]s|concerns?|worried|worry|worrying"
    r"|what am i missing|can't miss|dangerous)\b",
    re.IGNORECASE,
)
"""A question about the case at hand rather than a new topic."""


class CantMiss(TypedDict):
    """A fired row as kept in the state (plain data, checkpointed with the turn)."""

    rule_id: str
    presentation: str
    exclude: list[str]
    first: str
    evidence: list[str]


def _kept(match: Match) -> CantMiss:
    rule = match.rule
    return CantMiss(
        rule_id=rule.id,
        presentation=rule.presentation,
        exclude=list(rule.exclude),
        first=rule.first,
        evidence=list(match.evidence),
    )


def recognise(question: str, earlier: Sequence[str] = ()) -> list[CantMiss]:
    """The rows the question fires; ``earlier``: the clinician's earlier messages, oldest
    first, read with it when the question refers back to the case. A question that
    presents a patient and a presentation of its own ("19M, right iliac fossa pain,
    vomited. What next?") starts a new case: the last patient's diabetes is not this
    one's. One that only adds to the case ("She is a 19F student, what next?") does not."""
    own = matches(question)
    new_case = bool(own) and describes_its_patient(question)
    if earlier and REFERS_BACK.search(question) and not new_case:
        return [_kept(m) for m in matches("\n".join([*earlier[-EARLIER_MESSAGES:], question]))]
    return [_kept(m) for m in own]


def clinician_messages(conversation: Iterable[dict[str, str]]) -> list[str]:
    """The clinician's messages of a conversation, oldest first."""
    return [m.get("content", "") for m in conversation if m.get("role") == "user"]


def reasoning_detail(found: Sequence[CantMiss]) -> str:
    """One line per fired row for the reasoning timeline: the rule, its words, its
    conditions."""
    return "\n".join(
        f"Rule `{f['rule_id']}` ({f['presentation']}; matched "
        + ", ".join(f"“{e}”" for e in f["evidence"])
        + f"): exclude {', '.join(f['exclude'])}."
        for f in found
    )
