"""Image Analysis: a vision model gets a validated image; text-only models and bad input do not."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import httpx
import numpy as np
import pytest
import respx
from PIL import Image
from pydicom.data import get_testdata_file

from docgemma.llm.openai import OpenAIBackend
from docgemma.llm.scripted import ScriptedBackend
from docgemma.llm.types import ImageInput
from docgemma.tools import image_analysis
from docgemma.tools.args import ImageAnalysisArgs
from docgemma.tools.base import ToolContext, ToolErrorType

BASE = "http://vision.test/v1"
FINDINGS = (
    "Modality: CT, axial slice.\n- No focal consolidation.\n- Normal soft-tissue window.\n"
    "* Limited by low resolution."
)


def png_bytes() -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.full((32, 32), 128, dtype=np.uint8), mode="L").save(out, format="PNG")
    return out.getvalue()


def ct_bytes() -> bytes:
    return Path(get_testdata_file("CT_small.dcm", download=False)).read_bytes()


async def analyze(settings, llm, image, query="Any consolidation?"):
    ctx = ToolContext(settings, llm=llm, image=image)
    return await image_analysis.SPEC.run(ImageAnalysisArgs(query=query), ctx)


async def test_vision_model_receives_the_rendered_dicom(settings):
    llm = ScriptedBackend([FINDINGS], supports_vision=True, model="medgemma")
    outcome = await analyze(
        settings, llm, ImageInput(data=ct_bytes(), mime_type="application/dicom")
    )
    assert outcome.ok
    assert outcome.data["findings"] == [
        "No focal consolidation.",
        "Normal soft-tissue window.",
        "Limited by low resolution.",
    ]
    assert outcome.data["modality"] == "CT"
    assert outcome.formatted.startswith("Findings on the attached DICOM image, 128×128 (CT")
    assert outcome.sources[0].kind == "image" and "analyze_" not in outcome.formatted
    [call] = llm.calls
    [image] = call.messages[-1].images
    assert image.mime_type == "image/png" and image.data.startswith(b"\x89PNG")
    assert "Any consolidation?" in call.messages[-1].content
    assert (
        call.temperature == image_analysis.TEMPERATURE
        and call.max_tokens == image_analysis.MAX_TOKENS
    )


async def test_openai_vision_backend_sends_a_data_url(settings):
    backend = OpenAIBackend(
        BASE, "google/medgemma-1.5-4b-it", supports_vision=True, timeout_s=5, max_retries=0
    )
    reply = {
        "choices": [
            {"message": {"role": "assistant", "content": FINDINGS}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 300, "completion_tokens": 20},
    }
    try:
        with respx.mock:
            route = respx.post(f"{BASE}/chat/completions").respond(json=reply)
            outcome = await analyze(settings, backend, ImageInput(data=png_bytes()))
    finally:
        await backend.aclose()
    assert outcome.ok and outcome.data["model"] == "google/medgemma-1.5-4b-it"
    sent = json.loads(route.calls.last.request.content)
    parts = sent["messages"][-1]["content"]
    image_part = next(p for p in parts if p["type"] == "image_url")
    prefix = "data:image/png;base64,"
    assert image_part["image_url"]["url"].startswith(prefix)
    assert base64.b64decode(image_part["image_url"]["url"][len(prefix) :]) == png_bytes()


async def test_no_image_is_missing_required_args(settings):
    outcome = await analyze(settings, ScriptedBackend(supports_vision=True), None)
    assert outcome.error_type is ToolErrorType.MISSING_REQUIRED_ARGS and outcome.missing_fields == [
        "image"
    ]
    assert "No image is attached" in outcome.formatted


async def test_text_only_model_is_out_of_service(settings):
    llm = ScriptedBackend(["should not be called"], supports_vision=False)
    outcome = await analyze(settings, llm, ImageInput(data=png_bytes()))
    assert outcome.error_type is ToolErrorType.OUT_OF_SERVICE and llm.calls == []
    assert "reads text only" in outcome.formatted and "not analysed" in outcome.formatted


@pytest.mark.real_model
async def test_real_embedded_model_is_text_only(settings, real_llm):
    outcome = await analyze(settings, real_llm, ImageInput(data=ct_bytes()))
    assert outcome.error_type is ToolErrorType.OUT_OF_SERVICE
    assert "DICOM image, 128×128" in outcome.formatted


async def test_non_image_is_invalid_args_before_the_model(settings):
    llm = ScriptedBackend(["never"], supports_vision=True)
    outcome = await analyze(
        settings, llm, ImageInput(data=b"%PDF-1.4 not an image" * 20, mime_type="image/png")
    )
    assert outcome.error_type is ToolErrorType.INVALID_ARGS and llm.calls == []
    assert (
        outcome.formatted
        == "The attached file is not a supported image. Please attach a PNG, JPEG or DICOM file."
    )


async def test_oversize_image_is_invalid_args(settings):
    small = settings.model_copy(update={"max_image_bytes": len(png_bytes()) - 1})
    outcome = await analyze(
        small, ScriptedBackend(supports_vision=True), ImageInput(data=png_bytes())
    )
    assert outcome.error_type is ToolErrorType.INVALID_ARGS and "the limit is" in outcome.formatted


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (httpx.ConnectError("vision server down"), ToolErrorType.SERVICE_UNAVAILABLE),
        ("   ", ToolErrorType.MALFORMED_RESPONSE),
    ],
)
async def test_model_failures_are_typed(settings, reply, expected):
    outcome = await analyze(
        settings, ScriptedBackend([reply], supports_vision=True), ImageInput(data=png_bytes())
    )
    assert outcome.error_type is expected and "Image Analysis" in outcome.formatted
    assert "vision server down" not in outcome.formatted


def test_findings_parser():
    assert image_analysis.findings_from("1. Effusion\n2) Cardiomegaly\n") == [
        "Effusion",
        "Cardiomegaly",
    ]
    assert image_analysis.findings_from("A normal study.") == ["A normal study."]
    assert image_analysis.findings_from("") == []


def test_spec_matches_the_seed():
    spec = image_analysis.SPEC
    assert (spec.name, spec.label) == ("analyze_medical_image", "Image Analysis")
    assert spec.description.startswith(
        "Analyze an attached medical image (X-ray, CT, MRI, histopathology slide"
    )
    assert spec.args.model_validate(spec.example.args)
