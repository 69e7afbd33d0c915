"""Patient triage mode: a second LangGraph graph over the condition knowledge base.

The model decides whether to search, reasons over the retrieved pages under budget
forcing and ends in a constrained ``(condition, severity)`` prediction; deterministic
red-flag rules run before and after it, and a last step rewrites the analysis for the
patient. The reasoning is streamed apart from the answer and never stored in history.
"""
