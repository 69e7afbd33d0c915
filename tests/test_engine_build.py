"""The engine's build flags: never AMX, never -march=native, AVX-512 only where the CPU has it,
one wheel folder per flag list; and the engine installed here was built that way."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from docgemma import engine_build
from docgemma.engine_build import (
    AVX512_FLAGS,
    cmake_args,
    server_cmake_args,
    server_folder,
    wheel_folder,
)

ROOT = Path(__file__).resolve().parents[1]
AVX2_HOST = frozenset({"sse4_2", "avx", "avx2", "fma", "f16c", "bmi2"})
AMX_HOST = AVX2_HOST | AVX512_FLAGS | {"amx_tile", "amx_int8", "amx_bf16"}


@pytest.mark.parametrize("variant", engine_build.VARIANTS)
@pytest.mark.parametrize("cpu", [AVX2_HOST, AMX_HOST], ids=["avx2-host", "amx-host"])
def test_no_build_compiles_amx_or_native_code(variant: str, cpu: frozenset[str]) -> None:
    args = cmake_args(variant, cpu)
    assert "-DGGML_NATIVE=OFF" in args
    for option in ("GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16"):
        assert f"-D{option}=OFF" in args and f"-D{option}=ON" not in args
    assert "-DGGML_AVX2=ON" in args


def test_avx512_only_for_a_host_build_on_a_cpu_that_has_it() -> None:
    assert "-DGGML_AVX512=ON" in cmake_args("host", AMX_HOST)
    assert "-DGGML_AVX512=OFF" in cmake_args("host", AVX2_HOST)
    assert "-DGGML_AVX512=OFF" in cmake_args("portable", AMX_HOST)  # images run elsewhere
    partial = AVX2_HOST | {"avx512f"}  # AVX-512F without the extensions the flags turn on
    assert "-DGGML_AVX512=OFF" in cmake_args("host", partial)


def test_each_flag_list_builds_into_its_own_wheel_folder(tmp_path: Path) -> None:
    """A changed flag list must never pick up a wheel built with the old one."""
    portable = wheel_folder(cmake_args("portable", AMX_HOST), tmp_path)
    host = wheel_folder(cmake_args("host", AMX_HOST), tmp_path)
    assert portable != host and portable.parent == host.parent == tmp_path / "docgemma" / "engine"
    assert engine_build.ENGINE_VERSION in portable.name


@pytest.mark.parametrize("variant", engine_build.VARIANTS)
def test_the_server_is_built_with_the_engines_own_instruction_sets(variant: str) -> None:
    """One place for the flags: llama-server gets the wheel's list, plus what to build."""
    server = server_cmake_args(variant, AMX_HOST)
    assert server[: len(cmake_args(variant, AMX_HOST))] == cmake_args(variant, AMX_HOST)
    assert "-DLLAMA_BUILD_SERVER=ON" in server
    for never in ("-DLLAMA_USE_PREBUILT_UI=ON", "-DLLAMA_CURL=ON", "-DGGML_AMX_TILE=ON"):
        assert never not in server
    assert "-DLLAMA_USE_PREBUILT_UI=OFF" in server  # the build downloads nothing


def test_each_server_flag_list_builds_into_its_own_folder(tmp_path: Path) -> None:
    portable = server_folder(server_cmake_args("portable", AMX_HOST), tmp_path)
    host = server_folder(server_cmake_args("host", AMX_HOST), tmp_path)
    wheel = wheel_folder(cmake_args("host", AMX_HOST), tmp_path)
    assert len({portable, host, wheel}) == 3 and host.parent == wheel.parent
    assert host.name.startswith("server-" + engine_build.ENGINE_VERSION)


def test_the_built_server_is_found_host_first(tmp_path: Path) -> None:
    assert engine_build.server_binary(root=tmp_path) is None
    found = {}
    for variant in engine_build.VARIANTS:
        folder = server_folder(server_cmake_args(variant), tmp_path)
        folder.mkdir(parents=True)
        (folder / engine_build.SERVER_BINARY).write_text("")
        found[variant] = engine_build.server_binary(root=tmp_path)
    assert found["portable"] == engine_build.server_binary("portable", root=tmp_path)
    assert found["host"] == engine_build.server_binary("host", root=tmp_path)


def test_asking_for_an_unbuilt_server_says_how_to_build_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with pytest.raises(SystemExit, match="engine_build.py server"):
        engine_build.main(["server-path"])


def test_an_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="portable, host"):
        cmake_args("native")


def test_the_pinned_engine_version_is_the_one_pyproject_installs() -> None:
    pins = re.findall(
        r'"llama-cpp-python(?:\[server\])?==([\d.]+)"', (ROOT / "pyproject.toml").read_text()
    )
    assert pins and set(pins) == {engine_build.ENGINE_VERSION}


def test_threads_default_to_every_usable_core() -> None:
    assert engine_build.usable_cores() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (AMX_HOST, "amx_tile"),
        (frozenset({"sse4_2", "avx"}), "the engine needs avx2, fma, f16c"),
        (frozenset(), "CPU features unknown"),
    ],
)
def test_the_cpu_description_names_what_matters(flags: frozenset[str], expected: str) -> None:
    assert expected in engine_build.describe_cpu(flags)


def test_cpu_flags_read_the_kernels_list() -> None:
    info = "processor\t: 0\nflags\t\t: fpu avx2 amx_tile\nbugs\t\t: none\n"
    assert engine_build.cpu_flags(info) == {"fpu", "avx2", "amx_tile"}


def test_the_installed_engine_has_no_amx_kernels() -> None:
    """What ``make`` installed here: llama.cpp reports the instruction sets it was built with."""
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode()
    assert "AVX2 = 1" in info
    assert "AMX" not in info
