"""Per-tenant document collections on a real Chroma store: a tenant's search returns only
its own passages, deletion removes a document's passages, and the count is bounded."""

from __future__ import annotations

import pytest

from docgemma.embed.chroma import persistent_client
from docgemma.kb.document_text import DocumentError, DocumentKind
from docgemma.kb.documents import DocumentLibrary, collection_name

PROTOCOL = b"## Pneumonia\nGive amoxicillin 500 mg three times daily for five days."


@pytest.fixture
def library(tmp_path) -> DocumentLibrary:
    return DocumentLibrary(lambda: persistent_client(tmp_path / "chroma"), max_documents=2)


def test_one_tenants_documents_are_invisible_to_another(library: DocumentLibrary) -> None:
    a, b = library.for_tenant("clinic-a"), library.for_tenant("clinic-b")
    info = a.add("Antibiotics", DocumentKind.MARKDOWN, PROTOCOL)
    [hit] = a.search("antibiotic for pneumonia", k=3)
    assert (hit.document_id, hit.heading, hit.label) == (
        info.id,
        "Pneumonia",
        "Antibiotics — Pneumonia",
    )
    assert hit.score > 0.4
    assert b.search("antibiotic for pneumonia") == [] and b.documents() == []
    assert not b.delete(info.id) and a.documents() == [info]
    assert a.name != b.name and "clinic" not in a.name == collection_name("clinic-a")


def test_delete_and_the_document_limit(library: DocumentLibrary) -> None:
    a = library.for_tenant("clinic-a")
    first = a.add("One", DocumentKind.TEXT, b"First text.")
    a.add("Two", DocumentKind.TEXT, b"Second text.")
    with pytest.raises(DocumentError, match="already has 2 documents"):
        a.add("Three", DocumentKind.TEXT, b"Third text.")
    assert a.delete(first.id)
    assert [d.title for d in a.documents()] == ["Two"]
    assert all(p.document_id != first.id for p in a.search("text", k=5))
