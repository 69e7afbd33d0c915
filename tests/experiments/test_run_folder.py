"""What a run folder records about the checkout it ran from."""

from __future__ import annotations

from pathlib import Path
from uuid import uuid4

from experiments.run_folder import git_revision


def test_an_earlier_runs_output_does_not_mark_the_checkout_dirty():
    """Run folders are outputs, not code: the revision a run records ignores them."""
    before = git_revision()
    results = Path(__file__).resolve().parents[2] / "experiments" / "results"
    probe = results / "triage" / f"probe-{uuid4().hex}"  # a suite whose runs are committed
    probe.mkdir(parents=True)
    try:
        (probe / "report.md").write_text("an earlier run\n")
        assert git_revision() == before
    finally:
        (probe / "report.md").unlink()
        probe.rmdir()


def test_a_changed_file_marks_it_dirty():
    before = git_revision()
    probe = Path(__file__).resolve().parents[2] / "experiments" / f"probe_{uuid4().hex}.py"
    probe.write_text("")
    try:
        assert git_revision() == f"{(before or '').removesuffix('+dirty')}+dirty"
    finally:
        probe.unlink()
