"""A typed patient ID the EHR does not know: the clinician is asked, nothing is invented."""

from __future__ import annotations

import httpx
import pytest

from .conftest import RecordingLLM, assert_clean_answer, search, turn

pytestmark = pytest.mark.real_model


async def test_unknown_typed_patient_id_asks_the_clinician(
    app_agent, real_llm, fhir: httpx.Client
) -> None:
    before = len(search(fhir, "DocumentReference"))
    async with app_agent(RecordingLLM(real_llm)) as agent:
        events, result = await turn(agent, "Show the chart for patient zzz-999")
    assert_clean_answer(result)
    assert not result.fallback_used
    assert result.clarification_requested and "zzz-999" in result.final_response
    assert all(c.tool in ("get_patient_chart", "search_patient") for c in result.tool_calls)
    assert len(search(fhir, "DocumentReference")) == before
