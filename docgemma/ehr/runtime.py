"""Connect to the configured EHR: the external FHIR server if one is set, else the embedded one.

The app, the CLI and the experiments call ``ehr_client`` once at start-up; with no
``DOCGEMMA_FHIR_URL`` it starts the embedded server on a free local port (database in the
data folder, seeded with the synthetic patients) for as long as the context is open,
guarded by a fresh write token that only this client knows.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from docgemma.ehr.client import EHRClient
from docgemma.ehr.server import serve_in_thread


@contextmanager
def ehr_client(settings: Any) -> Iterator[EHRClient]:
    """An ``EHRClient`` for the configured EHR, starting the embedded server when needed."""
    if settings.fhir_url:
        yield EHRClient.from_settings(settings)
        return
    token = secrets.token_urlsafe(32)
    with serve_in_thread(settings.embedded_fhir_db, write_token=token) as url:
        yield EHRClient.from_settings(settings.model_copy(update={"fhir_token": token}), url)
