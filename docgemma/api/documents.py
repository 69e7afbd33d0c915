"""``/v1/documents``: a tenant's own knowledge base — upload, list, delete.

An upload is the document itself as the request body (``Content-Type`` ``text/markdown``,
``text/html`` or ``text/plain``, UTF-8, or ``application/pdf`` with a text layer) with its
title as a query parameter, e.g.
``curl --data-binary @protocol.md -H 'Content-Type: text/markdown'
'.../v1/documents?title=Ward+protocol'``. It is cut into passages and indexed in the
tenant's own Chroma collection; only that tenant's clinician sessions search it. The
title is a label (markup characters removed), never a path; the id is issued here.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Query, Request, Response

from docgemma.api.models import Problem
from docgemma.api.state import ApiError, ApiState, State, Tenant
from docgemma.kb.document_text import CONTENT_TYPES, TITLE_CHARS, DocumentError, kind_of
from docgemma.kb.documents import DocumentInfo, TenantDocuments

router = APIRouter(prefix="/v1/documents", tags=["documents"])
ERRORS: dict[int | str, dict[str, type[Problem]]] = {
    401: {"model": Problem},
    413: {"model": Problem},
    415: {"model": Problem},
    422: {"model": Problem},
}


async def library(api: ApiState, tenant: str) -> TenantDocuments:
    if api.runtime.documents is None:
        raise ApiError(404, "This server keeps no tenant documents.", "documents_unavailable")
    return await asyncio.to_thread(api.runtime.documents.for_tenant, tenant)


@router.post(
    "",
    status_code=201,
    response_model=DocumentInfo,
    responses=ERRORS,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                media: {"schema": {"type": "string", "format": "binary"}} for media in CONTENT_TYPES
            },
        }
    },
)
async def upload(
    request: Request,
    title: str = Query(min_length=1, max_length=TITLE_CHARS * 2),
    tenant: str = Tenant,
    api: ApiState = State,
) -> DocumentInfo:
    """Index one document in the tenant's knowledge base."""
    try:
        kind = kind_of(request.headers.get("content-type"))
    except DocumentError as exc:
        raise ApiError(415, str(exc), "unsupported_document_type") from None
    limit = api.settings.max_document_bytes
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ApiError(413, f"The document is larger than {limit} bytes.", "document_too_large")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise ApiError(413, f"The document is larger than {limit} bytes.", "document_too_large")
    documents = await library(api, tenant)
    try:
        return await asyncio.to_thread(documents.add, title, kind, bytes(data))
    except DocumentError as exc:
        raise ApiError(422, str(exc), "invalid_document") from None


@router.get("", response_model=list[DocumentInfo])
async def listed(tenant: str = Tenant, api: ApiState = State) -> list[DocumentInfo]:
    """The tenant's documents, oldest first."""
    return await asyncio.to_thread((await library(api, tenant)).documents)


@router.delete("/{document_id}", status_code=204, responses={404: {"model": Problem}})
async def delete(document_id: str, tenant: str = Tenant, api: ApiState = State) -> Response:
    documents = await library(api, tenant)
    if len(document_id) > 64 or not await asyncio.to_thread(documents.delete, document_id):
        raise ApiError(404, "No such document.", "document_not_found")
    return Response(status_code=204)
