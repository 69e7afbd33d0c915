"""The real all-MiniLM-L6-v2 ONNX embedder: shapes, normalisation, meaning, edge cases."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from docgemma.embed import Embedder, MiniLMEmbedder, get_embedder


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return get_embedder()


def test_satisfies_protocol_and_is_a_singleton(embedder: MiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert get_embedder() is embedder
    assert embedder.dim == 384


def test_rows_are_unit_length_float32(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed(["metformin dosing in CKD", "hello", "a" * 10])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_similar_sentences_score_higher_than_unrelated(embedder: MiniLMEmbedder) -> None:
    anchor, paraphrase, unrelated = embedder.embed(
        [
            "What are the FDA boxed warnings for dofetilide?",
            "Show me the black box warning on dofetilide",
            "The football match was postponed because of rain",
        ]
    )
    assert anchor @ paraphrase > 0.6
    assert anchor @ paraphrase > anchor @ unrelated + 0.4


def test_batching_does_not_change_results(embedder: MiniLMEmbedder) -> None:
    texts = [f"patient {i} has a cough lasting {i} days" for i in range(40)]
    small = MiniLMEmbedder(batch_size=7).embed(texts)
    whole = embedder.embed(texts)
    np.testing.assert_allclose(small, whole, atol=1e-4)
    # padding a short text next to a long one must not move its vector
    alone = embedder.embed(["warfarin"])[0]
    padded = embedder.embed(["warfarin", "word " * 200])[0]
    np.testing.assert_allclose(alone, padded, atol=1e-4)


def test_empty_inputs(embedder: MiniLMEmbedder) -> None:
    assert embedder.embed([]).shape == (0, 384)
    empty = embedder.embed([""])
    assert empty.shape == (1, 384)
    assert np.isfinite(empty).all()


def test_long_text_is_truncated_not_rejected(embedder: MiniLMEmbedder) -> None:
    head = "Amiodarone can cause pulmonary toxicity and thyroid dysfunction. " * 40
    vectors = embedder.embed([head + "liver injury " * 3000, head + "corneal deposits " * 3000])
    assert vectors.shape == (2, 384)
    # only the first 256 tokens count, and those are the same in both texts
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-5)
    assert embedder.embed(["Amiodarone can cause pulmonary toxicity."])[0] @ vectors[0] > 0.5


def test_a_single_string_is_refused(embedder: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed("not a list")  # type: ignore[arg-type]


def test_concurrent_calls_are_consistent(embedder: MiniLMEmbedder) -> None:
    texts = ["chest pain radiating to the left arm", "rash after penicillin"]
    expected = embedder.embed(texts)
    results: list[np.ndarray] = []

    def work() -> None:
        results.append(embedder.embed(texts))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for r in results:
        np.testing.assert_allclose(r, expected, atol=1e-5)


def test_a_text_seen_again_is_not_re_embedded(embedder: MiniLMEmbedder, monkeypatch) -> None:
    text = "Check FDA warnings for dofetilide before starting it today"
    first = embedder.embed([text])
    computed = []
    real = embedder._embed_batch
    monkeypatch.setattr(embedder, "_embed_batch", lambda b: computed.append(b) or real(b))
    again = embedder.embed([text])
    np.testing.assert_array_equal(first, again)
    again[0, 0] = 42.0  # the caller's copy, not the remembered row
    assert embedder.embed([text])[0, 0] != 42.0
    assert computed == []
    embedder.embed(["a text not seen before"])
    assert len(computed) == 1


def test_time_spent_embedding_is_counted_and_a_remembered_text_costs_none_until_forgotten(
    embedder: MiniLMEmbedder,
) -> None:
    """The benchmark subtracts this from a turn's wall time to isolate orchestration."""
    before = embedder.busy_s
    embedder.embed(["How long does the embedding of this sentence take?"])
    spent = embedder.busy_s
    assert spent > before
    embedder.embed(["How long does the embedding of this sentence take?"])
    assert embedder.busy_s == spent
    embedder.forget()
    embedder.embed(["How long does the embedding of this sentence take?"])
    assert embedder.busy_s > spent
