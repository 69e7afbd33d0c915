"""The five EHR tools against a real FHIR server over HTTP, plus a faulty one for error paths."""

from __future__ import annotations

import asyncio
import base64
import time
import uuid
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fhir_server import embedded_fhir
from pydantic import ValidationError
from recorded import seed_tool_descriptions

from docgemma.config import Settings
from docgemma.ehr.builders import session_reference
from docgemma.ehr.client import EHRClient
from docgemma.ehr.server import serve_app
from docgemma.tools.args import (
    AddAllergyArgs,
    ClinicalNoteArgs,
    PatientChartArgs,
    PatientSearchArgs,
    PrescribeMedicationArgs,
)
from docgemma.tools.base import ToolContext, ToolErrorType, ToolRegistry
from docgemma.tools.ehr import (
    EHR_TOOLS,
    add_allergy,
    get_patient_chart,
    prescribe_medication,
    save_clinical_note,
    search_patient,
)

TOOL_NAMES = [s.name for s in EHR_TOOLS]


fhir_url = embedded_fhir("module", external=True)


def _faulty_fhir() -> FastAPI:
    """A FHIR 'server' that fails in one way per base path."""
    app = FastAPI()

    @app.api_route("/{mode}/{path:path}", methods=["GET", "POST"])
    async def fail(mode: str, path: str) -> Response:
        if mode == "slow":
            await asyncio.sleep(2)
        replies = {
            "busy": PlainTextResponse("slow down", status_code=429),
            "broken": PlainTextResponse("<html>Internal error</html>", status_code=500),
            "garbled": Response(b"<<not json>>", media_type="application/fhir+json"),
            "rejecting": JSONResponse(
                {"resourceType": "OperationOutcome", "issue": []}, status_code=400
            ),
        }
        return replies.get(mode, JSONResponse({}, status_code=200))

    return app


@pytest.fixture(scope="module")
def faulty_url() -> Iterator[str]:
    with serve_app(_faulty_fhir()) as url:
        yield url


@pytest.fixture
def ctx(settings: Settings, fhir_url: str) -> ToolContext:
    return ToolContext(settings=settings, fhir=EHRClient(fhir_url), session_id="session-test")


def _approved(
    ctx: ToolContext, key: str | None = None, *, replaces: str | None = None
) -> ToolContext:
    return ToolContext(
        settings=ctx.settings,
        fhir=ctx.fhir,
        session_id=ctx.session_id,
        approved_by="Dr. Jane Test",
        idempotency_key=key or str(uuid.uuid4()),
        replaces=replaces,
    )


def _no_tool_names(text: str) -> None:
    assert not any(name in text for name in TOOL_NAMES), text


# ── specs ──


def test_specs_are_complete_and_registrable() -> None:
    registry = ToolRegistry(EHR_TOOLS)
    assert registry.names == [
        "search_patient",
        "get_patient_chart",
        "prescribe_medication",
        "add_allergy",
        "save_clinical_note",
    ]
    assert registry.write_tools() == {"prescribe_medication", "add_allergy", "save_clinical_note"}
    assert "Requires a patient ID (not a name)" in registry["get_patient_chart"].description
    for spec in EHR_TOOLS:
        assert spec.short_description and len(spec.short_description) < len(spec.description)
        spec.args.model_validate(spec.example.args)


def test_descriptions_are_the_seed_full_descriptions() -> None:
    seed = seed_tool_descriptions()
    assert {s.name: s.description for s in EHR_TOOLS} == {s.name: seed[s.name] for s in EHR_TOOLS}


# ── search_patient ──


async def test_search_single_match(ctx: ToolContext) -> None:
    outcome = await search_patient(PatientSearchArgs(name="John Smith"), ctx)
    assert outcome.ok and outcome.patient_matches == 1
    assert outcome.data["patient_id"] == "abc-123" and outcome.data["birth_date"] == "1958-04-12"
    assert "abc-123" in outcome.formatted
    _no_tool_names(outcome.formatted)


