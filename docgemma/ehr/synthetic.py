"""Generate the synthetic EHR as FHIR R4 transaction bundles: ``python -m docgemma.ehr.synthetic``.

Deterministic: a fixed seed and a fixed "as of" date give byte-identical bundles, so the
committed files in ``data/ehr`` can be regenerated and diffed. Entries are PUTs with
fixed ids, which makes loading them idempotent. Images come from pydicom's bundled
test files (shipped offline with the package), rendered to small PNGs.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import logging
import random
import uuid
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from docgemma.ehr import codes as c
from docgemma.ehr.loader import DEFAULT_BUNDLES
from docgemma.ehr.operations import validate
from docgemma.ehr.synthetic_cohort import COHORT, PatientSpec
from docgemma.ehr.synthetic_resources import (
    allergy,
    condition,
    encounter,
    lab,
    medication_request,
    note,
    patient,
    vitals,
)

log = logging.getLogger(__name__)

AS_OF = date(2025, 6, 2)
SEED = 42
VISIT_OFFSETS = (180, 60, 4)
"""Days before AS_OF of each patient's visits; labs and vitals are taken at every visit."""
BASIC_PANEL = {"potassium": 4.3, "sodium": 139, "creatinine": 0.9, "glucose": 96}
DRIFT = {"qtc": 8.0, "glucose": 12.0, "egfr": 3.0, "hba1c": 0.3, "sodium": 1.5, "tsh": 0.4}

# key: (pydicom test file, modality, LOINC code or None, study title, conclusion)
IMAGING: dict[str, tuple[str, str, str | None, str, str]] = {
    "ct_head": (
        "CT_small.dcm",
        "CT",
        "24725-4",
        "CT head without contrast",
        "No intracranial haemorrhage, mass effect or skull fracture.",
    ),
    "mr_brain": (
        "MR_small.dcm",
        "MR",
        "24590-2",
        "MRI brain",
        "Normal brain parenchyma. No white matter lesions. No mass.",
    ),
    "ct_abdomen": (
        "CT_small.dcm",
        "CT",
        None,
        "CT abdomen and pelvis",
        "No hydronephrosis or renal calculi. Kidneys small with cortical thinning.",
    ),
}


def _png(test_file: str) -> tuple[bytes, int, int]:
    """A pydicom bundled test image, windowed to 8 bits and encoded as PNG."""
    import numpy as np
    import pydicom
    from PIL import Image
    from pydicom.data import get_testdata_file

    pixels = pydicom.dcmread(get_testdata_file(test_file)).pixel_array.astype("float64")
    lo, hi = np.percentile(pixels, [1, 99])
    scaled = np.clip((pixels - lo) / max(hi - lo, 1.0) * 255, 0, 255).astype("uint8")
    buffer = io.BytesIO()
    Image.fromarray(scaled).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue(), scaled.shape[1], scaled.shape[0]


