"""Chat-template control strings in untrusted text, made harmless before any prompt is built.

A tokenizer turns ``<end_of_turn>`` or ``<|im_end|>`` typed by a user (or returned by a
tool) into the real special token, so text could close its own turn and speak as the
model. Every ``Message`` passes its content through ``neutralise``: a zero-width space
after the ``<`` (or inside ``<|``) leaves the text readable but no longer the token.
Prompt renderers add the genuine markers themselves, outside message content.
"""

from __future__ import annotations

import re

ZERO_WIDTH_SPACE = "\u200b"
_CONTROL = re.compile(
    r"<(?=\|)"  # <|im_start|>, <|im_end|>, <|endoftext|> and every other <|...|> marker
    r"|<(?=/?(?:start_of_turn|end_of_turn|start_of_image|end_of_image|image_soft_token"
    r"|unused\d+|think|bos|eos|pad|mask)>)",
    re.IGNORECASE,
)


def neutralise(text: str) -> str:
    """``text`` with every control marker broken by a zero-width space after its ``<``."""
    return _CONTROL.sub("<" + ZERO_WIDTH_SPACE, text)
