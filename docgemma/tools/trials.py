"""Clinical Trial Search: studies from the ClinicalTrials.gov API v2.

No offline registry of trials exists, so offline this tool returns the
pre-formatted "could not be used" result rather than letting a model invent trials.
Only studies whose title, conditions and interventions address the question are listed
(``docgemma.tools.relevance``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from docgemma.tools.args import ClinicalTrialsArgs
from docgemma.tools.base import (
    Passage,
    Source,
    ToolContext,
    ToolErrorType,
    ToolExample,
    ToolOutcome,
    ToolSpec,
)
from docgemma.tools.facts import RequestPattern, ToolRole
from docgemma.tools.guard import guarded
from docgemma.tools.http import (
    ToolFailure,
    client_for,
    error_outcome,
    get_json,
    offline_outcome,
)
from docgemma.tools.relevance import Verdict, asked_forms, not_covered, relevant_indexes
from docgemma.tools.text import squash

LABEL = "Clinical Trial Search"
CTGOV_URL = "https://clinicaltrials.gov/api/v2/studies"
SERVICE = "the ClinicalTrials.gov registry"
MAX_RESULTS = 5
MAX_PAGES = 3
FIELDS = "NCTId,BriefTitle,OverallStatus,Phase,Condition,InterventionName,StartDate,CompletionDate"

STATUSES = {
    "recruiting": "RECRUITING",
    "not yet recruiting": "NOT_YET_RECRUITING",
    "active": "RECRUITING,NOT_YET_RECRUITING,ACTIVE_NOT_RECRUITING,ENROLLING_BY_INVITATION",
    "open": "RECRUITING,NOT_YET_RECRUITING",
    "active not recruiting": "ACTIVE_NOT_RECRUITING",
    "enrolling by invitation": "ENROLLING_BY_INVITATION",
    "completed": "COMPLETED",
    "terminated": "TERMINATED",
    "withdrawn": "WITHDRAWN",
    "suspended": "SUSPENDED",
}


def status_filter(status: str | None) -> str | None:
    """The API's ``filter.overallStatus`` value for a status as a clinician would write it."""
    if not status:
        return None
    key = " ".join(status.lower().replace("_", " ").replace(",", " ").replace("-", " ").split())
    return STATUSES.get(key) or STATUSES.get(key.removeprefix("currently ")) or None


def parse_study(study: dict[str, Any]) -> dict[str, Any]:
    section = study.get("protocolSection") or {}
    ident = section.get("identificationModule") or {}
    status = section.get("statusModule") or {}
    design = section.get("designModule") or {}
    nct = ident.get("nctId")
    return {
        "nct_id": nct,
        "title": ident.get("briefTitle") or ident.get("officialTitle") or "Untitled study",
        "status": (status.get("overallStatus") or "UNKNOWN").replace("_", " ").lower(),
        "phases": [
            p.replace("PHASE", "Phase ").replace("EARLY_", "Early ").replace("NA", "n/a")
            for p in design.get("phases") or []
        ],
        "conditions": (section.get("conditionsModule") or {}).get("conditions") or [],
        "interventions": [
            i.get("name")
            for i in (section.get("armsInterventionsModule") or {}).get("interventions") or []
            if i.get("name")
        ],
        "start": (status.get("startDateStruct") or {}).get("date"),
        "url": f"https://clinicaltrials.gov/study/{nct}" if nct else None,
    }


def parse_page(body: Any) -> tuple[list[dict[str, Any]], str | None, int | None]:
    """Studies, the next page token and the total count (first page only) of one response."""
    if not isinstance(body, dict) or not isinstance(body.get("studies", []), list):
        raise ToolFailure(
            ToolErrorType.MALFORMED_RESPONSE,
            f"unexpected ClinicalTrials.gov body: {str(body)[:200]}",
        )
    studies = [parse_study(s) for s in body.get("studies", []) if isinstance(s, dict)]
    return studies, body.get("nextPageToken"), body.get("totalCount")


async def search_studies(
    client: httpx.AsyncClient,
    condition: str,
    status: str | None,
    *,
    limit: int = MAX_RESULTS,
    page_size: int = MAX_RESULTS,
    deadline_s: float = 10.0,
) -> tuple[list[dict[str, Any]], int | None]:
    """Up to ``limit`` studies, following ``nextPageToken`` for at most ``MAX_PAGES`` pages."""
    params: dict[str, Any] = {
        "query.cond": condition,
        "pageSize": page_size,
        "countTotal": "true",
        "fields": FIELDS,
        "format": "json",
    }
    if status:
        params["filter.overallStatus"] = status
    studies: list[dict[str, Any]] = []
    total: int | None = None
    for _ in range(MAX_PAGES):
        body = await get_json(client, CTGOV_URL, params, deadline_s=deadline_s)
        page, token, count = parse_page(body)
        total = count if total is None else total
        seen = {s["nct_id"] for s in studies}
        fresh = [s for s in page if s["nct_id"] not in seen]
        studies.extend(fresh)
        if len(studies) >= limit or not token or not fresh:
            break
        params = {**params, "pageToken": token}
        params.pop("countTotal", None)
    return studies[:limit], total


