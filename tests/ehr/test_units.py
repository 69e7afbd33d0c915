"""UCUM codes are shown to clinicians as they write units."""

from __future__ import annotations

import pytest

from docgemma.ehr import codes
from docgemma.ehr.units import UCUM_READABLE, readable_unit


@pytest.mark.parametrize(
    ("ucum", "shown"),
    [
        ("mm[Hg]", "mmHg"),
        ("Cel", "°C"),
        ("[degF]", "°F"),
        ("mL/min/{1.73_m2}", "mL/min/1.73 m²"),
        ("{INR}", ""),
        ("m[IU]/L", "mIU/L"),
        ("10*9/L", "×10⁹/L"),
        ("umol/L", "µmol/L"),
        ("kg/m2", "kg/m²"),
        ("[lb_av]", "lb"),
        ("/min", "/min"),
        ("mmol/L", "mmol/L"),
        ("beats/min", "beats/min"),
        ("mg/mmol", "mg/mmol"),
        ("{cells}/uL", "cells/uL"),
        ("", ""),
    ],
)
def test_readable_unit(ucum: str, shown: str) -> None:
    assert readable_unit(ucum) == shown


def test_every_unit_of_the_synthetic_ehr_is_in_the_table() -> None:
    used = {row[2] for row in (*codes.LABS.values(), *codes.VITALS.values())} | {codes.BP_UNIT}
    assert used <= UCUM_READABLE.keys()
