"""The red-flag table: presentations and the conditions that must be excluded first.

One table serves both graphs. The clinician agent opens its answer with a matching row's
conditions and first steps; the patient triage mode turns the same rows, where they carry
patient advice, into 999 / A&E (or GP today) advice that no model can lower. The rows are
data (``table``); matching them against free text, negations included, is ``match``.
"""
