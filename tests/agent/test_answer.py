"""What code removes from the model's text before it is shown (``answer.clean_answer``)."""

from __future__ import annotations

import pytest

from docgemma.agent.answer import GROUNDED_NOTE, UNVERIFIED_NOTE, clean_answer


@pytest.mark.parametrize(
    ("draft", "shown"),
    [
        # Qwen 1.5B, asked for the first-line treatment of type 2 diabetes with no source
        (
            "Metformin is first-line.\n\n### References\n American Diabetes Association. "
            "(2020). *Type 2 Diabetes: Management*. Retrieved from "
            "[ADA website](https://www.diabetes.org/diabetes-management/)",
            "Metformin is first-line.",
        ),
        ("Metformin is first-line.\n**Sources:**\n1. ADA 2020", "Metformin is first-line."),
        (
            "See the [ADA website](https://diabetes.org/x) for more.",
            "See the [ADA website] for more.",
        ),
        ("Metformin is first-line [1](https://example.org/a).", "Metformin is first-line [1]."),
        ("Give it with food [1] (see the label).", "Give it with food [1] (see the label)."),
        ("The sources agree on metformin.", "The sources agree on metformin."),
        # the app's own labels, copied from an earlier answer in the conversation
        (f"Asthma narrows the airways.\n\n{UNVERIFIED_NOTE}", "Asthma narrows the airways."),
        (
            f"Asthma narrows the airways.\n{GROUNDED_NOTE.format(title='Asthma')}",
            "Asthma narrows the airways.",
        ),
    ],
)
def test_the_models_own_references_links_and_labels_are_not_shown(draft: str, shown: str) -> None:
    assert clean_answer(draft, {}) == shown
