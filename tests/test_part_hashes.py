"""The hash-pinned part requirements: one line per part, each with its wheel's sha256."""

from __future__ import annotations

import re

import pytest

from docgemma.part_hashes import requirements_file
from docgemma.profiles import PROFILES

LINE = re.compile(r"^(\S+==\S+) --hash=sha256:[0-9a-f]{64}$")


@pytest.mark.parametrize("name", list(PROFILES))
def test_every_part_of_the_profile_is_pinned_with_a_hash(name) -> None:
    lines = [
        line
        for line in requirements_file(name).read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert [LINE.match(line).group(1) for line in lines] == PROFILES[name].parts.requirements()
