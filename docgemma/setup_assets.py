"""Prepare packaged model files once at install time (``python -m docgemma.setup_assets``)."""

from __future__ import annotations

from docgemma.assets import gemma_270m_path, minilm_onnx_path, minilm_tokenizer_path


def main() -> None:
    print(f"embedded LLM: {gemma_270m_path()}")
    print(f"embedding model: {minilm_onnx_path()} with {minilm_tokenizer_path()}")


if __name__ == "__main__":
    main()
