"""Three suggested follow-up questions, chosen by code from the outcome."""

from __future__ import annotations

from docgemma.severity import Severity

_BY_SEVERITY: dict[Severity | None, tuple[str, str, str]] = {
    Severity.SELF_CARE: (
        "What can I do at home to ease {topic}?",
        "How long does {topic} usually last?",
        "When should I see a GP about {topic}?",
    ),
    Severity.URGENT_PRIMARY_CARE: (
        "What should I tell the GP about {topic}?",
        "What can I do while I wait to be seen?",
        "Which symptoms mean I should go to A&E instead?",
    ),
    Severity.A_AND_E: (
        "What should I do while I wait for help?",
        "What should I tell the 999 call handler?",
        "What will happen when I get to A&E?",
    ),
    None: (
        "What other symptoms should I mention?",
        "When should I see a GP?",
        "Which symptoms mean I should call 999?",
    ),
}


def follow_up_questions(severity: Severity | None, condition_title: str | None) -> list[str]:
    topic = condition_title.lower() if condition_title else "my symptoms"
    return [q.format(topic=topic) for q in _BY_SEVERITY[severity]]
