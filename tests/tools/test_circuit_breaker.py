"""An unreachable service is offline for a cool-down: no waiting on the network every turn."""

from __future__ import annotations

import httpx
import pytest
import respx
from recorded import recorded

from docgemma.tools import drug_safety, trials
from docgemma.tools.args import ClinicalTrialsArgs, DrugSafetyArgs
from docgemma.tools.base import ToolContext, ToolErrorType
from docgemma.tools.http import (
    CircuitBreaker,
    ServiceOffline,
    ToolFailure,
    attach_breaker,
    create_client,
    get_json,
)

FDA = "https://api.fda.gov/drug/label.json"
PMC = "https://www.ebi.ac.uk/europepmc/webservices/rest/search"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def online(settings):
    return settings.model_copy(update={"offline": False})


async def fetch(client: httpx.AsyncClient, url: str = FDA) -> object:
    return await get_json(client, url, {"search": "x"})


async def test_connection_failure_opens_the_circuit_until_the_cool_down_ends(clock):
    with respx.mock:
        route = respx.get(FDA).mock(side_effect=httpx.ConnectError("refused"))
        other = respx.get(PMC).mock(return_value=httpx.Response(200, json={"ok": 1}))
        async with httpx.AsyncClient() as client:
            attach_breaker(client, CircuitBreaker(300, clock=clock))
            with pytest.raises(ServiceOffline):
                await fetch(client)
            clock.now += 299
            with pytest.raises(ServiceOffline) as skipped:
                await fetch(client)
            assert route.call_count == 1 and "not called" in skipped.value.detail
            assert await fetch(client, PMC) == {"ok": 1} and other.call_count == 1

            clock.now += 2  # the cool-down is over: the service is tried again
            route.mock(side_effect=None, return_value=httpx.Response(200, json={"back": 1}))
            assert await fetch(client) == {"back": 1} and route.call_count == 2
            assert await fetch(client) == {"back": 1} and route.call_count == 3


@pytest.mark.parametrize(
    "side_effect",
    [
        lambda request: httpx.Response(404, json={"error": {"code": "NOT_FOUND"}}),
        lambda request: httpx.Response(503, text="down for maintenance"),
        httpx.ReadTimeout("slow"),
    ],
)
async def test_answers_and_timeouts_do_not_open_the_circuit(clock, side_effect):
    with respx.mock:
        route = respx.get(FDA).mock(side_effect=side_effect)
        async with httpx.AsyncClient() as client:
            attach_breaker(client, CircuitBreaker(300, clock=clock))
            for _ in range(2):
                with pytest.raises(ToolFailure) as info:
                    await fetch(client)
                assert not isinstance(info.value, ServiceOffline)
    assert route.call_count == 2


def test_the_apps_client_gets_the_configured_cool_down(settings):
    from docgemma.tools.http import _BREAKERS

    client = create_client(settings.model_copy(update={"offline_cooldown_s": 42}))
    assert _BREAKERS[client].cooldown_s == 42


async def test_tools_without_offline_source_answer_offline_at_once(online):
    """Drug safety and trials: 'could not be used' on the failure and on later turns,
    the later ones without a request."""
    with respx.mock:
        fda = respx.get(drug_safety.OPENFDA_LABEL_URL).mock(
            side_effect=httpx.ConnectError("no route to host")
        )
        ctgov = respx.get(trials.CTGOV_URL).mock(side_effect=httpx.ConnectError("refused"))
        async with create_client(online) as http:
            ctx = ToolContext(online, http=http)
            for _ in range(3):
                safety = await drug_safety.SPEC.run(DrugSafetyArgs(drug_name="warfarin"), ctx)
                found = await trials.SPEC.run(ClinicalTrialsArgs(condition="asthma"), ctx)
                for outcome in (safety, found):
                    assert outcome.error_type is ToolErrorType.OUT_OF_SERVICE
                    assert "could not be used" in outcome.formatted
                    assert "cannot be reached at the moment" in outcome.formatted
    assert fda.call_count == 1 and ctgov.call_count == 1


async def test_a_4xx_is_an_answer_not_an_outage(online):
    not_found = recorded("openfda", "error_not_found_404.json")
    with respx.mock:
        fda = respx.get(drug_safety.OPENFDA_LABEL_URL).mock(
            return_value=httpx.Response(404, json=not_found)
        )
        async with create_client(online) as http:
            ctx = ToolContext(online, http=http)
            for _ in range(2):
                outcome = await drug_safety.SPEC.run(DrugSafetyArgs(drug_name="zzzfoo"), ctx)
                assert outcome.error_type is ToolErrorType.DRUG_NOT_IN_DATABASE
    assert fda.call_count == 2
