"""Checking what the clinician typed and attached, before anything reaches the agent.

Every rejection is a short message the clinician can act on. Image checks (type by
content, never by file name; size; DICOM rendering) are ``docgemma.imaging``'s.
A file path in a message comes from the client, so it is opened only when it lies
inside the upload folder (Gradio's, where the browser's uploads land); anything else
gets the same message as a missing file, which tells nothing about the server's files.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docgemma.imaging import ImageError, prepare_image
from docgemma.llm.types import ImageInput
from docgemma.transcript import MAX_MESSAGE_CHARS

log = logging.getLogger(__name__)
UNREADABLE = "The attached file could not be read; please attach it again."
NO_VISION = (
    "The current model cannot read images: the attached image stays in the conversation "
    "but is not analysed, and the question is answered from its text alone."
)


class UploadRejected(ValueError):
    """Raised with a clinician-readable message."""


def too_long(text: str) -> str | None:
    """The notice for a message over ``MAX_MESSAGE_CHARS`` (None: short enough). The page
    refuses it whole, rather than cutting it, and leaves it in the box to shorten."""
    if len(text) <= MAX_MESSAGE_CHARS:
        return None
    return (
        f"Your message is {len(text):,} characters long; the limit is {MAX_MESSAGE_CHARS:,}. "
        "Please shorten it and send it again (nothing was sent)."
    )


@dataclass(frozen=True)
class Submission:
    text: str
    image: ImageInput | None = None
    image_path: str | None = None
    """A displayable copy of the image (DICOM is rendered to PNG)."""


@dataclass(frozen=True)
class Attachment:
    """A patient's stored image, checked and waiting to go with the next message."""

    image: ImageInput
    image_path: str
    label: str


def vision_notice(submission: Submission, agent: Any) -> str | None:
    """The notice for an image sent to a model that cannot read it (None otherwise).

    Said beside the input as the message goes, so the clinician need not wait for the
    answer's notices to learn the image was not looked at. An agent that does not say
    which model it runs (a double) gets none.
    """
    llm = getattr(getattr(agent, "deps", None), "llm", None)
    if submission.image is None or llm is None or getattr(llm, "supports_vision", True):
        return None
    return NO_VISION


def parse_submission(
    message: dict[str, Any] | str | None,
    max_bytes: int,
    render_dir: Path,
    attached: Attachment | None = None,
    *,
    upload_roots: Sequence[Path],
    max_pixels: int | None = None,
) -> Submission:
    """Validate a ``MultimodalTextbox`` value (plus a stored image picked for it).

    A file is read only from inside ``upload_roots``. Raises ``UploadRejected`` on bad input.
    """
    if isinstance(message, str) or message is None:
        message = {"text": message or "", "files": []}
    text = (message.get("text") or "").strip()
    notice = too_long(text)
    if notice:
        raise UploadRejected(notice)
    files = [_file_path(f) for f in message.get("files") or []]
    if len(files) + (attached is not None) > 1:
        raise UploadRejected("Please attach one image at a time.")
    if not text and not files and attached is None:
        raise UploadRejected("Please type a question (you can also attach one image).")
    if attached is not None:
        return Submission(
            text=text or "Please describe this image.",
            image=attached.image,
            image_path=attached.image_path,
        )
    if not files:
        return Submission(text=text)
    path = uploaded_file(files[0], upload_roots)
    image, shown = load_image(path, max_bytes, render_dir, max_pixels)
    return Submission(
        text=text or "Please describe this image.", image=image, image_path=str(shown)
    )


def _file_path(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        return item.get("path") or item.get("name") or ""
    return getattr(item, "path", None) or getattr(item, "name", "")


def uploaded_file(raw: str, roots: Sequence[Path]) -> Path:
    """The real path of an uploaded file, if it is a regular file inside one of ``roots``.

    Symlinks are resolved before the check and ``..`` is refused outright, so no spelling
    of a path reaches outside. Every refusal is the one ``UNREADABLE`` message.
    """
    if not raw or "\0" in raw or ".." in Path(raw).parts:
        raise UploadRejected(UNREADABLE)
    try:
        path = Path(raw).resolve(strict=True)
    except (OSError, RuntimeError):
        raise UploadRejected(UNREADABLE) from None
    inside = any(path.is_relative_to(root.resolve()) for root in roots)
    if not inside or not path.is_file():
        log.warning("refused an attachment path outside the upload folder")
        raise UploadRejected(UNREADABLE)
    return path


def load_image(
    path: Path, max_bytes: int, render_dir: Path, max_pixels: int | None = None
) -> tuple[ImageInput, Path]:
    """Check an upload by content (``docgemma.imaging``); returns model input and a display copy."""
    if not path.is_file():
        raise UploadRejected(UNREADABLE)
    if path.stat().st_size > max_bytes:  # refuse before reading a huge file into memory
        size = path.stat().st_size
        raise UploadRejected(
            f"The attached image is {size / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.1f} MB."
        )
    return accept_image(path.read_bytes(), max_bytes, render_dir, max_pixels)


def accept_image(
    data: bytes, max_bytes: int, render_dir: Path, max_pixels: int | None = None
) -> tuple[ImageInput, Path]:
    """Validate image bytes by content; returns model input and a display copy (PNG/JPEG)."""
    try:
        prepared = prepare_image(data, max_bytes, max_pixels)
    except ImageError as exc:
        raise UploadRejected(str(exc)) from exc
    render_dir.mkdir(parents=True, exist_ok=True)
    suffix = "png" if prepared.mime_type == "image/png" else "jpg"
    shown = render_dir / f"{hashlib.sha256(prepared.data).hexdigest()[:16]}.{suffix}"
    shown.write_bytes(prepared.data)
    log.info("accepted image: %s", prepared.describe())
    return prepared.to_input(), shown
