"""Image Analysis: findings from the attached image, by a vision-capable model (MedGemma).

The image is validated by content and DICOM is rendered to PNG first
(``docgemma.imaging``). A text-only model cannot look at images, so with one this
tool returns a plain "unavailable" result instead of letting the model guess.
``analyze_image`` is also what input assembly calls for the image findings every later prompt sees.
"""

from __future__ import annotations

import re
from typing import Any

from docgemma.imaging import ImageError, PreparedImage, prepare_image
from docgemma.llm.types import ImageInput, Message
from docgemma.tools.args import ImageAnalysisArgs
from docgemma.tools.base import (
    Source,
    ToolContext,
    ToolErrorType,
    ToolExample,
    ToolOutcome,
    ToolSpec,
)
from docgemma.tools.guard import guarded
from docgemma.tools.http import error_outcome
from docgemma.tools.text import squash

LABEL = "Image Analysis"
TEMPERATURE = 0.3
"""Vision mode needs descriptive output (input assembly's image findings)."""
MAX_TOKENS = 512

SYSTEM_PROMPT = (
    "You are a medical imaging assistant supporting a clinician. Look at the image and report "
    "what is visible that bears on the clinician's question. Write each finding as a short "
    "line starting with '- '. State the imaging modality if you can tell it. Say so when the "
    "image quality or view limits the assessment. Do not invent findings and do not give a "
    "definitive diagnosis."
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.*\S)\s*$")


def findings_from(text: str) -> list[str]:
    """The model's bullet lines; a reply without bullets counts as one finding."""
    bullets = [m.group(1) for line in text.splitlines() if (m := _BULLET.match(line))]
    return bullets or ([" ".join(text.split())] if text.strip() else [])


def _raw_image(image: Any) -> bytes | None:
    if isinstance(image, ImageInput):
        return image.data
    if isinstance(image, PreparedImage):
        return image.data
    if isinstance(image, bytes | bytearray):
        return bytes(image)
    return None


async def analyze_image(llm: Any, image: Any, query: str, max_bytes: int) -> ToolOutcome:
    """Validate ``image`` and ask the vision model about it; never raises."""
    data = _raw_image(image)
    if not data:
        return error_outcome(
            ToolErrorType.MISSING_REQUIRED_ARGS,
            LABEL,
            missing_fields=["image"],
            detail="no image attached",
            message=(
                "No image is attached. Please attach the image to analyse (PNG, JPEG or DICOM)."
            ),
        )
    try:
        prepared = prepare_image(data, max_bytes)
    except ImageError as exc:
        return error_outcome(
            ToolErrorType.INVALID_ARGS,
            LABEL,
            entity="the attached file",
            detail=f"image rejected: {exc}",
            message=str(exc),
        )
    if llm is None or not getattr(llm, "supports_vision", False):
        model = getattr(llm, "model", "none")
        return error_outcome(
            ToolErrorType.OUT_OF_SERVICE,
            LABEL,
            entity="the attached image",
            detail=f"model {model!r} does not accept images",
            message=(
                f"The {LABEL} is unavailable: the current model reads text only, so the attached "
                f"image ({prepared.describe()}) was not analysed. A vision-capable model such as "
                "MedGemma is needed."
            ),
        )
    messages = [
        Message(role="system", content=SYSTEM_PROMPT),
        Message(
            role="user",
            content=f"Image: {prepared.describe()}.\nQuestion: {query}",
            images=(prepared.to_input(),),
        ),
    ]
    try:
        generation = await llm.generate(messages, temperature=TEMPERATURE, max_tokens=MAX_TOKENS)
    except Exception as exc:  # noqa: BLE001 — a model failure is a classified outcome, not a crash
        return error_outcome(
            ToolErrorType.SERVICE_UNAVAILABLE,
            LABEL,
            entity="the attached image",
            detail=f"{type(exc).__name__}: {exc}",
        )
    text = (generation.text or "").strip()
    findings = findings_from(text)
    if not findings:
        return error_outcome(
            ToolErrorType.MALFORMED_RESPONSE,
            LABEL,
            entity="the attached image",
            detail="the vision model returned no text",
        )
    data_out = {
        "query": query,
        "image": prepared.describe(),
        "modality": prepared.details.get("modality") or None,
        "findings": findings,
        "model": getattr(llm, "model", None),
    }
    formatted = f"Findings on the attached {prepared.describe()}:\n" + "\n".join(
        f"- {f}" for f in findings
    )
    return ToolOutcome(
        data=data_out,
        formatted=formatted,
        entity="the attached image",
        sources=[Source(title=f"Attached image ({prepared.describe()})", kind="image")],
    )


@guarded(LABEL, lambda a: "the attached image")
async def analyze_medical_image(args: ImageAnalysisArgs, ctx: ToolContext) -> ToolOutcome:
    query = squash(args.query) or "Describe the findings."
    return await analyze_image(ctx.llm, ctx.image, query, ctx.settings.max_image_bytes)


SPEC = ToolSpec(
    name="analyze_medical_image",
    label=LABEL,
    description=(
        "Analyze an attached medical image (X-ray, CT, MRI, histopathology slide, etc.) for "
        "findings relevant to the specified query. Use when a clinician shares a medical image "
        "and asks for analysis or interpretation."
    ),
    short_description="Findings in an attached medical image.",
    args=ImageAnalysisArgs,
    run=analyze_medical_image,
    example=ToolExample(
        query="What do you see on this chest X-ray?", args={"query": "chest X-ray findings"}
    ),
    needs_image=True,
)
