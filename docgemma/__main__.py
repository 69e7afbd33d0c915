"""Command line: ``python -m docgemma ask "..." [--image PATH] [--patient ID] [--json]``.

``main()`` dispatches subcommands from ``COMMANDS`` so others (``serve``, ...) can be
added beside ``ask`` without touching it.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from docgemma import event_loop
from docgemma.agent.outcome import TurnResult, empty_message_result
from docgemma.config import Settings, get_settings

log = logging.getLogger("docgemma")


async def build_agent(settings: Settings, ehr: Any):  # -> Agent; heavy imports stay lazy
    from docgemma.agent.factory import build_agent as build

    return await build(settings, ehr)


def result_json(result: TurnResult) -> dict:
    """The one JSON object ``ask --json`` prints: what a script needs to evaluate a turn."""
    return {
        "intent": result.intent,
        "tool_calls": [c.model_dump() for c in result.tool_calls],
        "clarification_asked": result.clarification_requested,
        "errors": result.errors,
        "final_response": result.final_response,
        "timeline": [t.model_dump() for t in result.reasoning_timeline],
        "model_calls": result.model_calls,
        "pending_approval": result.pending_approval.model_dump()
        if result.pending_approval
        else None,
        "confidence_level": result.confidence_level,
        "confidence_reason": result.confidence_reason,
        "sources": [s.model_dump() for s in result.sources_used],
        "follow_up_questions": result.follow_up_questions,
        "notices": result.notices,
    }


def result_text(result: TurnResult) -> str:
    lines = [result.final_response]
    if result.sources_used:
        lines += ["", "Sources:"]
        lines += [
            f"  [{n}] {s.title}" + (f" — {s.url}" if s.url else "")
            for n, s in enumerate(result.sources_used, 1)
        ]
    lines += ["", "Reasoning timeline:"]
    for step in result.reasoning_timeline:
        mark = {"done": "✓", "error": "✗", "pending": "…"}[step.status]
        lines.append(f"  {mark} {step.title}" + (f" — {step.detail}" if step.detail else ""))
    if result.notices:
        lines += ["", *(f"Notice: {n}" for n in result.notices)]
    why = f" ({result.confidence_reason})" if result.confidence_reason else ""
    lines.append(f"\nconfidence: {result.confidence_level}{why}; model calls: {result.model_calls}")
    return "\n".join(lines)


def _print(result: TurnResult, as_json: bool) -> None:
    print(json.dumps(result_json(result), indent=2) if as_json else result_text(result))


async def _ask(args: argparse.Namespace) -> int:
    if not args.question.strip():  # answered by code: no model, EHR or classifier to load
        _print(empty_message_result(), args.json)
        return 0
    settings = get_settings()
    if settings.backend == "llamacpp":
        from docgemma.assets import model_problem

        problem = model_problem(settings.model, settings.model_cache_dir)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    image = None
    if args.image:
        from docgemma.imaging import ImageError, prepare_image

        path = Path(args.image)
        try:
            if not path.is_file():
                raise ImageError(f"image not found: {path}")
            image = prepare_image(
                path.read_bytes(), settings.max_image_bytes, settings.max_image_pixels
            ).to_input()
        except ImageError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    from docgemma.ehr.runtime import ehr_client

    with ehr_client(settings) as ehr:
        agent = await build_agent(settings, ehr)
        try:
            result = await agent.ask(
                args.thread or f"cli-{uuid.uuid4().hex[:8]}",
                args.question,
                image=image,
                patient_id=args.patient,
                show_unverified=args.show_unverified,
            )
        finally:
            await agent.aclose()
    _print(result, args.json)
    return 0


COMMANDS: dict[
    str, tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]
] = {}


def _patient_id(value: str) -> str:
    """A FHIR id or an argparse error: ``abc-123?x=1`` must not quietly load abc-123."""
    from docgemma.ehr.ids import InvalidId, check_fhir_id

    try:
        return check_fhir_id(value, "patient id")
    except InvalidId as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _ask_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("question", help="the clinical question or request")
    p.add_argument("--image", help="path of an image to attach")
    p.add_argument("--patient", type=_patient_id, help="ID of the selected patient")
    p.add_argument("--thread", help="conversation thread id (default: a new one)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument(
        "--show-unverified",
        action="store_true",
        help="when no source answers, add the model's own answer, labelled unverified",
    )


COMMANDS["ask"] = (_ask_parser, lambda a: event_loop.run(_ask(a)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="docgemma", description="DocGemma clinical decision support"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (configure, _) in COMMANDS.items():
        configure(sub.add_parser(name))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr)
    return COMMANDS[args.command][1](args)


if __name__ == "__main__":
    raise SystemExit(main())
