"""FHIR resources for one synthetic patient, built from its ``PatientSpec``.

Ids are derived from the patient id and a counter, so regenerating gives the same ids
and re-loading a bundle replaces records instead of duplicating them.
"""

from __future__ import annotations

import random
from typing import Any

from docgemma.ehr import builders
from docgemma.ehr import codes as c
from docgemma.ehr.synthetic_cohort import PatientSpec
from docgemma.ehr.units import readable_unit

CLINICIAN = "Dr. Alex Rivera"


def _category(code: str) -> list[dict[str, Any]]:
    return [{"coding": [{"system": c.OBS_CATEGORY, "code": code}]}]


def _quantity(value: float, ucum: str, unit: str | None = None) -> dict[str, Any]:
    """A Quantity as FHIR means it: ``unit`` for people, the UCUM ``code`` for machines.

    ``unit`` defaults to the code's readable form; a unitless ratio (INR) has none.
    """
    readable = unit or readable_unit(ucum)
    return {
        "value": value,
        **({"unit": readable} if readable else {}),
        "system": c.UCUM,
        "code": ucum,
    }


def patient(spec: PatientSpec, index: int) -> dict[str, Any]:
    return {
        "resourceType": "Patient",
        "id": spec.id,
        "identifier": [{"system": c.MRN_SYSTEM, "value": f"MRN-{100001 + index}"}],
        "active": True,
        "name": [{"use": "official", "family": spec.family, "given": [spec.given]}],
        "gender": spec.gender,
        "birthDate": spec.birth_date,
    }


def condition(spec: PatientSpec, key: str, n: int, onset: str) -> dict[str, Any]:
    code, display = c.CONDITIONS[key]
    return {
        "resourceType": "Condition",
        "id": f"{spec.id}-condition-{n}",
        "clinicalStatus": {"coding": [{"system": c.CONDITION_CLINICAL, "code": "active"}]},
        "code": {
            "coding": [{"system": c.SNOMED, "code": code, "display": display}],
            "text": display,
        },
        "subject": {"reference": f"Patient/{spec.id}"},
        "onsetDateTime": onset,
    }


def medication_request(
    spec: PatientSpec, med: tuple[str, str, str], n: int, when: str
) -> dict[str, Any]:
    name, dose, frequency = med
    return builders.medication_request(
        spec.id, name, dose, frequency, when, id=f"{spec.id}-med-{n}", requester=CLINICIAN
    )


def allergy(spec: PatientSpec, entry: tuple[str, str, str], n: int, when: str) -> dict[str, Any]:
    substance, reaction, severity = entry
    return builders.allergy_intolerance(
        spec.id,
        substance,
        reaction,
        severity,
        when,
        id=f"{spec.id}-allergy-{n}",
        recorder=CLINICIAN,
    )


def note(spec: PatientSpec, note_type: str, text: str, n: int, when: str) -> dict[str, Any]:
    return builders.clinical_note(
        spec.id, note_type, text, when, id=f"{spec.id}-note-{n}", author=CLINICIAN
    )


def encounter(spec: PatientSpec, visit: int, when: str) -> dict[str, Any]:
    return {
        "resourceType": "Encounter",
        "id": f"{spec.id}-encounter-{visit}",
        "status": "finished",
        "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "AMB"},
        "type": [{"text": "Outpatient visit"}],
        "subject": {"reference": f"Patient/{spec.id}"},
        "period": {"start": f"{when}T09:00:00Z", "end": f"{when}T09:30:00Z"},
    }


def _observation(
    spec: PatientSpec, oid: str, category: str, loinc: tuple[str, str, str], when: str, enc: str
) -> dict[str, Any]:
    """An observation coded in LOINC; ``loinc`` is (code, LOINC display, short text)."""
    return {
        "resourceType": "Observation",
        "id": f"{spec.id}-{oid}".replace("_", "-"),
        "status": "final",
        "category": _category(category),
        "code": {
            "coding": [{"system": c.LOINC, "code": loinc[0], "display": loinc[1]}],
            "text": loinc[2],
        },
        "subject": {"reference": f"Patient/{spec.id}"},
        "encounter": {"reference": f"Encounter/{enc}"},
        "effectiveDateTime": f"{when}T09:15:00Z",
    }


def lab(
    spec: PatientSpec, key: str, value: float, visit: int, when: str, enc: str
) -> dict[str, Any]:
    code, display, ucum, text = c.LABS[key]
    obs = _observation(spec, f"lab-{key}-{visit}", "laboratory", (code, display, text), when, enc)
    obs["valueQuantity"] = _quantity(value, ucum)
    return obs


def vitals(
    spec: PatientSpec, rng: random.Random, visit: int, when: str, enc: str
) -> list[dict[str, Any]]:
    """Blood pressure (a panel with two components), pulse, breathing, temperature, SpO2, weight."""
    base_weight = 55 + (sum(map(ord, spec.id)) % 45)
    values = {
        "heart_rate": rng.randint(58, 92),
        "resp_rate": rng.randint(12, 18),
        "temperature": round(rng.uniform(36.4, 37.3), 1),
        "spo2": rng.randint(93 if "copd" in spec.conditions else 96, 99),
        "weight": round(base_weight + rng.uniform(-1.5, 1.5), 1),
    }
    out = []
    for key, value in values.items():
        code, display, ucum, text = c.VITALS[key]
        obs = _observation(
            spec, f"vital-{key}-{visit}", "vital-signs", (code, display, text), when, enc
        )
        obs["valueQuantity"] = _quantity(value, ucum, c.RATE_UNITS.get(key))
        out.append(obs)
    bp = _observation(spec, f"vital-bp-{visit}", "vital-signs", c.BP_PANEL, when, enc)
    high = "hypertension" in spec.conditions
    bp["component"] = [
        {
            "code": {"coding": [{"system": c.LOINC, "code": code, "display": display}]},
            "valueQuantity": _quantity(rng.randint(lo, hi), c.BP_UNIT),
        }
        for (code, display), lo, hi in (
            (c.BP_SYSTOLIC, 128 if high else 108, 150 if high else 128),
            (c.BP_DIASTOLIC, 74 if high else 64, 92 if high else 82),
        )
    ]
    out.append(bp)
    return out
