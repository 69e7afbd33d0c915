"""The request pieces an OpenAI-compatible server takes, per dialect.

Servers disagree on how a JSON schema goes into ``response_format`` and on whether
special-token stops can match; these functions hold the differences so the backend
only sends what they build.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel

from docgemma.llm.errors import ConfigurationError
from docgemma.llm.schema import json_schema
from docgemma.llm.types import Message, Usage

Dialect = Literal["vllm", "llamacpp", "openai"]
_SPECIAL_TOKEN = re.compile(r"<[^<>\s]+>")
"""What a special-token stop looks like: ``<unused95>``, ``<end_of_turn>``, ``<|im_end|>``."""


def response_format(schema: type[BaseModel], dialect: Dialect) -> dict[str, Any]:
    """The ``response_format`` value this server dialect accepts for ``schema``.

    llama-cpp-python's server rejects the ``json_schema`` form and takes the schema
    beside ``json_object``; vLLM and OpenAI take the ``json_schema`` envelope.
    """
    body = json_schema(schema)
    if dialect == "llamacpp":
        return {"type": "json_object", "schema": body}
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": body, "strict": True},
    }


def completion_stop_fields(stop: Sequence[str], dialect: Dialect) -> dict[str, Any]:
    """``stop`` for a raw completion, and on vLLM the switch that lets special tokens match.

    Servers drop special tokens (MedGemma's ``<unused95>``) from the text before
    matching stop strings, so such a stop never fires. vLLM keeps them when asked with
    ``skip_special_tokens: false``; llama.cpp servers and OpenAI have no portable
    switch, so there a special-token delimiter is not seen and budget forcing closes
    thinking only at its token budget.
    """
    if not stop:
        return {}
    fields: dict[str, Any] = {"stop": list(stop)}
    if dialect == "vllm" and any(_SPECIAL_TOKEN.fullmatch(s) for s in stop):
        fields["skip_special_tokens"] = False
    return fields


def message_payload(message: Message, supports_vision: bool) -> dict[str, Any]:
    """One chat message in OpenAI form; images become data-URL content parts."""
    if not message.images:
        return {"role": message.role, "content": message.content}
    if not supports_vision:
        raise ConfigurationError(
            "this model does not accept images; "
            "set DOCGEMMA_OPENAI_SUPPORTS_VISION=true for a vision model"
        )
    parts: list[dict[str, Any]] = [
        {
            "type": "image_url",
            "image_url": {
                "url": f"data:{img.mime_type};base64,{base64.b64encode(img.data).decode()}"
            },
        }
        for img in message.images
    ]
    parts.append({"type": "text", "text": message.content})
    return {"role": message.role, "content": parts}


def usage_of(data: dict[str, Any]) -> Usage:
    usage = data.get("usage") or {}
    return Usage(
        prompt_tokens=usage.get("prompt_tokens") or 0,
        completion_tokens=usage.get("completion_tokens") or 0,
    )
