"""Speed of the paths that run without the LLM: input extraction and embedding routing.

Run with ``python -m experiments.bench_fast_paths``. Times what INPUT_ASSEMBLY does for a
text-only message — patient-ID patterns, drug-dictionary matching (106k names), action
verbs; the target is under 10 ms — and one prediction of each embedding routing
classifier (intent, tool, result), on the design's test queries after the one-off loads.
Prints the median and 95th percentile.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from docgemma.agent.entities import action_verbs, drug_dictionary, patient_ids
from docgemma.routing.embedding import load_classifier

QUERIES = (
    "Hello, how are you?",
    "What is hypertension?",
    "Check FDA warnings for dofetilide",
    "Find patient Maria Garcia and check her chart",
    "Check interactions between warfarin, aspirin, and ibuprofen",
    "Search for patient James Wilson",
    "Prescribe metformin 500mg for abc-123",
    "Write a note for patient f47ac10b-58cc-4372-a567-0e02b2c3d479 about the Lipitor switch",
    "Find patient John Smith, check his chart, and verify metformin safety " * 20,
)
TARGET_MS = 10.0


def extract(query: str) -> dict[str, list[str]]:
    return {
        "patient_ids": patient_ids(query),
        "drug_mentions": drug_dictionary().find(query),
        "action_verbs": action_verbs(query),
    }


def timed_ms(fn: Callable[[str], object], repeats: int, fresh: bool = False) -> list[float]:
    """Per-call times; ``fresh`` makes every text new, so the embedder's memory of recent
    texts cannot answer (a turn's first classification is always of a new text)."""
    samples = []
    for i in range(repeats):
        for query in QUERIES:
            text = f"{query} (case {i})" if fresh else query
            t0 = time.perf_counter()
            fn(text)
            samples.append((time.perf_counter() - t0) * 1000)
    return sorted(samples)


def summary(name: str, samples_ms: list[float], target_ms: float | None = None) -> str:
    median = statistics.median(samples_ms)
    p95 = samples_ms[int(0.95 * (len(samples_ms) - 1))]
    line = f"{name}: {len(samples_ms)} calls, median {median:.3f} ms, p95 {p95:.3f} ms"
    if target_ms is not None:
        line += f" ({'meets' if p95 < target_ms else 'MISSES'} the {target_ms:.0f} ms target)"
    return line


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    drug_dictionary()
    classifiers = {task: load_classifier(task) for task in ("intent", "tool", "result")}
    print(f"one-off loads (dictionary, 3 classifiers): {time.perf_counter() - start:.2f} s")
    print(summary("input extraction", timed_ms(extract, args.repeats), TARGET_MS))
    for task, classifier in classifiers.items():
        for fresh, kind in ((True, "new text"), (False, "text seen before")):
            samples = timed_ms(classifier.predict, max(1, args.repeats // 10), fresh=fresh)
            print(summary(f"{task} classifier, {kind}", samples))


if __name__ == "__main__":
    main()
