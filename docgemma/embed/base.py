"""The embedder protocol: anything that turns texts into unit-length vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalised float32 rows, so a dot product is the cosine similarity."""

    dim: int
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an array of shape ``(len(texts), dim)``; an empty input gives ``(0, dim)``."""
        ...
