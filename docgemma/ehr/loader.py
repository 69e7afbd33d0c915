"""Seed the embedded server with the synthetic patients in ``data/ehr`` on first start.

Each bundle is recorded with its SHA-256 once applied, so restarting the app never
duplicates patients, while a regenerated bundle is applied again (its entries are
PUTs with fixed ids, so re-applying replaces rather than duplicates).
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from docgemma.ehr.limits import ServerLimits
from docgemma.ehr.operations import transaction
from docgemma.ehr.store import ResourceStore

log = logging.getLogger(__name__)
DEFAULT_BUNDLES = Path(__file__).resolve().parents[2] / "data" / "ehr"


def load_bundles(store: ResourceStore, directory: Path, limits: ServerLimits) -> int:
    """Apply every not-yet-loaded ``*.json`` transaction bundle; returns how many were applied.

    The seed bundles meet the same ``limits`` as a client's transaction.
    """
    if not directory.is_dir():
        log.warning("No EHR seed bundles at %s; the embedded EHR starts empty", directory)
        return 0
    applied = 0
    for path in sorted(directory.glob("*.json")):
        raw = path.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        if store.bundle_loaded(path.name, digest):
            continue
        transaction(store, json.loads(raw), limits)
        store.mark_bundle_loaded(path.name, digest)
        applied += 1
    if applied:
        log.info("Loaded %d synthetic patient bundle(s) from %s", applied, directory)
    return applied
