"""The remote services as the evaluation sees them: recorded answers over a real httpx client.

The tools run their own request, parsing and error-mapping code; only the network is
replaced, by an ``httpx.MockTransport`` that answers openFDA, Europe PMC and
ClinicalTrials.gov from ``data/eval/recordings.json``. A case can inject a failure
(server error, timeout, unreachable, unreadable body, rate limit) for one service,
for its first ``times`` requests, so tool failures are deterministic and offline.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

import httpx

from docgemma.tools.http import USER_AGENT, CircuitBreaker, attach_breaker

RECORDINGS = Path(__file__).resolve().parents[2] / "data" / "eval" / "recordings.json"
HOSTS = {
    "api.fda.gov": "openfda",
    "www.ebi.ac.uk": "europepmc",
    "clinicaltrials.gov": "clinicaltrials",
}
Failure = Literal["server_error", "timeout", "unreachable", "malformed", "rate_limit"]


@dataclass
class Injection:
    """Fail the first ``times`` requests to ``service`` (all of them when ``times`` is 0)."""

    service: Literal["openfda", "europepmc", "clinicaltrials", "fhir"]
    failure: Failure = "server_error"
    times: int = 0


@dataclass
class RecordedServices:
    """The transport's state: the recordings, the active injection, the requests seen."""

    recordings: dict[str, Any] = field(default_factory=lambda: load_recordings())
    injection: Injection | None = None
    requests: list[str] = field(default_factory=list)
    _failed: int = 0

    def reset(self, injection: Injection | None = None) -> None:
        """Start a new case: its injection, an empty request log."""
        self.injection = injection
        self.requests = []
        self._failed = 0

    def handle(self, request: httpx.Request) -> httpx.Response:
        service = HOSTS.get(request.url.host)
        self.requests.append(str(request.url))
        if service is None:
            raise httpx.ConnectError("host not recorded", request=request)
        inj = self.injection
        if inj and inj.service == service and (inj.times == 0 or self._failed < inj.times):
            self._failed += 1
            return _failure(inj.failure, request)
        params = dict(request.url.params)
        if service == "openfda":
            return _openfda(self.recordings["openfda"], params)
        if service == "europepmc":
            return _europepmc(self.recordings["europepmc"], params)
        return _clinicaltrials(self.recordings["clinicaltrials"], params)

    def client(self) -> httpx.AsyncClient:
        """A client shaped like the app's, on this transport; a breaker with no cool-down,
        so an injected outage in one case never carries over into the next."""
        client = httpx.AsyncClient(
            transport=httpx.MockTransport(self.handle),
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
        )
        return attach_breaker(client, CircuitBreaker(0.0))


@cache
def _recordings_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def load_recordings(path: Path = RECORDINGS) -> dict[str, Any]:
    return json.loads(_recordings_text(path))


def _failure(failure: Failure, request: httpx.Request) -> httpx.Response:
    if failure == "timeout":
        raise httpx.ReadTimeout("injected timeout", request=request)
    if failure == "unreachable":
        raise httpx.ConnectError("injected connection failure", request=request)
    if failure == "malformed":
        return httpx.Response(200, text="<html>maintenance</html>")
    status = 429 if failure == "rate_limit" else 503
    return httpx.Response(status, json={"error": {"message": "injected failure"}})


def _openfda(labels: list[dict[str, Any]], params: dict[str, str]) -> httpx.Response:
    names = {n.lower() for n in re.findall(r'"([^"]+)"', params.get("search", ""))}
    found = [
        label
        for label in labels
        if names
        & {
            n.lower()
            for key in ("brand_name", "generic_name")
            for n in label["openfda"].get(key, [])
        }
        or any(
            name and name in n.lower().split()
            for name in names
            for n in label["openfda"].get("generic_name", [])
        )
    ]
    if not found:
        return httpx.Response(
            404, json={"error": {"code": "NOT_FOUND", "message": "No matches found!"}}
        )
    return httpx.Response(200, json={"meta": {"results": {"total": len(found)}}, "results": found})


def _europepmc(records: list[dict[str, Any]], params: dict[str, str]) -> httpx.Response:
    query = params.get("query", "").lower()
    hits = [
        {k: v for k, v in r.items() if k != "keywords"}
        for r in records
        if any(re.search(rf"\b{re.escape(k)}\b", query) for k in r["keywords"])
    ]
    return httpx.Response(
        200, json={"hitCount": len(hits), "resultList": {"result": hits[:5]}, "version": "6.9"}
    )


def _clinicaltrials(trials: list[dict[str, Any]], params: dict[str, str]) -> httpx.Response:
    condition = params.get("query.cond", "").lower()
    wanted = set(filter(None, params.get("filter.overallStatus", "").split(",")))
    hits = [
        t
        for t in trials
        if any(c in condition or condition in c for c in t["conditions"])
        and (not wanted or t["overallStatus"] in wanted)
    ]
    studies = [
        {
            "protocolSection": {
                "identificationModule": {"nctId": t["nctId"], "briefTitle": t["briefTitle"]},
                "statusModule": {"overallStatus": t["overallStatus"]},
                "designModule": {"phases": t["phases"]},
                "conditionsModule": {"conditions": t["conditions"][:1]},
                "armsInterventionsModule": {
                    "interventions": [{"name": name} for name in t["interventions"]]
                },
            }
        }
        for t in hits
    ]
    return httpx.Response(200, json={"studies": studies, "totalCount": len(studies)})
