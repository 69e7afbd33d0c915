"""Run the multi-turn sessions through the HTTP API, as a client would, and score them.

``served_api`` serves ``docgemma.api.create_api`` with uvicorn on a free local port, on the
evaluation environment's agent (embedded FHIR, recorded remote services, SQLite memory),
so every turn takes the client's path: ``POST /v1/chat/stream``, Server-Sent Events, and
``POST /v1/approvals/{id}`` for the writes the session approves or rejects. Each turn is
scored on what the client sees: the tools in the step events (a proposed write by its
approval), the answer, the approval's arguments. Per turn: tool exactness, key facts,
the right patient, continuity, asking and refusing when it should, leaks, degenerate text
(``answer_faults``) and latency; per session: the same, aggregated, and whether every
turn passed. Sessions run in file order on one seeded record, so a write one session
approves is in the record for the sessions after it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import socket
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

from docgemma.api import create_api
from docgemma.api.auth import hash_key
from docgemma.api.client import DocGemmaClient, Turn
from docgemma.api.runtime import AgentMode, Runtime
from docgemma.api.stream_events import TokenEvent
from docgemma.config import Settings
from docgemma.ehr.loader import DEFAULT_BUNDLES
from docgemma.experts import Mode
from docgemma.llm.base import LLMBackend
from docgemma.tools.registry import build_registry
from experiments import metrics
from experiments.evaluation.answer_faults import answer_faults
from experiments.evaluation.harness import EvalEnvironment
from experiments.evaluation.scoring import (
    arg_matches,
    asks_back,
    leak_terms,
    refuses,
    write_as_said,
)
from experiments.evaluation.sessions import Session, SessionTurn

log = logging.getLogger(__name__)
KEY = "evaluation-key"
TURN_CHECKS = (
    "tool_exact",
    "arg_accuracy",
    "key_fact_recall",
    "correct_patient",
    "continuity",
    "asked_when_needed",
    "refused_when_needed",
    "approval_shown",
)
"""Per-turn checks that must hold (1.0 or True) for the turn to pass; ``nan``: not applicable."""
SESSION_METRICS = (*TURN_CHECKS, "write_as_said", "leaked", "degenerate", "forbidden", "turn_ok")
"""``write_as_said`` is reported, not a check a turn must pass: a note the clinician amends in
a later message is rebuilt from two messages, which its strict single-run test refuses."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@asynccontextmanager
async def served_api(env: EvalEnvironment) -> AsyncIterator[str]:
    """The API on the environment's agent, served on 127.0.0.1; yields its base URL."""
    import uvicorn

    agent = await asyncio.to_thread(env.agent)

    async def get_agent() -> Any:
        return agent

    async def reachable() -> bool:
        return True

    @asynccontextmanager
    async def runtime(_: Settings) -> AsyncIterator[Runtime]:
        yield Runtime(modes={Mode.CLINICIAN: AgentMode(get_agent)}, fhir_reachable=reachable)

    settings = env.settings.model_copy(update={"api_keys": {hash_key(KEY): "evaluation"}})
    port = free_port()
    config = uvicorn.Config(
        create_api(settings, runtime), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("the evaluation API stopped while starting")
            await asyncio.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@cache
def patient_names(bundles: Path = DEFAULT_BUNDLES) -> dict[str, tuple[str, ...]]:
    """Synthetic patient id → the ways an answer names them (id, full name)."""
    names: dict[str, tuple[str, ...]] = {}
    for path in sorted(bundles.glob("*.json")):
        bundle = json.loads(path.read_text(encoding="utf-8"))
        for entry in bundle["entry"]:
            resource = entry["resource"]
            if resource["resourceType"] == "Patient":
                name = resource["name"][0]
                full = " ".join([*name.get("given", []), name.get("family", "")]).strip()
                names[resource["id"]] = (resource["id"], full)
    return names


def other_patients_named(text: str, patient: str) -> list[str]:
    """Other synthetic patients the text names (a namesake's name does not count)."""
    names = patient_names()
    own = {n.lower() for n in names.get(patient, ())}
    low = text.lower()
    return [
        pid
        for pid, forms in names.items()
        if pid != patient and any(f.lower() in low and f.lower() not in own for f in forms)
    ]


async def timed(stream: Any) -> tuple[float, float | None]:
    """Consume a turn's events: (wall seconds, seconds to the first answer token)."""
    start = time.perf_counter()
    first: float | None = None
    async for event in stream:
        if first is None and isinstance(event, TokenEvent) and event.text.strip():
            first = time.perf_counter() - start
    return time.perf_counter() - start, first


async def run_session(api: DocGemmaClient, session: Session) -> list[dict[str, Any]]:
    """Every turn of one session on one API session; approvals decided as the turn says."""
    rows = []
    session_id: str | None = None
    for number, turn in enumerate(session.turns, start=1):
        chat, decided = Turn(), None
        error = None
        wall = first = None
        try:
            wall, first = await timed(
                api.stream_chat(
                    turn.message, chat, session_id=session_id, patient_id=turn.select_patient
                )
            )
            session_id = session_id or chat.session_id or (chat.done and chat.done.session_id)
            if chat.approval is not None and turn.approval is not None:
                start = time.perf_counter()
                decided = await api.decide(
                    chat.approval.approval_id, turn.approval, reason=turn.approval_reason
                )
                wall += time.perf_counter() - start
        except Exception as exc:  # one failed turn is a scored result, not a crash
            error = repr(exc)
        rows.append(score_turn(session, number, turn, chat, decided, wall, first, error))
    return rows


def _tool_names() -> dict[str, str]:
    registry = build_registry()
    return {label: name for name, label in registry.labels().items()}


def tools_seen(chat: Turn, decided: Turn | None) -> list[str]:
    """Tools in the order the client saw them: tool steps by label, the proposed write."""
    by_label = _tool_names()
    names = [
        by_label.get(step.label, step.label)
        for t in (chat, decided)
        if t is not None
        for step in t.steps
        if step.status == "tool"
    ]
    if chat.approval is not None:
        names.append(chat.approval.tool)
    return list(dict.fromkeys(names))


def reply_text(t: Turn | None) -> str:
    if t is None:
        return ""
    return t.done.final_response if t.done is not None else t.answer


def score_turn(
    session: Session,
    number: int,
    turn: SessionTurn,
    chat: Turn,
    decided: Turn | None,
    wall: float | None,
    first_token: float | None,
    error: str | None,
) -> dict[str, Any]:
    called = tools_seen(chat, decided)
    scored = [t for t in called if t not in turn.optional_tools]
    approval = chat.approval
    said_so_far = [t.message for t in session.turns[:number]]
    answer = reply_text(chat)
    shown = "\n".join(
        filter(None, [answer, approval.summary if approval else "", reply_text(decided)])
    )
    arg_checks = [
        arg_matches(value, (approval.args if approval and approval.tool == tool else {}).get(name))
        for tool, wanted in turn.expected_args.items()
        for name, value in wanted.items()
        if tool in build_registry().write_tools()
    ]
    faults = answer_faults(answer, turn.message, build_registry().names)
    others = other_patients_named(shown, turn.patient) if turn.patient else []
    patient_ok: float | bool = math.nan
    if turn.patient:
        write_ok = approval is None or approval.args.get("patient_id") in (None, turn.patient)
        patient_ok = not others and write_ok
    asked = asks_back(answer)
    refused = refuses(answer)
    continuity: float | bool = math.nan
    if turn.continues:
        continuity = (patient_ok is not False) and (turn.must_ask or not asked)
    leaks = metrics.leaked_terms(answer, leak_terms())
    forbidden = [s for s in turn.must_not_contain if s.lower() in shown.lower()]
    row: dict[str, Any] = {
        "session_id": session.id,
        "split": session.split,
        "theme": session.theme,
        "turn": number,
        "message": turn.message,
        "expected_tools": ",".join(turn.expected_tools),
        "tools_called": ",".join(called),
        "tool_exact": set(scored) == set(turn.expected_tools),
        "arg_accuracy": sum(arg_checks) / len(arg_checks) if arg_checks else math.nan,
        "write_as_said": write_as_said(approval, said_so_far),
        "key_fact_recall": metrics.key_fact_rate(shown, turn.key_facts),
        "patient": turn.patient or "-",
        "other_patients_named": ",".join(others),
        "correct_patient": patient_ok,
        "continuity": continuity,
        "asked": asked,
        "asked_when_needed": asked if turn.must_ask else math.nan,
        "refused": refused,
        "refused_when_needed": refused if turn.must_refuse else math.nan,
        "approval": turn.approval or "-",
        "approval_shown": (approval is not None) if turn.approval else math.nan,
        "leaked": bool(leaks),
        "leaked_terms": ",".join(leaks),
        "degenerate": bool(faults),
        "faults": ",".join(faults),
        "forbidden": bool(forbidden),
        "forbidden_found": ",".join(forbidden),
        "error": error or (chat.error.message if chat.error else None),
        "answer": answer,
        "decision_answer": reply_text(decided) or None,
        "latency_s": wall if wall is not None else math.nan,
        "first_token_s": first_token if first_token is not None else math.nan,
    }
    row["turn_ok"] = turn_passed(row)
    return row


def turn_passed(row: dict[str, Any]) -> bool:
    for check in TURN_CHECKS:
        value = row.get(check, math.nan)  # a run from before a check was added lacks it
        if isinstance(value, float) and math.isnan(value):
            continue
        if value is False or (not isinstance(value, bool) and float(value) < 1.0):
            return False
    return not (row["leaked"] or row["degenerate"] or row["forbidden"] or row["error"])


async def sessions_on(
    env: EvalEnvironment,
    sessions: list[Session],
    on_session: Callable[[pd.DataFrame], None] | None = None,
) -> pd.DataFrame:
    """One scored row per turn of every session, through the API served on ``env``;
    ``on_session`` gets the rows so far after each session."""
    rows: list[dict[str, Any]] = []
    env.services.reset()
    async with served_api(env) as url, DocGemmaClient(url, KEY, timeout=3600) as api:
        for number, session in enumerate(sessions, start=1):
            found = await run_session(api, session)
            rows.extend(found)
            log.info(
                "session %d/%d %s: %d/%d turns passed",
                number,
                len(sessions),
                session.id,
                sum(r["turn_ok"] for r in found),
                len(found),
            )
            if on_session is not None:
                on_session(pd.DataFrame(rows))
    return pd.DataFrame(rows)


async def evaluate_sessions(
    sessions: list[Session],
    settings: Settings,
    llm: LLMBackend,
    *,
    classifiers: dict[str, Any] | None = None,
    on_session: Callable[[pd.DataFrame], None] | None = None,
) -> pd.DataFrame:
    """``sessions_on`` a fresh evaluation environment."""
    async with EvalEnvironment(settings, llm, classifiers=classifiers) as env:
        return await sessions_on(env, sessions, on_session)


def session_table(turns: pd.DataFrame) -> pd.DataFrame:
    """One row per session: the mean of each turn metric, every turn passed, latency."""
    rows = []
    for session_id, part in turns.groupby("session_id", sort=False):
        row: dict[str, Any] = {
            "session_id": session_id,
            "split": part["split"].iloc[0],
            "theme": part["theme"].iloc[0],
            "turns": len(part),
        }
        for metric in SESSION_METRICS:
            if metric not in part:  # a run from before the metric was added
                row[metric] = math.nan
                continue
            values = pd.to_numeric(part[metric], errors="coerce").dropna()
            row[metric] = values.mean() if len(values) else math.nan
        row["session_ok"] = bool(part["turn_ok"].all())
        row["latency_total_s"] = part["latency_s"].sum()
        row["latency_median_s"] = part["latency_s"].median()
        rows.append(row)
    return pd.DataFrame(rows)
