"""Schema bounding and budgets, backend selection errors, optional-engine import guards."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from docgemma.agent.schemas import (
    IntentClassification,
    ResultAssessment,
    RetryStrategy,
)
from docgemma.llm.errors import ConfigurationError, SchemaNotSupported
from docgemma.llm.openai import OpenAIBackend
from docgemma.llm.registry import BACKENDS, create_backend
from docgemma.llm.schema import check_bounded, schema_key_order, token_budget
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.registry import build_registry

REGISTRY = build_registry()

SEED_SCHEMAS: list[type[BaseModel]] = [
    IntentClassification,
    ResultAssessment,
    RetryStrategy,
    *(s.args for s in REGISTRY),
]


class Unbounded(BaseModel):
    note: str


class Lookahead(BaseModel):
    """Bounded, but its regex uses a lookahead, which llama.cpp's grammar converter refuses."""

    model_config = ConfigDict(regex_engine="python-re")
    code: str = Field(max_length=10, pattern=r"^(?=A)[A-Z]+$")


class HugeString(BaseModel):
    """Converts, but unrolls into more repetitions than llama.cpp's grammar parser allows."""

    text: str = Field(max_length=2000)


@pytest.mark.parametrize("schema", SEED_SCHEMAS, ids=lambda s: s.__name__)
def test_seed_schemas_are_bounded_with_a_budget_covering_every_string(
    schema: type[BaseModel],
) -> None:
    check_bounded(schema)
    longest = max(
        (
            f.metadata[0].max_length
            for f in schema.model_fields.values()
            if f.metadata and hasattr(f.metadata[0], "max_length")
        ),
        default=0,
    )
    assert token_budget(schema) > longest


def test_budget_covers_the_longest_array() -> None:
    from docgemma.tools.args import DrugInteractionArgs

    # five names of up to 80 characters, each quoted
    assert token_budget(DrugInteractionArgs) >= 5 * (80 + 2)


def test_unbounded_string_is_refused() -> None:
    with pytest.raises(SchemaNotSupported, match=r"\$\.note"):
        check_bounded(Unbounded)
    with pytest.raises(SchemaNotSupported):
        token_budget(Unbounded)


def test_a_pattern_counts_as_unbounded() -> None:
    """llama.cpp's converter follows the regex and drops max_length beside it."""

    class Coded(BaseModel):
        code: str = Field(max_length=10, pattern=r"^[A-Z]+$")

    with pytest.raises(SchemaNotSupported, match=r"pattern.*\$\.code"):
        check_bounded(Coded)


def test_scripted_prepare_refuses_unbounded_strings() -> None:
    backend = ScriptedBackend()
    backend.prepare(SEED_SCHEMAS)
    assert backend.prepared == SEED_SCHEMAS
    with pytest.raises(SchemaNotSupported, match=r"\$\.note"):
        backend.prepare([Unbounded])


def test_openai_prepare_refuses_unbounded_strings() -> None:
    backend = OpenAIBackend("http://127.0.0.1:9/v1", "m")
    backend.prepare(SEED_SCHEMAS)
    with pytest.raises(SchemaNotSupported):
        backend.prepare([Unbounded])


@pytest.mark.real_model
def test_llamacpp_prepare_refuses_what_its_converter_cannot_compile(real_llm: Any) -> None:
    real_llm.prepare(SEED_SCHEMAS)
    with pytest.raises(SchemaNotSupported, match="grammar conversion failed"):
        real_llm.prepare([Lookahead])
    with pytest.raises(SchemaNotSupported, match="max_length"):
        real_llm.prepare([Unbounded])
    with pytest.raises(SchemaNotSupported, match="refused the grammar"):
        real_llm.prepare([HugeString])


def test_schema_key_order_is_declaration_order() -> None:
    assert schema_key_order(IntentClassification) == ["intent", "task_summary", "suggested_tool"]


def test_unknown_backend_lists_the_valid_ones(settings: Any) -> None:
    settings.backend = "llama"
    with pytest.raises(ConfigurationError) as err:
        create_backend(settings)
    for name in BACKENDS:
        assert name in str(err.value)


def test_missing_model_file_is_a_configuration_error(settings: Any, tmp_path: Any) -> None:
    settings.backend = "llamacpp"
    settings.model = str(tmp_path / "absent.gguf")
    with pytest.raises(ConfigurationError, match="model file not found"):
        create_backend(settings)


def test_openai_backend_from_settings(settings: Any) -> None:
    settings.backend = "openai"
    settings.openai_dialect = "llamacpp"
    backend = create_backend(settings)
    assert isinstance(backend, OpenAIBackend)
    assert backend.dialect == "llamacpp" and backend.timeout_s == settings.llm_timeout_s
    assert backend.render([]).endswith("<start_of_turn>model\n")


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed")
def test_vllm_backend_names_the_gpu_extra(settings: Any) -> None:
    settings.backend = "vllm"
    with pytest.raises(ConfigurationError, match=r"'gpu' extra.*docgemma\[gpu\]"):
        create_backend(settings)


@pytest.mark.parametrize("missing", ["outlines", "torch", "transformers"])
def test_transformers_backend_names_its_extra(settings: Any, missing: str) -> None:
    """The tests install the extra, so its absence is made in a child process, where a None
    module fails import. In this process it would outlive the test: transformers caches its
    answer to "is torch installed?", and the real-engine tests would then find no torch."""
    child = textwrap.dedent(
        f"""
        import sys
        sys.modules[{missing!r}] = None
        from docgemma.config import get_settings
        from docgemma.llm.errors import ConfigurationError
        from docgemma.llm.registry import create_backend
        try:
            create_backend(get_settings())
        except ConfigurationError as exc:
            print(exc)
        """
    )
    env = {**os.environ, "DOCGEMMA_BACKEND": "transformers"}
    done = subprocess.run(
        [sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"'transformers' extra.*docgemma\[transformers\]", done.stdout)


def test_hiding_the_extra_leaves_this_process_able_to_load_gguf() -> None:
    """Guards the child-process design above: transformers here still sees torch and gguf."""
    utils = pytest.importorskip("transformers.utils.import_utils")
    assert utils.is_torch_available() and utils.is_gguf_available()
