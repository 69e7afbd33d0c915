"""The engine's build flags: never AMX, never -march=native, AVX-512 only where the CPU has it,
one wheel folder per flag list; and the engine installed here was built that way."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from docgemma import engine_build
from docgemma.engine_build import (
    cmake_args,
    server_cmake_args,
    server_folder,
    wheel_folder,
)

ROOT = Path(__file__).resolve().parents[1]
AVX2_HOST = frozenset({"sse4_2", "avx", "avx2", "fma", "f16c", "bmi2"})
AVX512_BASE = {"avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"}
SKYLAKE_X = AVX2_HOST | AVX512_BASE
ZEN4 = SKYLAKE_X | {"avx512vbmi", "avx512_vnni", "avx512_bf16", "avx512ifma"}  # no avx_vnni
ALDER_LAKE = AVX2_HOST | {"avx_vnni"}  # AVX-VNNI without AVX-512
AMX_HOST = ZEN4 | {"avx_vnni", "amx_tile", "amx_int8", "amx_bf16"}


@pytest.mark.parametrize("variant", engine_build.VARIANTS)
@pytest.mark.parametrize("cpu", [AVX2_HOST, AMX_HOST], ids=["avx2-host", "amx-host"])
def test_no_build_compiles_amx_or_native_code(variant: str, cpu: frozenset[str]) -> None:
    args = cmake_args(variant, cpu)
    assert "-DGGML_NATIVE=OFF" in args
    for option in ("GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16"):
        assert f"-D{option}=OFF" in args and f"-D{option}=ON" not in args
    assert "-DGGML_AVX2=ON" in args


@pytest.mark.parametrize(
    ("cpu", "on"),
    [
        (AVX2_HOST, set()),
        (AVX2_HOST | {"avx512f"}, set()),  # AVX-512F alone is not what GGML_AVX512 compiles for
        (SKYLAKE_X, {"AVX512"}),
        (ZEN4, {"AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16"}),
        (ALDER_LAKE, {"AVX_VNNI"}),
        (AMX_HOST, {"AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16", "AVX_VNNI"}),
    ],
    ids=["avx2", "avx512f-only", "skylake-x", "zen4", "alder-lake", "sapphire-rapids"],
)
def test_a_host_build_turns_on_only_what_the_cpu_has(cpu: frozenset[str], on: set[str]) -> None:
    args = cmake_args("host", cpu)
    optional = {"AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16", "AVX_VNNI"}
    assert {o for o in optional if f"-DGGML_{o}=ON" in args} == on
    assert {o for o in optional if f"-DGGML_{o}=OFF" in args} == optional - on


def test_a_portable_build_turns_every_extension_off() -> None:
    """Images are built on one machine and run on another."""
    args = cmake_args("portable", AMX_HOST)
    assert not [a for a in args if a.startswith("-DGGML_AVX512") and a.endswith("=ON")]
    assert "-DGGML_AVX_VNNI=OFF" in args


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
        folder.mkdir(parents=True, exist_ok=True)  # one folder when the host adds no flag
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


SYSTEM_INFO_FLAGS = {
    "AVX2": {"avx2"},
    "FMA": {"fma"},
    "F16C": {"f16c"},
    "BMI2": {"bmi2"},
    "AVX512": AVX512_BASE,
    "AVX512_VBMI": {"avx512vbmi"},
    "AVX512_VNNI": {"avx512_vnni"},
    "AVX512_BF16": {"avx512_bf16"},
    "AVX_VNNI": {"avx_vnni"},
}
"""llama.cpp's names for the instruction sets it was compiled for, as /proc/cpuinfo names them."""


def test_the_installed_engine_has_no_amx_kernels_and_nothing_this_cpu_lacks() -> None:
    """What ``make`` installed here: llama.cpp reports the instruction sets it was built with,
    and each must be one this CPU has, or the first model call dies of an illegal
    instruction."""
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode()
    assert "AVX2 = 1" in info
    assert "AMX" not in info
    built = set(re.findall(r"\b([A-Z0-9_]+) = 1", info)) & SYSTEM_INFO_FLAGS.keys()
    cpu = engine_build.cpu_flags()
    lacking = {name for name in built if cpu and not SYSTEM_INFO_FLAGS[name] <= cpu}
    assert not lacking, f"the engine was built for {sorted(lacking)}, which this CPU lacks"
