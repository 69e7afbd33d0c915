"""What code removes from the model's text before it is shown (``answer.clean_answer``)."""

from __future__ import annotations

import pytest

from docgemma.agent.answer import GROUNDED_NOTE, UNVERIFIED_NOTE, clean_answer
from docgemma.kb import DEMO_NOTICE


@pytest.mark.parametrize(
    ("draft", "shown"),
    [
        # a small model, asked for the first-line treatment of type 2 diabetes with no source
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
        # a link's title, a space before its target, bare URLs, reference definitions
        ('See [ADA](https://diabetes.org/x "ADA") now.', "See [ADA] now."),
        ("See [ADA]( https://diabetes.org/x) now.", "See [ADA] now."),
        ("Details: https://diabetes.org/x?y=1 and www.nice.org.uk/ng28.", "Details:  and ."),
        ("Check the label (https://dailymed.nlm.nih.gov/x) first.", "Check the label  first."),
        (
            "Metformin is first-line [1].\n[1]: https://diabetes.org/x",
            "Metformin is first-line [1].",
        ),
        ("The sources agree on metformin.", "The sources agree on metformin."),
        # a small model on peaked T waves, no source: author-year citations and a bibliography
        # without a heading, all invented
        (
            "Peaked T waves point to hyperkalaemia (Nelson et al., 2012).\n"
            "1. Hyperkalemia: diagnosis (Nelson et al., 2012)\n\n"
            " Nelson et al., 2012. Hyperkalemia. Journal of clinical medicine, 11(6), 1200-1208.",
            "Peaked T waves point to hyperkalaemia.\n1. Hyperkalemia: diagnosis",
        ),
        ("Aim for 7% (ADA, 2023; NICE 2022).", "Aim for 7%."),
        ("American Diabetes Association. (2020). Standards of care.\nAim for 7%.", "Aim for 7%."),
        (
            "Smith J, Lee K. 2019. A trial of metformin.\nMetformin is first-line.",
            "Metformin is first-line.",
        ),
        ("See Jones and Patel (2018) in Lancet 392(10), 1-9.", ""),
        # parentheses and years that are not citations stay
        (
            "Give 10 mL (calcium gluconate 10%) over 10 minutes.",
            "Give 10 mL (calcium gluconate 10%) over 10 minutes.",
        ),
        ("In 2012, the target changed (NICE).", "In 2012, the target changed (NICE)."),
        ("The advice changed in 2019. Aim for 7%.", "The advice changed in 2019. Aim for 7%."),
        ("Vitamin D, calcium and bisphosphonates.", "Vitamin D, calcium and bisphosphonates."),
        ("Metformin (Glucophage) since 1995.", "Metformin (Glucophage) since 1995."),
        # the condition pages' demonstration notice, copied into a sentence (seen in the app)
        (
            f"The condition pages on croup ({DEMO_NOTICE}) say it is usually viral.",
            "The condition pages on croup say it is usually viral.",
        ),
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


QUESTION = "Find patient Sarah Okafor, review her record, and find literature on levothyroxine."


@pytest.mark.parametrize(
    ("draft", "shown"),
    [
        # three-04: the answer opened with the request, word for word
        (f"{QUESTION}\n\n**Key findings:** TSH 2.1.", "**Key findings:** TSH 2.1."),
        (f"**{QUESTION[:-1]}:**\nTSH 2.1.", "TSH 2.1."),
        # a sentence that merely contains the request's words stays, as does an answer
        # that is nothing else
        (f"You asked: {QUESTION}\nTSH 2.1.", f"You asked: {QUESTION}\nTSH 2.1."),
        (QUESTION, QUESTION),
    ],
)
def test_a_line_only_repeating_the_question_is_not_shown(draft: str, shown: str) -> None:
    assert clean_answer(draft, {}, question=QUESTION) == shown


def test_a_short_question_may_be_answered_in_its_own_words() -> None:
    assert clean_answer("Hello.", {}, question="Hello") == "Hello."
