"""The agent's closed label sets: what a classification may answer, whoever classifies.

They sit below both the agent (whose response schemas use them) and the routing
classifiers (which are trained to predict them), so neither imports the other for them.
Tool names are not here: they belong to the tool registry.
"""

from __future__ import annotations

from typing import Literal, get_args

Intent = Literal["DIRECT", "TOOL_NEEDED"]
ResultQuality = Literal[
    "success_rich", "success_partial", "no_results", "error_retryable", "error_fatal"
]
INTENTS: tuple[Intent, ...] = get_args(Intent)
RESULT_QUALITIES: tuple[ResultQuality, ...] = get_args(ResultQuality)
