"""SECURITY.md item 3: the chat must not open server files a client names in its message.

Mounted with ``gr.mount_gradio_app``, Gradio skipped its own "only uploaded files" check
and copied any named file into its cache for the handler. Now the check runs (and the
handler checks again): a path outside Gradio's upload folder, a ``..`` path, a symlink
out of the folder and a missing file all get the same refusal, which names nothing but
the path sent, and nothing reaches the agent.
"""

from __future__ import annotations

import io
import os
import secrets
from pathlib import Path

import pytest
from gradio.utils import get_upload_folder
from gradio_http import EventFailed, call, file_data, upload
from PIL import Image

LIMIT = 50_000


def png(size: int = 24) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (size, size), (10, 200, 30)).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture(scope="module")
def app_url(live_app_with):
    return live_app_with(max_image_bytes=LIMIT)


def submit(url: str, path: str) -> str:
    """Send a chat message naming ``path`` as its attachment; the error text shown, if any."""
    try:
        _, _, error = call(url, "submit", [{"text": "what?", "files": [file_data(path)]}, None])
    except EventFailed as exc:
        return str(exc).replace(os.path.abspath(path), "<path>").replace(path, "<path>")
    return (error or {}).get("value") or ""


def secret_files(root: Path) -> dict[str, str]:
    """Server files an attacker may name: a real image, an over-limit one, a missing one."""
    root.mkdir(exist_ok=True)
    (root / "scan.png").write_bytes(png())
    (root / "huge.png").write_bytes(png() + bytes(LIMIT * 3))
    return {
        "image outside the upload folder": str(root / "scan.png"),
        "over-limit file outside": str(root / "huge.png"),
        "missing file": str(root / "nothing-here.png"),
        "system file": "/etc/hostname",
    }


def test_paths_outside_the_upload_folder_are_refused_alike(app_url, agent, tmp_path):
    before = len(agent.calls)
    targets = secret_files(tmp_path / "server")
    uploads = Path(get_upload_folder())
    targets["dot-dot out of the upload folder"] = str(
        uploads / ".." / Path(targets["image outside the upload folder"]).relative_to("/")
    )
    link = uploads / f"link-{secrets.token_hex(4)}.png"
    os.symlink(targets["image outside the upload folder"], link)
    targets["symlink out of the upload folder"] = str(link)
    try:
        shown = {what: submit(app_url, path) for what, path in targets.items()}
    finally:
        link.unlink()
    # one message for every case: it tells nothing about existence, size or type
    (message,) = set(shown.values())
    assert "not uploaded by a user" in message and "<path>" in message, shown
    assert "MB" not in message and "PNG" not in message
    assert len(agent.calls) == before, "a refused attachment must never reach the agent"


def test_a_real_upload_still_works(app_url, agent, tmp_path):
    source = tmp_path / "wound.png"
    source.write_bytes(png(32))
    server_path = upload(app_url, source)
    assert Path(server_path).resolve().is_relative_to(Path(get_upload_folder()).resolve())
    assert submit(app_url, server_path) == ""
    image = agent.calls[-1]["image"]
    assert image is not None and image.data.startswith(b"\x89PNG")
