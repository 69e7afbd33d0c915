"""all-MiniLM-L6-v2 as an int8 ONNX model, run in-process with onnxruntime.

Both files ship inside PyPI packages (see ``docgemma.assets``), so nothing is
downloaded at run time and no torch is needed. The ONNX graph returns token
embeddings; sentence vectors are their mean over real (unpadded) tokens,
L2-normalised, as sentence-transformers does for this model.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from docgemma.assets import minilm_onnx_path, minilm_tokenizer_path

logger = logging.getLogger(__name__)

MAX_TOKENS = 256
"""The model was trained on sequences up to 256 word pieces; longer text is truncated."""
RECENT = 64
"""Single texts remembered: one turn classifies the same query for intent, then for the tool
at each step, and every classifier shares this embedder."""


class MiniLMEmbedder:
    """384-dimensional sentence embeddings from all-MiniLM-L6-v2 (int8 ONNX)."""

    dim = 384
    name = "all-MiniLM-L6-v2-int8"

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        *,
        batch_size: int = 32,
        threads: int = 2,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.batch_size = batch_size
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path or minilm_tokenizer_path()))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # onnxruntime's worker keeps spinning on a core after each run by default; on two
        # cores that held up the next model call by up to 3.5 ms (the benchmark's
        # orchestration time). Without it an embedding takes about 10% longer (2 ms).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(model_path or minilm_onnx_path()), options, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in self._session.get_inputs()}
        # onnxruntime sessions may run concurrently, but the tokenizer's padding
        # state is shared, so calls are serialised to keep batches independent.
        self._lock = threading.Lock()
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self.busy_s = 0.0
        """Seconds spent embedding (remembered texts cost nothing): the benchmark counts it as
        model time, not as the agent's orchestration."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) == 1:
            return self._embed_one(str(texts[0]))
        rows = [
            self._embed_batch(texts[i : i + self.batch_size])
            for i in range(0, len(texts), self.batch_size)
        ]
        return np.concatenate(rows, axis=0)

    def forget(self) -> None:
        """Drop the remembered texts, so the next question is embedded as a new one would be."""
        with self._lock:
            self._recent.clear()

    def _embed_one(self, text: str) -> np.ndarray:
        with self._lock:
            row = self._recent.get(text)
            if row is not None:
                self._recent.move_to_end(text)
                return row.copy()
        row = self._embed_batch([text])
        with self._lock:
            self._recent[text] = row
            if len(self._recent) > RECENT:
                self._recent.popitem(last=False)
        return row.copy()

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        start = time.perf_counter()
        with self._lock:
            encodings = self._tokenizer.encode_batch([str(t) for t in texts])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        tokens = self._session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (tokens * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        with self._lock:
            self.busy_s += time.perf_counter() - start
        return vectors


_instance: MiniLMEmbedder | None = None
_instance_lock = threading.Lock()


def get_embedder() -> MiniLMEmbedder:
    """The process-wide embedder: the model loads once (~0.3 s) and is shared by all users."""
    global _instance
    if _instance is None:
        with _instance_lock:
            if _instance is None:
                logger.info("loading embedding model %s", MiniLMEmbedder.name)
                _instance = MiniLMEmbedder()
    return _instance
