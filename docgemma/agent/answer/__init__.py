"""The clinician-facing answer: sourced statements checked by code, or a plain decline.

``sources`` numbers what the turn retrieved; ``statements`` holds the schema the model fills
and the code that checks every quote against its source; ``write`` runs the model (one
retry naming the statements that failed) and streams only what passed; ``hygiene`` drops
degenerate text; ``compose`` writes the answers that code writes; ``confidence`` derives
the confidence from how well the answer is grounded.
"""
