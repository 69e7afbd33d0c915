"""Messages that order a record write: "Prescribe …", "Please start …", "Can you order …".

A small model routes such an order to a lookup now and then (the drug's label, or a
direct answer), above all when the conversation shows the same order declined a moment
ago, and the clinician gets no card to approve. An order is recognised here by code: the
message opens with a word by which a write tool is asked for (its ``requested_by``
pattern), and names what that write cannot do without (a drug, for a field grounded in
the drug dictionary). Code then proposes that write; nothing is written until the
clinician approves the card, as for any write.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from docgemma.tools.base import ToolRegistry, ToolSpec
from docgemma.tools.grounding import Grounding, field_grounding

_OPENING = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|yes|yeah|right|so|then|now|and|please|again)\b[\s,.!]*)*"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?",
    re.IGNORECASE,
)
"""What may come before the order's verb: "OK, please", "Then could you"."""


def _needs_drug(spec: ToolSpec) -> bool:
    required = {n for n, f in spec.args.model_fields.items() if f.is_required()}
    return any(g is Grounding.DRUG for n, g in field_grounding(spec.args).items() if n in required)


def ordered_write(query: str, registry: ToolRegistry, *, drug_named: bool) -> str | None:
    """The write tool the message orders, or None when it orders none.

    ``drug_named``: the message names a drug the dictionary knows ("Start it again" does
    not, and is left to the model and the reference checks).
    """
    opening = _OPENING.match(query)
    rest = query[opening.end() if opening else 0 :]
    for spec in registry:
        if not spec.writes_ehr or (_needs_drug(spec) and not drug_named):
            continue
        if any(pattern.position(rest) == 0 for pattern in spec.requested_by):
            return spec.name
    return None


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
