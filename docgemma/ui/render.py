"""Markdown for what the clinician reads: answer with citations, sources, notices, approval card."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgemma.agent.outcome import ApprovalRequest, TurnResult
from docgemma.tools.base import Source
from docgemma.ui import untrusted
from docgemma.ui.card_review import NOT_GIVEN, review_markdown
from docgemma.ui.patients import PatientMatch

_CITATION = re.compile(r"\[(\d{1,2})\](?!\()")
_HEADING = re.compile(r"^ {0,3}(#{1,6}(?:[ \t].*)?)$")
_BOLD_LINE = re.compile(r"^\*\*[^*]+\*\*:?[ \t]*$")
"""A line that is all bold: the way models most often write a heading."""
_FENCE = re.compile(r"^ {0,3}(?:```|~~~)")
FALLBACK_NOTICE = (
    "The language model was unavailable for this turn, so this answer was assembled "
    "without it. Please try again shortly."
)
LOADING_MODEL = (
    "⏳ Loading the language model — this happens once after the app starts; "
    "your question is answered as soon as it is ready."
)
CONFIDENCE = {
    "high": "grounded in the sources shown",
    "medium": "grounded in part: check what was left out",
    "low": "not grounded in a source, or a source failed: verify before acting",
}
"""What a level means, for a turn whose result carries no reason of its own."""
BACKEND_DOWN = (
    "I could not reach the language model just now, so I cannot answer this question. "
    "The app is still running — please try again in a moment."
)


def start_problem(exc: BaseException) -> str:
    """Why the model could not start, for the page: the engine's own diagnosis (what failed,
    the CPU, how to fix it) without its log, or nothing for an unexpected error."""
    from docgemma.llm.errors import ConfigurationError, ModelUnavailable

    if isinstance(exc, ConfigurationError | ModelUnavailable):
        return str(exc).split("\nEngine log:", 1)[0]
    return ""


def link_citations(text: str, sources: list[Source]) -> str:
    """Turn ``[n]`` into a link to source n when it has a URL; unknown numbers stay as typed."""

    def sub(match: re.Match[str]) -> str:
        n = int(match.group(1))
        url = untrusted.link_target(sources[n - 1].url or "") if 1 <= n <= len(sources) else None
        if url:
            return f"[[{n}]]({url})"
        return match.group(0)

    return _CITATION.sub(sub, text)


def headings_apart(text: str) -> str:
    """Every heading at the margin after a blank line (code blocks left as they are).

    Markdown reads a line right under a list item, or indented to its text, as more of
    that item; a model's heading after a numbered list would end up inside its last item.
    """
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading or (not fenced and _BOLD_LINE.match(line)):
            line = heading.group(1) if heading else line
            if out and out[-1].strip():
                out.append("")
        out.append(line)
    return "\n".join(out)


def sources_block(sources: list[Source]) -> str:
    if not sources:
        return ""
    lines = ["**Sources**"]
    for n, src in enumerate(sources, 1):
        title = untrusted.plain(src.title.strip() or "Untitled source")
        url = untrusted.link_target(src.url or "")
        lines.append(f"{n}. [{title}]({url})" if url else f"{n}. {title}")
    return "\n".join(lines)


def answer_markdown(result: TurnResult) -> str:
    """The final chat message: notices first, then the answer, its confidence, the sources.

    The answer is the model's (and may quote tool results), so it is shown without
    HTML or images; notices may quote a proposal's summary and get the same treatment.
    A question back to the clinician carries no confidence: it answers nothing yet.
    """
    notices = list(result.notices)
    if result.fallback_used:
        notices.append(FALLBACK_NOTICE)
    parts = [f"> ℹ️ {untrusted.markdown(n)}" for n in notices]
    answer = headings_apart(untrusted.markdown(result.final_response.strip()))
    parts.append(link_citations(answer, result.sources_used) or "_(no answer)_")
    if answer and not result.clarification_requested:
        level = result.confidence_level
        why = untrusted.plain(result.confidence_reason) or CONFIDENCE[level]
        parts.append(f"_Confidence: **{level}** ({why})_")
    block = sources_block(result.sources_used)
    if block:
        parts.append(block)
    return "\n\n".join(parts)


def approval_card(
    request: ApprovalRequest,
    args: dict[str, object],
    edited: bool,
    patient: PatientMatch | None = None,
    fields: Sequence[str] = (),
) -> str:
    """The proposed write in clinician terms; the write happens only after Approve.

    ``patient`` (looked up in the record) puts a name and birth date beside the id,
    so the clinician can tell it is the right person before approving. Every value is
    plain text: what the card shows is exactly what would be written. ``fields``: every
    field the record can hold (the tool's argument model), each shown, an empty one as
    not given; the chart check's findings come before the table.
    """
    names = list(dict.fromkeys([*fields, *args]))
    rows = "\n".join(
        f"| {k.replace('_', ' ').capitalize()} | "
        f"{NOT_GIVEN if args.get(k) in (None, '') else _cell(k, args[k], patient)} |"
        for k in names
        if k in fields or args.get(k) not in (None, "")
    )
    note = " *(edited)*" if edited else ""
    summary = f"{request.summary} *(as first proposed; the table has your edits)*"
    check = review_markdown(request.review, edited=edited)
    if check and args.get("patient_id") != request.args.get("patient_id"):
        # another patient's chart says nothing about this write: not shown beside it
        check = (
            "**Chart check.** The edit changed the patient: the write is checked against "
            "their chart when you approve."
        )
    replaces = (
        f"**Replaces** the saved {untrusted.plain(request.replaces)}: approving marks that "
        "entry entered in error.\n\n"
        if request.replaces
        else ""
    )
    return (
        f"### Approval needed: {request.tool_label}{note}\n\n"
        f"{untrusted.plain(summary) if edited else untrusted.plain(request.summary)}\n\n"
        + replaces
        + (f"{check}\n\n" if check else "")
        + f"| Field | Value |\n|---|---|\n{rows}\n\n"
        "Nothing is written to the record until you press **Approve**."
    )


def _cell(key: str, value: object, patient: PatientMatch | None) -> str:
    if key != "patient_id" or patient is None or patient.id != value:
        return untrusted.plain(value)
    born = f", born {untrusted.plain(patient.birth_date)}" if patient.birth_date else ""
    return f"**{untrusted.plain(patient.name)}**{born} (`{patient.id}`)"  # an id read back
