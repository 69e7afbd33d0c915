"""The one ownership check every page event that reads or changes a conversation goes through.

Gradio takes any session hash a client presents, so a second signed-in user who learns
another user's hash reaches that user's ``gr.State``. A conversation (the clinician
chat's ``SessionState``, the triage tab's ``TriageSession``) belongs to the user who
first used it; ``owner_only`` wraps an event handler so that it runs only for that
user and everyone else gets the handler's refusal instead. The wrapper marks the
handler (``OWNER_CHECKED``), so a test can list the page's events and fail on any that
touches a conversation without it.

No ``from __future__ import annotations`` here: Gradio reads the wrapped handler's
``gr.Request`` annotation at run time to inject the caller.
"""

import functools
import inspect
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import gradio as gr

from docgemma.ui.session import FOREIGN

OWNER_CHECKED = "docgemma_owner_checked"
"""The attribute ``owner_only`` sets on the handlers it wraps."""
Refusal = Callable[[dict[str, Any]], Any]
"""What a refused caller gets, from the handler's bound arguments (it may raise gr.Error)."""


@runtime_checkable
class Owned(Protocol):
    """A per-browser-session conversation that belongs to its first user."""

    def claim(self, user: str | None) -> bool: ...


def caller(request: gr.Request | None) -> str | None:
    """The signed-in user behind ``request`` (None in open demo mode)."""
    return getattr(request, "username", None) or None


def refuse_with_error(_: dict[str, Any]) -> Any:
    """The refusal for events whose outputs have no place for a message: Gradio's error."""
    raise gr.Error(FOREIGN)


def nothing(_: dict[str, Any]) -> None:
    """The refusal for events with no outputs: do nothing."""
    return None


def owner_only(refusal: Refusal) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run the handler only for the owner of the conversation it is given.

    The handler takes the conversation (an ``Owned``) and a ``gr.Request`` among its
    arguments; the first caller claims an unclaimed conversation. Works for plain,
    coroutine and async-generator handlers (Gradio streams the last kind).
    """

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(fn)
        if not any("Request" in str(p.annotation) for p in signature.parameters.values()):
            raise TypeError(f"{fn.__qualname__} must take a gr.Request to check its owner")

        def allowed(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bool, dict]:
            bound = signature.bind_partial(*args, **kwargs).arguments
            values = list(bound.values())
            request = next((v for v in values if isinstance(v, gr.Request)), None)
            owned = [v for v in values if isinstance(v, Owned)]
            if not owned:
                raise TypeError(f"{fn.__qualname__} was called without its conversation")
            user = caller(request)
            return all(o.claim(user) for o in owned), bound

        if inspect.isasyncgenfunction(fn):

            @functools.wraps(fn)
            async def stream(*args: Any, **kwargs: Any) -> Any:
                ok, bound = allowed(args, kwargs)
                if not ok:
                    yield refusal(bound)
                    return
                async for out in fn(*args, **kwargs):
                    yield out

            wrapper: Callable[..., Any] = stream
        elif inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def coroutine(*args: Any, **kwargs: Any) -> Any:
                ok, bound = allowed(args, kwargs)
                return await fn(*args, **kwargs) if ok else refusal(bound)

            wrapper = coroutine
        else:

            @functools.wraps(fn)
            def plain(*args: Any, **kwargs: Any) -> Any:
                ok, bound = allowed(args, kwargs)
                return fn(*args, **kwargs) if ok else refusal(bound)

            wrapper = plain
        setattr(wrapper, OWNER_CHECKED, True)
        return wrapper

    return wrap
