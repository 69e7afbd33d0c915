"""Image intake on real files: Pillow-made PNG/JPEG and pydicom's bundled CT and MR scans."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pydicom.data import get_testdata_file

from docgemma.imaging import ImageError, prepare_image, sniff, window

LIMIT = 10 * 1024 * 1024


def encoded(fmt: str, size=(64, 48), mode="RGB") -> bytes:
    rng = np.random.default_rng(0)
    shape = (size[1], size[0], 3) if mode == "RGB" else (size[1], size[0])
    img = Image.fromarray(rng.integers(0, 255, shape, dtype=np.uint8), mode=mode)
    out = io.BytesIO()
    img.save(out, format=fmt)
    return out.getvalue()


def bundled(name: str) -> bytes:
    """A DICOM file shipped inside pydicom (never downloaded)."""
    path = get_testdata_file(name, download=False)
    assert path is not None, f"{name} is not bundled with pydicom"
    return Path(path).read_bytes()


@pytest.mark.parametrize(
    ("fmt", "kind", "mime"), [("PNG", "png", "image/png"), ("JPEG", "jpeg", "image/jpeg")]
)
def test_png_and_jpeg_pass_through(fmt, kind, mime):
    data = encoded(fmt)
    prepared = prepare_image(data, LIMIT)
    assert (prepared.kind, prepared.mime_type, prepared.width, prepared.height) == (
        kind,
        mime,
        64,
        48,
    )
    assert prepared.data == data and prepared.to_input().mime_type == mime


def test_ct_dicom_is_rendered_to_png():
    data = bundled("CT_small.dcm")
    assert sniff(data) == "dicom"
    prepared = prepare_image(data, LIMIT)
    assert (
        prepared.kind == "dicom"
        and prepared.mime_type == "image/png"
        and prepared.details["modality"] == "CT"
    )
    img = Image.open(io.BytesIO(prepared.data))
    assert img.format == "PNG" and img.mode == "L" and img.size == (128, 128)
    pixels = np.asarray(img)
    assert pixels.min() == 0 and pixels.max() == 255 and len(np.unique(pixels)) > 50
    assert "DICOM image, 128×128 (CT" in prepared.describe()


def test_mr_dicom_is_rendered_to_png():
    prepared = prepare_image(bundled("MR_small.dcm"), LIMIT)
    assert prepared.details["modality"] == "MR" and (prepared.width, prepared.height) == (64, 64)


def test_dicom_without_pixels_is_rejected():
    with pytest.raises(ImageError, match="no image that can be displayed"):
        prepare_image(bundled("rtplan.dcm"), LIMIT)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"%PDF-1.7\n1 0 obj<<>>endobj\n" * 10, "not a supported image"),
        (b"Patient: Jane Doe\nBP 120/80\n" * 20, "not a supported image"),
        (b"GIF89a" + bytes(200), "not a supported image"),
    ],
)
def test_non_images_are_rejected_with_a_clear_message(data, message):
    with pytest.raises(ImageError, match=message) as info:
        prepare_image(data, LIMIT)
    assert "PNG, JPEG or DICOM" in str(info.value) or message == "empty"


def test_declared_type_does_not_matter_only_content():
    png = encoded("PNG")
    assert sniff(png) == "png" and sniff(encoded("JPEG")) == "jpeg"
    assert sniff(b"\x00" * 128 + b"DICX" + png) is None


def test_oversize_is_rejected_before_decoding():
    data = encoded("PNG")
    with pytest.raises(ImageError, match="the limit is 0.0 MB"):
        prepare_image(data, max_bytes=len(data) - 1)


def test_damaged_png_is_rejected():
    data = encoded("PNG")
    with pytest.raises(ImageError, match="damaged"):
        prepare_image(data[:60], LIMIT)


def test_window_uses_the_given_window_or_percentiles():
    values = np.array([[-1000, 0, 40, 80, 1000]])
    assert window(values, 40, 80).tolist() == [[0, 0, 128, 255, 255]]
    stretched = window(np.arange(1000).reshape(10, 100), None, None)
    assert stretched.min() == 0 and stretched.max() == 255
    assert window(np.zeros((2, 2)), None, None).tolist() == [[0, 0], [0, 0]]
