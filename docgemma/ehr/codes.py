"""Terminology used by the synthetic EHR and by the write tools (SNOMED, RxNorm, LOINC).

Shared so that a prescription written by a clinician through the assistant carries the
same RxNorm code as the synthetic patients' existing orders, and chart summaries can
pick labs and vitals out by LOINC code.
"""

from __future__ import annotations

SNOMED = "http://snomed.info/sct"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
LOINC = "http://loinc.org"
UCUM = "http://unitsofmeasure.org"
DICOM = "http://dicom.nema.org/resources/ontology/DCM"
OBS_CATEGORY = "http://terminology.hl7.org/CodeSystem/observation-category"
CONDITION_CLINICAL = "http://terminology.hl7.org/CodeSystem/condition-clinical"
ALLERGY_CLINICAL = "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical"
ALLERGY_VERIFICATION = "http://terminology.hl7.org/CodeSystem/allergyintolerance-verification"
MRN_SYSTEM = "urn:docgemma:mrn"
IDEMPOTENCY_SYSTEM = "urn:docgemma:idempotency-key"
SESSION_SYSTEM = "urn:docgemma:session"

CONDITIONS: dict[str, tuple[str, str]] = {
    "t2dm": ("44054006", "Type 2 diabetes mellitus"),
    "hypertension": ("38341003", "Hypertension"),
    "ckd3": ("433144002", "Chronic kidney disease stage 3"),
    "af": ("49436004", "Atrial fibrillation"),
    "heart_failure": ("84114007", "Heart failure"),
    "osteoarthritis": ("396275006", "Osteoarthritis"),
    "asthma": ("195967001", "Asthma"),
    "hyperlipidemia": ("55822004", "Hyperlipidemia"),
    "hypothyroidism": ("40930008", "Hypothyroidism"),
    "copd": ("13645005", "Chronic obstructive pulmonary disease"),
    "vt": ("25569003", "Ventricular tachycardia"),
    "migraine": ("37796009", "Migraine"),
}

RXNORM_CODES: dict[str, tuple[str, str]] = {
    "metformin": ("6809", "metformin"),
    "lisinopril": ("29046", "lisinopril"),
    "atorvastatin": ("83367", "atorvastatin"),
    "warfarin": ("11289", "warfarin"),
    "metoprolol": ("6918", "metoprolol"),
    "amiodarone": ("703", "amiodarone"),
    "furosemide": ("4603", "furosemide"),
    "dofetilide": ("49247", "dofetilide"),
    "albuterol": ("435", "albuterol"),
    "spironolactone": ("9997", "spironolactone"),
    "insulin glargine": ("274783", "insulin glargine"),
    "levothyroxine": ("10582", "levothyroxine"),
    "tiotropium": ("69120", "tiotropium"),
    "sumatriptan": ("37418", "sumatriptan"),
    "apixaban": ("1364430", "apixaban"),
    "amlodipine": ("17767", "amlodipine"),
    "aspirin": ("1191", "aspirin"),
    "penicillin": ("70618", "penicillin"),
    "sulfamethoxazole": ("10180", "sulfamethoxazole"),
    "codeine": ("2670", "codeine"),
    "ibuprofen": ("5640", "ibuprofen"),
}

SNOMED_SUBSTANCES: dict[str, tuple[str, str]] = {
    "peanut": ("256349002", "Peanut"),
    "latex": ("111088007", "Latex"),
}

# LOINC code, LOINC display, UCUM code of the unit, short name shown to clinicians.
# The units' readable forms are in ``docgemma.ehr.units``.
LABS: dict[str, tuple[str, str, str, str]] = {
    "potassium": ("2823-3", "Potassium [Moles/volume] in Serum or Plasma", "mmol/L", "Potassium"),
    "sodium": ("2951-2", "Sodium [Moles/volume] in Serum or Plasma", "mmol/L", "Sodium"),
    "creatinine": ("2160-0", "Creatinine [Mass/volume] in Serum or Plasma", "mg/dL", "Creatinine"),
    "egfr": (
        "33914-3",
        "Glomerular filtration rate/1.73 sq M.predicted",
        "mL/min/{1.73_m2}",
        "eGFR",
    ),
    "magnesium": ("19123-9", "Magnesium [Mass/volume] in Serum or Plasma", "mg/dL", "Magnesium"),
    "hba1c": ("4548-4", "Hemoglobin A1c/Hemoglobin.total in Blood", "%", "HbA1c"),
    "glucose": ("2345-7", "Glucose [Mass/volume] in Serum or Plasma", "mg/dL", "Glucose"),
    "inr": ("6301-6", "INR in Platelet poor plasma by Coagulation assay", "{INR}", "INR"),
    "tsh": ("3016-3", "Thyrotropin [Units/volume] in Serum or Plasma", "m[IU]/L", "TSH"),
    "qtc": ("8636-3", "QTc interval", "ms", "QTc"),
}

VITALS: dict[str, tuple[str, str, str, str]] = {
    "heart_rate": ("8867-4", "Heart rate", "/min", "Heart rate"),
    "resp_rate": ("9279-1", "Respiratory rate", "/min", "Respiratory rate"),
    "temperature": ("8310-5", "Body temperature", "Cel", "Temperature"),
    "spo2": ("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry", "%", "SpO2"),
    "weight": ("29463-7", "Body weight", "kg", "Weight"),
}
RATE_UNITS: dict[str, str] = {"heart_rate": "beats/min", "resp_rate": "breaths/min"}
"""The readable unit of the vitals counted per minute; UCUM codes both as plain "/min"."""
RATE_UNITS_BY_LOINC: dict[str, str] = {VITALS[k][0]: unit for k, unit in RATE_UNITS.items()}
"""The same units by LOINC code, for observations from any FHIR server."""
BP_UNIT = "mm[Hg]"  # UCUM code of the blood-pressure components
BP_PANEL = ("85354-9", "Blood pressure panel with all children optional", "Blood pressure")
BP_SYSTOLIC = ("8480-6", "Systolic blood pressure")
BP_DIASTOLIC = ("8462-4", "Diastolic blood pressure")

NOTE_TYPES: dict[str, tuple[str, str]] = {
    "progress": ("11506-3", "Progress note"),
    "consult": ("11488-4", "Consult note"),
    "procedure": ("28570-0", "Procedure note"),
    "discharge": ("18842-5", "Discharge summary"),
    "history and physical": ("34117-2", "History and physical note"),
    "h&p": ("34117-2", "History and physical note"),
}

ROUTES: dict[str, tuple[str, str]] = {
    "oral": ("26643006", "Oral route"),
    "intravenous": ("47625008", "Intravenous route"),
    "intramuscular": ("78421000", "Intramuscular route"),
    "subcutaneous": ("34206005", "Subcutaneous route"),
    "sublingual": ("37839007", "Sublingual route"),
    "inhaled": ("447694001", "Respiratory tract route"),
    "topical": ("6064005", "Topical route"),
    "rectal": ("37161004", "Rectal route"),
    "transdermal": ("45890007", "Transdermal route"),
}
"""Routes of administration, SNOMED CT (the FHIR ``Dosage.route`` example value set)."""


def rxnorm_for(name: str) -> tuple[str, str] | None:
    """The RxNorm ingredient code for a drug name we know, matched case-insensitively."""
    return RXNORM_CODES.get(name.strip().lower())
