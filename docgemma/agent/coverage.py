"""Does the answer say what each lookup found?

Asked to find a patient, read her chart and check the FDA warnings for warfarin, a model can
summarise the chart at length and never mention the boxed warning; asked for the chart
and recruiting trials, it can leave out the trials. The clinician asked for three things and got
two. A lookup is mentioned when the answer cites a source only it has, or uses two of its
distinctive words (one, if it has only one): words of its key facts, as the model was shown
them, that neither the question nor the turn's other lookups contain. A lookup with a main
finding (``ToolSpec.headline``: the warfarin label's boxed warning of major or fatal
bleeding, the best condition page's title) is mentioned only by two words of that finding,
or its one word; an answer quoting the label's contraindications still left the bleeding
out, and one on a swollen big toe never said "gout". What the answer does not mention is
added below it in the source's own words, so nothing looked up is lost.
Turns of two lookups or more are checked, counting neither the patient search (the chart
that follows says who the patient is) nor writes to the record (confirmed by code); a
single lookup only for its main finding: asked "Does dofetilide carry a boxed warning?",
the brief answer was "Dofetilide carries a boxed warning." and never said what it warns of.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from docgemma.agent.answer import key_facts
from docgemma.agent.citations import CITATION_MARKER, number_sources
from docgemma.agent.state import ToolResult
from docgemma.tools.base import ToolRegistry
from docgemma.tools.facts import ToolRole
from docgemma.topic_words import FILLER_WORDS, STOP_WORDS

UNMENTIONED_HEADER = (
    "The answer above may not mention all that was found; here are the key facts as the "
    "sources returned them (no model text):"
)
_TERM = re.compile(r"[a-z0-9]+(?:\.\d+)?")
"""A word, or a value with its decimals ("2.6")."""
_STEM_CHARS = 6
"""Words compared by their beginnings: "bleeding" in a label is mentioned by "bleeds"."""
_MIN_CHARS = 5
"""Shorter words are mostly common ones ("risk", "dose"); values with digits count whatever
their length, but a lone digit does not."""
_MENTIONS = 2
_HEADLINE_MIN_CHARS = 4
"""A main finding is short and may be one short word: the condition page "Gout"."""


def _terms(text: str, min_chars: int = _MIN_CHARS) -> set[str]:
    """What ``text`` says: its longer words by their beginnings, and its values and ids."""
    found = _TERM.findall(CITATION_MARKER.sub(" ", text.lower()))
    return {
        t[:_STEM_CHARS]
        for t in found
        if t not in STOP_WORDS | FILLER_WORDS
        and (len(t) >= min_chars if t.isalpha() else len(t) > 1)
    }


def _checked(result: ToolResult, registry: ToolRegistry) -> bool:
    if result["error_type"] is not None or result["tool_name"] not in registry:
        return False
    spec = registry[result["tool_name"]]
    return not spec.writes_ehr and spec.role is not ToolRole.FINDS_PATIENT


def _headline(facts: str, pattern: str | None) -> str | None:
    """The lookup's main finding, from the first line that holds one."""
    if pattern is None:
        return None
    found = (re.match(pattern, line) for line in facts.splitlines())
    return next((m["finding"] for m in found if m), None)


def unmentioned(
    answer: str, question: str, results: Sequence[ToolResult], registry: ToolRegistry
) -> list[str]:
    """Each lookup ``answer`` does not mention, as a list item: its label, its source
    numbers and its key facts as the model was shown them."""
    ok = [r for r in results if r["error_type"] is None]
    numbered = number_sources(ok, shorten=key_facts)
    lookups = [
        (result, facts, numbers)
        for result, facts, numbers in zip(ok, numbered.facts, numbered.numbers, strict=True)
        if _checked(result, registry)
    ]
    if len(lookups) < 2:  # alone, a lookup is the answer's subject; its main finding is not
        lookups = [
            lookup
            for lookup in lookups
            if _headline(lookup[1], registry[lookup[0]["tool_name"]].headline) is not None
        ]
    shared = Counter(n for _, _, numbers in lookups for n in numbers)
    cited = {int(n) for n in CITATION_MARKER.findall(answer)}
    said = _terms(answer, _HEADLINE_MIN_CHARS)  # a superset of its longer words
    missing = []
    for i, (result, facts, numbers) in enumerate(lookups):
        others = [_terms(f) for j, (_, f, _) in enumerate(lookups) if j != i]
        common = _terms(question).union(*others)
        headline = _headline(facts, registry[result["tool_name"]].headline)
        if headline is not None:
            own = _terms(headline, _HEADLINE_MIN_CHARS) - common
        else:
            own = _terms(facts) - common
            if cited & {n for n in numbers if shared[n] == 1}:
                continue
        if not own or len(own & said) >= min(_MENTIONS, len(own)):
            continue
        marks = "".join(f" [{n}]" for n in numbers)
        missing.append(f"- {result['tool_label']}{marks}: " + facts.replace("\n", "\n  "))
    return missing


def with_unmentioned(answer: str, missing: Sequence[str]) -> str:
    """``answer`` followed by what it may not mention, under a header that says so."""
    if not missing:
        return answer
    return f"{answer}\n\n{UNMENTIONED_HEADER}\n" + "\n".join(missing)
