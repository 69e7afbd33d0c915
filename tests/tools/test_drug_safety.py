"""Drug Safety Report on recorded openFDA label responses, every failure path, and offline mode."""

from __future__ import annotations

import httpx
import pytest
import respx
from recorded import recorded

from docgemma.tools import drug_safety
from docgemma.tools.args import DrugSafetyArgs
from docgemma.tools.base import ToolContext, ToolErrorType
from docgemma.tools.http import create_client

TOOL_NAMES = ("check_drug_safety", "check_drug_interactions", "openfda", "drug_name")


@pytest.fixture
def online(settings):
    return settings.model_copy(update={"offline": False})


async def run(settings, drug: str, response=None, side_effect=None):
    with respx.mock:
        route = respx.get(drug_safety.OPENFDA_LABEL_URL)
        route.mock(return_value=response, side_effect=side_effect)
        async with create_client(settings) as http:
            outcome = await drug_safety.SPEC.run(
                DrugSafetyArgs(drug_name=drug), ToolContext(settings, http=http)
            )
    return outcome, route


def assert_clean(outcome):
    lowered = outcome.formatted.lower()
    assert all(name not in lowered for name in TOOL_NAMES), outcome.formatted


async def test_boxed_warning_label(online):
    outcome, route = await run(
        online,
        "Jantoven",
        httpx.Response(200, json=recorded("openfda", "label_jantoven_warfarin_boxed.json")),
    )
    assert outcome.ok
    assert outcome.formatted.startswith("FDA label for Jantoven / WARFARIN SODIUM, Upsher-Smith")
    assert (
        "BOXED WARNING: WARNING: BLEEDING RISK Warfarin Sodium can cause major or fatal bleeding"
        in outcome.formatted
    )
    assert outcome.data["contraindications"].startswith("JANTOVEN is contraindicated in: Pregnancy")
    assert outcome.data["warnings"].startswith("Tissue necrosis")
    assert outcome.sources[0].kind == "label"
    assert outcome.sources[0].url.endswith("setid=19a69a72-ac5d-45d5-a94d-a5aaecbe4730")
    search = route.calls.last.request.url.params["search"]
    assert search == 'openfda.generic_name:"Jantoven" OR openfda.brand_name:"Jantoven"'
    assert_clean(outcome)


@pytest.mark.parametrize(
    ("fixture", "drug", "boxed_start"),
    [
        ("label_zoloft_sertraline_boxed.json", "sertraline", "WARNING: SUICIDAL THOUGHTS"),
        ("label_citalopram_boxed.json", "citalopram", "WARNING: SUICIDAL THOUGHTS"),
    ],
)
async def test_other_boxed_labels(online, fixture, drug, boxed_start):
    outcome, _ = await run(online, drug, httpx.Response(200, json=recorded("openfda", fixture)))
    assert outcome.data["boxed_warning"].upper().startswith(boxed_start)


async def test_label_without_boxed_warning_says_so(online):
    outcome, _ = await run(
        online,
        "Lipitor",
        httpx.Response(200, json=recorded("openfda", "label_lipitor_atorvastatin_no_boxed.json")),
    )
    assert outcome.ok and outcome.data["boxed_warning"] == ""
    assert "No boxed warning on this label." in outcome.formatted
    assert outcome.data["manufacturer"] == "Viatris Specialty LLC"


async def test_full_length_sections_are_shortened_at_a_sentence(online):
    outcome, _ = await run(
        online,
        "gefitinib",
        httpx.Response(200, json=recorded("openfda", "label_gefitinib_fulltext_sections.json")),
    )
    warnings = outcome.data["warnings"]
    assert warnings.startswith("Interstitial lung disease (ILD)")
    assert len(warnings) <= drug_safety._SECTION_LIMITS["warnings"] + 2 and warnings.endswith(" …")
    full = recorded("openfda", "label_gefitinib_fulltext_sections.json")["results"][0][
        "warnings_and_cautions"
    ][0]
    assert len(full) > 4000


async def test_label_with_no_safety_sections(online):
    outcome, _ = await run(
        online,
        "Keytruda",
        httpx.Response(200, json=recorded("openfda", "label_keytruda_minimized_biomcp.json")),
    )
    assert outcome.ok
    assert "This label has no section on: contraindications, warnings." in outcome.formatted
    assert "lists none of the sections asked about" in outcome.formatted and not outcome.passages


async def test_unknown_drug_404_is_drug_not_in_database(online):
    outcome, _ = await run(
        online,
        "notadrugxyz",
        httpx.Response(404, json=recorded("openfda", "error_not_found_404.json")),
    )
    assert outcome.error_type is ToolErrorType.DRUG_NOT_IN_DATABASE
    assert outcome.formatted == "notadrugxyz was not found in the drug database."
    assert "NOT_FOUND" in outcome.error_detail


