"""The notebook comparing model profiles side by side on the runs committed under results/.

It reads the end-to-end evaluation runs (``results/eval/<model>-<stamp>/``, one or more per
profile) and, when present, the node-row runs (``results/nodes/``). A profile's
cases may be spread over several runs (a re-run of a few cases after a fix): each case
counts once, from the latest run that measured it, and only the cases every profile
measured are compared. A MedGemma run saved the same way (``python -m experiments eval``
on the openai or vllm backend) joins the comparison as one more profile.
"""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from experiments.notebook_cells import FIND_ROOT, notebook, parameter_cell, parameters

LOAD = f"""import json
from pathlib import Path

import pandas as pd
import plotly.express as px

from experiments.evaluation.scoring import category_table
from experiments.figures import show

{FIND_ROOT}


def load_runs(kind):
    frames = []
    for folder in sorted((RESULTS_DIR / kind).glob("*/manifest.json")):
        manifest = json.loads(folder.read_text(encoding="utf-8"))
        frame = pd.read_parquet(folder.parent / "results.parquet")
        frames.append(
            frame.assign(profile=manifest["model"], run=folder.parent.name,
                         written_at=manifest["written_at"])
        )
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return rows[rows["profile"].isin(PROFILES)] if PROFILES and len(rows) else rows


runs = load_runs("eval")
latest = runs.sort_values("written_at").groupby(["profile", "case_id"]).tail(1)
shared = set.intersection(*(set(g["case_id"]) for _, g in latest.groupby("profile")))
same = latest[latest["case_id"].isin(shared)]
profiles = sorted(same["profile"].unique())
medgemma = [p for p in profiles if "medgemma" in p.lower()]
print(f"{{len(shared)}} cases measured on every profile: {{', '.join(profiles)}}")
print("MedGemma run:", ", ".join(medgemma) if medgemma else "none saved under", RESULTS_DIR)
pd.DataFrame({{
    "runs": runs.groupby("profile")["run"].nunique(),
    "cases measured": latest.groupby("profile").size(),
    "cases compared": same.groupby("profile").size(),
}})"""

TABLE = """METRICS = ["route_ok", "tool_exact", "arg_accuracy", "key_fact_recall",
           "asked_when_needed", "degenerate", "leaked"]
side_by_side = category_table(same, by="profile").query("profile != 'all'").set_index("profile")
side_by_side[["n", *METRICS, "latency_median_s", "latency_p95_s"]]"""

BARS = """long = side_by_side[METRICS].reset_index().melt(
    id_vars="profile", var_name="metric", value_name="mean")
show(px.bar(long, x="metric", y="mean", color="profile", barmode="group", range_y=[0, 1.05],
            title="Each profile on the same cases (degenerate, leaked: lower is better)"))"""

CATEGORIES = """by_category = same.pivot_table(index="category", columns="profile",
                               values=["route_ok", "tool_exact"], aggfunc="mean")
by_category.round(2)"""

LATENCY = """show(px.box(same, x="profile", y="latency_s", points="all", hover_data=["case_id"],
            title="Latency per case (s), shared 2-core machine"))"""

DISAGREE = """agreement = same.pivot_table(index="case_id", columns="profile", values="tool_exact",
                            aggfunc="first").astype(float)
agreement[agreement.nunique(axis=1) > 1].join(
    same.drop_duplicates("case_id").set_index("case_id")[["query"]])"""

NODES = """nodes = load_runs("nodes")
if nodes.empty:
    print("no node-row run saved: python -m experiments nodes --model PROFILE")
else:
    nodes = nodes.sort_values("written_at").groupby(["profile", "id"]).tail(1)
    accuracy = nodes.pivot_table(index="node", columns="profile", values="correct",
                                 aggfunc="mean", sort=False)
    show(px.bar(accuracy.reset_index().melt(id_vars="node", value_name="accuracy"),
                x="node", y="accuracy", color="profile", barmode="group", range_y=[0, 1.05],
                title="The agent's node rows on the real classifiers"))
    display(accuracy.round(2))"""


SPLITS = """from IPython.display import Image, Markdown, display

with_figures = sorted({png.parent.parent for png in (RESULTS_DIR / "eval").glob("*/figures/*.png")})
if not with_figures:
    print("no run with dev/test figures saved: python -m experiments eval --split both --sessions")
else:
    def written(folder):
        return json.loads((folder / "manifest.json").read_text())["written_at"]

    run = max(with_figures, key=written)
    summary = (run / "summary.md").read_text(encoding="utf-8")
    side = summary.split("## Dev and test side by side")[1].split("\\n## ")[0]
    display(Markdown(f"**{run.name}**\\n\\n{side}"))
    for png in sorted((run / "figures").glob("*.png")):
        display(Image(filename=str(png)))"""


def profiles_notebook() -> nbformat.NotebookNode:
    cells = [
        new_markdown_cell(
            "# Compare model profiles\n\nThe committed end-to-end evaluation runs under "
            "`experiments/results/eval/` — the tiny Gemma 3 270M, Qwen2.5 0.5B and 1.5B, and "
            "a MedGemma run when one has been saved — side by side on the cases every profile "
            "measured. Each case counts once per profile, from the latest run that measured "
            "it. `PROFILES` limits the comparison (None: every profile found)."
        ),
        parameter_cell(parameters(PROFILES=None, RESULTS_DIR=None)),
        new_code_cell(LOAD),
        new_markdown_cell("Means over the shared cases (NaN where a metric does not apply)."),
        new_code_cell(TABLE),
        new_code_cell(BARS),
        new_markdown_cell("Route and tool choice per case category."),
        new_code_cell(CATEGORIES),
        new_code_cell(LATENCY),
        new_markdown_cell("The cases where the profiles disagree on the exact tools called."),
        new_code_cell(DISAGREE),
        new_markdown_cell(
            "Seed 002 §15's node rows, each node alone with the profile's own classifiers "
            "(`python -m experiments nodes`), when such runs are saved."
        ),
        new_code_cell(NODES),
        new_markdown_cell(
            "## Dev and test\n\nThe latest run of `python -m experiments eval --split both "
            "--sessions` (or of one split, with the other taken from an earlier run): the "
            "dev-vs-test table with its gap, and one figure per case category and for the "
            "sessions. Dev cases are tuned on; test cases are only run and reported."
        ),
        new_code_cell(SPLITS),
    ]
    return notebook(cells)
