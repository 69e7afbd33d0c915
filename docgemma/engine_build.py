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
    ``portable`` plus AVX-512 (with VNNI, VBMI and BF16) when the compiling CPU has it:
    prompt evaluation runs about twice as fast on such hosts (see docs/benchmarks.md).
    Used by ``make``, which builds on the machine that runs it.

This module uses the standard library only: the Makefile runs it before anything is
installed (``python docgemma/engine_build.py install --python .venv/bin/python``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
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
_AVX512 = (
    "-DGGML_AVX512=ON",
    "-DGGML_AVX512_VBMI=ON",
    "-DGGML_AVX512_VNNI=ON",
    "-DGGML_AVX512_BF16=ON",
    "-DGGML_AVX_VNNI=ON",
)
AVX512_FLAGS = frozenset(
    {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_vnni", "avx512vbmi", "avx512_bf16"}
)
"""What the ``host`` list's AVX-512 options need of the CPU (``/proc/cpuinfo`` names)."""
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
    args = [*_OFF_ALWAYS, *_AVX2]
    if variant == "host" and (cpu_flags() if flags is None else flags) >= AVX512_FLAGS:
        args.extend(_AVX512)
    else:
        args.append("-DGGML_AVX512=OFF")
    return args


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
    "rebuild the engine with `make engine` (it builds llama.cpp without AMX, for this CPU), "
    "or set DOCGEMMA_BACKEND=openai and DOCGEMMA_OPENAI_BASE_URL to a running model server"
)


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python docgemma/engine_build.py")
    parser.add_argument("command", choices=("key", "flags", "install"))
    parser.add_argument("--variant", choices=VARIANTS, default="host")
    parser.add_argument("--python", default=sys.executable, help="the environment to install into")
    args = parser.parse_args(argv)
    if args.command == "key":
        print(f"{args.variant}-{build_key(cmake_args(args.variant))}")
    elif args.command == "flags":
        print(" ".join(cmake_args(args.variant)))
    else:
        print(f"installed {install(args.python, args.variant)}")


if __name__ == "__main__":
    main()
