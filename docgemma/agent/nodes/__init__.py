"""The graph's nodes, one module each, named as in seed 002's diagram."""
