"""The clinician approval gate for EHR writes.

A write pauses the graph with an ``ApprovalRequest``; nothing is written until an
``ApprovalDecision`` comes back. The idempotency key is derived from the thread, the
turn, the tool and the canonical arguments: LangGraph re-runs the paused node on
resume, so the key must come out the same then (no random part), and a repeated
approval is written once; an identical request in a later turn is a new proposal
with a new key, asked for and written again.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from docgemma.agent.outcome import ApprovalRequest
from docgemma.tools.base import ToolSpec
from docgemma.tools.write_review import WriteReview


def idempotency_key(thread_id: str, turn: int, tool: str, args: dict[str, Any]) -> str:
    canonical = json.dumps(
        {"thread": thread_id, "turn": turn, "tool": tool, "args": args},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def summarize(spec: ToolSpec, args: dict[str, Any]) -> str:
    """The proposed write in clinician terms: what, for whom."""
    fields = spec.summary_fields or tuple(k for k in args if k != "patient_id")
    what = ", ".join(str(args[f]) for f in fields if args.get(f))
    patient = args.get("patient_id")
    return f"{spec.label}: {what}" + (f" for patient {patient}" if patient else "")


def approval_request(
    spec: ToolSpec,
    args: dict[str, Any],
    thread_id: str,
    turn: int,
    review: WriteReview | None = None,
    *,
    replaces: str | None = None,
) -> ApprovalRequest:
    return ApprovalRequest(
        tool=spec.name,
        tool_label=spec.label,
        args=args,
        summary=summarize(spec, args),
        idempotency_key=idempotency_key(thread_id, turn, spec.name, args),
        review=review,
        replaces=replaces,
    )
