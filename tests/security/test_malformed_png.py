"""A PNG with malformed chunks gets the one clear image error, never Pillow's message.

The old attack: truncated IHDR, pHYs or acTL chunks made Pillow raise ``ValueError``
(and others ``SyntaxError``), which the image check did not catch, so Pillow's raw
message reached the page. Now every decoder failure is the same clear error and
nothing reaches the agent.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from gradio_http import call, file_data, upload

SIGNATURE = b"\x89PNG\r\n\x1a\n"
HEADER = struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)
PIXELS = zlib.compress(b"\x00" * 13 * 4)


def chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png(*chunks: bytes) -> bytes:
    return SIGNATURE + b"".join(chunks) + chunk(b"IEND", b"")


MALFORMED = {
    "truncated IHDR": png(chunk(b"IHDR", b"\x00" * 5)),
    "truncated pHYs": png(chunk(b"IHDR", HEADER), chunk(b"pHYs", b"\x00"), chunk(b"IDAT", PIXELS)),
    "truncated acTL": png(chunk(b"IHDR", HEADER), chunk(b"acTL", b"\x00"), chunk(b"IDAT", PIXELS)),
    "frame outside the image": png(
        chunk(b"IHDR", HEADER),
        chunk(b"acTL", struct.pack(">II", 1, 0)),
        chunk(b"fcTL", b"\x00" * 26),
        chunk(b"IDAT", PIXELS),
    ),
}


@pytest.mark.parametrize("what", MALFORMED)
def test_a_malformed_png_gets_the_clear_error(live_app_with, agent, tmp_path: Path, what) -> None:
    url = live_app_with()
    source = tmp_path / "scan.png"
    source.write_bytes(MALFORMED[what])
    before = len(agent.calls)
    path = upload(url, source)
    _, _, error = call(url, "submit", [{"text": "what is this?", "files": [file_data(path)]}, None])
    message = error["value"] if isinstance(error, dict) else str(error)
    assert "The attached PNG file is damaged and cannot be read." in message
    for raw in ("Truncated", "chunk", "tile", "APNG"):
        assert raw not in message
    assert len(agent.calls) == before