async def test_search_multiple_matches_lists_candidates(ctx: ToolContext) -> None:
    outcome = await search_patient(PatientSearchArgs(name="James Wilson"), ctx)
    assert outcome.error_type is ToolErrorType.MULTIPLE_PATIENT_MATCHES
    assert outcome.patient_matches == 3
    candidates = {(c["patient_id"], c["birth_date"]) for c in outcome.data["candidates"]}
    assert candidates == {
        ("jwilson-1945", "1945-01-17"),
        ("jwilson-1972", "1972-06-05"),
        ("jwilson-1990", "1990-11-23"),
    }
    assert "1972-06-05" in outcome.formatted


async def test_search_no_match(ctx: ToolContext) -> None:
    outcome = await search_patient(PatientSearchArgs(name="Quentin Zyxwv"), ctx)
    assert outcome.error_type is ToolErrorType.NOT_FOUND and outcome.entity == "Quentin Zyxwv"
    assert "Quentin Zyxwv" in outcome.formatted


async def test_search_blank_name(ctx: ToolContext) -> None:
    outcome = await search_patient(PatientSearchArgs(name="   "), ctx)
    assert outcome.error_type is ToolErrorType.MISSING_REQUIRED_ARGS and outcome.missing_fields == [
        "name"
    ]


# ── get_patient_chart ──


async def test_chart_success(ctx: ToolContext) -> None:
    outcome = await get_patient_chart(PatientChartArgs(patient_id="abc-123"), ctx)
    assert outcome.ok
    for expected in (
        "John Smith",
        "metformin 500 mg twice daily",
        "penicillin (hives, moderate)",
        "Potassium 5.1 mmol/L",
        "HbA1c 7.8%",
        "Blood pressure",
        "Progress note",
    ):
        assert expected in outcome.formatted
    assert outcome.data["patient_id"] == "abc-123" and outcome.sources[0].kind == "ehr"
    _no_tool_names(outcome.formatted)


async def test_chart_shows_imaging(ctx: ToolContext) -> None:
    outcome = await get_patient_chart(PatientChartArgs(patient_id="mgarcia-001"), ctx)
    assert "CT head without contrast: No intracranial haemorrhage" in outcome.formatted


@pytest.mark.parametrize("bad_id", ["John Smith", "abc/123", "x" * 65, "'; DROP TABLE"])
async def test_chart_malformed_id(ctx: ToolContext, bad_id: str) -> None:
    outcome = await get_patient_chart(PatientChartArgs.model_construct(patient_id=bad_id), ctx)
    assert outcome.error_type is ToolErrorType.INVALID_ARGS
    assert "not a valid patient ID" in outcome.formatted


async def test_chart_unknown_id(ctx: ToolContext) -> None:
    outcome = await get_patient_chart(PatientChartArgs(patient_id="zzz-999"), ctx)
    assert outcome.error_type is ToolErrorType.NOT_FOUND
    assert (
        outcome.formatted == "No patient with ID zzz-999 was found in the electronic health record."
    )
    assert "404" in (outcome.error_detail or "") and "404" not in outcome.formatted


# ── error paths against a faulty server ──


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("slow", ToolErrorType.TIMEOUT),
        ("busy", ToolErrorType.RATE_LIMIT),
        ("broken", ToolErrorType.SERVER_ERROR),
        ("garbled", ToolErrorType.MALFORMED_RESPONSE),
        ("rejecting", ToolErrorType.INVALID_ARGS),
    ],
)
async def test_server_failures_are_classified(
    settings: Settings, faulty_url: str, mode: str, expected: ToolErrorType
) -> None:
    ctx = ToolContext(settings=settings, fhir=EHRClient(f"{faulty_url}/{mode}", timeout_s=0.3))
    for outcome in (
        await search_patient(PatientSearchArgs(name="John Smith"), ctx),
        await get_patient_chart(PatientChartArgs(patient_id="abc-123"), ctx),
    ):
        assert outcome.error_type is expected, outcome
        assert "<html>" not in outcome.formatted and "slow down" not in outcome.formatted
        assert outcome.error_detail


