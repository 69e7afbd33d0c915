"""Create, update and transaction logic of the embedded FHIR server, independent of HTTP.

Every resource is validated against the FHIR R4B models of ``fhir.resources`` before it
is stored. Conditional create (``If-None-Exist``) runs under the store lock so that two
concurrent submissions of the same approved write produce exactly one resource.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from fhir.resources.R4B import get_fhir_model_class
from fhir.resources.R4B.resource import Resource
from pydantic import ValidationError

from docgemma.ehr.errors import FHIRError
from docgemma.ehr.ids import is_fhir_id
from docgemma.ehr.limits import ServerLimits
from docgemma.ehr.query import parse_search
from docgemma.ehr.store import ResourceStore


@dataclass
class WriteResult:
    resource: dict[str, Any]
    created: bool

    @property
    def location(self) -> str:
        r = self.resource
        return f"{r['resourceType']}/{r['id']}/_history/{r['meta']['versionId']}"

    @property
    def status(self) -> int:
        return 201 if self.created else 200


ABSTRACT_TYPES = frozenset({"Resource", "DomainResource"})


def _resource_model(resource_type: str) -> type[Resource] | None:
    """The R4B model of a concrete resource type; None for data types such as ``HumanName``."""
    try:
        model = get_fhir_model_class(resource_type)
    except (KeyError, ValueError, TypeError):
        return None
    if not issubclass(model, Resource) or resource_type in ABSTRACT_TYPES:
        return None
    return model


def check_type(resource_type: str) -> None:
    if _resource_model(resource_type) is None:
        raise FHIRError(404, "not-supported", f"Unknown resource type {str(resource_type)[:80]!r}")


def check_id(resource_id: str) -> None:
    if not is_fhir_id(resource_id):
        raise FHIRError(400, "invalid", f"Invalid resource id {resource_id[:80]!r}")


def validate(resource: Any, expected_type: str | None = None) -> dict[str, Any]:
    """Validate a resource body with the R4B models; raises ``FHIRError`` 400 on any problem."""
    if not isinstance(resource, dict) or "resourceType" not in resource:
        raise FHIRError(400, "structure", "Body must be a FHIR resource with a resourceType")
    rtype = resource["resourceType"]
    if expected_type and rtype != expected_type:
        raise FHIRError(400, "invalid", f"Body is a {str(rtype)[:80]}, expected {expected_type}")
    model = _resource_model(rtype) if isinstance(rtype, str) else None
    if model is None:
        raise FHIRError(400, "not-supported", f"Unknown resource type {str(rtype)[:80]!r}")
    try:
        model.model_validate(resource)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()[:5]
        )
        raise FHIRError(400, "invalid", f"Invalid {rtype}: {problems}") from None
    return resource


def _find_existing(
    store: ResourceStore, resource_type: str, criteria: str, limits: ServerLimits
) -> dict[str, Any] | None:
    pairs = parse_qsl(criteria.lstrip("?"), keep_blank_values=True)
    if not pairs:
        raise FHIRError(
            400, "invalid", "If-None-Exist needs search criteria, e.g. identifier=system|value"
        )
    total, matches = store.search(
        resource_type, parse_search(resource_type, pairs, limits).clauses, count=2
    )
    if total > 1:
        raise FHIRError(
            412, "duplicate", f"Conditional create criteria {criteria!r} match {total} resources"
        )
    return matches[0] if matches else None


def create(
    store: ResourceStore,
    resource: Any,
    resource_type: str,
    limits: ServerLimits,
    if_none_exist: str | None = None,
) -> WriteResult:
    """POST semantics: a new server-assigned id, or the existing match of ``if_none_exist``."""
    body = validate(resource, resource_type)
    with store.lock:
        if if_none_exist:
            existing = _find_existing(store, resource_type, if_none_exist, limits)
            if existing is not None:
                return WriteResult(existing, created=False)
        ((stored, _),) = store.write([{**body, "id": str(uuid.uuid4())}])
    return WriteResult(stored, created=True)


def update(
    store: ResourceStore, resource: Any, resource_type: str, resource_id: str
) -> WriteResult:
    """PUT semantics: create or replace the resource with a client-chosen id."""
    check_id(resource_id)
    body = validate(resource, resource_type)
    if body.get("id", resource_id) != resource_id:
        raise FHIRError(
            400, "invalid", f"Body id {body.get('id')!r} does not match URL id {resource_id!r}"
        )
    ((stored, created),) = store.write([{**body, "id": resource_id}])
    return WriteResult(stored, created)


def _rewrite_references(node: Any, mapping: dict[str, str]) -> Any:
    if isinstance(node, dict):
        return {
            k: (
                mapping.get(v, v)
                if k == "reference" and isinstance(v, str)
                else _rewrite_references(v, mapping)
            )
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_rewrite_references(v, mapping) for v in node]
    return node


def _resolve_placeholders(criteria: str, mapping: dict[str, str]) -> str:
    """Search criteria may name an earlier entry by its ``urn:uuid`` fullUrl (as HAPI allows)."""
    pairs = parse_qsl(criteria.lstrip("?"), keep_blank_values=True)
    return urlencode([(k, mapping.get(v, v)) for k, v in pairs])


def _plan_entry(
    store: ResourceStore,
    index: int,
    entry: Any,
    mapping: dict[str, str],
    limits: ServerLimits,
) -> tuple[str, dict[str, Any], dict | None]:
    """Decide one entry's target id; returns (method, resource, existing match or None).

    ``mapping`` holds the fullUrls of the entries planned before this one.
    """
    request = entry.get("request") if isinstance(entry, dict) else None
    if not isinstance(request, dict) or not isinstance(entry.get("fullUrl", ""), str):
        raise FHIRError(400, "structure", f"Bundle entry {index} needs a request object")
    method = str(request.get("method", "")).upper()
    resource = entry.get("resource")
    if not isinstance(resource, dict) or not isinstance(resource.get("resourceType"), str):
        raise FHIRError(400, "structure", f"Bundle entry {index} has no resource")
    rtype = resource["resourceType"]
    if _resource_model(rtype) is None:
        raise FHIRError(400, "not-supported", f"Unknown resource type {rtype[:80]!r}")
    if method == "POST":
        if request.get("ifNoneExist"):
            criteria = _resolve_placeholders(str(request["ifNoneExist"]), mapping)
            existing = _find_existing(store, rtype, criteria, limits)
            if existing is not None:
                return method, existing, existing
        return method, {**resource, "id": str(uuid.uuid4())}, None
    if method == "PUT":
        url_type, _, rid = str(request.get("url", "")).partition("/")
        if url_type != rtype or not rid:
            raise FHIRError(400, "invalid", f"Bundle entry {index}: PUT url must be {rtype}/<id>")
        check_id(rid)
        return method, {**resource, "id": rid}, None
    raise FHIRError(
        400, "not-supported", f"Bundle entry {index}: method {method or 'missing'} is not supported"
    )


def transaction(store: ResourceStore, bundle: Any, limits: ServerLimits) -> dict[str, Any]:
    """Apply a transaction Bundle atomically: every entry is validated before any is stored.

    ``urn:uuid`` fullUrls are resolved to the entries' ids, in references and in later
    entries' ``ifNoneExist`` criteria, so a resource and its Provenance go in together.
    """
    if not isinstance(bundle, dict) or bundle.get("resourceType") != "Bundle":
        raise FHIRError(400, "structure", "POST to the base URL needs a Bundle")
    if bundle.get("type") != "transaction":
        raise FHIRError(400, "not-supported", "Only transaction Bundles are supported")
    entries = bundle.get("entry") or []
    if not isinstance(entries, list):
        raise FHIRError(400, "structure", "Bundle.entry must be a list")
    if len(entries) > limits.max_bundle_entries:
        raise FHIRError(
            413,
            "too-costly",
            f"A transaction may hold at most {limits.max_bundle_entries} entries",
        )
    with store.lock:
        planned = []
        mapping: dict[str, str] = {}
        for index, entry in enumerate(entries):
            planned.append(_plan_entry(store, index, entry, mapping, limits))
            if entry.get("fullUrl"):
                resource = planned[-1][1]
                mapping[entry["fullUrl"]] = f"{resource['resourceType']}/{resource['id']}"
        to_write = [
            validate(_rewrite_references(res, mapping))
            for _, res, existing in planned
            if existing is None
        ]
        written = iter(store.write(to_write))
    response_entries = []
    for _, _, existing in planned:
        result = (
            WriteResult(existing, False) if existing is not None else WriteResult(*next(written))
        )
        status = "201 Created" if result.created else "200 OK"
        response_entries.append(
            {
                "resource": result.resource,
                "response": {"status": status, "location": result.location},
            }
        )
    return {"resourceType": "Bundle", "type": "transaction-response", "entry": response_entries}
