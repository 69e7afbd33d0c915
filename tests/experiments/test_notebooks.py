"""The notebooks are what the generator writes, and they run top to bottom on the real model;
each suite notebook's run folder is the suite's one real-model run (``suite_folders.py``)."""

from __future__ import annotations

import base64
import json
import sys

import nbformat
import pandas as pd
import pytest
from suite_folders import check_folder

from experiments.notebooks import NOTEBOOK_DIR, all_notebooks, execute, with_parameters
from experiments.runner import run_and_save

SUITE_BOOKS = [n for n in all_notebooks() if "compare" not in n and "api_client" not in n]


@pytest.fixture(scope="module")
def python3_kernel():
    """A ``python3`` kernel spec for nbclient; installed into the venv if it is missing."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        from ipykernel.kernelspec import install

        install(prefix=sys.prefix)
    return "python3"


def _outputs(book) -> list[dict]:
    return [
        out for cell in book.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
    ]


def test_checked_in_notebooks_match_the_generator():
    for name, book in all_notebooks().items():
        saved = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
        assert [c.source for c in saved.cells] == [c.source for c in book.cells], (
            f"regenerate {name}"
        )


def test_parameters_cell_is_required():
    book = all_notebooks()[SUITE_BOOKS[0]]
    book.cells = [c for c in book.cells if "parameters" not in c.metadata.get("tags", [])]
    with pytest.raises(ValueError, match="parameters"):
        with_parameters(book, N=1)


def figures_shown(outputs: list[dict]) -> list[dict]:
    """The figure outputs; each is interactive and carries a PNG copy in the same output,
    for a reader whose notebook viewer runs no JavaScript."""
    figures = [o for o in outputs if "application/vnd.plotly.v1+json" in o.get("data", {})]
    for figure in figures:
        assert base64.b64decode(figure["data"]["image/png"])[:4] == b"\x89PNG"
    return figures


@pytest.mark.real_model
@pytest.mark.parametrize("name", SUITE_BOOKS)
def test_suite_notebook_runs(name, python3_kernel, tmp_path, monkeypatch):
    # the kernel inherits the environment: the fast profile, as the other pipeline tests use
    monkeypatch.setenv("DOCGEMMA_MODEL", "gemma3-270m")
    fewer = (
        {"STRATEGIES": ["baseline"]} if "tool_selection" in name else {}
    )  # its prompts are the longest
    book = with_parameters(
        all_notebooks()[name], N=1, TOKEN_CAP=16, RESULTS_DIR=str(tmp_path), **fewer
    )
    ran = execute(book)
    outputs = _outputs(ran)
    assert not [o for o in outputs if o.get("output_type") == "error"]
    tables = [o for o in outputs if "text/html" in o.get("data", {})]
    assert any("Seed (MedGemma 1.5 4B)" in o["data"]["text/html"] for o in tables)
    assert figures_shown(outputs)
    [results] = tmp_path.glob("*/*/results.parquet")
    check_folder(results.parent, token_cap=16)  # the suite's real run, as saved


@pytest.mark.real_model
def test_compare_notebook_runs(real_llm, python3_kernel, tmp_path):
    for n in (2, 4):
        run_and_save(
            "classifiers",
            {"n": n, "strategies": ["embedding_intent"], "results_dir": tmp_path},
            real_llm,
        )
    book = with_parameters(all_notebooks()["06_compare_runs.ipynb"], RESULTS_DIR=str(tmp_path))
    outputs = _outputs(execute(book))
    html = "".join(o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {}))
    assert "embedding_intent" in html and "ours A" in html and "ours B" in html


@pytest.mark.real_model
def test_api_notebook_talks_to_a_real_server(python3_kernel):
    """The client notebook against ``python -m docgemma.api`` on the tiny model."""
    outputs = _outputs(execute(all_notebooks()["07_api_client.ipynb"]))
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(str(o.get("text", "")) + str(o.get("data", {})) for o in outputs)
    assert "fhir_reachable" in text and "input_assembly" in text  # health, then the steps
    assert "confidence:" in text and "Urgency:" in text and "never part of the history" in text


def _text(outputs: list[dict]) -> str:
    return "".join(
        str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in outputs
    )


def _eval_run(root, profile: str, stamp: str, frame) -> None:
    folder = root / "eval" / f"{profile}-{stamp}"
    folder.mkdir(parents=True)
    frame.to_parquet(folder / "results.parquet", index=False)
    manifest = {"model": profile, "written_at": f"2026-01-01T{stamp}:00+00:00"}
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_profiles_notebook_compares_only_shared_cases_at_their_latest_run(python3_kernel, tmp_path):
    """Profile B measured case 3 twice (the re-run counts); case 4 only A measured."""
    committed = sorted((NOTEBOOK_DIR.parent / "experiments/results/eval").glob("*/results.parquet"))
    base = pd.read_parquet(committed[0]).head(4).assign(route_ok=True, latency_s=1.0)
    _eval_run(tmp_path, "profile-a", "01:00", base)
    b = base.head(3).assign(route_ok=[True, False, False])
    _eval_run(tmp_path, "profile-b", "02:00", b)
    _eval_run(tmp_path, "profile-b", "03:00", b.tail(1).assign(route_ok=True))
    book = with_parameters(all_notebooks()["08_compare_profiles.ipynb"], RESULTS_DIR=str(tmp_path))
    outputs = _outputs(execute(book))
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = _text(outputs)
    assert "3 cases measured on every profile: profile-a, profile-b" in text
    plain = [o.get("data", {}).get("text/plain", "") for o in outputs]
    table = next(t for t in plain if "latency_median_s" in t)
    rows = {line.split()[0]: line.split() for line in table.splitlines()[2:4]}
    assert rows["profile-a"][2] == "1.000000" and rows["profile-b"][2] == "0.666667"
    assert "no node-row run saved" in text
    assert len(figures_shown(outputs)) == 2


def test_profiles_notebook_runs_on_the_committed_runs(python3_kernel):
    outputs = _outputs(execute(all_notebooks()["08_compare_profiles.ipynb"]))
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = _text(outputs)
    for profile in ("gemma3-270m", "qwen2.5-0.5b", "qwen2.5-1.5b"):
        assert profile in text.split("cases measured on every profile:")[1].splitlines()[0]
    assert figures_shown(outputs)
