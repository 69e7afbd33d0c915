"""Configuration: one typed object from DOCGEMMA_* variables, with clear errors for bad choices."""

from __future__ import annotations

import pytest

from docgemma.config import Settings
from docgemma.llm.errors import ConfigurationError
from docgemma.llm.registry import BACKENDS, create_backend


def test_environment_variables_override_defaults(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    monkeypatch.setenv("DOCGEMMA_BACKEND", "openai")
    monkeypatch.setenv("DOCGEMMA_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("DOCGEMMA_MAX_MESSAGE_CHARS", "1234")
    s = Settings()
    assert (s.backend, s.openai_base_url, s.max_message_chars) == (
        "openai",
        "http://127.0.0.1:9/v1",
        1234,
    )


def test_dotenv_file_is_read(tmp_path, monkeypatch: pytest.MonkeyPatch, settings: Settings) -> None:
    (tmp_path / ".env").write_text("DOCGEMMA_PORT=7999\nDOCGEMMA_OFFLINE=false\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DOCGEMMA_OFFLINE")
    s = Settings()
    assert s.port == 7999 and s.offline is False


@pytest.mark.parametrize(
    ("backend", "model", "node", "expected"),
    [
        ("llamacpp", "qwen2.5-1.5b", "intent", "embedding"),
        ("llamacpp", "qwen2.5-1.5b", "tool", "llm"),
        ("llamacpp", "gemma3-270m", "tool", "embedding"),
        ("llamacpp", "/models/any.gguf", "tool", "embedding"),
        ("openai", "gemma3-270m", "tool", "llm"),
    ],
)
def test_routing_classifier_defaults_follow_backend_and_profile(
    backend, model, node, expected, settings
) -> None:
    assert Settings(backend=backend, model=model).classifier_for(node) == expected


def test_per_node_classifier_override_beats_the_profile(
    monkeypatch: pytest.MonkeyPatch, settings
) -> None:
    monkeypatch.setenv("DOCGEMMA_TOOL_CLASSIFIER", "embedding")
    s = Settings(backend="llamacpp", model="qwen2.5-1.5b", intent_classifier="llm")
    assert (s.classifier_for("intent"), s.classifier_for("tool")) == ("llm", "embedding")
    assert s.classifier_for("result") == "embedding"


def test_unknown_backend_lists_the_valid_ones(settings) -> None:
    with pytest.raises(ConfigurationError) as info:
        create_backend(Settings(backend="gpt5"))
    for name in BACKENDS:
        assert name in str(info.value)


def test_missing_model_file_is_a_configuration_error(tmp_path, settings) -> None:
    with pytest.raises(ConfigurationError, match="model file not found"):
        create_backend(Settings(backend="llamacpp", model=str(tmp_path / "absent.gguf")))


def test_model_is_the_default_profile_unless_set(monkeypatch: pytest.MonkeyPatch, settings) -> None:
    monkeypatch.delenv("DOCGEMMA_MODEL")
    assert Settings().model == "qwen2.5-1.5b"
    monkeypatch.setenv("DOCGEMMA_MODEL", "qwen2.5-0.5b")
    s = Settings()
    assert s.profile is not None and s.profile.name == "qwen2.5-0.5b"
    assert s.thinking_delimiters() == "qwen" and s.context_window() == 4096


def test_the_old_model_path_variable_still_names_a_gguf(
    monkeypatch: pytest.MonkeyPatch, settings
) -> None:
    monkeypatch.delenv("DOCGEMMA_MODEL")
    monkeypatch.setenv("DOCGEMMA_MODEL_PATH", "/models/own.gguf")
    s = Settings()
    assert s.model == "/models/own.gguf" and s.profile is None
    assert s.model_summary() == "own.gguf" and s.thinking_delimiters() == "generic"


def test_start_up_line_names_the_profile_not_a_path(settings) -> None:
    text = Settings(backend="llamacpp", model="qwen2.5-1.5b").describe()
    assert "Qwen2.5-Coder 1.5B Instruct" in text and "profile qwen2.5-1.5b" in text
    assert ".cache" not in text


def test_describe_names_backend_model_and_ehr(settings) -> None:
    text = Settings(backend="openai", openai_model="google/medgemma-1.5-4b-it").describe()
    assert "backend=openai" in text and "medgemma" in text and "embedded FHIR" in text
