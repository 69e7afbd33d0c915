"""The EHR client the tools use: fhirpy's AsyncFHIRClient against any FHIR R4 server.

Works the same against the embedded server and against Medplum or HAPI. Every HTTP
failure surfaces as one ``EHRError`` with a kind the tools map onto their error
types; writes use a transaction with ``ifNoneExist`` so a retried approval finds the
resource it already created instead of creating a second one.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import time
from typing import Any, Literal

import aiohttp
import httpx
from fhirpy import AsyncFHIRClient
from pydantic import BaseModel

from docgemma.ehr.chart import ChartSummary, build_summary
from docgemma.ehr.codes import IDEMPOTENCY_SYSTEM
from docgemma.ehr.ids import InvalidId, resource_path

log = logging.getLogger(__name__)

ErrorKind = Literal[
    "timeout",
    "unavailable",
    "not_found",
    "invalid",
    "rate_limit",
    "server_error",
    "auth",
    "malformed",
]


class EHRError(Exception):
    """A failed EHR request; ``detail`` is raw and for logs only."""

    def __init__(self, kind: ErrorKind, detail: str, status: int | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.status = status


def _kind_for_status(status: int) -> ErrorKind:
    if status in (404, 410):
        return "not_found"
    if status in (401, 403):
        return "auth"
    if status in (408, 504):
        return "timeout"
    if status == 429:
        return "rate_limit"
    if status >= 500:
        return "server_error"
    return "invalid"


async def _raise_for_status(response: aiohttp.ClientResponse) -> None:
    if response.status >= 400:
        body = await response.text()
        raise EHRError(
            _kind_for_status(response.status),
            f"HTTP {response.status}: {body[:500]}",
            response.status,
        )


def _plain(value: Any) -> Any:
    """fhirpy resources and AttrDicts as plain JSON-like values."""
    if hasattr(value, "serialize"):
        return value.serialize()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class StoredImage(BaseModel):
    """One of a patient's stored images (a FHIR ``Media``), as a picker lists it."""

    id: str
    description: str
    modality: str = ""
    date: str = ""

    @property
    def label(self) -> str:
        return " · ".join(p for p in (self.date, self.modality, self.description) if p)


def _stored_image(media: dict[str, Any]) -> StoredImage:
    content = media.get("content") or {}
    codings = (media.get("modality") or {}).get("coding") or []
    modality = (media.get("modality") or {}).get("text") or next(
        (c.get("code", "") for c in codings if c.get("code")), ""
    )
    when = media.get("createdDateTime") or (media.get("createdPeriod") or {}).get("start", "")
    return StoredImage(
        id=media["id"],
        description=content.get("title") or "Image",
        modality=modality,
        date=str(when)[:10],
    )


def idempotent_entry(resource: dict[str, Any], key: str) -> dict[str, Any]:
    """A transaction entry that creates ``resource`` once per ``key``: the key is stored as an
    identifier and the create is conditional on it, so a retried write finds the first."""
    identifier = {"system": IDEMPOTENCY_SYSTEM, "value": key}
    return {
        "resource": {**resource, "identifier": [*resource.get("identifier", []), identifier]},
        "request": {
            "method": "POST",
            "url": resource["resourceType"],
            "ifNoneExist": f"identifier={IDEMPOTENCY_SYSTEM}|{key}",
        },
    }


def _checked_path(resource_type: str, resource_id: str) -> str:
    try:
        return resource_path(resource_type, resource_id)
    except InvalidId as exc:
        raise EHRError("invalid", str(exc)) from None


