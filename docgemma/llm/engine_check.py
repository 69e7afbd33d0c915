"""``python -m docgemma.llm.engine_check``: does the installed llama.cpp build run here?

Starts the engine process on a model (the fast Gemma profile by default) and makes one
token, exactly as the app does at start-up. ``make test`` runs it first, so a build that
crashes on this CPU stops the run in seconds with the reason and the fix, instead of a
core dump in the middle of the suite.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from docgemma.engine_build import describe_cpu


def main(argv: list[str] | None = None) -> int:
    from docgemma.assets import model_file
    from docgemma.llm.engine_backend import EngineBackend
    from docgemma.llm.errors import LLMError

    parser = argparse.ArgumentParser(prog="python -m docgemma.llm.engine_check")
    parser.add_argument("--model", default="gemma3-270m", help="a profile or a GGUF path")
    parser.add_argument(
        "--engine", choices=("worker", "server"), default="worker", help="the engine kind"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        if args.engine == "server":
            from docgemma.engine_build import server_binary
            from docgemma.llm.engine_slots import SlotsEngineBackend

            backend: EngineBackend = SlotsEngineBackend(
                model_file(args.model), server_binary=server_binary(), slots=2, n_ctx=1024
            )
        else:
            backend = EngineBackend(model_file(args.model), n_ctx=1024, start_timeout_s=300)
    except LLMError as exc:
        print(f"engine check FAILED on {args.model}: {exc}", file=sys.stderr)
        return 1
    try:
        gen = asyncio.run(backend.complete("The heart has four", max_tokens=1))
    except LLMError as exc:
        print(f"engine check FAILED on {args.model}: {exc}", file=sys.stderr)
        return 1
    finally:
        asyncio.run(backend.aclose())
    print(
        f"engine ok: {args.model} answered {gen.text!r} {time.perf_counter() - start:.1f} s "
        f"after start; {describe_cpu()}; build: {backend.engine.system_info}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
