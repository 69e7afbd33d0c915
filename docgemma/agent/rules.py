"""The deterministic rules engine: every "what next" decision.

The model scored 0% on sufficiency, ask-user and skip decisions and 50% on routing,
so all of them live here as pure functions of the state's data. Nothing in this
module calls a model or writes state; the nodes and the router call it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from docgemma.agent.orders import order_position
from docgemma.agent.state import ToolResult
from docgemma.labels import ResultQuality
from docgemma.tools.base import ToolRegistry, ToolSpec
from docgemma.tools.facts import RequestPattern, ToolRole
from docgemma.tools.outcomes import NOT_REPEATABLE, Note, ToolErrorType, error_message

MAX_STEPS = 4
"""Hard limit on tool-loop iterations per turn."""
MAX_RETRIES = 2
"""Retries per tool per turn."""
MAX_TOTAL_RETRIES = 4
"""Retries across all tools in one turn."""

ERROR_QUALITIES = frozenset({ResultQuality.ERROR_RETRYABLE, ResultQuality.ERROR_FATAL})


def with_label(tool_label: str, text: str) -> str:
    """A result as the model sees it: under its clinical label, never the tool name."""
    return f"[{tool_label}]\n{text.strip()}"


def tool_name_pattern(name: str) -> str:
    """A tool name as models write it: bare, in backticks or in brackets."""
    return rf"\[?`?\b{re.escape(name)}\b`?\]?"


def scrub_tool_names(text: str, labels: dict[str, str]) -> str:
    """Replace internal tool names (bracketed or bare) in model output by their labels."""
    for name, label in labels.items():
        text = re.sub(tool_name_pattern(name), label, text)
    return text


# ── task patterns ──
def required_in_order(query: str, *, patient_known: bool, registry: ToolRegistry) -> list[str]:
    """Tools the query's information needs call for, in the order it asks for them.

    Each tool declares the words that ask for it (``ToolSpec.requested_by``). Of the
    tools one pattern asks for, the patient search comes first (the chart needs the id
    it finds), and it is left out once the patient is known. A record write is asked for
    only by an order ("Start her on …"), never by the same word in a question ("Should I
    start …?"): a question must not keep the loop waiting for a write.
    """
    asked = sorted(
        (position, pattern.name, spec.role is not ToolRole.FINDS_PATIENT, spec.name)
        for spec in registry
        if not (patient_known and spec.role is ToolRole.FINDS_PATIENT)
        for pattern in spec.requested_by
        if (position := _asked_at(query, spec, pattern)) is not None
    )
    return list(dict.fromkeys(name for *_, name in asked))


def _asked_at(query: str, spec: ToolSpec, pattern: RequestPattern) -> int | None:
    return order_position(query, pattern) if spec.writes_ehr else pattern.position(query)


def answered_tools(results: Iterable[ToolResult]) -> set[str]:
    """The tools that returned a result this turn (no error)."""
    return {r["tool_name"] for r in results if r["error_type"] is None}


def waiting_tools(
    query: str,
    results: Sequence[ToolResult],
    skipped: Collection[str] = (),
    *,
    patient_known: bool,
    registry: ToolRegistry,
) -> list[str]:
    """Tools the query asks for that have neither answered nor been given up on, in order.

    A tool given up on (skipped) does not hold up the others: a failed label lookup
    must not keep the interaction check the same question asks for from running.
    """
    settled = answered_tools(results) | set(skipped)
    asked = required_in_order(query, patient_known=patient_known, registry=registry)
    return [t for t in asked if t not in settled]


def _repeats(tool: str, args: dict[str, Any], earlier: Iterable[ToolResult]) -> bool:
    return any(
        r["tool_name"] == tool and r["args"] == args and r["error_type"] in NOT_REPEATABLE
        for r in earlier
    )


def is_duplicate_call(results: Sequence[ToolResult]) -> bool:
    """The last call repeats an earlier call that succeeded or found nothing."""
    if len(results) < 2:
        return False
    return _repeats(results[-1]["tool_name"], results[-1]["args"], results[:-1])


def proposes_duplicate(tool: str, args: dict[str, Any], results: Sequence[ToolResult]) -> bool:
    """A proposed call repeats one that succeeded or found nothing (checked before it runs)."""
    return _repeats(tool, args, results)


def forced_retry(result: ToolResult) -> str | None:
    """The retry code decides without asking the model, or None when the model chooses:
    after "not found" the same call would find nothing again, so its arguments must change."""
    if result.get("error_type") in NOT_REPEATABLE:
        return "retry_different_args"
    return None


# ── ask-user and skip triggers ──
WHICH_PATIENT = (
    "Which patient do you mean? Please give their name or ID, or select them in the patient panel."
)
WHICH_DRUG = "Which drug do you mean? Please give its name."
ATTACH_IMAGE = "Please attach the image you would like me to look at."
MISSING_FIELD_QUESTIONS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"patient_id"}), "I need a patient ID to proceed. Could you provide one?"),
    (frozenset({"name"}), WHICH_PATIENT),
    (frozenset({"drug_name", "drug_names", "medication_name"}), WHICH_DRUG),
    (frozenset({"image"}), ATTACH_IMAGE),
    (
        frozenset({"query", "condition"}),
        "What exactly should I search for? Please name the condition, drug or topic.",
    ),
    (
        frozenset({"dosage", "frequency"}),
        "Please give the dosage and frequency of the prescription.",
    ),
    (
        frozenset({"substance", "reaction"}),
        "What is the patient allergic to, and what reaction does it cause?",
    ),
    (
        frozenset({"note_text"}),
        'What should the note say? Please give its text, for example after "note:".',
    ),
)
"""The question for a missing argument, first match wins (an ID is asked for by name)."""


def unknown_drug_question(unknown: dict[str, list[str]]) -> str:
    """Asks which drug was meant for each name no dictionary knows; nothing is checked yet."""
    parts = []
    for typed, options in unknown.items():
        if options:
            offered = (
                " or ".join(options)
                if len(options) < 3
                else (f"{', '.join(options[:-1])} or {options[-1]}")
            )
            parts.append(f"'{typed}' is not a drug name I know. Did you mean {offered}?")
        else:
            parts.append(f"'{typed}' is not a drug name I know.")
    firsts = [options[0] for options in unknown.values() if options]
    if len(firsts) == len(unknown):
        reply = f"Reply yes to go on with {' and '.join(firsts)}, or give the correct name."
    else:
        reply = "Please check the spelling or give the generic name."
    return " ".join([*parts, "Nothing has been checked yet.", reply])


def ask_user_message(result: ToolResult, registry: ToolRegistry) -> str | None:
    """The clarification question a result calls for, or None."""
    matches = result.get("patient_matches") or 0
    error = result.get("error_type")
    if error == ToolErrorType.UNKNOWN_DRUG_NAME:
        return result["formatted_result"]
    if matches > 1 or error == ToolErrorType.MULTIPLE_PATIENT_MATCHES:
        who = result.get("entity") or result["args"].get("name") or "that name"
        listing = "".join(f"\n- {s}" for s in result.get("suggestions") or [])
        count = matches if matches > 1 else "several"
        return f"I found {count} patients matching '{who}'. Which one did you mean?" + (
            f"{listing}\nPlease reply with the ID or the date of birth, or select them in "
            "the patient panel."
            if listing
            else ""
        )
    missing = result.get("missing_fields") or []
    if error == ToolErrorType.MISSING_REQUIRED_ARGS or (
        error == ToolErrorType.INVALID_ARGS and missing
    ):
        for fields, question in MISSING_FIELD_QUESTIONS:
            if fields & set(missing):
                return question
        named = ", ".join(m.replace("_", " ") for m in missing)
        return f"I need more information: {named or 'the missing details'}."
    if error == ToolErrorType.AMBIGUOUS_DRUG_NAME:
        options = result.get("suggestions") or []
        if len(options) >= 2:
            return f"Did you mean {', '.join(options[:-1])} or {options[-1]}?"
        return "Which drug did you mean? Please give its full name."
    tool = result["tool_name"]
    if error == ToolErrorType.NOT_FOUND and registry.has_role(tool, ToolRole.FINDS_PATIENT):
        name = result.get("entity") or result["args"].get("name", "")
        return (
            f"I could not find a patient named '{name}' in the record. Could you check the "
            "spelling? You can also search by family name or first name alone, give the "
            "patient's ID, or select them in the patient panel."
        )
    if error == ToolErrorType.NOT_FOUND and tool in registry and registry[tool].needs_patient:
        pid = result["args"].get("patient_id", "")
        return (
            f"I could not find a patient with ID '{pid}'. Could you check the ID or search by name?"
        )
    return None


_OWN_NOTE = frozenset({ToolErrorType.OUT_OF_SERVICE, ToolErrorType.DRUG_NOT_IN_DATABASE})
"""Failures whose note only the tool can word: which of its sources could not serve, and why."""


def skip_message(result: ToolResult, retries_for_tool: int, total_retries: int) -> str | None:
    """The note for giving up on a tool, or None when a retry is still worth it."""
    label = result["tool_label"]
    error = result.get("error_type")
    if error in _OWN_NOTE:
        return result["formatted_result"]
    if retries_for_tool >= MAX_RETRIES or total_retries >= MAX_TOTAL_RETRIES:
        return error_message(Note.GAVE_UP, label)
    if error == ToolErrorType.SERVICE_UNAVAILABLE and retries_for_tool >= 1:
        return error_message(error, label)
    if error in (ToolErrorType.INVALID_ARGS, ToolErrorType.REJECTED_BY_CLINICIAN):
        return error_message(error, label, entity=result.get("entity"))
    return None


ErrorAction = Literal["ask_user", "skip", "llm_decide"]


@dataclass(frozen=True)
class ErrorDecision:
    action: ErrorAction
    message: str = ""


def decide_error(
    result: ToolResult,
    retries_for_tool: int,
    total_retries: int,
    *,
    registry: ToolRegistry,
) -> ErrorDecision:
    """The error handler's code path: ask-user and skip first; then the model may pick a retry."""
    question = ask_user_message(result, registry)
    if question:
        return ErrorDecision("ask_user", question)
    note = skip_message(result, retries_for_tool, total_retries)
    if note:
        return ErrorDecision("skip", note)
    return ErrorDecision("llm_decide")


# ── the router ──
RouteAction = Literal["error_handler", "ask_user", "tool_select", "synthesize"]


@dataclass(frozen=True)
class RouteDecision:
    action: RouteAction
    reason: str


def decide_next(
    results: Sequence[ToolResult],
    *,
    step_count: int,
    user_query: str,
    patient_known: bool,
    registry: ToolRegistry,
    skipped: Collection[str] = (),
    fallback: bool = False,
) -> RouteDecision:
    """Where the loop goes after a classified result; never asks the model anything."""
    if fallback:
        return RouteDecision("synthesize", "the model is unavailable")
    if not results:
        return RouteDecision("synthesize", "no tool result to act on")
    last = results[-1]
    if ask_user_message(last, registry) and (last.get("patient_matches") or 0) > 1:
        return RouteDecision("ask_user", "several patients matched; the clinician must choose")
    if last.get("quality") in ERROR_QUALITIES or last.get("error_type"):
        return RouteDecision("error_handler", f"the {last['tool_label']} reported a problem")
    if step_count >= MAX_STEPS:
        return RouteDecision("synthesize", f"step limit of {MAX_STEPS} reached")
    if is_duplicate_call(results):
        return RouteDecision("synthesize", "the same call was repeated")
    return _next_needed(
        user_query, results, skipped, patient_known=patient_known, registry=registry
    )


def decide_after_skip(
    results: Sequence[ToolResult],
    skipped: Collection[str],
    *,
    step_count: int,
    user_query: str,
    patient_known: bool,
    registry: ToolRegistry,
) -> RouteDecision:
    """Where the loop goes once the error handler gives up on a tool.

    The other tools the question asks for still run (within the step limit), so one
    unavailable source costs its own part of the answer, not the whole turn.
    """
    if step_count >= MAX_STEPS:
        return RouteDecision("synthesize", f"step limit of {MAX_STEPS} reached")
    return _next_needed(
        user_query, results, skipped, patient_known=patient_known, registry=registry
    )


ALL_ANSWERED = "every source the question needs has answered"
NOTHING_LEFT = "no other source is left to consult"


def _next_needed(
    user_query: str,
    results: Sequence[ToolResult],
    skipped: Collection[str],
    *,
    patient_known: bool,
    registry: ToolRegistry,
) -> RouteDecision:
    waiting = waiting_tools(
        user_query, results, skipped, patient_known=patient_known, registry=registry
    )
    if waiting:
        labels = ", ".join(registry[t].label for t in waiting)
        return RouteDecision("tool_select", f"the question still needs: {labels}")
    if skipped:  # a source given up on did not meet the need: say so, not that all is met
        return RouteDecision("synthesize", NOTHING_LEFT)
    return RouteDecision("synthesize", ALL_ANSWERED)
