"""Input checks: friendly refusals, and real images (PNG, JPEG, DICOM) accepted by content."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from docgemma.ui.uploads import UNREADABLE, UploadRejected, parse_submission, uploaded_file

LIMIT = 2_000_000


def png_bytes(fmt: str = "PNG") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (16, 16), (200, 10, 10)).save(buf, format=fmt)
    return buf.getvalue()


def test_empty_message_is_refused():
    with pytest.raises(UploadRejected, match="type a question"):
        parse_submission({"text": "   ", "files": []}, LIMIT, None, upload_roots=())


def test_text_only_passes_trimmed(tmp_path):
    assert (
        parse_submission({"text": " hi ", "files": []}, LIMIT, tmp_path, upload_roots=()).text
        == "hi"
    )


@pytest.mark.parametrize("fmt,mime", [("PNG", "image/png"), ("JPEG", "image/jpeg")])
def test_image_is_accepted_by_content_even_with_a_wrong_name(tmp_path, fmt, mime):
    path = tmp_path / "scan.txt"
    path.write_bytes(png_bytes(fmt))
    sub = parse_submission(
        {"text": "", "files": [{"path": str(path)}]},
        LIMIT,
        tmp_path / "shown",
        upload_roots=[tmp_path],
    )
    assert sub.image.mime_type == mime and sub.text == "Please describe this image."
    assert (tmp_path / "shown").exists() and sub.image_path.startswith(str(tmp_path / "shown"))


def test_real_dicom_is_rendered_to_png(tmp_path):
    from pydicom.data import get_testdata_file

    src = get_testdata_file("CT_small.dcm")
    sub = parse_submission(
        {"text": "CT?", "files": [src]}, LIMIT, tmp_path, upload_roots=[Path(src).parent]
    )
    assert sub.image.mime_type == "image/png" and sub.image.data.startswith(b"\x89PNG")


def test_non_image_is_refused_even_when_named_png(tmp_path):
    path = tmp_path / "report.png"
    path.write_bytes(b"%PDF-1.4 not an image at all" * 10)
    with pytest.raises(UploadRejected, match="not a supported image"):
        parse_submission(
            {"text": "look", "files": [str(path)]}, LIMIT, tmp_path, upload_roots=[tmp_path]
        )


def test_oversized_image_is_refused_with_the_limit(tmp_path):
    path = tmp_path / "big.png"
    path.write_bytes(png_bytes() + b"\0" * 3_000)
    with pytest.raises(UploadRejected, match="limit is"):
        parse_submission(
            {"text": "x", "files": [str(path)]}, 1_000, tmp_path, upload_roots=[tmp_path]
        )


def test_more_than_one_file_is_refused(tmp_path):
    with pytest.raises(UploadRejected, match="one image"):
        parse_submission(
            {"text": "x", "files": ["a", "b"]}, LIMIT, tmp_path, upload_roots=[tmp_path]
        )


def test_only_files_inside_the_upload_folder_are_opened(tmp_path):
    """The handler's own check, behind Gradio's: every refusal is the one message."""
    uploads, outside = tmp_path / "uploads", tmp_path / "server"
    uploads.mkdir(), outside.mkdir()
    (outside / "scan.png").write_bytes(png_bytes())
    (uploads / "link.png").symlink_to(outside / "scan.png")
    (uploads / "real.png").write_bytes(png_bytes())
    for raw in [
        str(outside / "scan.png"),
        str(uploads / ".." / "server" / "scan.png"),
        str(uploads / "link.png"),
        str(uploads / "missing.png"),
        str(uploads),
    ]:
        with pytest.raises(UploadRejected) as info:
            uploaded_file(raw, [uploads])
        assert str(info.value) == UNREADABLE
    assert uploaded_file(str(uploads / "real.png"), [uploads]) == (uploads / "real.png").resolve()
