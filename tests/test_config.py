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
    ("backend", "node", "expected"),
    [
        ("llamacpp", "intent", "embedding"),
        ("llamacpp", "result", "embedding"),
        ("openai", "tool", "llm"),
    ],
)
def test_routing_classifier_defaults_follow_the_backend(backend, node, expected, settings) -> None:
    assert Settings(backend=backend).classifier_for(node) == expected


def test_per_node_classifier_override(settings) -> None:
    s = Settings(backend="llamacpp", intent_classifier="llm")
    assert s.classifier_for("intent") == "llm" and s.classifier_for("tool") == "embedding"


def test_unknown_backend_lists_the_valid_ones(settings) -> None:
    with pytest.raises(ConfigurationError) as info:
        create_backend(Settings(backend="gpt5"))
    for name in BACKENDS:
        assert name in str(info.value)


def test_missing_model_file_is_a_configuration_error(tmp_path, settings) -> None:
    with pytest.raises(ConfigurationError, match="model file not found"):
        create_backend(Settings(backend="llamacpp", model_path=tmp_path / "absent.gguf"))


def test_describe_names_backend_model_and_ehr(settings) -> None:
    text = Settings(backend="openai", openai_model="google/medgemma-1.5-4b-it").describe()
    assert "backend=openai" in text and "medgemma" in text and "embedded FHIR" in text
