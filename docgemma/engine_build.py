"""How the llama.cpp engine is built, in one place, and what this CPU offers it.

llama-cpp-python compiles llama.cpp when it is installed. Left to itself it builds for
the compiling CPU (``-march=native``), which on Xeons with AMX compiles ggml's AMX
matrix kernels in; those crash every model call on such hosts. The engine is therefore
built with ``GGML_NATIVE=OFF`` and an explicit instruction-set list that never includes
AMX, into a wheel folder named after the version and the flags, so a changed flag list
builds a new wheel instead of pip quietly reusing a cached one.

Two flag lists exist:

``portable``
    AVX2, FMA, F16C and BMI2 only: runs on any x86-64 CPU made since about 2015. Used for
    images built on one machine and run on another (a Space, a container).
``host``
    ``portable`` plus each AVX-512 extension (VBMI, VNNI, BF16) and AVX-VNNI that the
    compiling CPU has, one by one: prompt evaluation runs about twice as fast on AVX-512
    hosts (see docs/benchmarks.md).
    Used by ``make``, which builds on the machine that runs it.

The same flags also build llama.cpp's own HTTP server (``llama-server``) from the source
vendored in that version's sdist: the engine that serves several sessions at once in
parallel slots (``DOCGEMMA_ENGINE=server``). It is built only on request
(``python docgemma/engine_build.py server``), into its own folder keyed by the flags.

This module uses the standard library only: the Makefile runs it before anything is
installed (``python docgemma/engine_build.py install --python .venv/bin/python``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ENGINE_PACKAGE = "llama-cpp-python"
ENGINE_VERSION = "0.3.36"
"""Pinned in pyproject.toml too; a test holds the two equal."""

_OFF_ALWAYS = (
    "-DGGML_NATIVE=OFF",
    "-DGGML_AMX_TILE=OFF",
    "-DGGML_AMX_INT8=OFF",
    "-DGGML_AMX_BF16=OFF",
    "-DLLAVA_BUILD=OFF",  # the multimodal library: no embedded profile reads images
)
_AVX2 = ("-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON", "-DGGML_BMI2=ON")
_AVX512_BASE = frozenset({"avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"})
HOST_OPTIONS: tuple[tuple[str, frozenset[str]], ...] = (
    ("GGML_AVX512", _AVX512_BASE),
    ("GGML_AVX512_VBMI", _AVX512_BASE | {"avx512vbmi"}),
    ("GGML_AVX512_VNNI", _AVX512_BASE | {"avx512_vnni"}),
    ("GGML_AVX512_BF16", _AVX512_BASE | {"avx512_bf16"}),
    ("GGML_AVX_VNNI", frozenset({"avx_vnni"})),
)
"""The ``host`` list's extra options, each with the ``/proc/cpuinfo`` flags it compiles
for. Each is on only when the compiling CPU has every one of its flags: AMD's Zen 4 has
AVX-512 with VNNI and BF16 but not the VEX-encoded AVX-VNNI, and an engine built with it
dies of an illegal instruction at its first call there."""
VARIANTS = ("portable", "host")


def cpu_flags(cpuinfo: str | None = None) -> frozenset[str]:
    """The instruction-set flags the kernel reports for this CPU (empty when unknown)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return frozenset()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def cmake_args(variant: str = "host", flags: frozenset[str] | None = None) -> list[str]:
    """The CMake options of a build variant; ``host`` reads this CPU's flags."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown engine build {variant!r}; choose one of {', '.join(VARIANTS)}")
    have = (cpu_flags() if flags is None else flags) if variant == "host" else frozenset()
    return [
        *_OFF_ALWAYS,
        *_AVX2,
        *(f"-D{option}={'ON' if needs <= have else 'OFF'}" for option, needs in HOST_OPTIONS),
    ]


def build_key(args: list[str]) -> str:
    """The wheel folder's name: the engine version and a digest of its flags."""
    digest = hashlib.sha256(" ".join(sorted(args)).encode()).hexdigest()[:12]
    return f"{ENGINE_VERSION}-{digest}"


def wheel_folder(args: list[str], root: Path | None = None) -> Path:
    root = root or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return root / "docgemma" / "engine" / build_key(args)


