"""SECURITY.md item 5: ids that are not FHIR ids are refused at every entry point.

``.`` and ``..`` matched the old id pattern, and pasted into a URL they name the search
endpoint: an approved order was "saved" to ``Patient/.``. ``abc-123?x=1`` loaded
abc-123. Now one validator refuses them in the tools, the EHR client, the agent, the
CLI and the page, and the client checks that a read returned the resource it asked for.
"""

from __future__ import annotations

import uuid

import pytest
from fastapi import FastAPI
from fhir_server import embedded_fhir
from gradio_http import EventFailed, call
from live_app import running_app
from ui_fakes import FakeAgent

from docgemma.__main__ import main as cli
from docgemma.config import Settings
from docgemma.ehr.client import EHRClient, EHRError
from docgemma.ehr.ids import is_fhir_id
from docgemma.ehr.server import serve_app
from docgemma.tools.args import PrescribeMedicationArgs
from docgemma.tools.base import ToolContext, ToolErrorType
from docgemma.tools.ehr import prescribe_medication
from docgemma.ui.handlers import Handlers
from docgemma.ui.patient_panel import INVALID_PATIENT
from docgemma.ui.session import new_session

BAD_IDS = [".", "..", "...", "abc-123?x=1", "abc-123/../def", "abc 123", "x" * 65, ""]
TOKEN = "writer-token"


fhir_url = embedded_fhir("module", write_token=TOKEN)


def test_the_validator_refuses_path_segments_and_query_strings():
    assert all(not is_fhir_id(bad) for bad in BAD_IDS)
    assert all(is_fhir_id(good) for good in ["abc-123", "a.b", "1", "x" * 64, ".a"])


@pytest.mark.parametrize("patient_id", [".", "..", "abc-123?x=1"])
async def test_an_approved_order_is_not_written_to_a_non_id(fhir_url, patient_id):
    client = EHRClient(fhir_url, token=TOKEN)
    before = await client.search("MedicationRequest", count=1000)
    ctx = ToolContext(
        settings=Settings(offline=True),
        fhir=client,
        session_id="s",
        approved_by="Dr. Test",
        idempotency_key=str(uuid.uuid4()),
    )
    args = PrescribeMedicationArgs(
        patient_id=patient_id, medication_name="metformin", dosage="500 mg", frequency="daily"
    )
    outcome = await prescribe_medication(args, ctx)
    assert not outcome.ok and outcome.error_type == ToolErrorType.INVALID_ARGS
    assert "not a valid patient ID" in outcome.formatted and "saved" not in outcome.formatted
    assert len(await client.search("MedicationRequest", count=1000)) == len(before)


@pytest.mark.parametrize("bad", [".", "..", "abc-123?x=1", "abc-123#frag", "abc-123/_history"])
async def test_the_client_refuses_to_put_a_non_id_in_a_url(fhir_url, bad):
    client = EHRClient(fhir_url)
    with pytest.raises(EHRError) as info:
        await client.read("Patient", bad)
    assert info.value.kind == "invalid" and "not a valid" in str(info.value)
    assert (await client.read("Patient", "abc-123"))["id"] == "abc-123"


async def test_the_client_checks_the_read_answered_what_was_asked():
    """A server (or proxy) that answers Patient/p1 with another resource is not believed."""
    liar = FastAPI()

    @liar.get("/Patient/{rid}")
    async def other(rid: str) -> dict:
        return {"resourceType": "Bundle", "type": "searchset", "total": 6}

    @liar.get("/Media/{rid}")
    async def wrong_id(rid: str) -> dict:
        return {"resourceType": "Media", "id": "someone-else", "status": "completed"}

    with serve_app(liar) as url:
        client = EHRClient(url)
        for rtype in ("Patient", "Media"):
            with pytest.raises(EHRError) as info:
                await client.read(rtype, "p1")
            assert info.value.kind == "malformed"


def test_the_cli_refuses_a_patient_id_with_a_query(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli(["ask", "show the chart", "--patient", "abc-123?x=1"])
    assert exit_info.value.code == 2
    assert "'abc-123?x=1' is not a valid patient id" in capsys.readouterr().err


async def test_the_agent_refuses_a_non_id_patient():
    from docgemma.agent.service import Agent

    refused = [
        item
        async for item in Agent.run_turn(
            _AgentShell(), "t", "show the chart", patient_id="abc-123?x=1"
        )
    ]
    assert "not a valid patient id" in refused[-1].final_response


class _AgentShell:
    """Only what ``run_turn`` reads before it refuses: no graph, so nothing can run."""

    settings = Settings(offline=True)


@pytest.mark.server  # serves the whole app
def test_the_page_refuses_a_non_id_patient(tmp_path):
    """Gradio refuses a value that is not one of the offered patients; the handler checks too."""
    agent = FakeAgent()
    with (
        running_app(tmp_path, agent_factory=lambda s, e: agent) as url,
        pytest.raises(EventFailed, match="not in the list of choices"),
    ):
        call(url, "select_patient", ["abc-123?x=1", None])


async def test_the_patient_handler_refuses_a_non_id(tmp_path):
    class Directory:
        asked: list[str] = []

        async def chart(self, patient_id: str):
            self.asked.append(patient_id)

    directory = Directory()
    handlers = Handlers(Settings(data_dir=tmp_path), _no_agent, directory, tmp_path)
    session = new_session()
    banner, chart, *_ = await handlers.patient_panel.select_patient("abc-123?x=1", session)
    assert INVALID_PATIENT in chart and directory.asked == [] and session.patient_id is None


async def _no_agent():
    raise RuntimeError("no agent in this test")
