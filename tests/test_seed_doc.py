"""The design documents' feature table: generated from ``data/seed_features.yaml``, up to date
in ``docs/design.md``, naming only files that exist, every deviation with its reason."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from docgemma import seed_doc
from docgemma.seed_doc import BEGIN, END, Feature, FeatureList, Status


def test_the_page_is_up_to_date() -> None:
    assert seed_doc.main(["--check"]) == 0, "run python -m docgemma.seed_doc"


def test_every_seed_is_audited_and_every_path_exists() -> None:
    features = seed_doc.load()
    assert set(features.seeds) == {"000", "001", "002", "003", "004"}
    for seed in features.seeds:
        statuses = {f.status for f in features.features if f.seed == seed}
        assert Status.IMPLEMENTED in statuses, seed
    assert seed_doc.missing_paths(features) == []


def test_a_deviation_needs_a_reason_and_an_implementation_none() -> None:
    base = {"seed": "000", "group": "g", "feature": "f", "where": ["docs"]}
    with pytest.raises(ValidationError, match="without saying why"):
        Feature(**base, status="deviating")
    with pytest.raises(ValidationError, match="use `note`"):
        Feature(**base, status="implemented", why="because")
    with pytest.raises(ValidationError, match="unlisted seeds"):
        FeatureList(seeds={"001": "x"}, features=[Feature(**base, status="implemented")])


def test_render_replaces_only_the_generated_part(tmp_path) -> None:
    features = FeatureList(
        seeds={"000": "Triage"},
        features=[
            Feature(
                seed="000",
                group="A|B",
                feature="x",
                status="deviating",
                where=["docs"],
                why="not yet",
            )
        ],
    )
    page = f"intro\n\n{BEGIN}\nstale\n{END}\n\nafter\n"
    text = seed_doc.render(page, features)
    assert text.startswith("intro\n\n") and text.endswith(f"{END}\n\nafter\n")
    assert "stale" not in text
    assert "| A\\|B | x | **deviating** | `docs` | not yet |" in text
    assert "| seed 000 | Triage | 0 | 1 |" in text
    assert seed_doc.render(text, features) == text
    assert seed_doc.missing_paths(features, tmp_path) == ["docs"]