def usable_cores() -> int:
    """Cores this process may run on: the engine's thread count unless set.

    llama-cpp-python's own default is half the cores, one decode thread on a 2-core
    machine, which writes answers at about half the speed the machine allows.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def describe_cpu(flags: frozenset[str] | None = None) -> str:
    """One line on what matters to the engine: AVX2, AVX-512, AMX."""
    flags = cpu_flags() if flags is None else flags
    if not flags:
        return "CPU features unknown"
    shown = [f for f in ("avx2", "fma", "f16c", "avx512f", "amx_tile", "amx_int8") if f in flags]
    missing = [f for f in ("avx2", "fma", "f16c") if f not in flags]
    text = "CPU has " + (", ".join(shown) or "none of avx2/fma/f16c")
    if missing:
        text += f"; the engine needs {', '.join(missing)}, which this CPU lacks"
    return text


REBUILD_HINT = (
    "rebuild the engine with `make engine` (it builds llama.cpp without AMX, for this CPU) "
    "or `make engine ENGINE_BUILD=portable` (AVX2 only, for any x86-64 CPU since 2015), "
    "or set DOCGEMMA_BACKEND=openai and DOCGEMMA_OPENAI_BASE_URL to a running model server"
)


SERVER_BUILD_COMMAND = "python docgemma/engine_build.py server"


def install(python: str, variant: str) -> Path:
    """Build the engine's wheel once per flag list, then install it into ``python``'s env."""
    args = cmake_args(variant)
    folder = wheel_folder(args)
    wheels = sorted(folder.glob("llama_cpp_python-*.whl"))
    if not wheels:
        folder.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "CMAKE_ARGS": " ".join(args)}
        env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(usable_cores()))
        print(f"building {ENGINE_PACKAGE} {ENGINE_VERSION} ({variant}): {' '.join(args)}")
        subprocess.run(
            [python, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "-q"]
            + ["--no-binary", ENGINE_PACKAGE, f"{ENGINE_PACKAGE}=={ENGINE_VERSION}"]
            + ["-w", str(folder)],
            env=env,
            check=True,
        )
        wheels = sorted(folder.glob("llama_cpp_python-*.whl"))
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheels[-1])],
        check=True,
    )
    return wheels[-1]


SERVER_BINARY = "llama-server"
_SERVER_ONLY = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",  # one self-contained file in the cache folder
    "-DLLAMA_BUILD_COMMON=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # no chat page, and no download of one during the build
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_CURL=OFF",  # the server loads a local file; it never fetches a model
)


def server_cmake_args(variant: str = "host", flags: frozenset[str] | None = None) -> list[str]:
    """The server's CMake options: the engine's instruction-set list plus what to build."""
    return [*cmake_args(variant, flags), *_SERVER_ONLY]


def server_folder(args: list[str], root: Path | None = None) -> Path:
    return wheel_folder(args, root).with_name(f"server-{build_key(args)}")


def server_binary(variant: str | None = None, root: Path | None = None) -> Path | None:
    """The built ``llama-server`` of a flag list (``host``'s, else ``portable``'s when no
    variant is named), or None when it was never built."""
    for name in (variant,) if variant else VARIANTS[::-1]:
        binary = server_folder(server_cmake_args(name), root) / SERVER_BINARY
        if binary.is_file():
            return binary
    return None


def build_server(python: str, variant: str, jobs: int) -> Path:
    """Compile ``llama-server`` once per flag list from the engine version's own sdist.

    The sdist comes through pip (the registry the wheel comes from), so the server and the
    Python engine are the same llama.cpp; the build tree is temporary, the binary kept.
    """
    args = server_cmake_args(variant)
    folder = server_folder(args)
    binary = folder / SERVER_BINARY
    if binary.is_file():
        return binary
    with tempfile.TemporaryDirectory(prefix="docgemma-server-build-") as work:
        work_path = Path(work)
        subprocess.run(
            [python, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q"]
            + ["-d", str(work_path), f"{ENGINE_PACKAGE}=={ENGINE_VERSION}"],
            check=True,
        )
        (sdist,) = work_path.glob("*.tar.gz")
        with tarfile.open(sdist) as archive:
            archive.extractall(work_path, filter="data")
        source = work_path / f"llama_cpp_python-{ENGINE_VERSION}" / "vendor" / "llama.cpp"
        build = work_path / "build"
        print(f"building {SERVER_BINARY} ({variant}, {jobs} jobs): {' '.join(args)}")
        subprocess.run(["cmake", "-S", str(source), "-B", str(build), *args], check=True)
        subprocess.run(
            ["cmake", "--build", str(build), "--target", SERVER_BINARY, "-j", str(jobs)],
            check=True,
        )
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f"{SERVER_BINARY}.partial"
        shutil.copy2(build / "bin" / SERVER_BINARY, partial)
        partial.replace(binary)  # a build stopped half-way never leaves a binary behind
    return binary


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python docgemma/engine_build.py")
    parser.add_argument("command", choices=("key", "flags", "install", "server", "server-path"))
    parser.add_argument("--variant", choices=VARIANTS, default="host")
    parser.add_argument("--python", default=sys.executable, help="the environment to install into")
    parser.add_argument("--jobs", type=int, default=usable_cores(), help="compile jobs (server)")
    args = parser.parse_args(argv)
    if args.command == "key":
        print(f"{args.variant}-{build_key(cmake_args(args.variant))}")
    elif args.command == "flags":
        print(" ".join(cmake_args(args.variant)))
    elif args.command == "server":
        print(f"built {build_server(args.python, args.variant, args.jobs)}")
    elif args.command == "server-path":
        binary = server_binary(args.variant)
        if binary is None:
            raise SystemExit(f"{SERVER_BINARY} is not built; run: {SERVER_BUILD_COMMAND}")
        print(binary)
    else:
        print(f"installed {install(args.python, args.variant)}")


if __name__ == "__main__":
    main()
