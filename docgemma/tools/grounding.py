"""Where a tool argument's value must come from: one marker per field, read by the agent.

A small model copies placeholders ("patient_name") and invents plausible values, so
every argument the model extracts is checked against what the clinician actually gave
(the message, the conversation, the active patient, the turn's earlier results). How
strictly depends on the field, and that is a fact about the field: it is declared in
the argument model as ``Annotated[..., Grounding.X]`` and read back with
``field_grounding``. The checking itself lives in ``docgemma.agent.grounding``.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel


class Grounding(StrEnum):
    DRUG = "drug"
    """A drug the sources name (brand and generic names match through the drug dictionary)."""
    PATIENT_ID = "patient_id"
    """An ID the clinician typed or selected, or one a search of this turn returned."""
    PHRASE = "phrase"
    """All the value's words appear in the sources (case, spacing and punctuation ignored)."""
    LOOSE = "loose"
    """At least one of the value's content words appears (a search query the model may reword)."""
    SAID = "said"
    """Every content word is the clinician's own (message or earlier messages): text written
    to the record that the loaded chart or a tool result must not supply."""
    STATED = "stated"
    """A closed-vocabulary value (the field also carries its ``Vocabulary``): the value the
    clinician's words state, else the vocabulary's default; never the model's own choice."""
    DICTATED = "dictated"
    """Text dictated for the record (a note): the clinician's words after "note:" or after
    the command, word for word; a model's version that differs is replaced by them."""
    VERBATIM = "verbatim"
    """The clinician's own contiguous words (a reaction, a duration), as typed."""
    PERSON_NAME = "person_name"
    """A person's name: a short run of the clinician's words that can be a name (not a
    pronoun, not a record word, not a sentence)."""
    FREE = "free"
    """Composed by the model from the request (note text, an image question): not checked."""


def field_grounding(model: type[BaseModel]) -> dict[str, Grounding]:
    """Each field's marker; a field without one raises, so no argument escapes by omission."""
    found: dict[str, Grounding] = {}
    for name, info in model.model_fields.items():
        marks = [m for m in info.metadata if isinstance(m, Grounding)]
        if len(marks) != 1:
            raise TypeError(f"{model.__name__}.{name} needs exactly one Grounding marker")
        found[name] = marks[0]
    return found
