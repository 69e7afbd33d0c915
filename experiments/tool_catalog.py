"""The ten tools as the selection prompts describe them, at the three verbosities studied.

The project registry (``docgemma.tools.registry.build_registry``) is used when it
imports and covers every tool of ``TOOL_ARG_SCHEMAS``; until then (or on a machine
where a tool module is missing) the catalog below, written from seed 002 §16, stands
in. Experiments never run a tool, so these specs have no working ``run``.
"""

from __future__ import annotations

import logging

from docgemma.agent.schemas import TOOL_ARG_SCHEMAS
from docgemma.tools.base import ToolContext, ToolOutcome, ToolRegistry, ToolSpec

log = logging.getLogger(__name__)

# name: (label, full description (seed §16), short description with argument hints)
DESCRIPTIONS: dict[str, tuple[str, str, str]] = {
    "check_drug_safety": (
        "Drug Safety Report",
        "Look up FDA boxed warnings, contraindications and major safety alerts for a specific "
        "drug. "
        "Use when a clinician asks about drug safety, warnings, or whether a drug is safe for a "
        "particular patient.",
        "Drug safety lookup (drug name).",
    ),
    "check_drug_interactions": (
        "Drug Interaction Check",
        "Check for known interactions between two or more drugs. Returns severity, mechanism and "
        "clinical significance. Use when a clinician asks about combining medications or potential "
        "drug-drug interactions.",
        "Interaction check (list of drugs).",
    ),
    "search_medical_literature": (
        "Medical Literature",
        "Search PubMed and medical literature databases for published studies, systematic reviews "
        "and clinical evidence. Use when a clinician asks about research, evidence, studies, or "
        "medical literature on a topic.",
        "Literature search (query).",
    ),
    "find_clinical_trials": (
        "Clinical Trials",
        "Search ClinicalTrials.gov for active, recruiting or completed clinical trials for a "
        "specific condition or treatment. Use when a clinician asks about experimental treatments, "
        "ongoing trials, or new therapies being studied.",
        "Trial search (condition, optional status).",
    ),
    "search_patient": (
        "Patient Search",
        "Search the electronic health record system for a patient by name. Returns matching "
        "patient IDs and basic demographics. Use when a clinician mentions a patient by name and "
        "needs to look them up.",
        "Patient lookup (name).",
    ),
    "get_patient_chart": (
        "Patient Record",
        "Retrieve the full clinical summary for a patient, including diagnoses, medications, "
        "allergies, lab results and vitals. Requires a patient ID (not a name). Use when a "
        "clinician wants to review a patient's record.",
        "Chart retrieval (patient id).",
    ),
    "prescribe_medication": (
        "Prescription",
        "Create a new medication order for a patient in the EHR. Use when a clinician wants to "
        "prescribe, order, or start a medication for a specific patient.",
        "New prescription (patient id, drug, dose, frequency).",
    ),
    "add_allergy": (
        "Allergy Documentation",
        "Document an allergy or adverse reaction in a patient's record. Use when a clinician wants "
        "to record, document, or note an allergy.",
        "Allergy entry (patient id, substance, reaction, optional severity).",
    ),
    "save_clinical_note": (
        "Clinical Note",
        "Save a clinical note (progress note, consult note, procedure note, etc.) to a patient's "
        "record. Use when a clinician wants to write, save, or document a clinical note.",
        "Clinical note (patient id, note type, text).",
    ),
    "analyze_medical_image": (
        "Image Analysis",
        "Analyze an attached medical image (X-ray, CT, MRI, histopathology slide, etc.) for "
        "findings relevant to the specified query. Use when a clinician shares a medical image and "
        "asks for analysis or interpretation.",
        "Image analysis (query).",
    ),
}


async def _not_run(args, ctx: ToolContext) -> ToolOutcome:  # pragma: no cover - never called
    raise RuntimeError("experiments select tools; they never execute them")


def catalog_registry() -> ToolRegistry:
    """The stand-in registry built from ``TOOL_ARG_SCHEMAS`` and the descriptions above."""
    return ToolRegistry(
        ToolSpec(
            name=name,
            label=label,
            description=full,
            short_description=short,
            args=TOOL_ARG_SCHEMAS[name],
            run=_not_run,
        )
        for name, (label, full, short) in DESCRIPTIONS.items()
    )


def load_registry() -> tuple[ToolRegistry, str]:
    """The project's registry when complete, else the catalog; with where it came from."""
    try:
        from docgemma.tools.registry import build_registry

        registry = build_registry()
    except Exception as exc:  # a tool module not written yet, or one failing to import
        log.info("project tool registry unavailable (%s); using the experiments catalog", exc)
        return catalog_registry(), "experiments.tool_catalog"
    if set(registry.names) != set(TOOL_ARG_SCHEMAS):
        log.info("project tool registry is incomplete; using the experiments catalog")
        return catalog_registry(), "experiments.tool_catalog"
    return registry, "docgemma.tools.registry"
