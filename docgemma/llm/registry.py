"""Backends by name. Each factory imports its engine lazily, so optional extras stay optional."""

from __future__ import annotations

from collections.abc import Callable

from docgemma.config import Settings
from docgemma.llm.base import LLMBackend
from docgemma.llm.errors import ConfigurationError


def _llamacpp(settings: Settings) -> LLMBackend:
    """llama.cpp in its own supervised process (the default: the worker engine; or the
    server engine with parallel slots), or inside the app."""
    from docgemma.assets import model_file

    profile = settings.profile
    chat = settings.chat_format
    if chat == "auto" and profile is not None:
        chat = profile.chat_format
    options = {
        "n_ctx": settings.context_window(),
        "n_threads": settings.n_threads,
        "seed": settings.seed,
        "chat_format_name": chat,
    }
    path = model_file(settings.model, settings.model_cache_dir)
    if settings.engine_process and settings.engine == "server":
        from docgemma.engine_build import server_binary
        from docgemma.llm.engine_slots import SlotsEngineBackend

        return SlotsEngineBackend(
            path,
            server_binary=settings.engine_server_binary or server_binary(),
            slots=settings.engine_slots,
            start_timeout_s=settings.engine_start_timeout_s,
            **options,
        )
    if settings.engine_process:
        from docgemma.llm.engine_backend import EngineBackend

        return EngineBackend(path, start_timeout_s=settings.engine_start_timeout_s, **options)
    from docgemma.llm.llamacpp import LlamaCppBackend

    return LlamaCppBackend(path, **options)


def _openai(settings: Settings) -> LLMBackend:
    from docgemma.llm.openai import OpenAIBackend

    return OpenAIBackend.from_settings(settings)


def _vllm(settings: Settings) -> LLMBackend:
    from docgemma.llm.vllm import VLLMBackend

    return VLLMBackend.from_settings(settings)


def _transformers(settings: Settings) -> LLMBackend:
    from docgemma.llm.transformers import TransformersBackend

    return TransformersBackend.from_settings(settings)


def _scripted(settings: Settings) -> LLMBackend:
    from docgemma.llm.scripted import ScriptedBackend

    return ScriptedBackend()


BACKENDS: dict[str, Callable[[Settings], LLMBackend]] = {
    "llamacpp": _llamacpp,
    "openai": _openai,
    "vllm": _vllm,
    "transformers": _transformers,
    "scripted": _scripted,
}


def create_backend(settings: Settings) -> LLMBackend:
    try:
        factory = BACKENDS[settings.backend]
    except KeyError:
        raise ConfigurationError(
            f"unknown backend {settings.backend!r}; valid backends: {', '.join(BACKENDS)}"
        ) from None
    return factory(settings)
