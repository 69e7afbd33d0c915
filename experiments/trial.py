"""What a suite is made of: its configuration, its strategies and the row each trial yields."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from docgemma.config import Settings
from docgemma.llm.base import LLMBackend
from docgemma.llm.registry import create_backend
from experiments import metrics
from experiments.calls import Caller, CallRecord, dumps

CALL_SEPARATOR = "\n\n=== next call ===\n\n"


class RunConfig(BaseModel):
    """Everything that decides a run; written, fully resolved, to ``manifest.json``."""

    suite: str
    backend: str = Field("llamacpp", description="Registry name of the LLM backend")
    n: int | None = Field(None, ge=1, description="Cases per strategy (first N of the case file)")
    strategies: list[str] | None = Field(
        None, description="Subset of the suite's strategies; default all"
    )
    concurrency: int = Field(1, ge=1, description="Concurrent model calls (remote backends)")
    seed: int = Field(0, description="Sampling seed passed to the backend")
    token_cap: int | None = Field(
        None, ge=1, description="Cap on every free-text budget, for smoke runs"
    )
    samples: int | None = Field(
        None, ge=1, description="Temperature: samples per case; default the suite's five"
    )
    data_dir: Path | None = Field(
        None, description="Folder of the case files; default data/experiments"
    )
    thinking_family: str | None = Field(
        None, description="Thinking: delimiter family; default from the model id"
    )
    judge_backend: str | None = Field(
        None, description="Synthesis: backend scoring answers as LLM-as-judge"
    )
    results_dir: Path = Field(
        Path("experiments/results"), description="Where run folders are written"
    )


def run_settings(config: RunConfig) -> Settings:
    """The backend settings of a run: the environment's, with the run's backend and seed."""
    return Settings(backend=config.backend, seed=config.seed)


def make_backend(config: RunConfig) -> LLMBackend:
    return create_backend(run_settings(config))


@dataclass
class Context:
    """What every trial of a run may read: the configuration, all cases, the tool registry."""

    config: RunConfig
    cases: list[Any]
    registry: Any = None
    extras: dict[str, Any] = field(default_factory=dict)


Trial = Callable[[Any, Caller, Context], Awaitable[dict[str, Any]]]


PARAMETERS = (
    "temperature",
    "max_tokens",
    "thinking_budget",
    "min_wait",
    "shots",
    "field_order",
    "description_style",
    "samples",
)
"""The strategy settings every results table carries as columns (empty where not set)."""


@dataclass(frozen=True)
class Strategy:
    name: str
    description: str
    trial: Trial
    params: Mapping[str, Any] = field(default_factory=dict)
    """The settings this strategy fixes, written as columns of every row it yields.

    Figures and reports read these columns; nothing recovers a setting from the name.
    """
    sweep: str | None = None
    """The parameter this strategy's family varies (a curve's x axis), if it is a sweep."""
    applies: Callable[[Any], bool] = lambda case: True
    """Which cases of the suite's file this strategy runs on."""

    def __post_init__(self) -> None:
        unknown = set(self.params) - set(PARAMETERS)
        if unknown:
            raise ValueError(f"{self.name}: unknown strategy parameters {sorted(unknown)}")
        if self.sweep is not None and self.sweep not in self.params:
            raise ValueError(f"{self.name}: sweeps {self.sweep!r} but does not set it")


def trial_row(
    calls: Sequence[CallRecord], *, temperature: float, parsed: Any = None, **measured: Any
) -> dict[str, Any]:
    """The common columns of one trial from its model calls, plus its own metrics."""
    constrained = [c for c in calls if c.schema_order is not None]
    honoured = [metrics.key_order_honoured(c.key_order, c.schema_order) for c in constrained]
    known = [h for h in honoured if h is not None]
    last = constrained[-1] if constrained else None
    return {
        "temperature": temperature,
        "prompt": CALL_SEPARATOR.join(c.prompt for c in calls),
        "response": CALL_SEPARATOR.join(c.response for c in calls),
        "parsed_output": dumps(parsed),
        "error": "; ".join(c.error for c in calls if c.error) or None,
        "calls": len(calls),
        "latency_s": sum(c.latency_s for c in calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "key_order": dumps(last.key_order) if last else None,
        "schema_key_order": dumps(last.schema_order) if last else None,
        "key_order_honoured": all(known) if known else None,
        **measured,
    }
