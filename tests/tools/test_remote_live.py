"""The remote tools against the live services; run only with DOCGEMMA_LIVE_TESTS=1."""

from __future__ import annotations

import os

import pytest

from docgemma.tools import drug_safety, interactions, literature, trials
from docgemma.tools.args import (
    ClinicalTrialsArgs,
    DrugInteractionArgs,
    DrugSafetyArgs,
    LiteratureSearchArgs,
)
from docgemma.tools.base import ToolContext
from docgemma.tools.http import create_client

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(
        os.environ.get("DOCGEMMA_LIVE_TESTS") != "1", reason="set DOCGEMMA_LIVE_TESTS=1"
    ),
]


@pytest.fixture
async def ctx(settings):
    online = settings.model_copy(update={"offline": False})
    async with create_client(online) as http:
        yield ToolContext(online, http=http)


async def test_live_warfarin_label_has_a_boxed_bleeding_warning(ctx):
    outcome = await drug_safety.SPEC.run(DrugSafetyArgs(drug_name="warfarin"), ctx)
    assert outcome.ok, outcome.error_detail
    assert "BLEEDING" in outcome.data["boxed_warning"].upper()


async def test_live_interaction_check_uses_labels(ctx):
    args = DrugInteractionArgs(drug_names=["warfarin", "amiodarone"])
    outcome = await interactions.SPEC.run(args, ctx)
    assert outcome.ok and outcome.data["online"], outcome.error_detail
    assert outcome.data["label_mentions"]


async def test_live_europe_pmc_search(ctx):
    args = LiteratureSearchArgs(query="SGLT2 inhibitors heart failure")
    outcome = await literature.SPEC.run(args, ctx)
    assert outcome.ok and not outcome.data["offline"], outcome.error_detail
    assert all(s.url for s in outcome.sources)


async def test_live_recruiting_trials(ctx):
    args = ClinicalTrialsArgs(condition="melanoma", status="recruiting")
    outcome = await trials.SPEC.run(args, ctx)
    assert outcome.ok, outcome.error_detail
    assert all(s["status"] == "recruiting" for s in outcome.data["studies"])
