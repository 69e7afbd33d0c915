"""The Space's image build replayed from an empty folder: the Dockerfile's files, its
install script into a fresh virtualenv, its start command and port variable, and one
question over HTTP that the default model must answer correctly."""

from __future__ import annotations

import socket

import pytest

from docgemma import space_replay
from docgemma.agent.answer.compose import NO_SOURCE, NOT_ANSWERED
from docgemma.profiles import DEFAULT_PROFILE, PROFILES
from docgemma.space_replay import Dockerfile

IMAGE = Dockerfile.parse((space_replay.ROOT / "Dockerfile").read_text())


def test_the_dockerfile_copies_the_app_and_runs_the_install_script_once() -> None:
    copied = [name for sources, _ in IMAGE.copies for name in sources]
    assert {"pyproject.toml", "app.py", "docgemma", "data"} <= set(copied)
    assert IMAGE.install_command()[1:3] == ["docgemma/install_steps.py", "--target"]
    assert IMAGE.cmd == ["python", "app.py"]
    assert IMAGE.env["GRADIO_SERVER_NAME"] == "0.0.0.0"
    assert IMAGE.env[space_replay.PORT_VARIABLE] == "7860"


def test_the_space_card_is_a_docker_space_on_the_images_port() -> None:
    card = (space_replay.ROOT / "space.yaml").read_text()
    assert "sdk: docker" in card and f"app_port: {IMAGE.env[space_replay.PORT_VARIABLE]}" in card


def test_a_file_the_dockerfile_copies_must_exist(tmp_path) -> None:
    image = Dockerfile.parse("COPY --chown=user app.py absent.txt ./\n")
    with pytest.raises(FileNotFoundError, match="absent.txt"):
        space_replay.copy_files(image, tmp_path / "app")


def test_the_app_gets_the_images_settings_and_none_of_this_shell(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("DOCGEMMA_MODEL", "gemma3-270m")
    env = space_replay.clean_env(IMAGE, tmp_path / "venv", 5123)
    assert "DOCGEMMA_MODEL" not in env and env["GRADIO_SERVER_NAME"] == "0.0.0.0"
    assert env[space_replay.PORT_VARIABLE] == "5123"
    assert env["PATH"].startswith(str(tmp_path / "venv" / "bin"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.real_model
@pytest.mark.timeout(2700)  # a fresh machine compiles the portable engine first (minutes)
def test_the_replayed_space_names_its_model_and_answers_from_its_offline_pages(tmp_path) -> None:
    """From an empty folder to an answer resting on the page that covers the question:
    minutes with the engine wheel and pip caches filled (after ``make test``); a clean
    machine compiles the engine first. What the answer holds is the evaluation's to
    measure; here it must be an answer, not a decline, and cite the pneumonia page."""
    workdir = tmp_path / "space"
    outcome = space_replay.replay(workdir, port=_free_port())
    assert PROFILES[DEFAULT_PROFILE].label in outcome.page
    answer = outcome.done.get("final_response", "")
    assert answer.strip() and not answer.startswith((NO_SOURCE, NOT_ANSWERED)), outcome.done
    assert any("Pneumonia" in c.get("title", "") for c in outcome.done["citations"]), outcome.done
