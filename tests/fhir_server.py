"""The one way the tests get a FHIR server: the embedded one over real HTTP on 127.0.0.1.

``embedded_fhir(scope, ...)`` makes the fixture; a test module or conftest assigns it to
the name its tests ask for (``fhir_url = embedded_fhir("module")``). Each server has a
database of its own, seeded with the synthetic patients, and lives for ``scope``: a test
that must see only its own writes asks for ``"function"``. With a ``write_token`` writes
need that bearer token, as in the app. With ``external`` and ``DOCGEMMA_FHIR_URL`` set, the
same tests run against that server (HAPI, Medplum...) after the synthetic bundles are
loaded into it once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from functools import cache

import httpx
import pytest

from docgemma.ehr.loader import DEFAULT_BUNDLES
from docgemma.ehr.server import serve_in_thread


@cache
def _seeded_external(url: str) -> str:
    with httpx.Client(base_url=url, timeout=60) as http:
        for path in sorted(DEFAULT_BUNDLES.glob("*.json")):
            http.post("/", json=json.loads(path.read_text())).raise_for_status()
    return url.rstrip("/")


def embedded_fhir(
    scope: str = "module", *, write_token: str | None = None, external: bool = False
) -> Callable[..., Iterator[str]]:
    """A fixture yielding the base URL of a FHIR server for ``scope``; see the module docstring."""

    @pytest.fixture(scope=scope)  # type: ignore[call-overload]
    def fhir_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
        url = os.environ.get("DOCGEMMA_FHIR_URL") if external else None
        if url:
            yield _seeded_external(url)
            return
        db = tmp_path_factory.mktemp("fhir") / "fhir.db"
        with serve_in_thread(db, write_token=write_token) as served:
            yield served

    return fhir_server
