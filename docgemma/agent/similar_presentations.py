"""Can't-miss rows found by resemblance: a case that reads like a recorded presentation
gets that presentation's rows, when the table's own words fire them only in part.

The red-flag table fires on the words its rows were written with; a clinician who
describes the same patient in other words ("feels washed out, jaw ache, clammy" for an
infarct) fires nothing. So every recorded presentation whose conditions the table names
in full is kept as an example: its sentence embedding (all-MiniLM-L6-v2, the embedder the
routing classifiers share) and the rows that name its conditions. Presentations that only
look like an emergency, and ordinary questions, are kept too, with no rows: a case
nearest to one of those resembles nothing.

A described case whose nearest example has rows, at a cosine similarity of at least
``SIMILAR_AT``, gets those of its rows that its own words fire in part (a cue of the row,
un-negated, that says more than who the patient is: "clammy" for an infarct, not "58M";
and nothing the row rules out, such as "for several years"), after the rows its words
fire in full. A row none of whose words the case says is not added: a gym strain of the
arm that reads like a recorded Guillain-Barré presentation says nothing of weakness. Only
a message that describes its patient is compared: a question about a drug or a sign ("how
does metformin lower glucose?") is not a case, however close its words are to one.

The examples are built from the evaluation's dev cases by
``python -m experiments.evaluation.cant_miss_examples`` into ``data/cant_miss/``; the
threshold was chosen on dev by holding out each blind-written set in turn (see
docs/evaluation.md). The embedding reads no negation, which is why a row also needs its
own words; every row added is shown in the reasoning timeline as a resemblance, with its
similarity and those words.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from docgemma.agent.references import describes_its_patient
from docgemma.embed.minilm import MiniLMEmbedder, get_embedder
from docgemma.red_flags.match import normalise, partly_fires
from docgemma.red_flags.table import BY_ID

logger = logging.getLogger(__name__)

EXAMPLES_PATH = Path(__file__).resolve().parents[2] / "data" / "cant_miss" / "examples.npz"
SIMILAR_AT = 0.65
"""The least cosine similarity to the nearest example that counts as a resemblance. Chosen on
the dev split, each blind-written set held out in turn against the table as it stood before
that set was read, and half the ordinary vignettes against the other half: at 0.65
resemblance named in full 44 of the 223 presentations the table missed, and fired on 4 of
154 look-alikes and 3 of 90 ordinary vignettes; 0.60 named 51 for 4 and 6, 0.70 35 for 4
and 0, 0.50 55 for 5 and 9."""
ROW_SEPARATOR = " "
"""How an example's rows are joined in the examples file (row ids have no spaces)."""


@dataclass(frozen=True)
class Examples:
    """The recorded presentations: one row of ``vectors`` per id, unit length."""

    ids: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    vectors: np.ndarray


@dataclass(frozen=True)
class Resemblance:
    """The nearest example and what it adds: its rows that the case's words fire in part,
    each with those words."""

    rows: tuple[tuple[str, str], ...]
    similarity: float


@cache
def load_examples(path: Path = EXAMPLES_PATH) -> Examples | None:
    """The examples file, or None (logged) when it is missing or names a row the table no
    longer has: the table's own words still work without it."""
    try:
        with np.load(path, allow_pickle=False) as data:
            ids = tuple(str(i) for i in data["ids"])
            rows = tuple(tuple(filter(None, str(r).split(ROW_SEPARATOR))) for r in data["rows"])
            vectors = data["vectors"].astype(np.float32)
    except (OSError, KeyError, ValueError) as exc:
        logger.warning("can't-miss examples unreadable at %s (%s); resemblance is off", path, exc)
        return None
    unknown = sorted({r for example in rows for r in example} - set(BY_ID))
    shape_fits = vectors.ndim == 2 and vectors.shape == (len(ids), MiniLMEmbedder.dim)
    if unknown or not ids or not shape_fits or len(ids) != len(rows):
        logger.warning(
            "can't-miss examples at %s do not fit the table or the embedder (%d examples, "
            "vectors %s, unknown rows %s); resemblance is off",
            path,
            len(ids),
            vectors.shape,
            unknown,
        )
        return None
    vectors.setflags(write=False)
    return Examples(ids=ids, rows=rows, vectors=vectors)


def resemblance(text: str, *, leave_out: str | None = None) -> Resemblance | None:
    """What the nearest recorded presentation adds to a described case, or None.
    ``leave_out``: an example not to find (scoring a case that is itself an example)."""
    if not describes_its_patient(text):
        return None
    examples = load_examples()
    if examples is None:
        return None
    try:
        vector = get_embedder().embed([text])[0]
    except Exception:  # the embedder is optional here: the table's words still fire
        logger.exception("embedding failed; no resemblance checked")
        return None
    similarity = examples.vectors @ vector
    if leave_out is not None:
        similarity[[i for i, known in enumerate(examples.ids) if known == leave_out]] = -1.0
    nearest = int(np.argmax(similarity))
    if similarity[nearest] < SIMILAR_AT:
        return None
    said = normalise(text)
    rows = tuple(
        (row, words)
        for row in examples.rows[nearest]
        if (words := partly_fires(BY_ID[row], said)) is not None
    )
    return Resemblance(rows=rows, similarity=float(similarity[nearest])) if rows else None
