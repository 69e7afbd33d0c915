"""The notebooks under ``notebooks/``, generated from one place so they stay consistent.

Each suite notebook runs a small subset on a backend (the embedded model by default)
and shows the tidy table, the comparison with the design studies and the figures inline; one
notebook loads two saved run folders and compares them, another compares the model
profiles' committed evaluation runs (``experiments.notebook_profiles``). The first code cell of
each notebook is tagged ``parameters`` and ``with_parameters`` rewrites it, which is
how the tests run them on a temporary results folder.

Regenerate with ``python notebooks/build_notebooks.py`` (add ``--execute`` to store outputs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from experiments.notebook_cells import FIND_ROOT, notebook, parameter_cell, parameters
from experiments.notebook_profiles import profiles_notebook

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"

SUITE_NOTEBOOKS: dict[str, dict[str, Any]] = {
    "thinking": {
        "title": "Thinking and budget forcing",
        "n": 2,
        "strategies": ["thinking_off", "min_wait_1", "max_256"],
        "token_cap": 32,
        "extra": [],
    },
    "tool_selection": {
        "title": "Tool selection strategies",
        "n": 2,
        "strategies": ["baseline", "desc_names"],
        "token_cap": None,
        "extra": [],
    },
    "routing": {
        "title": "Routing decisions: classify, don't decide",
        "n": 2,
        "strategies": ["result_quality", "error_recovery"],
        "token_cap": None,
        "extra": [
            (
                "Confusion matrix of the result-quality classification (rows: expected).",
                "from experiments.suites.routing import confusion_matrix\n\n"
                "confusion_matrix(frame)",
            )
        ],
    },
    "synthesis": {
        "title": "Synthesis of the clinician-facing answer",
        "n": 2,
        "strategies": ["temperature_0.5", "errors_formatted"],
        "token_cap": 64,
        "extra": [],
    },
    "classifiers": {
        "title": "LLM versus embedding classifier",
        "n": 3,
        "strategies": ["llm_intent", "embedding_intent"],
        "token_cap": None,
        "extra": [
            (
                "Accuracy and coverage of the embedding classifier by confidence threshold.",
                "from experiments.suites.classifiers import calibration\n\ncalibration(frame)",
            )
        ],
    },
}
ORDER = ["thinking", "tool_selection", "routing", "synthesis", "classifiers"]


def suite_notebook(suite: str) -> nbformat.NotebookNode:
    spec = SUITE_NOTEBOOKS[suite]
    cells = [
        new_markdown_cell(
            f"# {spec['title']}\n\nA small subset of the `{suite}` suite "
            f"({spec['n']} cases per strategy) on the backend named below — by default the "
            "embedded model profile the app runs (Qwen2.5-Coder 1.5B Instruct unless "
            "`DOCGEMMA_MODEL` names another), whose answers are far below MedGemma's: this "
            "notebook shows the harness, not MedGemma's numbers. For the full "
            f"suite run `python -m experiments run {suite} --backend <name>`."
        ),
        parameter_cell(
            parameters(
                BACKEND="llamacpp",
                N=spec["n"],
                STRATEGIES=spec["strategies"],
                TOKEN_CAP=spec["token_cap"],
                RESULTS_DIR=None,
            )
        ),
        new_code_cell(f"""from pathlib import Path

from docgemma.config import Settings
from docgemma.llm.registry import create_backend
from experiments.suites import {suite} as suite
from experiments.runner import run_and_save, run_sync

{FIND_ROOT}
backend = create_backend(Settings(backend=BACKEND))
config = {{"n": N, "strategies": STRATEGIES, "token_cap": TOKEN_CAP, "results_dir": RESULTS_DIR}}
out = run_and_save(suite.SUITE, config, backend)
frame = out.frame
print(f"{{len(frame)}} trials on {{backend.model}}; saved to {{out.folder}}")"""),
        new_markdown_cell(
            "One tidy row per trial (prompts and raw responses are in the saved results)."
        ),
        new_code_cell('frame.drop(columns=["prompt"]).head(10)'),
        new_markdown_cell("Ours beside the seed's MedGemma 1.5 4B figures, with 95% intervals."),
        new_code_cell("""from experiments.report import comparison_table, summarize

