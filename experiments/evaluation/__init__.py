"""The end-to-end quality evaluation: the real agent on project-authored cases, offline.

``python -m experiments eval --split dev|test|both [--sessions]`` runs the cases of
``data/eval/cases.jsonl`` through ``Agent.run_turn`` and, with ``--sessions``, the
multi-turn sessions of ``data/eval/sessions.jsonl`` through the HTTP API, with the embedded
FHIR server and recorded remote services. Each turn is scored (route, tools, arguments, key
facts of the whole answer and of the model's own text, asking, refusing, degenerate output
by the scorer's own check, leaks, latency) and the results folder reports dev and test side
by side, per category, with one figure per category. Only the dev split may be tuned on.
"""
