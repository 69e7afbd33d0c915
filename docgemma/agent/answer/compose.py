"""The answers code writes, and the notes code adds to every answer.

Code writes the answer whole when the model has nothing to add or must not add anything:
a question back to the clinician, the model unavailable, nothing retrieved, a record
write confirmed, a chart the clinician only asked to see, and the decline when no source
answers the question. Follow-up questions come from templates keyed on what the turn
touched, so the model-call count of every path stays exact.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from docgemma.agent.answer.sources import Passage
from docgemma.agent.answer.statements import Checked
from docgemma.agent.references import only_to_see_record
from docgemma.agent.rules import answered_tools
from docgemma.agent.state import AgentState, ToolResult
from docgemma.tools.base import ToolRegistry
from docgemma.tools.facts import ToolRole
from docgemma.tools.outcomes import Note, ToolErrorType, error_message
from docgemma.tools.text import shorten, squash

FALLBACK_MESSAGE = (
    "The language model is unavailable right now (its engine may be restarting), so I "
    "cannot write a full answer. Your conversation is kept: please ask again in a moment."
)
FOUND_HEADER = "Here is what the sources returned (no model text):"
NOT_RETRIEVED_ANSWER = (
    "The information needed to answer this could not be retrieved, so no answer is given "
    "from the model's memory."
)
NO_SOURCE = (
    "I found no source that answers this question, so I give no answer from the model's memory."
)
NOT_ANSWERED = (
    "The sources I found do not answer this question, so I give no answer from the model's memory."
)
NOT_THIS_CASE = (
    "The condition pages I found are written about conditions, not about this patient, and "
    "none is about a condition the question or the can't-miss check names, so I do not "
    "read them as an assessment of this case."
)
ASK_FOR_UNVERIFIED = (
    "You can ask for the model's own answer, unverified, with the “show unverified answer” option."
)
UNVERIFIED_NOTE = (
    "⚠️ *Unverified: written from the model's own memory, not from a source. Check it "
    "against a trusted reference before acting on it.*"
)
DIGEST_CHARS = 500


def searched(results: Sequence[ToolResult], knowledge_query: str | None = None) -> str:
    """What the turn looked in, for the decline: each lookup with what it looked up."""
    done = [
        f"{r['tool_label']} ({squash(r['entity'])})" if r.get("entity") else r["tool_label"]
        for r in results
        if r["executed"]
    ]
    if knowledge_query is not None:
        done.append(
            f"the condition pages and the literature index (“{shorten(knowledge_query, 80)}”)"
        )
    return "; ".join(dict.fromkeys(done))


def decline(
    passages: Sequence[Passage],
    looked_in: str,
    *,
    offer_unverified: bool = True,
    why: str | None = None,
) -> str:
    """One plain sentence that nothing answers the question (``why``, when code knows a
    reason of its own), what was searched and what the sources hold."""
    parts = [why or (NOT_ANSWERED if passages else NO_SOURCE)]
    if looked_in:
        parts.append(f"Searched: {looked_in}.")
    if passages:
        held = "; ".join(f"[{p.n}] {p.title}" for p in passages)
        parts.append(f"The sources found hold: {held}.")
    if offer_unverified:
        parts.append(ASK_FOR_UNVERIFIED)
    return " ".join(parts)


def render(statements: Sequence[Checked]) -> str:
    """Verified statements with their ``[n]`` markers; a list when there are several."""
    lines = [
        s.statement.text.rstrip() + " " + "".join(f"[{n}]" for n in s.cited) for s in statements
    ]
    if len(lines) == 1:
        return lines[0]
    return "\n".join(f"- {line}" for line in lines)


def quoted(findings: Sequence[tuple[int, str]]) -> str:
    """A reference's own lines ``(source number, line)`` as the answer, each cited."""
    lines = [f"- {line.strip().removeprefix('- ')} [{n}]" for n, line in findings]
    return "From the interaction reference:\n" + "\n".join(lines)


def with_unverified(text: str, unverified: str) -> str:
    """The decline, then the model's own answer under the unverified label."""
    return f"{text}\n\n{UNVERIFIED_NOTE}\n\n{unverified}"


def results_digest(results: Sequence[ToolResult]) -> str:
    """The successful results' heads, each under its label; code only."""
    found = [
        f"- {r['tool_label']}: {shorten(r['formatted_result'], DIGEST_CHARS)}"
        for r in results
        if r["error_type"] is None
    ]
    return (FOUND_HEADER + "\n" + "\n".join(found)) if found else ""


def fallback_answer(results: Sequence[ToolResult], notes: Sequence[str]) -> str:
    """The model is unavailable: a pre-written message and what the tools returned."""
    parts = [FALLBACK_MESSAGE, results_digest(results), *dict.fromkeys(notes)]
    return "\n\n".join(p for p in parts if p)