summary = summarize(frame, suite.PRIMARY_METRICS, getattr(suite, "DERIVED", None))
comparison_table(summary, backend.model)"""),
    ]
    for text, code in spec["extra"]:
        cells += [new_markdown_cell(text), new_code_cell(code)]
    cells += [
        new_markdown_cell("Figures (also saved as HTML in the run folder)."),
        new_code_cell("""from experiments.figures import show, suite_figures

for figure in suite_figures(frame, suite).values():
    show(figure)"""),
        new_code_cell("run_sync(backend.aclose())"),
    ]
    return notebook(cells)


def compare_notebook() -> nbformat.NotebookNode:
    cells = [
        new_markdown_cell(
            "# Compare two saved runs\n\nLoads two run folders written by "
            "`python -m experiments run ...` "
            "(by default the two most recent of `SUITE`) and puts their metrics side by side. "
            "Typical use: the embedded model against MedGemma served by vLLM, or one backend "
            "before and after a change."
        ),
        parameter_cell(parameters(SUITE="classifiers", RUN_A=None, RUN_B=None, RESULTS_DIR=None)),
        new_code_cell(f"""from pathlib import Path

import pandas as pd

from experiments.report import summarize
from experiments.run_folder import load_run
from experiments.suites import suite_module

{FIND_ROOT}
if RUN_A is None or RUN_B is None:
    runs = sorted(p for p in (RESULTS_DIR / SUITE).iterdir() if (p / "manifest.json").exists())
    RUN_A, RUN_B = runs[-2], runs[-1]
(frame_a, manifest_a), (frame_b, manifest_b) = load_run(RUN_A), load_run(RUN_B)
module = suite_module(manifest_a["suite"])
pd.DataFrame({{"A": manifest_a["config"], "B": manifest_b["config"]}}).assign(
    same=lambda t: t["A"].astype(str) == t["B"].astype(str))"""),
        new_markdown_cell("Metrics of both runs on the strategies and metrics they share."),
        new_code_cell("""def table(frame, manifest, tag):
    summary = summarize(frame, module.PRIMARY_METRICS, getattr(module, "DERIVED", None))
    columns = summary.set_index(["strategy", "metric"])[["ours", "n", "latency_median_s"]]
    return columns.add_suffix(f" {tag}: {manifest['model']}")

side_by_side = table(frame_a, manifest_a, "A").join(table(frame_b, manifest_b, "B"), how="inner")
side_by_side"""),
        new_code_cell("""import plotly.graph_objects as go

from experiments.figures import show

labels = [f"{s} / {m}" for s, m in side_by_side.index]
figure = go.Figure()
for column in [c for c in side_by_side.columns if c.startswith("ours")]:
    figure.add_bar(name=column, x=labels, y=side_by_side[column])
figure.update_layout(barmode="group", title="run A against run B", yaxis={"range": [0, 1.05]})
show(figure)"""),
    ]
    return notebook(cells)


def api_notebook() -> nbformat.NotebookNode:
    cells = [
        new_markdown_cell(
            "# The HTTP API from Python\n\nStarts the API as shipped (`python -m docgemma.api`: "
            "the model profile below via llama.cpp, the tools offline, the embedded FHIR "
            "server) on a free local port with a throwaway data folder and key, then talks to "
            "it with `docgemma.api.client.DocGemmaClient`: a clinician question with its live "
            "step timeline, a patient-triage turn, and the stored history. The tiny default "
            'here keeps the notebook fast; set `MODEL = "qwen2.5-1.5b"` for readable answers.'
        ),
        parameter_cell(
            parameters(
                MODEL="gemma3-270m",
                QUESTION="Check FDA warnings for dofetilide",
                SYMPTOMS="I have had a runny nose and sneezing for two days",
            )
        ),
        new_code_cell("""import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import httpx
import pandas as pd

