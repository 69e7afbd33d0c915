"""A patient-name argument is a person's name the clinician typed, not any of their words."""

from __future__ import annotations

import pytest

from docgemma.agent.person_names import introduced_names, is_person_name, without_title


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Amara Okonkwo", "Find Amara Okonkwo"),
        ("amara okonkwo", "can you look up amara okonkwo"),  # typed in lower case
        ("Okonkwo", "Is Mrs Okonkwo in the system?"),
        ("Jean-Luc Moreau", "Pull up Jean-Luc Moreau's record"),
        ("oleg petrov", "Find oleg petrov please"),  # after "find", in a message with a capital
    ],
)
def test_a_typed_name_is_a_name(value: str, message: str) -> None:
    assert is_person_name(value, [message])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Her labs as well", "Her labs as well"),
        ("Chart", "Chart"),
        ("few patients", "I have to go through a few patients"),
        (
            "Covering the ward tonight and reviewing some charts",
            "Covering the ward tonight and reviewing some charts",
        ),
        ("Amara Okonkwo", "Find patient Chen"),  # not typed
        ("late cover", "On Late cover, then Rounds"),  # not written as a name
        ("Warfarin", "Check Warfarin"),  # a drug
    ],
)
def test_other_words_are_not_a_name(value: str, message: str) -> None:
    assert not is_person_name(value, [message])


def test_a_title_and_a_possessive_are_not_part_of_the_name() -> None:
    assert without_title("patient Amara Okonkwo") == "Amara Okonkwo"
    assert without_title("Mrs. Okonkwo's") == "Okonkwo"


@pytest.mark.parametrize(
    ("message", "names"),
    [
        ("Search for patient James Wilson", ["James Wilson"]),
        ("Find patient Maria Garcia and check her chart", ["Maria Garcia"]),
        ("find raj patel's chart", ["raj patel"]),
        ("Search for Mrs. Ana Duarte", ["Ana Duarte"]),
        ("pull up ana duarte pls - what meds is she on, latest INR?", ["ana duarte"]),
        ("Look up John Smith, then Jane Doe", ["John Smith"]),
        ("Look up John Smith, then find Jane Doe", ["John Smith", "Jane Doe"]),
        ("Prescribe metformin 500 mg twice daily for abc-123", []),
        ("Find her chart", []),
        ("What is hypertension?", []),
    ],
)
def test_a_message_introduces_the_names_after_its_cue_words(message: str, names: list) -> None:
    assert introduced_names(message) == names
