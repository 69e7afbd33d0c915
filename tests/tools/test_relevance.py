"""The relevance check: relevant passages kept, off-topic dropped, none left → "not covered"."""

from __future__ import annotations

import numpy as np
import pytest

from docgemma.tools.base import ToolErrorType
from docgemma.tools.relevance import (
    Verdict,
    asked_forms,
    judge,
    not_covered,
    relevant_indexes,
    word_weights,
)


class AxisEmbedder:
    """Each text points along the axis of the first topic word it names: cosine 1 on the
    same topic, 0 across topics, so the tests choose what is close."""

    dim = 4
    name = "axes"
    TOPICS = ("thrombolysis", "gout", "clamp", "croup")

    def embed(self, texts):
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for n, text in enumerate(texts):
            hit = next((i for i, t in enumerate(self.TOPICS) if t in text.lower()), 0)
            rows[n, hit] = 1.0
        return rows


def test_the_forms_of_a_question_are_its_message_then_the_tool_query_once_each():
    assert asked_forms("  Is there  gout? ", "gout", "GOUT", None, "") == ["Is there gout?", "gout"]


def test_a_passage_on_the_question_is_kept_and_an_off_topic_one_dropped(settings):
    asked = ["catheter-directed thrombolysis in massive pulmonary embolism"]
    passages = [
        "Catheter-directed thrombolysis for massive pulmonary embolism: a cohort study.",
        "Sequence of clamp application during open abdominal aortic aneurysm surgery.",
    ]
    verdicts = judge(asked, passages, AxisEmbedder())
    assert verdicts[0].relevant(settings.relevance_threshold, settings.relevance_coverage)
    assert not verdicts[1].relevant(settings.relevance_threshold, settings.relevance_coverage)
    assert verdicts[1].coverage < verdicts[0].coverage


def test_a_close_passage_without_the_question_s_rare_words_is_dropped(settings):
    """Same embedding direction, but none of the drug or condition named: not a source."""
    asked = ["thrombolysis with alteplase for pulmonary embolism"]
    (verdict,) = judge(asked, ["thrombolysis"], AxisEmbedder())
    assert verdict.similarity == 1.0
    assert verdict.coverage < settings.relevance_coverage


def test_rare_words_weigh_more_than_common_ones():
    weight = word_weights()
    assert weight("altep") > weight("heart") * 2  # a drug, and a word of every cardiology text


def test_without_a_question_nothing_is_relevant():
    assert judge([], ["gout is a form of arthritis"]) == [Verdict(0.0, 0.0)]
    assert judge(["gout"], []) == []


def test_nothing_relevant_is_a_plain_not_covered_result():
    outcome = not_covered("Medical Literature", "“tax returns”", "the offline literature index")
    assert outcome.error_type is ToolErrorType.NOT_FOUND and not outcome.sources
    assert outcome.formatted == (
        "The available sources do not cover “tax returns”: nothing found in the offline "
        "literature index is about it."
    )


def test_relevant_indexes_uses_the_settings_thresholds(settings, monkeypatch):
    monkeypatch.setattr(
        "docgemma.tools.relevance.judge",
        lambda asked, passages: [Verdict(0.9, 0.9), Verdict(0.9, 0.0), Verdict(0.1, 0.9)],
    )
    kept = relevant_indexes(settings, ["q"], ["a", "b", "c"])
    assert [n for n, _ in kept] == [0]


@pytest.mark.parametrize(
    ("question", "passage", "relevant"),
    [
        (
            "What does the evidence say about SGLT2 inhibitors in heart failure?",
            "Empagliflozin, an SGLT2 inhibitor, reduced hospitalisation for heart failure in "
            "patients with reduced ejection fraction.",
            True,
        ),
        (
            "What does the evidence say about SGLT2 inhibitors in heart failure?",
            "Is halofantrine ototoxic?",
            False,
        ),
        (
            "Catheter-directed thrombolysis versus surgical embolectomy in massive PE",
            "Sequence of clamp application during open abdominal aortic aneurysm surgery.",
            False,
        ),
    ],
)
def test_the_real_embedder_keeps_the_right_passage(settings, question, passage, relevant):
    """On all-MiniLM-L6-v2 itself, with the thresholds measured on the dev questions."""
    (verdict,) = judge(asked_forms(question), [passage])
    assert verdict.relevant(settings.relevance_threshold, settings.relevance_coverage) is relevant
