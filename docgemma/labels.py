"""The agent's closed label sets: what a classification may answer, whoever classifies.

They sit below both the agent (whose response schemas use them) and the routing
classifiers (which are trained to predict them), so neither imports the other for them;
the words the reasoning timeline shows for them sit beside them, so the page reads them
without loading the agent. Tool names are not here: they belong to the tool registry.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, get_args

Intent = Literal["DIRECT", "TOOL_NEEDED"]


class ResultQuality(StrEnum):
    """The class of a tool result: what happened, not what to do next."""

    SUCCESS_RICH = "success_rich"
    SUCCESS_PARTIAL = "success_partial"
    NO_RESULTS = "no_results"
    ERROR_RETRYABLE = "error_retryable"
    ERROR_FATAL = "error_fatal"


QUALITY_WORDS: dict[str, str] = {
    ResultQuality.SUCCESS_RICH: "it answers the request",
    ResultQuality.SUCCESS_PARTIAL: "it answers part of the request",
    ResultQuality.NO_RESULTS: "nothing found",
    ResultQuality.ERROR_RETRYABLE: "the source failed; another try may work",
    ResultQuality.ERROR_FATAL: "the source failed",
}
"""Each result class as the reasoning timeline words it for a clinician."""

NODE_LABELS: dict[str, str] = {
    "input_assembly": "Reading the question",
    "intent_classify": "Understanding the request",
    "tool_select": "Choosing a source",
    "tool_execute": "Consulting the source",
    "result_classify": "Checking the result",
    "error_handler": "Handling a problem",
    "synthesize": "Writing the answer",
}
"""Each agent node as the reasoning timeline names its step."""

INTENT_WORDS: dict[str, str] = {
    "DIRECT": "answered without a lookup",
    "TOOL_NEEDED": "needs a lookup",
}
"""Each intent as the reasoning timeline words it for a clinician."""

INTENTS: tuple[Intent, ...] = get_args(Intent)
RESULT_QUALITIES: tuple[str, ...] = tuple(q.value for q in ResultQuality)
"""The result classes as plain strings, for classifiers trained on labels."""
