"""The app's own page as the tenant ``local`` of the one conversation store.

The page and the API keep their conversations in the same store (``api.store``): after
each finished turn on the page (a question, or a decision on a proposed write), the
exchange is stored like an API turn, under the page's thread id. The page's download
reads it from there (``page_transcript``), and an API key mapped to ``local`` in
``DOCGEMMA_API_KEYS`` lists, reads and exports the same conversations; with no such key,
no API caller can. A page conversation is deleted when its retention runs out
(``idle_forgetter``), together with the agent's memory of it. Proposals made on the page
are not stored as API approvals: a record write proposed on the page is decided on the
page, by the clinician who saw it, never through a second channel.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from docgemma.agent.outcome import TurnResult
from docgemma.api.models import HistoryMessage
from docgemma.api.store import SessionStore
from docgemma.api.turns import answer_message
from docgemma.experts import Mode
from docgemma.transcript import TranscriptMessage, TranscriptReader

log = logging.getLogger(__name__)
LOCAL_TENANT = "local"
PageRecorder = Callable[[str, str | None, str, TurnResult], Awaitable[None]]


def idle_forgetter(
    get_store: Callable[[], SessionStore | None],
) -> Callable[[float], Awaitable[int]]:
    """``forget(max_age_s)``: delete the page's copies idle longer than that; how many."""

    async def forget(max_age_s: float) -> int:
        store = get_store()
        if store is None:
            return 0
        return await store.delete_idle(LOCAL_TENANT, store.now() - max_age_s)

    return forget


def page_recorder(
    get_store: Callable[[], SessionStore | None], default_profile: str
) -> PageRecorder:
    """``record(thread_id, profile, said, result)`` for the page's finished turns."""

    async def record(thread_id: str, profile: str | None, said: str, result: TurnResult) -> None:
        store = get_store()
        if store is None:  # the API has not started (or was not mounted)
            return
        try:
            session = await store.get(LOCAL_TENANT, thread_id) or await store.create(
                LOCAL_TENANT, profile or default_profile, Mode.CLINICIAN, session_id=thread_id
            )
            now = store.now()
            said_message = HistoryMessage(role="user", content=said, created_at=now)
            await store.record_turn(session, [said_message, answer_message(result, now)])
        except Exception:  # the turn is done and shown; only its download lacks it
            log.exception("storing a page turn for the local tenant failed")

    return record


def page_transcript(get_store: Callable[[], SessionStore | None]) -> TranscriptReader:
    """``read(thread_id)``: the page conversation's stored messages; none before its first
    finished turn (or while the store is not open)."""

    async def read(thread_id: str) -> list[TranscriptMessage]:
        store = get_store()
        if store is None or not thread_id:
            return []
        session = await store.get(LOCAL_TENANT, thread_id)
        return [] if session is None else list(await store.history(session.id))

    return read
