"""Sentence embeddings for retrieval (Chroma) and for the routing classifiers."""

from docgemma.embed.base import Embedder
from docgemma.embed.minilm import MiniLMEmbedder, get_embedder

__all__ = ["Embedder", "MiniLMEmbedder", "get_embedder"]
