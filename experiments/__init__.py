"""Experiments: the design studies' comparisons as suites, re-runnable on any backend.

Each suite (``experiments.suites``) declares its strategies; ``experiments.runner`` runs
them into a tidy DataFrame with one row per trial and writes a timestamped results folder
(``experiments.run_folder``) with the resolved configuration, a report beside the design
studies' MedGemma figures (``experiments.report``) and plotly figures (``experiments.figures``).
Run one from the shell with ``python -m experiments run <suite> --backend <name>``.
"""