ASKED_ABOUT = frozenset(
    {ToolErrorType.MISSING_REQUIRED_ARGS, ToolErrorType.MULTIPLE_PATIENT_MATCHES}
)
"""Failures answered by a question to the clinician, not reported as missing information."""


def error_notes(state: AgentState) -> list[str]:
    """Pre-formatted messages for what failed and never succeeded later in the turn."""
    results = state.get("tool_results", [])
    succeeded = answered_tools(results)
    failed = [
        r
        for r in results
        if r["error_type"]
        and r["tool_name"] not in succeeded
        and r["error_type"] not in ASKED_ABOUT
    ]
    labels = {r["tool_label"] for r in failed}
    notes = [m for m in state.get("error_messages", []) if not any(x in m for x in labels)]
    return list(dict.fromkeys([*notes, *(r["formatted_result"] for r in failed)]))


def unchecked_notes(results: Sequence[ToolResult]) -> list[str]:
    """A note for each thing a source could not check (silence is not "no interaction") and
    each reference it could not consult."""
    return [
        error_message(note, r["tool_label"], entity=item)
        for r in results
        if r["error_type"] is None
        for note, items in (
            (Note.UNCHECKED, r["unchecked"]),
            (Note.NOT_CONSULTED, not_consulted(r)),
        )
        for item in items
    ]


def not_consulted(result: ToolResult) -> list[str]:
    """The references a successful result failed to reach (a thread saved before results
    carried them has none)."""
    return list(result.get("not_consulted") or [])


def with_notes(text: str, notes: Sequence[str]) -> str:
    """Every must-know note (failures, rejections, what was not checked) in the answer, once."""
    missing = [n for n in dict.fromkeys(notes) if n and n not in text]
    return "\n\n".join([text, *(f"Note: {n}" for n in missing)]) if missing else text


def nothing_retrieved(state: AgentState, results: Sequence[ToolResult]) -> bool:
    """Sources were consulted, none answered, and no image gives material to answer from."""
    executed = [r for r in results if r["executed"]]
    return (
        bool(executed)
        and all(r["error_type"] is not None for r in executed)
        and not state.get("image_findings")
    )


def saved_writes(results: Sequence[ToolResult], registry: ToolRegistry) -> list[str]:
    """The confirmations of a turn whose only successful results are approved record
    writes, in the tool's own words: the values actually saved, after any edit."""
    ok = [r for r in results if r["executed"] and r["error_type"] is None]
    if ok and all(registry[r["tool_name"]].writes_ehr for r in ok):
        return [r["formatted_result"] for r in ok]
    return []


def shown_records(results: Sequence[ToolResult], registry: ToolRegistry, query: str) -> list[str]:
    """The charts read, when the clinician only asked to see one: shown as they are. A turn
    that only found a patient shows who was found (id, birth date, what next), as the
    search wrote it."""
    ok = [r for r in results if r["error_type"] is None]
    roles = [registry[r["tool_name"]].role for r in ok]
    if ok and len(ok) == len(results) and set(roles) == {ToolRole.FINDS_PATIENT}:
        return [r["formatted_result"] for r in ok]
    if not only_to_see_record(query) or ToolRole.READS_CHART not in roles:
        return []
    if any(role not in (ToolRole.READS_CHART, ToolRole.FINDS_PATIENT) for role in roles):
        return []
    return [
        r["formatted_result"]
        for r, role in zip(ok, roles, strict=True)
        if role is ToolRole.READS_CHART
    ]


def follow_up_questions(
    *, drugs: Sequence[str], roles: Collection[ToolRole | None], patient: bool
) -> list[str]:
    """Three follow-up questions for the clinician, chosen from templates."""
    options: list[str] = []
    if drugs:
        d = drugs[0]
        options += [
            f"What should be monitored in a patient taking {d}?",
            f"Does {d} need a dose adjustment in renal impairment?",
        ]
        if len(drugs) > 1:
            options.append(f"Is there a safer alternative to combining {drugs[0]} and {drugs[1]}?")
    if patient or ToolRole.FINDS_PATIENT in roles or ToolRole.READS_CHART in roles:
        options += [
            "What are this patient's current medications and allergies?",
            "Are any of this patient's recent lab results abnormal?",
        ]
    if ToolRole.SEARCHES_EVIDENCE in roles:
        options.append("What do current guidelines recommend for this condition?")
    options += [
        "What are the first-line management options?",
        "Which findings should prompt urgent referral?",
        "Which investigations would help confirm this?",
    ]
    return list(dict.fromkeys(options))[:3]