async def test_unreachable_and_unconfigured_ehr(settings: Settings) -> None:
    unreachable = ToolContext(settings=settings, fhir=EHRClient("http://127.0.0.1:9", timeout_s=1))
    outcome = await search_patient(PatientSearchArgs(name="John Smith"), unreachable)
    assert outcome.error_type is ToolErrorType.SERVICE_UNAVAILABLE
    unconfigured = ToolContext(settings=settings)
    outcome = await get_patient_chart(PatientChartArgs(patient_id="abc-123"), unconfigured)
    assert outcome.error_type is ToolErrorType.SERVICE_UNAVAILABLE


async def test_unexpected_client_failure_never_raises(settings: Settings) -> None:
    class Exploding:
        async def search_patients(self, name: str) -> list:
            raise RuntimeError("bug")

    outcome = await search_patient(
        PatientSearchArgs(name="John Smith"), ToolContext(settings=settings, fhir=Exploding())
    )
    assert outcome.error_type is ToolErrorType.SERVER_ERROR and "bug" not in outcome.formatted


# ── writes ──

RX = PrescribeMedicationArgs(
    patient_id="abc-123", medication_name="Warfarin", dosage="2 mg", frequency="once daily"
)


async def _orders(ctx: ToolContext, key: str) -> list[dict]:
    return await ctx.fhir.search(
        "MedicationRequest", identifier=f"urn:docgemma:idempotency-key|{key}"
    )


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (prescribe_medication, RX),
        (add_allergy, AddAllergyArgs(patient_id="abc-123", substance="latex", reaction="rash")),
        (
            save_clinical_note,
            ClinicalNoteArgs(patient_id="abc-123", note_type="progress", note_text="Seen."),
        ),
    ],
)
async def test_writes_refused_without_approval(ctx: ToolContext, tool, args) -> None:
    ctx.idempotency_key = str(uuid.uuid4())
    before = {
        t: len(await ctx.fhir.search(t, patient="abc-123", count=500))
        for t in ("MedicationRequest", "AllergyIntolerance", "DocumentReference")
    }
    outcome = await tool(args, ctx)
    assert outcome.error_type is ToolErrorType.REJECTED_BY_CLINICIAN
    assert "approval" in outcome.formatted and "nothing was saved" in outcome.formatted
    after = {t: len(await ctx.fhir.search(t, patient="abc-123", count=500)) for t in before}
    assert after == before


async def test_prescription_is_written_with_rxnorm_and_provenance(ctx: ToolContext) -> None:
    approved = _approved(ctx)
    outcome = await prescribe_medication(RX, approved)
    assert outcome.ok and outcome.data["created"] is True, outcome
    assert "Warfarin 2 mg once daily" in outcome.formatted and "Dr. Jane Test" in outcome.formatted
    (order,) = await _orders(ctx, approved.idempotency_key)
    assert order["subject"]["reference"] == "Patient/abc-123" and order["status"] == "active"
    assert order["medicationCodeableConcept"]["coding"][0]["code"] == "11289"
    assert order["dosageInstruction"][0]["text"] == "2 mg once daily"
    (prov,) = await ctx.fhir.search("Provenance", target=outcome.data["reference"])
    assert prov["agent"][0]["who"]["display"] == "Dr. Jane Test"
    assert prov["agent"][0]["type"]["coding"][0]["code"] == "verifier"
    identifiers = {
        e["what"]["identifier"]["system"]: e["what"]["identifier"]["value"] for e in prov["entity"]
    }
    assert identifiers["urn:docgemma:session"] == session_reference("session-test")
    assert identifiers["urn:docgemma:idempotency-key"] == approved.idempotency_key
    assert prov["recorded"].endswith("Z")


