"""One module per node of the triage graph (seed 000), plus the pure routers."""
