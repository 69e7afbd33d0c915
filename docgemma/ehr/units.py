"""Clinician-readable units for the UCUM codes that FHIR quantities carry.

FHIR puts the readable unit in ``Quantity.unit`` and the UCUM code in ``Quantity.code``,
but many servers (Synthea data among them) copy the code into ``unit`` as well, so
anything shown to a clinician or the model is passed through ``readable_unit``.
"""

from __future__ import annotations

import re

UCUM_READABLE: dict[str, str] = {
    "%": "%",
    "/min": "/min",
    "Cel": "°C",
    "[degF]": "°F",
    "mm[Hg]": "mmHg",
    "mL/min/{1.73_m2}": "mL/min/1.73 m²",
    "{INR}": "",
    "m[IU]/L": "mIU/L",
    "[IU]/L": "IU/L",
    "U/L": "U/L",
    "10*3/uL": "×10³/µL",
    "10*6/uL": "×10⁶/µL",
    "10*9/L": "×10⁹/L",
    "10*12/L": "×10¹²/L",
    "mmol/L": "mmol/L",
    "umol/L": "µmol/L",
    "meq/L": "mEq/L",
    "mg/dL": "mg/dL",
    "mg/L": "mg/L",
    "g/dL": "g/dL",
    "g/L": "g/L",
    "ug/L": "µg/L",
    "ng/mL": "ng/mL",
    "pg/mL": "pg/mL",
    "fL": "fL",
    "mm/h": "mm/h",
    "ms": "ms",
    "kg": "kg",
    "kg/m2": "kg/m²",
    "cm": "cm",
    "[lb_av]": "lb",
    "[in_i]": "in",
}
"""UCUM code → how a clinician writes it; ``""`` for a ratio shown without a unit (INR).

Codes that already read well map to themselves, so the table lists every code we expect.
"""

_ANNOTATION = re.compile(r"\{([^{}]*)\}")


def readable_unit(ucum: str) -> str:
    """The unit a clinician reads for ``ucum``.

    A code outside the table is shown as given, but without the braces of its UCUM
    annotations ("{cells}/uL" reads "cells/uL"), which mean nothing to a reader.
    """
    return UCUM_READABLE.get(ucum, _ANNOTATION.sub(r"\1", ucum))