from docgemma.api.auth import hash_key
from docgemma.api.client import DocGemmaClient

KEY = "notebook-key"
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
env = {k: v for k, v in os.environ.items() if not k.startswith("DOCGEMMA_")}
env |= {
    "DOCGEMMA_PORT": str(port),
    "DOCGEMMA_DATA_DIR": tempfile.mkdtemp(prefix="docgemma-api-"),
    "DOCGEMMA_OFFLINE": "true",
    "DOCGEMMA_MODEL": MODEL,
    "DOCGEMMA_API_KEYS": json.dumps({hash_key(KEY): "notebook"}),
}
server = subprocess.Popen(
    [sys.executable, "-m", "docgemma.api"],
    env=env,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
url = f"http://127.0.0.1:{port}"
for _ in range(1200):
    try:
        if httpx.get(f"{url}/health", timeout=2).status_code == 200:
            break
    except httpx.TransportError:
        time.sleep(0.5)
httpx.get(f"{url}/health", headers={"Authorization": f"Bearer {KEY}"}).json()"""),
        new_markdown_cell(
            "A clinician question: every `step` event of the stream, then the answer and its "
            "sources as the `done` event carries them."
        ),
        new_code_cell("""async def ask(message, **fields):
    async with DocGemmaClient(url, KEY, timeout=1200) as api:
        return await api.chat(message, **fields)


turn = await ask(QUESTION)
steps = pd.DataFrame([s.model_dump() for s in turn.steps])
steps[["node", "label", "status", "duration_s", "decision"]]"""),
        new_code_cell("""print(turn.done.final_response)
print("confidence:", turn.done.confidence, "| cited:", [c.title for c in turn.done.citations])"""),
        new_markdown_cell(
            "A patient-triage turn on the same server: the reasoning arrives on its own "
            "channel, the urgency in the notices."
        ),
        new_code_cell("""triage = await ask(SYMPTOMS, mode="triage")
print(triage.done.final_response)
print(triage.done.notices)
print(f"{len(triage.thinking)} characters of reasoning, never part of the history")"""),
        new_markdown_cell("What the server stored: only what was said, never the reasoning."),
        new_code_cell("""async with DocGemmaClient(url, KEY) as api:
    history = await api.history(triage.session_id)
    sessions = await api.sessions()
pd.DataFrame(history["messages"])[["role", "content"]], len(sessions)"""),
        new_code_cell("server.terminate()\nserver.wait(30)"),
    ]
    return notebook(cells)


def all_notebooks() -> dict[str, nbformat.NotebookNode]:
    books = {
        f"{i:02d}_{suite}.ipynb": suite_notebook(suite) for i, suite in enumerate(ORDER, start=1)
    }
    books[f"{len(ORDER) + 1:02d}_compare_runs.ipynb"] = compare_notebook()
    books[f"{len(ORDER) + 2:02d}_api_client.ipynb"] = api_notebook()
    books[f"{len(ORDER) + 3:02d}_compare_profiles.ipynb"] = profiles_notebook()
    return books


def with_parameters(notebook: nbformat.NotebookNode, **values: Any) -> nbformat.NotebookNode:
    """A copy whose ``parameters`` cell assigns ``values`` after the defaults."""
    copy = nbformat.from_dict(json.loads(json.dumps(notebook)))
    for cell in copy.cells:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            cell.source = cell.source + "\n" + parameters(**values)
            return copy
    raise ValueError("notebook has no cell tagged 'parameters'")


def execute(
    notebook: nbformat.NotebookNode, *, cwd: Path = ROOT, timeout: int = 600
) -> nbformat.NotebookNode:
    """Run every cell in a fresh python3 kernel; raises ``CellExecutionError`` on a failure."""
    from nbclient import NotebookClient

    NotebookClient(
        notebook, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    ).execute()
    return notebook


def write(
    directory: Path = NOTEBOOK_DIR, books: dict[str, nbformat.NotebookNode] | None = None
) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, book in (books or all_notebooks()).items():
        path = directory / name
        nbformat.write(book, path)
        paths.append(path)
    return paths
