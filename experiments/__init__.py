"""Experiments: the seed's empirical suites, re-runnable on any backend.

Each suite module exposes ``run(config) -> pandas.DataFrame`` with one tidy row per
trial; ``experiments.runner`` writes a timestamped results folder with the resolved
configuration, a report beside the seed's MedGemma figures, and plotly figures.
Run one from the shell with ``python -m experiments run <suite> --backend <name>``.
"""

SUITES = (
    "thinking",
    "tool_selection",
    "field_order",
    "temperature",
    "routing",
    "synthesis",
    "classifiers",
    "knowledge",
    "triage",
)