class EHRClient:
    """Async FHIR access for the tools; one instance per app, safe to share."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout_s: float = 10.0,
        client_credentials: tuple[str, str, str] | None = None,
    ) -> None:
        """``client_credentials`` is (token_url, client_id, client_secret) for OAuth2."""
        self.base_url = base_url.rstrip("/")
        self._credentials = client_credentials
        self._token_expiry = 0.0
        self._fhir = AsyncFHIRClient(
            self.base_url,
            authorization=f"Bearer {token}" if token else None,
            aiohttp_config={
                "timeout": aiohttp.ClientTimeout(total=timeout_s),
                "raise_for_status": _raise_for_status,
            },
        )
        self._timeout_s = timeout_s

    @classmethod
    def from_settings(cls, settings: Any, base_url: str | None = None) -> EHRClient:
        url = base_url or settings.fhir_url
        if not url:
            raise EHRError(
                "unavailable",
                "No FHIR server URL: set DOCGEMMA_FHIR_URL or start the embedded server",
            )
        creds = None
        if settings.fhir_client_id and settings.fhir_client_secret and settings.fhir_token_url:
            creds = (settings.fhir_token_url, settings.fhir_client_id, settings.fhir_client_secret)
        return cls(
            url,
            token=settings.fhir_token,
            timeout_s=settings.tool_timeout_s,
            client_credentials=creds,
        )

    async def _authorize(self) -> None:
        """Fetch or refresh an OAuth2 client-credentials token when configured."""
        if not self._credentials or time.monotonic() < self._token_expiry:
            return
        token_url, client_id, secret = self._credentials
        async with httpx.AsyncClient(timeout=self._timeout_s) as http:
            response = await http.post(
                token_url, data={"grant_type": "client_credentials"}, auth=(client_id, secret)
            )
        if response.status_code != 200:
            raise EHRError(
                "auth", f"Token endpoint returned HTTP {response.status_code}", response.status_code
            )
        payload = response.json()
        self._fhir.authorization = f"Bearer {payload['access_token']}"
        self._token_expiry = time.monotonic() + max(float(payload.get("expires_in", 300)) - 30, 0)

    async def _call(self, operation: Any) -> Any:
        try:
            await self._authorize()
        except BaseException:
            operation.close()
            raise
        try:
            return await operation
        except EHRError:
            raise
        except TimeoutError as exc:
            raise EHRError("timeout", f"FHIR request timed out after {self._timeout_s}s") from exc
        except json.JSONDecodeError as exc:
            raise EHRError("malformed", f"FHIR server sent a body that is not JSON: {exc}") from exc
        except aiohttp.ClientConnectionError as exc:
            raise EHRError(
                "unavailable", f"Cannot reach FHIR server at {self.base_url}: {exc}"
            ) from exc
        except (aiohttp.ClientError, ValueError) as exc:
            raise EHRError("server_error", f"{type(exc).__name__}: {exc}") from exc

    async def search(
        self,
        resource_type: str,
        *,
        sort: str | None = None,
        count: int | None = None,
        **params: Any,
    ) -> list[dict[str, Any]]:
        query = self._fhir.resources(resource_type).search(**params)
        if sort:
            query = query.sort(sort)
        if count:
            query = query.limit(count)
        return [_plain(r) for r in await self._call(query.fetch())]

    async def read(self, resource_type: str, resource_id: str) -> dict[str, Any]:
        """One resource by id; raises ``EHRError('not_found')`` when it does not exist.

        The id is checked and quoted, and the answer must be that very resource: a
        server that answers ``Patient/.`` with a search Bundle is not a saved patient.
        """
        path = _checked_path(resource_type, resource_id)
        found = _plain(await self._call(self._fhir.execute(path, method="get")))
        if (
            not isinstance(found, dict)
            or found.get("resourceType") != resource_type
            or found.get("id") != resource_id
        ):
            raise EHRError("malformed", f"GET {path} did not return {resource_type}/{resource_id}")
        return found

    async def search_patients(self, name: str) -> list[dict[str, Any]]:
        """Patients whose names start with every word of ``name`` (given or family, any order)."""
        words = name.split()
        return await self.search("Patient", name=words if len(words) > 1 else words[0], count=50)

    async def chart(self, patient_id: str) -> ChartSummary:
        patient = await self.read("Patient", patient_id)
        conditions, meds, allergies, observations, notes, reports = await asyncio.gather(
            self.search("Condition", patient=patient_id, count=100),
            self.search("MedicationRequest", patient=patient_id, count=100),
            self.search("AllergyIntolerance", patient=patient_id, count=100),
            self.search("Observation", patient=patient_id, sort="-date", count=200),
            # not notes marked entered in error: they must not take a note's place
            self.search(
                "DocumentReference",
                patient=patient_id,
                status="current,superseded",
                sort="-date",
                count=3,
            ),
            self.search("DiagnosticReport", patient=patient_id, sort="-date", count=5),
        )
        return build_summary(
            patient,
            conditions=conditions,
            medications=meds,
            allergies=allergies,
            observations=observations,
            notes=notes,
            reports=reports,
        )

    async def patient_images(self, patient_id: str) -> list[StoredImage]:
        """The patient's stored images (``Media`` with inline image data), newest first."""
        _checked_path("Patient", patient_id)
        found = await self.search("Media", patient=patient_id, sort="-created", count=50)
        return [
            _stored_image(m)
            for m in found
            if str((m.get("content") or {}).get("contentType", "")).startswith("image/")
            and (m.get("content") or {}).get("data")
        ]

    async def image_bytes(self, media_id: str) -> bytes:
        """The bytes of one stored image; ``EHRError('malformed')`` if it holds none."""
        content = (await self.read("Media", media_id)).get("content") or {}
        try:
            data = base64.b64decode(content.get("data") or "", validate=True)
        except (binascii.Error, ValueError) as exc:
            raise EHRError("malformed", f"Media/{media_id} holds invalid base64: {exc}") from exc
        if not data:
            raise EHRError("malformed", f"Media/{media_id} holds no inline image data")
        return data

    async def create_once(self, resource: dict[str, Any], idempotency_key: str) -> tuple[str, bool]:
        """Create ``resource`` tagged with ``idempotency_key`` unless it exists.

        Returns (reference, created); ``created`` is False when an earlier call made it.
        """
        (result,) = await self.transaction([idempotent_entry(resource, idempotency_key)])
        return result

    async def transaction(self, entries: list[dict[str, Any]]) -> list[tuple[str, bool]]:
        """Apply ``entries`` as one all-or-nothing transaction; (reference, created) per entry."""
        bundle = {"resourceType": "Bundle", "type": "transaction", "entry": entries}
        reply = _plain(await self._call(self._fhir.execute("", method="post", data=bundle)))
        results = []
        try:
            for entry in reply["entry"][: len(entries)]:
                response = entry["response"]
                location = response["location"]
                reference = "/".join(location.split("/_history")[0].split("/")[-2:])
                results.append((reference, str(response.get("status", "")).startswith("201")))
        except (KeyError, IndexError, TypeError) as exc:
            raise EHRError(
                "server_error", f"Malformed transaction response: {str(reply)[:300]}"
            ) from exc
        if len(results) != len(entries):
            raise EHRError("server_error", f"Transaction response has {len(results)} entries")
        return results
