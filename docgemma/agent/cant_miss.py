"""Can't-miss diagnoses in the clinician's question, recognised by code before any model
call.

The rows are the red-flag table the triage mode also uses (``docgemma.red_flags``). A
question that refers back to a case described earlier ("What's the differential?", "What
now?") is matched together with the clinician's recent messages, each a clause of its own
so a negation never reaches across them; any other question is matched on its own. The
answer then opens with the rows' conditions and first steps (``cant_miss_opening``),
whatever the model writes. A described case also gets the rows of the recorded
presentation it resembles that its words fire in part (``similar_presentations``), after
the rows its words fire in full.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NotRequired, TypedDict

from docgemma.agent.references import describes_its_patient
from docgemma.agent.similar_presentations import resemblance
from docgemma.red_flags.match import Match, matches
from docgemma.red_flags.table import BY_ID

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
    similarity: NotRequired[float]
    """Set when the row was added by resemblance to a recorded presentation, its words
    firing it only in part (``evidence`` holds those words)."""


def _kept(match: Match) -> CantMiss:
    rule = match.rule
    return CantMiss(
        rule_id=rule.id,
        presentation=rule.presentation,
        exclude=list(rule.exclude),
        first=rule.first,
        evidence=list(match.evidence),
    )


def fired_by_words(text: str) -> list[CantMiss]:
    """The rows the words of ``text`` fire, without resemblance."""
    return [_kept(m) for m in matches(text)]


def _resembled(rule_id: str, words: str, similarity: float) -> CantMiss:
    rule = BY_ID[rule_id]
    return CantMiss(
        rule_id=rule.id,
        presentation=rule.presentation,
        exclude=list(rule.exclude),
        first=rule.first,
        evidence=[words],
        similarity=round(similarity, 2),
    )


def recognise(
    question: str, earlier: Sequence[str] = (), *, leave_out: str | None = None
) -> list[CantMiss]:
    """The rows the question fires; ``earlier``: the clinician's earlier messages, oldest
    first, read with it when the question refers back to the case. A question that
    presents a patient and a presentation of its own ("19M, right iliac fossa pain,
    vomited. What next?") starts a new case: the last patient's diabetes is not this
    one's. One that only adds to the case ("She is a 19F student, what next?") does not.
    Then the rows of the recorded presentation the case resembles, if any are new;
    ``leave_out``: a recorded presentation not to compare with (scoring one of them)."""
    own = matches(question)
    new_case = bool(own) and describes_its_patient(question)
    case = question
    if earlier and REFERS_BACK.search(question) and not new_case:
        case = "\n".join([*earlier[-EARLIER_MESSAGES:], question])
        own = matches(case)
    found = [_kept(m) for m in own]
    similar = resemblance(case, leave_out=leave_out)
    if similar is not None:
        fired = {f["rule_id"] for f in found}
        found += [_resembled(r, w, similar.similarity) for r, w in similar.rows if r not in fired]
    return found


def clinician_messages(conversation: Iterable[dict[str, str]]) -> list[str]:
    """The clinician's messages of a conversation, oldest first."""
    return [m.get("content", "") for m in conversation if m.get("role") == "user"]


def reasoning_detail(found: Sequence[CantMiss]) -> str:
    """One line per fired row for the reasoning timeline: the rule, its words, its
    conditions."""
    return "\n".join(
        f"Rule `{f['rule_id']}` ({f['presentation']}; {_why(f)}): exclude "
        f"{', '.join(f['exclude'])}."
        for f in found
    )


def _why(found: CantMiss) -> str:
    said = ", ".join(f"“{e}”" for e in found["evidence"])
    if "similarity" in found:
        return (
            f"the case resembles a recorded presentation of it, similarity "
            f"{found['similarity']}, and says {said}"
        )
    return f"matched {said}"
