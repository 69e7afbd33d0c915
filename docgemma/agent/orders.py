"""Messages that order a record write: "Prescribe …", "Please start …", "Can you order …".

A small model routes such an order to a lookup now and then (the drug's label, or a
direct answer), above all when the conversation shows the same order declined a moment
ago, and the clinician gets no card to approve. An order is recognised here by code: a
clause of the message opens with a word by which a write tool is asked for (its
``requested_by`` pattern), and the message names what that write cannot do without (a
drug, for a field grounded in the drug dictionary); or the message opens by asking for a
note and dictates it (``dictation.orders_a_note``). Code then proposes that write;
nothing is written until the clinician approves the card, as for any write.

The same word inside a question is not an order: "should I start metformin?", "what
would you prescribe?" and "in order to" ask for advice or say something else, and must
never make the loop wait for a write.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from docgemma.agent.dictation import orders_a_note
from docgemma.tools.base import ToolRegistry, ToolSpec
from docgemma.tools.facts import RequestPattern
from docgemma.tools.grounding import Grounding, field_grounding

_OPENING = re.compile(
    r"\W*(?:(?:ok(?:ay)?|yes|yeah|right|so|then|now|and|please|pls|plz|again)\b[\s,.!]*)*"
    r"(?:(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+)?"
    r"|(?:let'?s|go\s+ahead\s+and|i(?:'d|\s+would)\s+like\s+to|i\s+want\s+to)\s+)?",
    re.IGNORECASE,
)
"""What may come between a clause's start and the order's verb: "OK, please", "Then could
you", "Let's", "I'd like to", and their text-message forms ("pls", "can u")."""

_CLAUSE_START = re.compile(r"^|[.;:!?,\n]|\b(?:and|then)\b")
"""Where a clause may begin: the message's start, punctuation, "and", "then"."""


def _needs_drug(spec: ToolSpec) -> bool:
    required = {n for n, f in spec.args.model_fields.items() if f.is_required()}
    return any(g is Grounding.DRUG for n, g in field_grounding(spec.args).items() if n in required)


def order_position(query: str, pattern: RequestPattern) -> int | None:
    """Where a clause of the message opens with a word of the pattern, or None.

    "Find Maria Garcia and prescribe metformin" orders the prescription at "prescribe";
    "Should I start metformin?" orders nothing, since "start" does not open its clause.
    """
    for boundary in _CLAUSE_START.finditer(query):
        opening = _OPENING.match(query, boundary.end())
        start = opening.end() if opening else boundary.end()
        if pattern.position(query[start:]) == 0:
            return start
    return None


def ordered_write(query: str, registry: ToolRegistry, *, drug_named: bool) -> str | None:
    """The write tool the message orders (the first ordered, if several), or None.

    ``drug_named``: the message names a drug the dictionary knows ("Start it again" does
    not, and is left to the model and the reference checks).
    """
    opening = _OPENING.match(query)
    if orders_a_note(query[opening.end() :] if opening else query):  # "OK, save a note: …"
        note = next((spec.name for spec in registry if _takes_dictation(spec)), None)
        if note is not None:  # what the note says ("start bisoprolol") orders nothing else
            return note
    ordered = [
        (position, spec.name)
        for spec in registry
        if spec.writes_ehr and (drug_named or not _needs_drug(spec))
        for pattern in spec.requested_by
        if (position := order_position(query, pattern)) is not None
    ]
    return min(ordered)[1] if ordered else None


def _takes_dictation(spec: ToolSpec) -> bool:
    """The write whose text is what the clinician dictates (the clinical note)."""
    return spec.writes_ehr and Grounding.DICTATED in field_grounding(spec.args).values()


def write_to_propose(
    query: str,
    registry: ToolRegistry,
    *,
    drug_named: bool,
    patient_known: bool,
    tried: Collection[str],
) -> str | None:
    """The ordered write code proposes in tool selection: not one tried already this turn
    (proposed, written or declined), and one that needs a patient only once the patient is
    known (a search by name comes first)."""
    write = ordered_write(query, registry, drug_named=drug_named)
    if write is None or write in tried or (registry[write].needs_patient and not patient_known):
        return None
    return write