async def test_empty_results_is_drug_not_in_database(online):
    outcome, _ = await run(online, "zzz", httpx.Response(200, json={"meta": {}, "results": []}))
    assert outcome.error_type is ToolErrorType.DRUG_NOT_IN_DATABASE


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"response": httpx.Response(429, json={"error": {"code": "OVER_RATE_LIMIT"}})},
            ToolErrorType.RATE_LIMIT,
        ),
        (
            {
                "response": httpx.Response(
                    500, json=recorded("openfda", "error_server_error_500_malformed_query.json")
                )
            },
            ToolErrorType.SERVER_ERROR,
        ),
        ({"side_effect": httpx.ConnectTimeout("timed out")}, ToolErrorType.TIMEOUT),
        ({"side_effect": httpx.ConnectError("refused")}, ToolErrorType.OUT_OF_SERVICE),
        ({"response": httpx.Response(200, text="{not json")}, ToolErrorType.MALFORMED_RESPONSE),
        (
            {"response": httpx.Response(200, json=["unexpected", "shape"])},
            ToolErrorType.MALFORMED_RESPONSE,
        ),
        (
            {
                "response": httpx.Response(
                    400, json=recorded("openfda", "error_bad_request_400_sort.json")
                )
            },
            ToolErrorType.INVALID_ARGS,
        ),
    ],
)
async def test_failures_become_typed_outcomes(online, kwargs, expected):
    outcome, _ = await run(online, "warfarin", **kwargs)
    assert outcome.error_type is expected
    assert "Drug Safety Report" in outcome.formatted
    assert outcome.error_detail and outcome.error_detail not in outcome.formatted
    assert_clean(outcome)


@pytest.mark.parametrize("name", ["   ", '"*:?'])
async def test_unusable_drug_name_is_invalid_args_without_a_request(online, name):
    outcome, route = await run(online, name, httpx.Response(200, json={}))
    assert outcome.error_type is ToolErrorType.INVALID_ARGS
    assert outcome.formatted == "A drug name is needed to look up its FDA safety information."
    assert route.call_count == 0


async def test_query_characters_are_escaped(online):
    _, route = await run(
        online,
        'warfarin" OR x:"y',
        httpx.Response(200, json=recorded("openfda", "label_jantoven_warfarin_boxed.json")),
    )
    search = route.calls.last.request.url.params["search"]
    assert search.count('"') == 4 and "warfarin OR x y" in search


async def test_offline_mode_is_unavailable_without_network(settings):
    assert settings.offline
    outcome, route = await run(settings, "warfarin", httpx.Response(200, json={}))
    assert outcome.error_type is ToolErrorType.OUT_OF_SERVICE
    assert outcome.formatted.startswith("The Drug Safety Report could not be used: it needs")
    assert route.call_count == 0


async def test_missing_shared_client_still_works(online):
    with respx.mock:
        respx.get(drug_safety.OPENFDA_LABEL_URL).mock(
            return_value=httpx.Response(
                200, json=recorded("openfda", "label_lipitor_atorvastatin_no_boxed.json")
            )
        )
        outcome = await drug_safety.SPEC.run(
            DrugSafetyArgs(drug_name="Lipitor"), ToolContext(online)
        )
    assert outcome.ok and outcome.data["brand_name"] == "Lipitor"


def test_spec_matches_the_seed():
    spec = drug_safety.SPEC
    assert (spec.name, spec.label, spec.writes_ehr) == (
        "check_drug_safety",
        "Drug Safety Report",
        False,
    )
    assert spec.description.startswith(
        "Look up FDA boxed warnings, contraindications, and major safety alerts"
    )
    assert spec.args.model_validate(spec.example.args)


def label(generic: str, brand: str, boxed: str = "") -> dict:
    """One openFDA label result, trimmed to the fields the tool reads."""
    found = {"openfda": {"generic_name": [generic], "brand_name": [brand]}, "set_id": brand}
    return found | ({"boxed_warning": [boxed]} if boxed else {})


def labels(*results: dict) -> httpx.Response:
    return httpx.Response(200, json={"meta": {}, "results": list(results)})


async def test_a_brand_of_several_generics_is_ambiguous_and_offers_them(online):
    """An ambiguous drug: the clinician is asked, the tool does not pick one."""
    outcome, _ = await run(
        online,
        "Advil",
        labels(
            label("IBUPROFEN AND DIPHENHYDRAMINE CITRATE", "Advil PM"),
            label("IBUPROFEN AND PSEUDOEPHEDRINE HYDROCHLORIDE", "Advil Cold and Sinus"),
        ),
    )
    assert outcome.error_type is ToolErrorType.AMBIGUOUS_DRUG_NAME
    assert outcome.suggestions == [
        "ibuprofen and diphenhydramine citrate",
        "ibuprofen and pseudoephedrine hydrochloride",
    ]
    assert outcome.formatted == "The drug name Advil matches more than one product."
    assert_clean(outcome)


async def test_a_generic_name_reads_its_own_single_ingredient_label(online):
    outcome, _ = await run(
        online,
        "metformin",
        labels(
            label("GLIPIZIDE AND METFORMIN HYDROCHLORIDE", "Metaglip", boxed="LACTIC ACIDOSIS A"),
            label("METFORMIN HYDROCHLORIDE", "Glucophage", boxed="LACTIC ACIDOSIS B"),
            label("SITAGLIPTIN AND METFORMIN HYDROCHLORIDE", "Janumet", boxed="LACTIC ACIDOSIS C"),
        ),
    )
    assert outcome.ok and outcome.data["brand_name"] == "Glucophage"


async def test_a_brand_means_that_brand_not_its_line_extensions(online):
    outcome, _ = await run(
        online,
        "Tylenol",
        labels(
            label("ACETAMINOPHEN AND DIPHENHYDRAMINE HYDROCHLORIDE", "Tylenol PM"),
            label("ACETAMINOPHEN", "Tylenol"),
        ),
    )
    assert outcome.ok and outcome.data["brand_name"] == "Tylenol"


async def test_a_brand_of_one_generic_is_not_ambiguous(online):
    outcome, _ = await run(
        online,
        "Coumadin",
        labels(label("WARFARIN SODIUM", "Coumadin"), label("WARFARIN SODIUM", "Coumadin")),
    )
    assert outcome.ok and outcome.data["generic_name"] == "WARFARIN SODIUM"
