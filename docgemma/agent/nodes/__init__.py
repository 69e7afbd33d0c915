"""The graph's nodes, one module each, named as in the graph drawn in docs/architecture.md."""
