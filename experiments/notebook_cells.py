"""Pieces every generated notebook shares: the parameters cell, the results folder, the shell.

The first code cell of each notebook is tagged ``parameters``; ``with_parameters`` in
``experiments.notebooks`` rewrites it, which is how the tests run the notebooks.
"""

from __future__ import annotations

from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

FIND_ROOT = """\
ROOT = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "experiments").is_dir())
RESULTS_DIR = Path(RESULTS_DIR) if RESULTS_DIR else ROOT / "experiments" / "results\""""


def parameters(**values: Any) -> str:
    return "\n".join(f"{name} = {value!r}" for name, value in values.items())


def parameter_cell(source: str):
    return new_code_cell(source, metadata={"tags": ["parameters"]})


def notebook(cells) -> nbformat.NotebookNode:
    return new_notebook(
        cells=cells,
        metadata={
            "kernelspec": {
                "name": "python3",
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
            },
            "language_info": {"name": "python"},
        },
    )
