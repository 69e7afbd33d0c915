"""Can't-miss rows by resemblance: the nearest recorded presentation's rows, for a described
case whose words fire them in part; the examples file built from the dev cases alone."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from docgemma.agent import similar_presentations as similar
from docgemma.agent.cant_miss import reasoning_detail, recognise
from docgemma.agent.similar_presentations import (
    SIMILAR_AT,
    Examples,
    load_examples,
    resemblance,
)
from experiments.evaluation.cant_miss_examples import labelled
from experiments.evaluation.cases import load_eval_cases

# nothing in these fires a row in full; "clammy" and "grey" are words of the infarct row
GREY_AND_CLAMMY = "58M, feels grey and clammy since lunch, otherwise fine. Plan?"
NEITHER = "58M, not clammy, not grey, otherwise fine. Plan?"


class _Fixed:
    """An embedder whose every text is the same unit vector."""

    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector
        self.calls = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        return np.tile(self.vector, (len(texts), 1))


def _unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


@pytest.fixture
def two_examples(monkeypatch: pytest.MonkeyPatch) -> _Fixed:
    """A presentation with two rows along the first axis, a look-alike along the second;
    the question's vector is near the presentation (cosine 0.8)."""
    examples = Examples(
        ids=("case-a", "case-b"),
        rows=(("ascending_weakness", "atypical_acs"), ()),
        vectors=np.stack([_unit(1, 0, 0), _unit(0, 1, 0)]),
    )
    embedder = _Fixed(_unit(0.8, 0.0, 0.6))
    monkeypatch.setattr(similar, "load_examples", lambda: examples)
    monkeypatch.setattr(similar, "get_embedder", lambda: embedder)
    return embedder


def test_only_the_rows_the_case_says_something_of_are_added(two_examples: _Fixed) -> None:
    found = resemblance(GREY_AND_CLAMMY)
    assert found is not None
    assert found.rows == (("atypical_acs", "clammy"),)  # nothing of weakness is said
    assert found.similarity == pytest.approx(0.8)
    assert resemblance(NEITHER) is None  # its words are denied


def test_a_message_that_describes_no_patient_is_not_compared(two_examples: _Fixed) -> None:
    assert resemblance("How does metformin bring blood glucose down?") is None
    assert two_examples.calls == 0


def test_the_nearest_example_must_be_close_enough(
    two_examples: _Fixed, monkeypatch: pytest.MonkeyPatch
) -> None:
    far = SIMILAR_AT - 0.05
    two_examples.vector = _unit(far, 0.0, float(np.sqrt(1 - far**2)))
    assert resemblance(GREY_AND_CLAMMY) is None


def test_a_case_nearest_to_a_look_alike_resembles_nothing(two_examples: _Fixed) -> None:
    two_examples.vector = _unit(0.6, 0.8, 0.0)
    assert resemblance(GREY_AND_CLAMMY) is None


def test_an_example_left_out_is_not_found(two_examples: _Fixed) -> None:
    assert resemblance(GREY_AND_CLAMMY, leave_out="case-a") is None


def test_resembled_rows_follow_the_fired_ones_and_say_why(
    two_examples: _Fixed, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        similar,
        "load_examples",
        lambda: Examples(
            ids=("case-a",),
            rows=(("thunderclap_headache", "atypical_acs"),),
            vectors=np.stack([_unit(1, 0, 0)]),
        ),
    )
    question = "58M, sudden worst headache of his life, grey and clammy. Differential?"
    found = recognise(question)
    assert [f["rule_id"] for f in found] == ["thunderclap_headache", "atypical_acs"]
    assert "similarity" not in found[0]  # fired by its words, not added again
    assert found[1]["similarity"] == 0.8 and found[1]["evidence"] == ["clammy"]
    detail = reasoning_detail(found).splitlines()
    assert "matched" in detail[0]
    assert "resembles a recorded presentation of it, similarity 0.8, and says “clammy”" in detail[1]


