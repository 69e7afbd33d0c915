"""Response schemas that exist only to be compared: the variants the design studies found wanting.

Production schemas live in ``docgemma.agent.schemas``; these are the alternatives
(joint selection, all-required schemas in either field order, boolean probes, full
plans, sufficiency and next-action questions) built here so the agent never imports
them by mistake.
Everything is derived from the tool registry's specs, never retyped.
"""

from __future__ import annotations

from copy import copy
from enum import StrEnum
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field, create_model
from pydantic_core import PydanticUndefined

from docgemma.tools.registry import build_registry

NEXT_ACTIONS = ("call_another_tool", "synthesize", "retry", "ask_user", "skip")
RECOVERY_STRATEGIES = ("retry_same", "retry_different_args", "ask_user", "skip")


class FieldOrder(StrEnum):
    CRITICAL_FIRST = "critical_first"
    CRITICAL_LAST = "critical_last"


def reorders(model: type[BaseModel]) -> bool:
    """Whether reversing the fields gives a different schema (it does not for one field)."""
    return len(model.model_fields) > 1


@cache
def ordered_schema(model: type[BaseModel], order: FieldOrder) -> type[BaseModel]:
    """The argument schema with every property required, in the declared or reversed order.

    Optional fields become required-but-nullable: grammar converters (llama.cpp's among
    them) emit required properties before optional ones, so only an all-required schema
    is emitted in the order it declares — which is what the field-order study varies.
    """
    items = list(model.model_fields.items())
    if order is FieldOrder.CRITICAL_LAST:
        items.reverse()
    fields = {}
    for name, info in items:
        required = copy(info)  # keeps the constraints (lengths, descriptions)
        required.default = PydanticUndefined
        fields[name] = (info.annotation, required)
    suffix = "CriticalLast" if order is FieldOrder.CRITICAL_LAST else "CriticalFirst"
    return create_model(f"{model.__name__}{suffix}", __doc__=model.__doc__, **fields)


def _max_length(info) -> int | None:
    for meta in info.metadata:
        if hasattr(meta, "max_length"):
            return meta.max_length
    return None


@cache
def joint_schema(tool_names: tuple[str, ...]) -> type[BaseModel]:
    """Tool name plus every argument of every tool as a nullable field, in one object."""
    fields: dict = {"tool_name": (Literal[tool_names], ...)}
    registry = build_registry()
    for name in tool_names:
        for fname, info in registry[name].args.model_fields.items():
            if fname not in fields:
                fields[fname] = (
                    info.annotation | None,
                    Field(None, max_length=_max_length(info), description=info.description),
                )
    return create_model("JointToolCall", **fields)


class ToolSuitability(BaseModel):
    suitable: bool


@cache
def plan_schema(tool_names: tuple[str, ...], slots: int = 5) -> type[BaseModel]:
    """A full plan: ``slots`` nullable steps, the shape that invites slot-filling."""
    step = (Literal[tool_names] | None, Field(None))
    return create_model("TaskPlan", **{f"step_{i}": step for i in range(1, slots + 1)})


@cache
def reactive_schema(tool_names: tuple[str, ...]) -> type[BaseModel]:
    return create_model("NextTool", tool_name=(Literal[(*tool_names, "done")], ...))


class NextAction(BaseModel):
    action: Literal[NEXT_ACTIONS]
    reasoning: str | None = Field(None, max_length=160)


class Sufficiency(BaseModel):
    sufficient: bool
    missing: str | None = Field(None, max_length=120)


class RecoveryChoice(BaseModel):
    strategy: Literal[RECOVERY_STRATEGIES]
    reasoning: str | None = Field(None, max_length=100)


class JudgeScore(BaseModel):
    score: int = Field(ge=1, le=10)
    reason: str = Field("", max_length=160)
