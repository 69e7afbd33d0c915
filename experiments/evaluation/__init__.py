"""The end-to-end quality evaluation: the real agent on project-authored cases, offline.

``python -m experiments eval --model PROFILE`` runs every case of ``data/eval/cases.jsonl``
through ``Agent.run_turn`` with the embedded FHIR server and recorded remote services,
scores each turn (route, tools, arguments, key facts, asking, degenerate output, leaks,
latency) and writes a results folder with a per-category table.
"""
