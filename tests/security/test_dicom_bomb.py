"""SECURITY.md item 4: a small DICOM that declares a huge image must be refused before decoding.

Each file is built here with pydicom and uploaded to the live app over HTTP, as a browser
would. A refusal names the problem, comes at once, leaves the process's peak memory where
it was, and nothing reaches the agent; an ordinary multi-frame scan is still accepted.
"""

from __future__ import annotations

import io
import resource
import time

import numpy as np
import pytest
from gradio_http import call, file_data, upload
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.encaps import encapsulate
from pydicom.uid import (
    DeflatedExplicitVRLittleEndian,
    ExplicitVRLittleEndian,
    RLELossless,
    generate_uid,
)

PIXEL_CAP = 2_000_000
"""The app's ``max_image_pixels`` here: small, so the test's bombs stay small too."""
QUICK_S = 5.0
PEAK_GROWTH_MB = 150


def dicom(
    rows: int,
    cols: int,
    pixel_data: bytes,
    *,
    syntax: str = ExplicitVRLittleEndian,
    frames: int = 1,
    samples: int = 1,
    photometric: str = "MONOCHROME2",
) -> bytes:
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = "1.2.840.10008.5.1.4.1.1.7"
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = syntax
    ds = Dataset()
    ds.file_meta = meta
    ds.Modality, ds.SOPInstanceUID = "OT", meta.MediaStorageSOPInstanceUID
    ds.Rows, ds.Columns, ds.SamplesPerPixel = rows, cols, samples
    ds.PhotometricInterpretation = photometric
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 8, 8, 7, 0
    if samples > 1:
        ds.PlanarConfiguration = 0
    if frames > 1:
        ds.NumberOfFrames = frames
    ds.PixelData = pixel_data
    out = io.BytesIO()
    ds.save_as(out, enforce_file_format=True)
    return out.getvalue()


def rle_frame(pixels: int) -> bytes:
    """One RLE segment of runs of 128 zero bytes: 2 bytes of file per 128 decoded pixels."""
    header = np.zeros(16, dtype="<u4")
    header[0], header[1] = 1, 64
    return header.tobytes() + bytes([0x81, 0]) * (pixels // 128)


BOMBS = {
    # name: (file, words the refusal must contain)
    "uncompressed header declaring 65535² × 1000 frames": (
        dicom(65535, 65535, bytes(64 * 64), frames=1000),
        "too large",
    ),
    "RLE payload declaring 20000²": (
        dicom(20000, 20000, encapsulate([rle_frame(20000 * 20000 // 1000)]), syntax=RLELossless),
        "too large",
    ),
    "deflated dataset inflating past the bound": (
        dicom(3000, 3000, bytes(3000 * 3000), syntax=DeflatedExplicitVRLittleEndian),
        "expands beyond",
    ),
    "3-channel MONOCHROME2 (was a 'Too many dimensions' traceback)": (
        dicom(32, 32, bytes(32 * 32 * 3), samples=3),
        "not supported",
    ),
}


@pytest.fixture(scope="module")
def app_url(live_app_with, tmp_path_factory):
    """The app once its start-up work is done and one harmless refused upload has loaded the
    upload and DICOM code: on a busy machine the background index builds overlapped the
    first measurement and raised the peak by up to 200 MB, whatever the file."""
    url = live_app_with(max_image_pixels=PIXEL_CAP, literature_index_size=10, settled=True)
    harmless = dicom(32, 32, bytes(32 * 32 * 3), samples=3)
    assert "not supported" in send(url, harmless, tmp_path_factory.mktemp("warm"))[0]
    return url


def send(url: str, data: bytes, folder) -> tuple[str, float]:
    path = folder / "scan.dcm"
    path.write_bytes(data)
    start = time.perf_counter()
    _, _, error = call(
        url, "submit", [{"text": "read this", "files": [file_data(upload(url, path))]}, None]
    )
    return (error or {}).get("value") or "", time.perf_counter() - start


@pytest.mark.parametrize("name", list(BOMBS))
def test_crafted_dicom_is_refused_quickly_with_a_clear_message(app_url, agent, tmp_path, name):
    data, words = BOMBS[name]
    assert len(data) < 1_000_000, "the attack is a small file"
    calls, peak_before = len(agent.calls), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    shown, seconds = send(app_url, data, tmp_path)
    assert shown.startswith("⚠️ ") and words in shown, shown
    assert "Traceback" not in shown and "dimensions" not in shown
    assert seconds < QUICK_S, f"refusal took {seconds:.1f}s"
    growth_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before) / 1024
    assert growth_mb < PEAK_GROWTH_MB, f"peak memory grew {growth_mb:.0f} MB"
    assert len(agent.calls) == calls, "a refused image must never reach the agent"


def test_an_ordinary_multiframe_scan_is_still_accepted(app_url, agent, tmp_path):
    frames = np.stack([np.full((64, 64), 10 * i, dtype=np.uint8) for i in range(9)])
    shown, _ = send(app_url, dicom(64, 64, frames.tobytes(), frames=9), tmp_path)
    assert shown == ""
    image = agent.calls[-1]["image"]
    assert image is not None and image.data.startswith(b"\x89PNG")
