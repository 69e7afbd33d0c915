"""Chroma embedding function backed by our embedder, so Chroma never fetches its own model.

Chroma's default embedding function downloads an ONNX model on first use, which
is impossible offline; every collection the project creates passes this instead.
The class is registered under its name so a persisted collection reopened without
an explicit embedding function is rebuilt with the same model.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import chromadb
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space
from chromadb.config import Settings as ChromaSettings
from chromadb.utils.embedding_functions import register_embedding_function

from docgemma.embed.base import Embedder
from docgemma.embed.minilm import get_embedder

CHROMA_NAME = "docgemma-minilm"
NO_TELEMETRY = ChromaSettings(anonymized_telemetry=False)
_opening = threading.Lock()


def persistent_client(path: Path) -> Any:
    """A local Chroma client on ``path``, opened one at a time, with telemetry off.

    Chroma releases before its telemetry was removed send usage events to a third party
    unless told not to; the app contacts no service it was not configured for.
    The literature index and the knowledge base share one folder and are prepared by
    concurrent start-up tasks; two clients created at once on the same folder race
    inside Chroma (seen as "'RustBindingsAPI' object has no attribute 'bindings'").
    """
    with _opening:
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=NO_TELEMETRY)


@register_embedding_function
class ChromaEmbeddingFunction(EmbeddingFunction[Documents]):
    """Adapter from the ``Embedder`` protocol to chromadb's ``EmbeddingFunction``."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self._embedder = embedder

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder()
        return self._embedder

    def __call__(self, input: Documents) -> Embeddings:
        return list(self.embedder.embed(list(input)))

    @staticmethod
    def name() -> str:
        return CHROMA_NAME

    def default_space(self) -> Space:
        # Rows are unit length, so cosine distance is the natural measure.
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "l2", "ip"]

    def get_config(self) -> dict[str, Any]:
        return {"model": self.embedder.name}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> ChromaEmbeddingFunction:
        return ChromaEmbeddingFunction()

    def validate_config_update(
        self, old_config: dict[str, Any], new_config: dict[str, Any]
    ) -> None:
        if old_config.get("model") != new_config.get("model"):
            raise ValueError("the embedding model of an existing collection cannot change")