def study_text(study: dict[str, Any]) -> str:
    """What a study's registry entry says of its topic, as one citable passage."""
    phase = ", ".join(study["phases"]) or "phase not given"
    parts = [f"{study['title']}. Status: {study['status']}, {phase}."]
    if study["conditions"]:
        parts.append(f"Conditions: {', '.join(study['conditions'][:5])}.")
    if study["interventions"]:
        parts.append(f"Interventions: {', '.join(study['interventions'][:5])}.")
    return " ".join(parts)


def relevant_studies(
    settings: Any, asked: list[str], studies: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], Verdict]]:
    """Blocking: the studies that address the question, each with its best verdict. A study's
    title and each of its conditions and interventions are judged apart: a trial in five
    tumours, melanoma among them, is a melanoma trial though its title names none."""
    parts = [
        (n, text)
        for n, s in enumerate(studies)
        for text in (s["title"], *s["conditions"][:5], *s["interventions"][:5])
    ]
    best: dict[int, Verdict] = {}
    for index, verdict in relevant_indexes(settings, asked, [t for _, t in parts]):
        n = parts[index][0]
        if n not in best or verdict.similarity > best[n].similarity:
            best[n] = verdict
    return [(studies[n], best[n]) for n in sorted(best)]


def format_studies(
    condition: str, studies: list[dict[str, Any]], total: int | None, note: str
) -> str:
    count = f"{total} registered" if total is not None else "several"
    lines = [
        f"ClinicalTrials.gov studies for “{condition}” ({count}; showing {len(studies)}):{note}"
    ]
    for s in studies:
        phase = ", ".join(s["phases"]) or "phase not given"
        extra = (
            f" Interventions: {', '.join(s['interventions'][:3])}." if s["interventions"] else ""
        )
        lines.append(
            f"- {s['nct_id']}: {s['title']} — {s['status']}, {phase}."
            f" Conditions: {', '.join(s['conditions'][:3]) or 'not listed'}.{extra}"
        )
    return "\n".join(lines)


@guarded(LABEL, lambda a: squash(a.condition), service=SERVICE)
async def find_clinical_trials(args: ClinicalTrialsArgs, ctx: ToolContext) -> ToolOutcome:
    condition = squash(args.condition)
    if not condition:
        return error_outcome(
            ToolErrorType.INVALID_ARGS,
            LABEL,
            detail=f"condition={args.condition!r}",
            message="A condition or treatment is needed to search for clinical trials.",
        )
    if ctx.settings.offline:
        return offline_outcome(LABEL, SERVICE, entity=condition)
    wanted = status_filter(args.status)
    note = ""
    if args.status and not wanted:
        note = f" (the status “{args.status}” is not a registry status, so all statuses are shown)"
    async with client_for(ctx) as client:
        studies, total = await search_studies(
            client, condition, wanted, deadline_s=ctx.settings.tool_timeout_s
        )
    if not studies:
        where = f"{condition} ({args.status})" if wanted else condition
        return error_outcome(ToolErrorType.NOT_FOUND, LABEL, entity=where, detail="0 studies")
    kept = await asyncio.to_thread(
        relevant_studies, ctx.settings, asked_forms(ctx.question, condition), studies
    )
    if not kept:
        return not_covered(LABEL, condition, "the ClinicalTrials.gov registry")
    studies = [s for s, _ in kept]
    return ToolOutcome(
        data={
            "condition": condition,
            "status_filter": wanted,
            "total": total,
            "studies": studies,
        },
        formatted=format_studies(condition, studies, total, note),
        entity=condition,
        sources=[
            Source(title=f"{s['nct_id']}: {s['title']}", url=s["url"], kind="trial")
            for s in studies
        ],
        passages=[
            Passage(source=n, section="Registry entry", text=study_text(s), relevance=v.similarity)
            for n, (s, v) in enumerate(kept)
        ],
    )


SPEC = ToolSpec(
    name="find_clinical_trials",
    label=LABEL,
    description=(
        "Search ClinicalTrials.gov for active, recruiting, or completed clinical trials for a "
        "specific condition or treatment. Use when a clinician asks about experimental "
        "treatments, ongoing trials, or new therapies being studied."
    ),
    short_description="Clinical trials for a condition, optionally by recruitment status.",
    args=ClinicalTrialsArgs,
    run=find_clinical_trials,
    example=ToolExample(
        query="Are there recruiting trials for melanoma?",
        args={"condition": "melanoma", "status": "recruiting"},
    ),
    role=ToolRole.SEARCHES_EVIDENCE,
    brief_answer=True,
    requested_by=(
        RequestPattern("clinical_trial", any_of=("trial", "recruiting", "experimental")),
    ),
)
