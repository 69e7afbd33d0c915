"""Prefill and decode speed of llama.cpp builds, compared in one run.

Run with ``python -m experiments.bench_engine_build --build NAME=DIR ...`` where each
``DIR`` holds an unpacked llama-cpp-python wheel (or is a site-packages folder). Every
(build, thread count) pair runs in its own child process, in an interleaved order
repeated ``--rounds`` times, so a noisy host slows every variant alike; the table reports
medians. Used to choose the engine's build flags and its thread count.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import subprocess
import sys
from pathlib import Path

import pandas as pd

log = logging.getLogger(__name__)

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import llama_cpp
model = sys.argv[2]
threads, prompt_words, new_tokens = (int(a) for a in sys.argv[3:6])
llm = llama_cpp.Llama(model_path=model, n_ctx=2048, n_threads=threads, verbose=False, seed=0)
words = ("The patient reports chest pain radiating to the left arm with sweating and "
         "nausea since this morning; blood pressure and pulse are recorded below. ").split()
prompt = " ".join(words[i % len(words)] for i in range(prompt_words))
n_prompt = len(llm.tokenize(prompt.encode()))
start = time.perf_counter()
llm.eval(llm.tokenize(prompt.encode()))
prefill = time.perf_counter() - start
start = time.perf_counter()
made = 0
for _ in range(new_tokens):
    token = llm.sample(temp=0.0)
    llm.eval([token])
    made += 1
decode = time.perf_counter() - start
print(json.dumps({"prompt_tokens": n_prompt, "prefill_tok_s": n_prompt / prefill,
                  "decode_tok_s": made / decode,
                  "system_info": llama_cpp.llama_print_system_info().decode()}))
"""


def run_once(site: Path, model: Path, threads: int, prompt_words: int, new_tokens: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(site), str(model), str(threads)]
        + [str(prompt_words), str(new_tokens)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        return {"error": f"exit {out.returncode}: {out.stderr.strip()[-300:]}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(
    builds: dict[str, Path],
    model: Path,
    threads: list[int],
    rounds: int,
    prompt_words: int = 200,
    new_tokens: int = 48,
) -> pd.DataFrame:
    rows = []
    for round_ in range(rounds):
        for name, site in builds.items():
            for n in threads:
                result = run_once(site, model, n, prompt_words, new_tokens)
                log.info("round %d %s threads=%d: %s", round_, name, n, result)
                rows.append({"build": name, "threads": n, "round": round_, **result})
    return pd.DataFrame(rows)


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    ok = runs[runs.get("error").isna()] if "error" in runs else runs
    return (
        ok.groupby(["build", "threads"])[["prefill_tok_s", "decode_tok_s"]]
        .agg(statistics.median)
        .round(1)
        .reset_index()
    )


def main(argv: list[str] | None = None) -> None:
    from docgemma.assets import model_file

    parser = argparse.ArgumentParser(prog="python -m experiments.bench_engine_build")
    parser.add_argument("--build", action="append", required=True, metavar="NAME=DIR")
    parser.add_argument("--model", default="qwen2.5-1.5b", help="a profile or a GGUF path")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, help="write the per-run rows as JSON lines here")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    builds = {name: Path(path) for name, path in (b.split("=", 1) for b in args.build)}
    runs = compare(
        builds, model_file(args.model), [int(t) for t in args.threads.split(",")], args.rounds
    )
    if args.out:
        runs.to_json(args.out, orient="records", lines=True)
    print(summary(runs).to_markdown(index=False))


if __name__ == "__main__":
    main()