async def test_double_approval_writes_exactly_once(ctx: ToolContext) -> None:
    approved = _approved(ctx)
    first = await prescribe_medication(RX, approved)
    again = await prescribe_medication(RX, approved)
    concurrent = await asyncio.gather(*(prescribe_medication(RX, approved) for _ in range(3)))
    assert first.data["created"] is True
    assert [o.data["created"] for o in (again, *concurrent)] == [False] * 4
    assert "already saved" in again.formatted
    assert len(await _orders(ctx, approved.idempotency_key)) == 1
    assert len(await ctx.fhir.search("Provenance", target=first.data["reference"])) == 1


async def test_concurrent_first_approvals_write_exactly_once(ctx: ToolContext) -> None:
    approved = _approved(ctx)
    outcomes = await asyncio.gather(*(prescribe_medication(RX, approved) for _ in range(4)))
    assert sorted(o.data["created"] for o in outcomes) == [False, False, False, True]
    assert len(await _orders(ctx, approved.idempotency_key)) == 1
    assert len(await ctx.fhir.search("Provenance", target=outcomes[0].data["reference"])) == 1


async def test_allergy_is_written_and_appears_in_chart(ctx: ToolContext) -> None:
    args = AddAllergyArgs(
        patient_id="sokafor-004", substance="Codeine", reaction="vomiting", severity="Moderate"
    )
    outcome = await add_allergy(args, _approved(ctx))
    assert outcome.ok and outcome.data["reference"].startswith("AllergyIntolerance/")
    chart = await get_patient_chart(PatientChartArgs(patient_id="sokafor-004"), ctx)
    assert "codeine (vomiting, moderate)" in chart.formatted
    assert len(await ctx.fhir.search("Provenance", target=outcome.data["reference"])) == 1


def test_allergy_severity_is_one_of_its_vocabulary() -> None:
    with pytest.raises(ValidationError, match="mild"):
        AddAllergyArgs(patient_id="abc-123", substance="latex", reaction="rash", severity="extreme")
    written = AddAllergyArgs(
        patient_id="abc-123", substance="latex", reaction="rash", severity="Life-threatening"
    )
    assert written.severity == "severe"


async def test_clinical_note_is_saved_as_base64_text(ctx: ToolContext) -> None:
    text = f"Reviewed renal function. Continue lisinopril. ({time.time()})"
    args = ClinicalNoteArgs(patient_id="abc-123", note_type="Consult", note_text=text)
    outcome = await save_clinical_note(args, _approved(ctx))
    assert outcome.ok
    doc = await ctx.fhir.read(*outcome.data["reference"].split("/"))
    assert base64.b64decode(doc["content"][0]["attachment"]["data"]).decode() == text
    assert doc["type"]["coding"][0]["code"] == "11488-4"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (RX.model_copy(update={"patient_id": "no-such-patient"}), ToolErrorType.NOT_FOUND),
        (RX.model_copy(update={"patient_id": "John Smith"}), ToolErrorType.INVALID_ARGS),
        (RX.model_copy(update={"dosage": "  "}), ToolErrorType.MISSING_REQUIRED_ARGS),
    ],
)
async def test_prescription_bad_args_write_nothing(ctx: ToolContext, args, expected) -> None:
    approved = _approved(ctx)
    outcome = await prescribe_medication(args, approved)
    assert outcome.error_type is expected, outcome
    assert await _orders(ctx, approved.idempotency_key) == []


# ── corrections: the corrected entry is marked entered in error in the same transaction ──


async def _chart(ctx: ToolContext, patient_id: str) -> str:
    return (await get_patient_chart(PatientChartArgs(patient_id=patient_id), ctx)).formatted


