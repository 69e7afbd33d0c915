"""One module per node of the triage graph, plus the pure routers."""