def test_a_failing_embedder_leaves_the_table_s_words(
    two_examples: _Fixed, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(texts: list[str]) -> np.ndarray:
        raise RuntimeError("onnxruntime failed")

    monkeypatch.setattr(two_examples, "embed", broken)
    question = "58M, sudden worst headache of his life, grey and clammy. Differential?"
    with caplog.at_level(logging.ERROR):
        assert [f["rule_id"] for f in recognise(question)] == ["thunderclap_headache"]
    assert "no resemblance checked" in caplog.text


@pytest.mark.parametrize(
    ("name", "arrays"),
    [
        ("none.npz", None),
        ("unknown_row.npz", {"ids": ["a"], "rows": ["no_such_row"], "vectors": np.ones((1, 384))}),
        (
            "empty.npz",
            {
                "ids": np.array([], dtype=str),
                "rows": np.array([], dtype=str),
                "vectors": np.ones((0, 384)),
            },
        ),
        ("wrong_size.npz", {"ids": ["a"], "rows": ["atypical_acs"], "vectors": np.ones((1, 3))}),
    ],
)
def test_an_examples_file_that_cannot_be_used_turns_resemblance_off(
    tmp_path, caplog, name: str, arrays: dict | None
) -> None:
    path = tmp_path / name
    if arrays is not None:
        np.savez(path, **{k: np.asarray(v) for k, v in arrays.items()})
    with caplog.at_level(logging.WARNING):
        assert load_examples.__wrapped__(path) is None
    assert "resemblance is off" in caplog.text


def test_the_loaded_vectors_cannot_be_changed() -> None:
    examples = load_examples()
    assert examples is not None
    with pytest.raises(ValueError):
        examples.vectors[0, 0] = 1.0


def test_the_examples_file_is_built_from_the_dev_cases_and_the_table_as_they_are() -> None:
    """Fails after a change to the table or the dev cases until
    ``python -m experiments.evaluation.cant_miss_examples`` is run again."""
    examples = load_examples()
    assert examples is not None
    built = labelled(load_eval_cases())
    assert list(examples.ids) == [case_id for case_id, _, _ in built]
    assert [" ".join(rows) for rows in examples.rows] == [rows for _, _, rows in built]


def test_no_test_or_sealed_case_is_an_example() -> None:
    examples = load_examples()
    assert examples is not None
    held_out = {c.id for c in load_eval_cases() if c.split == "test" or c.sealed}
    assert held_out and not held_out & set(examples.ids)


def test_the_stored_vectors_are_the_embedder_s() -> None:
    from docgemma.embed.minilm import get_embedder

    examples = load_examples()
    assert examples is not None
    questions = {c.id: c.query for c in load_eval_cases()}
    picked = [0, len(examples.ids) // 2, len(examples.ids) - 1]
    fresh = get_embedder().embed([questions[examples.ids[i]] for i in picked])
    assert np.allclose(fresh, examples.vectors[picked], atol=2e-3)


def test_a_case_in_words_the_table_lacks_gets_the_row_it_resembles() -> None:
    """The real examples and embedder: spots that "stay when pressed" and a testis pain
    that woke him fire no row by their words, and the rows they resemble by the words
    they share with them; a gym strain of the arm resembles nothing it says."""
    for question, row in [
        (
            "3yo girl, fever 39.4 for 2 days, now a few purple spots on her legs that stay "
            "when pressed, sleepy. Viral?",
            "meningococcal_rash",
        ),
        (
            "19M, 4 hours of left testicular pain that woke him, nauseated, testis high and "
            "tender. Epididymitis?",
            "testicular_pain",
        ),
    ]:
        found = recognise(question)
        assert [f["rule_id"] for f in found] == [row]
        assert found[0]["similarity"] >= SIMILAR_AT and found[0]["evidence"]
    strain = "28F, aching in her left arm after the gym yesterday, no sweating, full range. Strain?"
    assert recognise(strain) == []
