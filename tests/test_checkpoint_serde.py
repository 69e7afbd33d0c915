"""The checkpoint serializer revives the project's state types and nothing it was not told of."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import pytest
from langgraph.checkpoint.serde.event_hooks import register_serde_event_listener

from docgemma.checkpoint_serde import STATE_TYPES, checkpoint_serializer
from docgemma.labels import ResultQuality
from docgemma.severity import Severity


@pytest.mark.parametrize(("module", "name"), STATE_TYPES)
def test_every_listed_type_exists(module: str, name: str) -> None:
    assert isinstance(getattr(importlib.import_module(module), name), type)


def test_state_types_come_back_as_themselves() -> None:
    serde = checkpoint_serializer()
    state = {"quality": ResultQuality.SUCCESS_RICH, "severity": Severity.A_AND_E}
    back = serde.loads_typed(serde.dumps_typed(state))
    assert back == state
    assert back["quality"] is ResultQuality.SUCCESS_RICH and back["severity"] is Severity.A_AND_E


@dataclass
class Smuggled:
    command: str


def test_a_class_not_listed_is_not_revived() -> None:
    events: list[dict] = []
    remove = register_serde_event_listener(events.append)  # type: ignore[arg-type]
    try:
        serde = checkpoint_serializer()
        back = serde.loads_typed(serde.dumps_typed({"x": Smuggled("rm -rf /")}))
    finally:
        remove()
    assert not isinstance(back["x"], Smuggled)
    assert [e["kind"] for e in events] == ["msgpack_blocked"]
