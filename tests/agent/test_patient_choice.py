"""The clinician's pick among listed patients, read by code."""

from __future__ import annotations

import pytest

from docgemma.agent.patient_choice import chosen_patient, only_picks

LISTED = [
    {"patient_id": "jwilson-1945", "name": "James Wilson", "birth_date": "1945-03-14"},
    {"patient_id": "jwilson-1972", "name": "James Wilson", "birth_date": "1972-07-02"},
    {"patient_id": "jwilson-1990", "name": "James Wilson", "birth_date": "1990-11-30"},
]


@pytest.mark.parametrize(
    ("message", "picked"),
    [
        ("The one born in 1945.", "jwilson-1945"),
        ("DOB 1972-07-02", "jwilson-1972"),
        ("jwilson-1990 please", "jwilson-1990"),
        ("pt jwilson1990", "jwilson-1990"),  # the id without its hyphen
        ("the second one", "jwilson-1972"),
        ("The last one.", "jwilson-1990"),
        ("1st", "jwilson-1945"),
        ("The one born in 1950.", None),  # no listed record was born then
        ("born 1945 or 1972, not sure", None),  # two fit: the clinician still has to choose
        ("What is the dose of metformin?", None),
        ("the first and the second", None),
    ],
)
def test_a_pick_fits_exactly_one_listed_record(message: str, picked: str | None) -> None:
    found = chosen_patient(message, LISTED)
    assert (found["patient_id"] if found else None) == picked


def test_nothing_is_picked_without_a_list() -> None:
    assert chosen_patient("The one born in 1945.", LISTED[:1]) is None
    assert chosen_patient("The one born in 1945.", []) is None


@pytest.mark.parametrize(
    ("message", "only"),
    [
        ("The one born in 1945.", True),
        ("Yes, James Wilson, DOB 1945-03-14 please", True),
        ("jwilson-1945", True),
        ("The one born in 1945 — what's his INR?", False),
        ("1945, and start him on apixaban", False),
    ],
)
def test_a_reply_that_only_picks_asks_nothing_yet(message: str, only: bool) -> None:
    assert only_picks(message, LISTED[0]) is only
