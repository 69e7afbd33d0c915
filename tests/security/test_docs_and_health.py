"""With ``DOCGEMMA_API_DOCS=false`` no schema or docs page answers, and health says only ok.

The old leak: ``/api/docs``, ``/api/openapi.json`` and ``/fhir/openapi.json`` answered
without a key or sign-in although the docs were off, and ``/api/health`` told anyone
which parts were up. Now those schemas are not served, and an anonymous health check
gets ``{"status": "ok"}``; a caller with an API key still gets the details.
"""

from __future__ import annotations

import httpx
import pytest

from docgemma.api.auth import hash_key

KEY = "clinic-a-key-" + "h" * 20


@pytest.fixture(scope="module")
def url(live_app_with) -> str:
    return live_app_with(api_keys={hash_key(KEY): "clinic-a"})


@pytest.mark.parametrize(
    "path", ["/api/docs", "/api/redoc", "/api/openapi.json", "/fhir/openapi.json", "/openapi.json"]
)
def test_no_schema_or_docs_page_is_served(url: str, path: str) -> None:
    assert httpx.get(f"{url}{path}", timeout=30).status_code == 404


def test_anonymous_health_says_only_ok(url: str) -> None:
    assert httpx.get(f"{url}/api/health", timeout=30).json() == {"status": "ok"}
    wrong = {"Authorization": "Bearer not-a-key"}
    assert httpx.get(f"{url}/api/health", headers=wrong, timeout=30).json() == {"status": "ok"}
    keyed = {"Authorization": f"Bearer {KEY}"}
    detail = httpx.get(f"{url}/api/health", headers=keyed, timeout=60).json()
    assert {"model_loaded", "fhir_reachable", "database"} <= set(detail)
