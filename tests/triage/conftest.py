"""Fixtures for the triage tests: a service over the fake knowledge base and a scripted model."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from docgemma.triage.service import TriageService

from .fakes import FakeKB, fake_literature, triage_backend


@pytest.fixture
def kb() -> FakeKB:
    return FakeKB()


@pytest.fixture
def make_service(settings, kb) -> Callable[..., TriageService]:
    def make(**backend_kwargs) -> TriageService:
        llm = triage_backend(**backend_kwargs)
        return TriageService.create(settings, llm, kb, literature=fake_literature)

    return make
