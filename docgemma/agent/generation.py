"""Per-node generation settings, each with the reason it was chosen.

Operational nodes run at T=0.0: sampling noise there only costs accuracy and JSON
validity. Synthesis alone runs warmer. ``Settings.node_generation`` may override any
entry (for experiments); the reasons stay attached to the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from docgemma.config import Settings
from docgemma.llm.thinking import ThinkingConfig

NodeCall = Literal[
    "image", "intent", "tool_select_1", "tool_select_2", "result_classify", "retry", "synthesize"
]


@dataclass(frozen=True)
class GenerationConfig:
    temperature: float
    max_tokens: int
    reason: str


DEFAULTS: dict[str, GenerationConfig] = {
    "image": GenerationConfig(0.3, 512, "vision findings need descriptive output (seed 002 §7)"),
    "intent": GenerationConfig(
        0.0, 256, "operational decision; T=0 prevents drift and thinking tokens"
    ),
    "tool_select_1": GenerationConfig(
        0.0, 64, "one enum field; determinism gives the best tool accuracy"
    ),
    "tool_select_2": GenerationConfig(0.0, 128, "argument extraction needs determinism"),
    "result_classify": GenerationConfig(
        0.0, 128, "classification task; the model's strongest skill at T=0"
    ),
    "retry": GenerationConfig(
        0.0, 64, "operational retry choice; T=0.3 added parse errors upstream"
    ),
    "synthesize": GenerationConfig(
        0.5, 256, "fact rate peaks at T=0.5; 256 tokens beat 512 on quality"
    ),
}


CAPS_THAT_CANNOT_HOLD: dict[str, str] = {
    "RetryStrategy": (
        "retry's 64 leave no room for the free-text reason (100 characters) the timeline "
        "shows; worst case 164"
    ),
    "DrugInteractionArgs": (
        "up to five drug names of up to 80 characters each; 128 covers two or three "
        "names, the worst case is 452"
    ),
    "PrescribeMedicationArgs": (
        "a prescription's eight fields, with a 200-character note; worst case 624"
    ),
    "AddAllergyArgs": "substance, reaction and severity in full; worst case 368",
    "ClinicalNoteArgs": "a clinical note needs its text (600 characters); worst case 770",
}
"""Schemas whose worst-case output exceeds their node's cap, and why.

A constrained call's ``max_tokens`` is never below its schema's worst case, so that the
JSON always closes; every other schema is bounded to fit its node's cap (a test checks
both ways)."""


def generation_for(call: NodeCall, settings: Settings | None = None) -> GenerationConfig:
    """The configuration for one kind of call, with any override from settings applied."""
    base = DEFAULTS[call]
    override = (settings.node_generation.get(call) if settings else None) or {}
    if not override:
        return base
    unknown = set(override) - {"temperature", "max_tokens"}
    if unknown:
        raise ValueError(f"node_generation[{call!r}]: unknown keys {sorted(unknown)}")
    return replace(
        base,
        temperature=float(override.get("temperature", base.temperature)),
        max_tokens=int(override.get("max_tokens", base.max_tokens)),
        reason=f"overridden by settings ({base.reason})",
    )


def synthesis_thinking(
    settings: Settings, enabled: bool | None = None, budget: int | None = None
) -> ThinkingConfig | None:
    """Budget-forced thinking before the answer for one turn, or None when off.

    Off unless asked (settings or the turn): a model that spends its budget thinking can
    leave the answer empty, so synthesis does not think by default. ``budget`` caps the
    thinking tokens; the answer keeps synthesis's own temperature and length.
    """
    if not (settings.thinking if enabled is None else enabled):
        return None
    answer = generation_for("synthesize", settings)
    max_tokens = max(1, settings.thinking_max_tokens if budget is None else budget)
    return ThinkingConfig(
        family=settings.thinking_delimiters(),
        min_tokens=min(settings.thinking_min_tokens, max_tokens),
        max_tokens=max_tokens,
        temperature=answer.temperature,
        answer_max_tokens=answer.max_tokens,
    )
