"""The FHIR server the EHR tests talk to, over real HTTP.

By default the embedded server on 127.0.0.1 with a temporary database, seeded with the
synthetic patients. With ``DOCGEMMA_FHIR_URL`` set, the same contract tests run against
that server instead (HAPI, Medplum...), after loading the synthetic bundles into it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import httpx
import pytest

from docgemma.ehr.loader import DEFAULT_BUNDLES
from docgemma.ehr.server import serve_in_thread

EXTERNAL_FHIR_URL = os.environ.get("DOCGEMMA_FHIR_URL")


@pytest.fixture(scope="session")
def fhir_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if EXTERNAL_FHIR_URL:
        with httpx.Client(base_url=EXTERNAL_FHIR_URL, timeout=60) as http:
            for path in sorted(DEFAULT_BUNDLES.glob("*.json")):
                http.post("/", json=json.loads(path.read_text())).raise_for_status()
        yield EXTERNAL_FHIR_URL.rstrip("/")
        return
    with serve_in_thread(tmp_path_factory.mktemp("fhir") / "fhir.db") as url:
        yield url


@pytest.fixture
def fhir(fhir_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=fhir_url, timeout=30, headers={"Accept": "application/fhir+json"}
    ) as http:
        yield http