async def test_a_corrected_prescription_replaces_the_saved_one(ctx: ToolContext) -> None:
    first = await prescribe_medication(RX.model_copy(update={"dosage": "7 mg"}), _approved(ctx))
    assert "warfarin 7 mg once daily" in await _chart(ctx, "abc-123")
    corrected = await prescribe_medication(
        RX.model_copy(update={"dosage": "3 mg"}), _approved(ctx, replaces=first.data["reference"])
    )
    assert corrected.ok and corrected.data["replaced"] == first.data["reference"], corrected
    assert "The earlier warfarin 7 mg once daily is marked entered in error" in (
        corrected.formatted
    )
    earlier = await ctx.fhir.read(*first.data["reference"].split("/"))
    assert earlier["status"] == "entered-in-error" and earlier["dosageInstruction"]
    chart = await _chart(ctx, "abc-123")
    assert "warfarin 3 mg once daily" in chart and "warfarin 7 mg" not in chart
    again = await prescribe_medication(
        RX.model_copy(update={"dosage": "4 mg"}), _approved(ctx, replaces=first.data["reference"])
    )
    assert not again.ok and "already corrected" in again.formatted  # one correction only
    (audit,) = await ctx.fhir.search("Provenance", target=corrected.data["reference"])
    assert {"reference": first.data["reference"]} in audit["target"]
    assert {"role": "removal", "what": {"reference": first.data["reference"]}} in audit["entity"]


async def test_a_corrected_allergy_and_note_replace_theirs(ctx: ToolContext) -> None:
    allergy = AddAllergyArgs(
        patient_id="sokafor-004", substance="Povidone iodine", reaction="wheeze"
    )
    first = await add_allergy(allergy, _approved(ctx))
    fixed = allergy.model_copy(update={"substance": "Chlorhexidine"})
    assert (await add_allergy(fixed, _approved(ctx, replaces=first.data["reference"]))).ok
    earlier = await ctx.fhir.read(*first.data["reference"].split("/"))
    assert earlier["verificationStatus"]["coding"][0]["code"] == "entered-in-error"
    assert "clinicalStatus" not in earlier
    chart = await _chart(ctx, "sokafor-004")
    assert "chlorhexidine (wheeze)" in chart.lower() and "iodine" not in chart.lower()

    text = f"Plan: repeat potassium in 3 days. ({time.time()})"
    note = ClinicalNoteArgs(patient_id="sokafor-004", note_type="Progress", note_text=text)
    saved = await save_clinical_note(note, _approved(ctx))
    fixed_note = note.model_copy(update={"note_text": text.replace("3 days", "5 days")})
    replaced = _approved(ctx, replaces=saved.data["reference"])
    assert (await save_clinical_note(fixed_note, replaced)).ok
    chart = await _chart(ctx, "sokafor-004")
    assert "repeat potassium in 5 days" in chart and "in 3 days" not in chart


@pytest.mark.parametrize(
    "whose",
    [
        "another patient's prescription",
        "an allergy of the same patient",
        "an entry that does not exist",
    ],
)
async def test_a_correction_touches_only_its_own_kind_for_its_patient(
    ctx: ToolContext, whose: str
) -> None:
    other = await prescribe_medication(
        RX.model_copy(update={"patient_id": "sokafor-004"}), _approved(ctx)
    )
    allergy = await add_allergy(
        AddAllergyArgs(patient_id="abc-123", substance="Latex", reaction="rash"), _approved(ctx)
    )
    target = {
        "another patient's prescription": other.data["reference"],
        "an allergy of the same patient": allergy.data["reference"],
        "an entry that does not exist": "MedicationRequest/no-such-entry",
    }[whose]
    approved = _approved(ctx, replaces=target)
    outcome = await prescribe_medication(RX, approved)
    assert not outcome.ok and "nothing was saved" in outcome.formatted, outcome
    assert await _orders(ctx, approved.idempotency_key) == []  # nothing written
    kind, rid = other.data["reference"].split("/")
    assert (await ctx.fhir.read(kind, rid))["status"] == "active"
