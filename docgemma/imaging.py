"""Image intake: recognise an upload by its content, check it, and make it model-ready.

File names and declared MIME types are not trusted: PNG, JPEG and DICOM are told
apart by their magic bytes. DICOM is rendered to an 8-bit PNG (modality rescale,
then the file's own window or a robust percentile window), since vision models
take ordinary images. Every rejection is an ``ImageError`` whose message can be
shown to the clinician as is.

A small file can declare an enormous image (a deflated or RLE payload expands on
decoding), so a DICOM's size is checked from its header before any pixel is decoded:
Rows × Columns × Frames × Samples must stay under the pixel cap, a deflated dataset is
inflated only up to a bound, and only the one frame shown is decoded, in float32.
"""

from __future__ import annotations

import io
import logging
import struct
import zlib
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from PIL import Image

from docgemma.llm.types import ImageInput

log = logging.getLogger(__name__)

ImageKind = Literal["png", "jpeg", "dicom"]
ACCEPTED = "PNG, JPEG or DICOM"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"
DEFLATED = "1.2.840.10008.1.2.1.99"
BYTES_PER_SAMPLE_BOUND = 4
"""No DICOM sample takes more than 32 bits, so this bounds an inflated dataset."""
INFLATE_CHUNK = 1 << 20
_HEADER_ERRORS = (AttributeError, ValueError, TypeError, KeyError, IndexError, struct.error)
"""What pydicom raises on a malformed header, besides its own InvalidDicomError."""
NO_IMAGE = "The attached DICOM file has no image that can be displayed."


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


def prepare_image(data: bytes, max_bytes: int, max_pixels: int | None = None) -> PreparedImage:
    """Validate an upload and return it as PNG/JPEG bytes; raises ``ImageError``, also for
    every decoder failure (never Pillow's own message).

    ``max_pixels`` defaults to the ``max_image_pixels`` setting.
    """
    if max_pixels is None:
        from docgemma.config import get_settings

        max_pixels = get_settings().max_image_pixels
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
        return _render_dicom(data, max_pixels)
    try:
        with Image.open(io.BytesIO(data)) as img:
            width, height = img.size
            if width * height > max_pixels:
                raise ImageError(f"The attached image is too large ({width}×{height} pixels).")
            img.load()
    except ImageError:
        raise
    except Exception as exc:  # Pillow also raises ValueError, SyntaxError, struct.error...
        raise ImageError(
            f"The attached {kind.upper()} file is damaged and cannot be read."
        ) from exc
    return PreparedImage(data, f"image/{kind}", kind, width, height)


def window(pixels: np.ndarray, center: float | None, width: float | None) -> np.ndarray:
    """Map values to 0–255 through a window; without one, use the 0.5–99.5th percentiles."""
    values = pixels.astype(np.float32, copy=False)
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


def _too_large(what: str) -> ImageError:
    return ImageError(f"The attached DICOM image is too large ({what}).")


def _check_deflated(data: bytes, max_pixels: int) -> None:
    """Inflate a deflated dataset only up to a bound: a zip bomb stops at the bound."""
    from pydicom.filereader import _read_file_meta_info, read_preamble

    fp = io.BytesIO(data)
    read_preamble(fp, False)
    meta = _read_file_meta_info(fp)
    if str(meta.get("TransferSyntaxUID", "")) != DEFLATED:
        return
    bound = max_pixels * BYTES_PER_SAMPLE_BOUND
    inflater, pending, total = zlib.decompressobj(-zlib.MAX_WBITS), data[fp.tell() :], 0
    while total <= bound:  # counted a chunk at a time: memory stays at one chunk
        out = inflater.decompress(pending, INFLATE_CHUNK)
        total, pending = total + len(out), inflater.unconsumed_tail
        if not out and not pending:
            break
    if total > bound:
        raise _too_large(f"its deflated data expands beyond {bound / 2**20:.0f} MB")


def _checked_header(data: bytes, max_pixels: int):  # -> pydicom Dataset; lazy import
    """The dataset without pixel data, once its declared size is known to be within the cap."""
    import pydicom

    _check_deflated(data, max_pixels)
    ds = pydicom.dcmread(io.BytesIO(data), stop_before_pixels=True)
    rows, cols = int(ds.get("Rows", 0) or 0), int(ds.get("Columns", 0) or 0)
    frames = int(ds.get("NumberOfFrames", 1) or 1)
    samples = int(ds.get("SamplesPerPixel", 1) or 1)
    if min(rows, cols, frames, samples) < 1:
        raise ImageError(NO_IMAGE)
    if rows * cols * frames * samples > max_pixels:
        raise _too_large(f"{cols}×{rows} pixels × {frames} frame(s) × {samples} sample(s)")
    return ds


def _render_dicom(data: bytes, max_pixels: int) -> PreparedImage:
    from pydicom.errors import InvalidDicomError
    from pydicom.pixels import pixel_array

    try:
        ds = _checked_header(data, max_pixels)
    except ImageError:
        raise
    except (InvalidDicomError, EOFError, OSError, zlib.error, *_HEADER_ERRORS) as exc:
        raise ImageError(NO_IMAGE) from exc
    frames = int(ds.get("NumberOfFrames", 1) or 1)
    try:  # only the middle frame is decoded; a third-party decoder may fail in any way
        pixels = pixel_array(io.BytesIO(data), index=frames // 2 if frames > 1 else None)
        img = _to_image(ds, pixels)
    except ImageError:
        raise
    except Exception as exc:
        log.warning("DICOM rendering failed: %s: %s", type(exc).__name__, exc)
        raise ImageError(NO_IMAGE) from exc
    out = io.BytesIO()
    img.save(out, format="PNG")
    details = {
        "modality": str(ds.get("Modality", "")),
        "body_part": str(ds.get("BodyPartExamined", "")),
        "study": str(ds.get("StudyDescription", "")),
    }
    log.debug("rendered DICOM %s to PNG %dx%d", details, img.width, img.height)
    return PreparedImage(out.getvalue(), "image/png", "dicom", img.width, img.height, details)


def _to_image(ds, pixels: np.ndarray) -> Image.Image:
    """One decoded frame as an 8-bit greyscale or RGB picture."""
    from pydicom.pixels import apply_modality_lut

    photometric = str(ds.get("PhotometricInterpretation", "MONOCHROME2"))
    if photometric in ("MONOCHROME1", "MONOCHROME2") and pixels.ndim == 2:
        values = apply_modality_lut(pixels, ds).astype(np.float32, copy=False)
        image = window(
            values, _first_number(ds.get("WindowCenter")), _first_number(ds.get("WindowWidth"))
        )
        if photometric == "MONOCHROME1":
            image = 255 - image
        return Image.fromarray(image, mode="L")
    if (
        photometric not in ("MONOCHROME1", "MONOCHROME2")
        and pixels.ndim == 3
        and pixels.shape[-1] == 3
    ):
        return Image.fromarray(
            window(pixels, None, None) if pixels.dtype != np.uint8 else pixels, mode="RGB"
        )
    raise ImageError(
        f"DICOM images with photometric interpretation {photometric} "
        f"and {pixels.shape[-1] if pixels.ndim == 3 else 1} sample(s) per pixel are not supported."
    )
