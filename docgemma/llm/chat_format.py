"""Turn formats for models run from raw prompts (llama.cpp base models).

Gemma has no system role: the system text opens the first user turn. The format is
picked from the GGUF's own chat template when ``chat_format`` is ``auto``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from docgemma.llm.errors import ConfigurationError
from docgemma.llm.types import Message

Renderer = Callable[[Sequence[Message], bool], str]


def render_gemma(messages: Sequence[Message], add_generation_prompt: bool = True) -> str:
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    parts: list[str] = []
    pending_system = system
    for m in messages:
        if m.role == "system":
            continue
        role = "model" if m.role == "assistant" else "user"
        content = m.content
        if role == "user" and pending_system:
            content = f"{pending_system}\n\n{content}"
            pending_system = ""
        parts.append(f"<start_of_turn>{role}\n{content}<end_of_turn>\n")
    if pending_system:
        parts.append(f"<start_of_turn>user\n{pending_system}<end_of_turn>\n")
    if add_generation_prompt:
        parts.append("<start_of_turn>model\n")
    return "".join(parts)


def render_chatml(messages: Sequence[Message], add_generation_prompt: bool = True) -> str:
    parts = [f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages]
    if add_generation_prompt:
        parts.append("<|im_start|>assistant\n")
    return "".join(parts)


FORMATS: dict[str, tuple[Renderer, tuple[str, ...]]] = {
    "gemma": (render_gemma, ("<end_of_turn>",)),
    "chatml": (render_chatml, ("<|im_end|>",)),
}


def detect(chat_template: str | None) -> str:
    """Pick a format from a GGUF ``tokenizer.chat_template``; Gemma when unknown."""
    template = chat_template or ""
    if "<|im_start|>" in template:
        return "chatml"
    return "gemma"


def get_format(name: str) -> tuple[Renderer, tuple[str, ...]]:
    try:
        return FORMATS[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown chat format {name!r}; valid: auto, {', '.join(FORMATS)}"
        ) from None


def stable_prefix_end(prompt: str, messages: Sequence[Message]) -> int:
    """Where a rendered prompt's stable prefix ends: after the system text, which each node
    keeps fixed (its instructions, the tool descriptions) across calls; 0 without one."""
    system = next((m.content for m in messages if m.role == "system"), "")
    at = prompt.find(system) if system else -1
    return at + len(system) if at >= 0 else 0