def _imaging(spec: PatientSpec, when: str) -> list[dict[str, Any]]:
    test_file, modality, loinc, title, conclusion = IMAGING[spec.imaging or ""]
    png, width, height = _png(test_file)
    uid = "2.25." + str(
        int(hashlib.sha256(f"{spec.id}{spec.imaging}".encode()).hexdigest()[:24], 16)
    )
    subject = {"reference": f"Patient/{spec.id}"}
    modality_coding = {"system": c.DICOM, "code": modality}
    study = {
        "resourceType": "ImagingStudy",
        "id": f"{spec.id}-study-1",
        "status": "available",
        "subject": subject,
        "started": when,
        "modality": [modality_coding],
        "description": title,
        "numberOfSeries": 1,
        "numberOfInstances": 1,
        "series": [
            {
                "uid": uid + ".1",
                "modality": modality_coding,
                "description": title,
                "numberOfInstances": 1,
            }
        ],
    }
    media = {
        "resourceType": "Media",
        "id": f"{spec.id}-image-1",
        "status": "completed",
        "type": {
            "coding": [
                {"system": "http://terminology.hl7.org/CodeSystem/media-type", "code": "image"}
            ]
        },
        "modality": {"coding": [modality_coding]},
        "subject": subject,
        "createdDateTime": when,
        "height": height,
        "width": width,
        "content": {
            "contentType": "image/png",
            "data": base64.b64encode(png).decode(),
            "title": f"{title} (key image; sample pixels from pydicom {test_file})",
        },
    }
    code = (
        {"coding": [{"system": c.LOINC, "code": loinc, "display": title}], "text": title}
        if loinc
        else {"text": title}
    )
    report = {
        "resourceType": "DiagnosticReport",
        "id": f"{spec.id}-report-1",
        "status": "final",
        "category": [
            {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/v2-0074", "code": "RAD"}]}
        ],
        "code": code,
        "subject": subject,
        "effectiveDateTime": when,
        "issued": f"{when}T16:00:00Z",
        "imagingStudy": [{"reference": f"ImagingStudy/{study['id']}"}],
        "media": [{"comment": "Key image", "link": {"reference": f"Media/{media['id']}"}}],
        "conclusion": conclusion,
    }
    return [study, media, report]


def _drift(rng: random.Random, key: str, latest: float, steps_back: int) -> float:
    spread = DRIFT.get(key, max(abs(latest) * 0.05, 0.1))
    value = latest + rng.gauss(0, spread) * steps_back
    return round(value, 0 if key in {"qtc", "glucose", "egfr", "sodium"} else 1)


def patient_resources(
    spec: PatientSpec, index: int, as_of: date = AS_OF, seed: int = SEED
) -> list[dict[str, Any]]:
    """Every resource of one synthetic patient, validated against FHIR R4B."""
    rng = random.Random(seed * 1000 + index)
    resources = [patient(spec, index)]
    first_visit = (as_of - timedelta(days=VISIT_OFFSETS[0])).isoformat()
    resources += [condition(spec, key, n, first_visit) for n, key in enumerate(spec.conditions, 1)]
    resources += [
        medication_request(spec, med, n, first_visit) for n, med in enumerate(spec.medications, 1)
    ]
    resources += [allergy(spec, a, n, first_visit) for n, a in enumerate(spec.allergies, 1)]
    panel = {**BASIC_PANEL, **spec.labs}
    for visit, offset in enumerate(VISIT_OFFSETS, 1):
        when = (as_of - timedelta(days=offset)).isoformat()
        enc = encounter(spec, visit, when)
        resources.append(enc)
        steps_back = len(VISIT_OFFSETS) - visit
        for key, latest in panel.items():
            value = latest if steps_back == 0 else _drift(rng, key, latest, steps_back)
            resources.append(lab(spec, key, value, visit, when, enc["id"]))
        resources += vitals(spec, rng, visit, when, enc["id"])
    last_visit = (as_of - timedelta(days=VISIT_OFFSETS[-1])).isoformat()
    resources.append(note(spec, "progress", spec.note, 1, f"{last_visit}T10:00:00Z"))
    if spec.imaging:
        resources += _imaging(spec, last_visit)
    return [validate(r) for r in resources]


def _ref(resource: dict[str, Any]) -> str:
    return f"{resource['resourceType']}/{resource['id']}"


def bundle(resources: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "resourceType": "Bundle",
        "type": "transaction",
        "entry": [
            {
                "fullUrl": f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, _ref(r))}",
                "resource": r,
                "request": {"method": "PUT", "url": _ref(r)},
            }
            for r in resources
        ],
    }


def generate(out_dir: Path = DEFAULT_BUNDLES, as_of: date = AS_OF, seed: int = SEED) -> list[Path]:
    """Write one transaction bundle per patient; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, spec in enumerate(COHORT):
        path = out_dir / f"{spec.id}.json"
        path.write_text(
            json.dumps(bundle(patient_resources(spec, index, as_of, seed)), indent=1) + "\n"
        )
        paths.append(path)
    log.info("Wrote %d synthetic patient bundles to %s", len(paths), out_dir)
    return paths


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_BUNDLES)
    parser.add_argument(
        "--as-of", type=date.fromisoformat, default=AS_OF, help="Date the latest visit is near"
    )
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    generate(args.out, args.as_of, args.seed)


if __name__ == "__main__":
    main()
