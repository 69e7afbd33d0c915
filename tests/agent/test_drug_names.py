"""Names no drug dictionary knows are offered back with the nearest known names."""

from __future__ import annotations

import pytest

from docgemma.agent.confirmation import confirmed_query, unconfirmed
from docgemma.agent.drug_names import is_known, nearest_known, typed_as


@pytest.mark.parametrize("name", ["atorvastatin", "Lipitor", "metformine", "amoxicillin"])
def test_names_a_dictionary_holds_are_known(name: str) -> None:
    assert is_known(name)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("atorvastain", "atorvastatin"),
        ("simvastatn", "simvastatin"),
        ("lisinoprill", "lisinopril"),
    ],
)
def test_a_misspelt_name_is_unknown_and_the_nearest_name_offered(typed: str, meant: str) -> None:
    assert not is_known(typed)
    assert nearest_known(typed)[0] == meant


def test_a_made_up_name_gets_no_offer() -> None:
    assert not is_known("qwertazol") and nearest_known("qwertazol") == []


def test_a_correction_the_model_made_is_traced_to_the_typed_word() -> None:
    assert typed_as("simvastatin", ["Is", "simvastatn", "safe"]) == "simvastatn"
    assert typed_as("simvastatin", ["Is", "it", "safe"]) is None


PENDING = unconfirmed(
    "Does simvastatn interact with clarithromycin?", {"simvastatn": ["simvastatin"]}
)


@pytest.mark.parametrize(
    "reply",
    [
        "yes",
        "Yes please",
        "ok",
        "that's right",
        "yes, simvastatin",
        "I meant simvastatin",
        "simvastatin",
    ],
)
def test_a_reply_that_confirms_runs_the_request_with_the_name(reply: str) -> None:
    assert confirmed_query(reply, PENDING) == "Does simvastatin interact with clarithromycin?"


def test_another_name_in_the_reply_replaces_the_unknown_one() -> None:
    assert confirmed_query("no, I meant atorvastatin", PENDING) == (
        "Does atorvastatin interact with clarithromycin?"
    )


@pytest.mark.parametrize("reply", ["no", "What is the dose of clarithromycin?", "qwertazol"])
def test_any_other_reply_confirms_nothing(reply: str) -> None:
    assert confirmed_query(reply, PENDING) is None
    assert confirmed_query("yes", None) is None
