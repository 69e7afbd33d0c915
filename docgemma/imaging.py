"""Image intake: recognise an upload by its content, check it, and make it model-ready.

File names and declared MIME types are not trusted: PNG, JPEG and DICOM are told
apart by their magic bytes. DICOM is rendered to an 8-bit PNG (modality rescale,
then the file's own window or a robust percentile window), since vision models
take ordinary images. Every rejection is an ``ImageError`` whose message can be
shown to the clinician as is.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from PIL import Image, UnidentifiedImageError

from docgemma.llm.types import ImageInput

log = logging.getLogger(__name__)

ImageKind = Literal["png", "jpeg", "dicom"]
ACCEPTED = "PNG, JPEG or DICOM"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"
MAX_PIXELS = 40_000_000


class ImageError(ValueError):
    """An upload that cannot be used; ``str(error)`` is a clinician-readable reason."""


@dataclass(frozen=True)
class PreparedImage:
    """An image ready for a vision model, plus what is known about where it came from."""

    data: bytes
    mime_type: str
    kind: ImageKind
    width: int
    height: int
    details: dict[str, str] = field(default_factory=dict)
    """DICOM modality, body part and the like, when present."""

    def to_input(self) -> ImageInput:
        return ImageInput(data=self.data, mime_type=self.mime_type)

    def describe(self) -> str:
        what = ", ".join(v for v in self.details.values() if v)
        return f"{self.kind.upper()} image, {self.width}×{self.height}" + (
            f" ({what})" if what else ""
        )


def sniff(data: bytes) -> ImageKind | None:
    """The format by magic bytes: PNG signature, JPEG SOI marker, or 'DICM' at offset 128."""
    if data.startswith(PNG_MAGIC):
        return "png"
    if data.startswith(JPEG_MAGIC):
        return "jpeg"
    if len(data) >= 132 and data[128:132] == b"DICM":
        return "dicom"
    return None


def prepare_image(data: bytes, max_bytes: int) -> PreparedImage:
    """Validate an upload and return it as PNG/JPEG bytes; raises ``ImageError``."""
    if not data:
        raise ImageError("The attached file is empty.")
    if len(data) > max_bytes:
        raise ImageError(
            f"The attached image is {len(data) / 2**20:.1f} MB; "
            f"the limit is {max_bytes / 2**20:.1f} MB."
        )
    kind = sniff(data)
    if kind is None:
        raise ImageError(
            f"The attached file is not a supported image. Please attach a {ACCEPTED} file."
        )
    if kind == "dicom":
        return _render_dicom(data)
    try:
        with Image.open(io.BytesIO(data)) as img:
            width, height = img.size
            if width * height > MAX_PIXELS:
                raise ImageError(f"The attached image is too large ({width}×{height} pixels).")
            img.load()
    except ImageError:
        raise
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        raise ImageError(
            f"The attached {kind.upper()} file is damaged and cannot be read."
        ) from exc
    return PreparedImage(data, f"image/{kind}", kind, width, height)


def window(pixels: np.ndarray, center: float | None, width: float | None) -> np.ndarray:
    """Map values to 0–255 through a window; without one, use the 0.5–99.5th percentiles."""
    values = pixels.astype(np.float64)
    if center is not None and width is not None and width > 0:
        low, high = center - width / 2, center + width / 2
    else:
        low, high = np.percentile(values, [0.5, 99.5])
    if high <= low:
        high = low + 1.0
    return (np.clip((values - low) / (high - low), 0.0, 1.0) * 255.0).round().astype(np.uint8)


def _first_number(value: object) -> float | None:
    """A DICOM number that may be multi-valued (several windows): the first one."""
    from pydicom.multival import MultiValue

    if isinstance(value, MultiValue | list | tuple):
        value = value[0] if len(value) else None
    try:
        return None if value in (None, "") else float(value)
    except (TypeError, ValueError):
        return None


def _render_dicom(data: bytes) -> PreparedImage:
    import pydicom
    from pydicom.errors import InvalidDicomError
    from pydicom.pixels import apply_modality_lut

    try:
        ds = pydicom.dcmread(io.BytesIO(data))
        pixels = ds.pixel_array
    except (
        InvalidDicomError,
        AttributeError,
        ValueError,
        RuntimeError,
        NotImplementedError,
        OSError,
    ) as exc:
        raise ImageError("The attached DICOM file has no image that can be displayed.") from exc
    photometric = str(ds.get("PhotometricInterpretation", "MONOCHROME2"))
    frames = int(ds.get("NumberOfFrames", 1) or 1)
    if frames > 1:
        pixels = pixels[frames // 2]
    if photometric in ("MONOCHROME1", "MONOCHROME2"):
        values = apply_modality_lut(pixels, ds)
        image = window(
            values, _first_number(ds.get("WindowCenter")), _first_number(ds.get("WindowWidth"))
        )
        if photometric == "MONOCHROME1":
            image = 255 - image
        img = Image.fromarray(image, mode="L")
    elif pixels.ndim == 3 and pixels.shape[-1] == 3:
        img = Image.fromarray(
            window(pixels, None, None) if pixels.dtype != np.uint8 else pixels, mode="RGB"
        )
    else:
        raise ImageError(
            f"DICOM images with photometric interpretation {photometric} are not supported."
        )
    out = io.BytesIO()
    img.save(out, format="PNG")
    details = {
        "modality": str(ds.get("Modality", "")),
        "body_part": str(ds.get("BodyPartExamined", "")),
        "study": str(ds.get("StudyDescription", "")),
    }
    log.debug("rendered DICOM %s to PNG %dx%d", details, img.width, img.height)
    return PreparedImage(out.getvalue(), "image/png", "dicom", img.width, img.height, details)
