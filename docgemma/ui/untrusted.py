"""Text the app did not write (model output, tool results, record fields) made safe to show.

The chat and the panels render Markdown, and Markdown passes HTML through: a
``display:none`` span hides words from the clinician, and an image (``![..](url)`` or
``<img>``) makes the browser fetch a remote URL that can carry data out. So untrusted
text loses its HTML and its images before rendering; ``plain`` also escapes every
Markdown character, for values that must read exactly as stored (the approval card).
"""

from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()!|~>])")
_BULLET_OR_HEADING = re.compile(r"^([-+#])")
_NUMBERED = re.compile(r"^(\d+)([.)])")
"""These make a list item or a heading only at the start of a line, so only there are escaped."""
_IMAGE = re.compile(r"!(?=\[)")


def _no_html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")


def markdown(text: str) -> str:
    """Keep the text's Markdown (lists, bold, links) but no HTML and no image."""
    return _IMAGE.sub("\\!", _no_html(text))


def plain(value: object) -> str:
    """A value shown as exactly its characters, on one line: no Markdown, no HTML."""
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", _no_html(" ".join(str(value).split())))
    return _NUMBERED.sub(r"\1\\\2", _BULLET_OR_HEADING.sub(r"\\\1", text))


NO_LATEX: list[dict[str, str | bool]] = []
"""``latex_delimiters`` for components showing untrusted text: KaTeX would let an answer
hide words (``\\phantom``, ``\\color{white}``), so no LaTeX is rendered there."""
_TAG = re.compile(r"<[^>]*>?")
_NAME_MARKUP = re.compile(r"[\\`*_{}\[\]()<>!|~#$]")
NAME_CHARS = 80
"""The longest approver name kept, as the HTTP API's limit."""


def name(text: str) -> str:
    """A typed person's name as the record stores it: no HTML tags or markup characters,
    one line, at most ``NAME_CHARS`` characters."""
    cleaned = _NAME_MARKUP.sub("", _TAG.sub("", text))
    return " ".join(cleaned.split())[:NAME_CHARS].strip()


def link_target(url: str) -> str | None:
    """An http(s) URL safe inside ``[text](url)``; None for any other scheme."""
    if not re.match(r"https?://", url, re.IGNORECASE):
        return None
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C")
