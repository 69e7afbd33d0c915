"""The evaluation's dev/test split, and the scan that keeps the test split unseen.

``dev`` cases may be read, quoted and tuned on; ``test`` cases are only run and reported.
Every case and session records its split in ``data/eval/`` (a ``split`` field), so the
split never depends on when or where it is computed. ``stratified_split`` is how the
original cases were divided: within each category, cases are ordered by a hash of their id
(deterministic, independent of file order) and the first third go to ``test`` — except
cases that code, prompts, word lists or tests already name, which the project has seen
and so stay in ``dev``. Cases written for the test split are ``test`` from the start; cases
written later to tune on (without a specialty) are ``dev``.

``repository_mentions`` is the guard: the places in the project's code and data a case id
or question text appears. A test-split case named anywhere there is a test case that can
be tuned on, and the guard test fails.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal

Split = Literal["dev", "test"]
ROOT = Path(__file__).resolve().parents[2]
TEST_FRACTION = 1 / 3
SCANNED = (
    "docgemma",
    "experiments",
    "tests",
    "app.py",
    "data/routing",
    "data/experiments",
    "data/grounding",
    "data/triage",
    "data/profiles.yaml",
)
"""What the project's behaviour is built from: code, prompts, word lists, training examples
and tests. The evaluation data (``data/eval``) and results are what the scan protects."""
SKIPPED_DIRS = {"results", "__pycache__", ".pytest_cache", "node_modules"}
SCANNED_SUFFIXES = {".py", ".txt", ".json", ".jsonl", ".yaml", ".yml", ".md", ".toml", ".j2"}
MIN_TEXT_CHARS = 20
"""Shorter texts ("thanks", ".") are too common to be evidence of anything."""


def _order(case_id: str) -> str:
    return hashlib.sha256(case_id.encode("utf-8")).hexdigest()


def stratified_split(
    categories: dict[str, str], seen: Iterable[str] = (), fraction: float = TEST_FRACTION
) -> dict[str, Split]:
    """``{case id: category}`` → ``{case id: split}``: per category, ``round(n × fraction)``
    unseen cases (by hash order) to ``test``, the rest to ``dev``."""
    seen = set(seen)
    by_category: dict[str, list[str]] = defaultdict(list)
    for case_id, category in categories.items():
        by_category[category].append(case_id)
    split: dict[str, Split] = {}
    for ids in by_category.values():
        wanted = round(len(ids) * fraction)
        unseen = sorted((i for i in ids if i not in seen), key=_order)
        chosen = set(unseen[:wanted])
        split.update({i: "test" if i in chosen else "dev" for i in ids})
    return split


def folded(text: str) -> str:
    """Lower case with runs of whitespace as single spaces."""
    return " ".join(text.lower().split())


def scanned_files(
    root: Path = ROOT, exclude: Iterable[Path] = (), roots: Iterable[str] = SCANNED
) -> Iterator[Path]:
    skipped = {p.resolve() for p in exclude}
    for name in roots:
        base = root / name
        paths = [base] if base.is_file() else sorted(base.rglob("*")) if base.exists() else []
        for path in paths:
            if (
                path.is_file()
                and path.suffix in SCANNED_SUFFIXES
                and not SKIPPED_DIRS & set(path.relative_to(root).parts)
                and path.resolve() not in skipped
            ):
                yield path


def repository_texts(root: Path = ROOT, exclude: Iterable[Path] = ()) -> dict[str, str]:
    """Relative path → folded text of every scanned file."""
    texts = {}
    for path in scanned_files(root, exclude):
        try:
            texts[str(path.relative_to(root))] = folded(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            continue
    return texts


def _any_of(words: Iterable[str], *, whole_ids: bool) -> re.Pattern[str] | None:
    """One pattern for all the ids (or texts), longest first: each file is searched once,
    not once per case."""
    body = "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))
    if not body:
        return None
    return re.compile(rf"(?<![\w-])(?:{body})(?![\w-])" if whole_ids else body)


def repository_mentions(
    ids: Iterable[str], questions: Iterable[str], texts: dict[str, str]
) -> dict[str, list[str]]:
    """Each id or question (long enough to count) → the files that contain it."""
    by_id = {case_id.lower(): case_id for case_id in ids}
    by_text = {folded(q): q for q in questions if len(folded(q)) >= MIN_TEXT_CHARS}
    found: dict[str, list[str]] = {}
    for named, pattern in (
        (by_id, _any_of(by_id, whole_ids=True)),
        (by_text, _any_of(by_text, whole_ids=False)),
    ):
        if pattern is None:
            continue
        for path, text in texts.items():
            for hit in dict.fromkeys(pattern.findall(text)):
                found.setdefault(named[hit], []).append(path)
    return found
