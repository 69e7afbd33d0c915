"""Does the answer say what each lookup found? (issue 9)

Asked to find a patient, read her chart and check the FDA warnings for warfarin, Qwen 1.5B
summarised the chart at length and never mentioned the boxed warning; asked for the chart
and recruiting trials, it left out the trials. The clinician asked for three things and got
two. A lookup the answer does not mention is found by its distinctive words: those of its
key facts (what the model was shown) that neither the question nor the turn's other
lookups contain. An answer that cites the lookup's sources, or uses one of those words,
mentions it. What no sentence mentions is added below the answer in the source's own words,
so nothing that was looked up is lost; a lookup that only finds the patient is left alone,
since the chart that follows says who it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgemma.agent.answer import key_facts
from docgemma.agent.answer_check import words
from docgemma.agent.citations import CITATION_MARKER, number_sources
from docgemma.agent.grounding import STOP_WORDS
from docgemma.agent.state import ToolResult
from docgemma.tools.base import ToolRegistry
from docgemma.tools.facts import ToolRole

UNMENTIONED_HEADER = (
    "The answer above does not mention what these lookups found; here are their key facts as "
    "the sources returned them (no model text):"
)
_STEM_CHARS = 6
"""Words compared by their beginnings: "bleeding" in a label is mentioned by "bleeds"."""
_MIN_CHARS = 5
_NUMBER_RE = re.compile(r"\d")


def _stems(text: str) -> set[str]:
    return {w[:_STEM_CHARS] for w in words(text)}


def _distinctive(facts: str, elsewhere: set[str]) -> set[str]:
    """Stems of ``facts`` that say something (long words, or values and ids with digits)
    and are not in ``elsewhere``."""
    return {
        w[:_STEM_CHARS]
        for w in words(facts)
        if (len(w) >= _MIN_CHARS or _NUMBER_RE.search(w))
        and w not in STOP_WORDS
        and w[:_STEM_CHARS] not in elsewhere
    }


def unmentioned(
    answer: str, question: str, results: Sequence[ToolResult], registry: ToolRegistry
) -> list[str]:
    """Each lookup ``answer`` does not mention, as a list item: its label, its key facts
    as the model was shown them, and its source numbers. Only in a turn of two lookups or
    more: the answer to a single one is about it."""
    ok = [r for r in results if r["error_type"] is None]
    if len(ok) < 2:
        return []
    numbered = number_sources(ok, shorten=key_facts)
    cited = {int(n) for n in CITATION_MARKER.findall(answer)}
    said = _stems(answer)
    missing = []
    for i, (result, facts, numbers) in enumerate(
        zip(ok, numbered.facts, numbered.numbers, strict=True)
    ):
        if result["tool_name"] not in registry:
            continue
        spec = registry[result["tool_name"]]
        if spec.writes_ehr or spec.role is ToolRole.FINDS_PATIENT:
            continue
        others = (f for j, f in enumerate(numbered.facts) if j != i)
        own = _distinctive(facts, _stems(question).union(*map(_stems, others)))
        if not own or own & said or cited & set(numbers):
            continue
        marks = "".join(f" [{n}]" for n in numbers)
        missing.append(f"- {result['tool_label']}{marks}: " + facts.replace("\n", "\n  "))
    return missing


def with_unmentioned(answer: str, missing: Sequence[str]) -> str:
    """``answer`` followed by what it does not mention, under a header that says so."""
    if not missing:
        return answer
    return f"{answer}\n\n{UNMENTIONED_HEADER}\n" + "\n".join(missing)
