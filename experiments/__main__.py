"""Command line: ``python -m experiments run <suite> --backend <name> [--n N] [--strategies ...]``.

Also ``python -m experiments list`` (suites and their strategies),
``python -m experiments eval --model PROFILE [--split dev|test|both] [--sessions] [--n N]`` (the
end-to-end quality evaluation: cases, and multi-turn sessions through the HTTP API),
``python -m experiments nodes --model PROFILE`` (the design's node rows on a real model)
and ``python -m experiments bench [--runs N] [--quick]`` (the per-path speed benchmark).
The results folder's path is printed last so scripts can pick it up.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from experiments.suites import SUITES, suite_module


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m experiments", description=__doc__.splitlines()[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run one suite and write a results folder")
    run.add_argument("suite", choices=SUITES)
    run.add_argument("--backend", default="llamacpp", help="llamacpp, openai, vllm, transformers")
    run.add_argument("--n", type=int, default=None, help="cases per strategy (default: all)")
    run.add_argument("--concurrency", type=int, default=1, help="concurrent model calls")
    run.add_argument(
        "--strategies", nargs="+", default=None, help="subset of the suite's strategies"
    )
    run.add_argument("--seed", type=int, default=0)
    run.add_argument(
        "--token-cap", type=int, default=None, help="cap free-text budgets (smoke runs)"
    )
    run.add_argument(
        "--samples", type=int, default=None, help="temperature: samples per case (default 5)"
    )
    run.add_argument(
        "--judge-backend", default=None, help="synthesis: backend for LLM-as-judge scores"
    )
    run.add_argument("--thinking-family", default=None, choices=["medgemma", "qwen", "generic"])
    run.add_argument("--results-dir", type=Path, default=Path("experiments/results"))
    run.add_argument("--data-dir", type=Path, default=None, help="folder of the case files")
    commands.add_parser("list", help="list suites and strategies")
    evaluation = commands.add_parser("eval", help="end-to-end quality evaluation of the agent")
    evaluation.add_argument(
        "--model", default=None, help="model profile or GGUF path (DOCGEMMA_MODEL); default: app's"
    )
    evaluation.add_argument("--n", type=int, default=None, help="cases, spread over categories")
    evaluation.add_argument(
        "--ids", nargs="+", default=None, help="only these case (and session) ids"
    )
    evaluation.add_argument(
        "--split", choices=["dev", "test", "both"], default="both", help="which cases to run"
    )
    evaluation.add_argument(
        "--sessions", action="store_true", help="also run the multi-turn sessions (HTTP API)"
    )
    evaluation.add_argument(
        "--n-sessions", type=int, default=None, help="sessions, spread over themes"
    )
    evaluation.add_argument("--results-dir", type=Path, default=Path("experiments/results"))
    nodes = commands.add_parser("nodes", help="seed 002 §15 node rows on a real model")
    nodes.add_argument("--model", default=None, help="model profile or GGUF path")
    nodes.add_argument("--ids", nargs="+", default=None, help="only these row ids")
    nodes.add_argument("--results-dir", type=Path, default=Path("experiments/results"))
    bench = commands.add_parser("bench", help="per-path speed benchmark of the agent")
    bench.add_argument("--model", default=None, help="model profile or GGUF path")
    bench.add_argument("--runs", type=int, default=10, help="timed runs per path")
    bench.add_argument("--quick", action="store_true", help="1 run per path on the tiny model")
    bench.add_argument(
        "--engine",
        choices=("process", "in-process", "both"),
        default="process",
        help="llama.cpp in its own process (the app's default), inside this one, or both "
        "taking turns path by path",
    )
    bench.add_argument("--results-dir", type=Path, default=Path("experiments/results"))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    from experiments.runner import run_and_save

    if args.command == "eval":
        from experiments.evaluation.run import run_eval

        _, folder = run_eval(
            args.model,
            args.n,
            args.results_dir,
            ids=args.ids,
            split=args.split,
            sessions=args.sessions,
            n_sessions=args.n_sessions,
        )
        sys.stdout.write(f"{folder}\n")
        return 0
    if args.command == "nodes":
        from experiments.node_rows import run_nodes

        sys.stdout.write(f"{run_nodes(args.model, args.results_dir, args.ids)}\n")
        return 0
    if args.command == "bench":
        from experiments.bench import run_bench

        engines = ("process", "in-process") if args.engine == "both" else (args.engine,)
        folder = run_bench(args.model, args.runs, args.quick, args.results_dir, engines)
        sys.stdout.write(f"{folder}\n")
        return 0
    if args.command == "list":
        for suite in SUITES:
            sys.stdout.write(f"{suite}:\n")
            for strategy in suite_module(suite).STRATEGIES.values():
                sys.stdout.write(f"  {strategy.name:24} {strategy.description}\n")
        return 0
    config = {
        "backend": args.backend,
        "n": args.n,
        "concurrency": args.concurrency,
        "strategies": args.strategies,
        "seed": args.seed,
        "token_cap": args.token_cap,
        "samples": args.samples,
        "judge_backend": args.judge_backend,
        "thinking_family": args.thinking_family,
        "results_dir": args.results_dir,
        "data_dir": args.data_dir,
    }
    try:
        output = run_and_save(args.suite, config)
    except ValueError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    sys.stdout.write(f"{output.folder}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
