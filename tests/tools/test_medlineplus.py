"""MedlinePlus health topics: recorded responses, and the condition source they join online."""

from __future__ import annotations

import httpx
import pytest
import respx
from recorded import recorded_text

from docgemma.tools import knowledge_base, medlineplus
from docgemma.tools.base import ToolContext, ToolErrorType
from docgemma.tools.http import ToolFailure, create_client

QUESTION = "What is leishmaniasis and how is it spread?"


@pytest.fixture
def online(settings):
    return settings.model_copy(update={"offline": False})


@pytest.fixture
def no_pages(monkeypatch):
    """The local pages have nothing on the question: MedlinePlus alone can answer."""
    monkeypatch.setattr(knowledge_base, "search_pages", lambda settings, query: ([], True))


async def ask(settings, query: str, question: str | None, response=None, side_effect=None):
    with respx.mock:
        route = respx.get(settings.medlineplus_url).mock(
            return_value=response, side_effect=side_effect
        )
        async with create_client(settings) as http:
            outcome = await knowledge_base.SPEC.run(
                knowledge_base.SPEC.args(query=query),
                ToolContext(settings, http=http, question=question),
            )
    return outcome, route


def test_a_recorded_search_parses_to_plain_text_topics():
    (topic,) = medlineplus.parse_topics(
        recorded_text("medlineplus", "search_leishmaniasis_brief.xml")
    )
    assert topic.title == "Leishmaniasis"  # the highlight markup is gone
    assert topic.url == "https://medlineplus.gov/leishmaniasis.html"
    assert topic.summary == (
        "Leishmaniasis is a parasitic disease spread by the bite of infected sand flies."
    )
    assert topic.also_called == ("Kala-azar",)


def test_no_match_parses_to_no_topics():
    assert medlineplus.parse_topics(recorded_text("medlineplus", "search_no_results.xml")) == []


@pytest.mark.parametrize("body", ["<html>busy</html>", "not xml at all <"])
def test_an_unreadable_reply_is_a_malformed_response(body):
    with pytest.raises(ToolFailure) as failure:
        medlineplus.parse_topics(body)
    assert failure.value.error_type is ToolErrorType.MALFORMED_RESPONSE


def test_a_link_off_medlineplus_is_not_kept():
    body = recorded_text("medlineplus", "search_leishmaniasis_brief.xml").replace(
        "https://medlineplus.gov/leishmaniasis.html", "javascript:alert(1)"
    )
    (topic,) = medlineplus.parse_topics(body)
    assert topic.url is None


async def test_online_a_relevant_topic_is_a_cited_passage(online, no_pages):
    body = recorded_text("medlineplus", "search_leishmaniasis_brief.xml")
    outcome, route = await ask(online, "leishmaniasis", QUESTION, httpx.Response(200, text=body))
    assert outcome.ok
    params = route.calls.last.request.url.params
    assert (params["db"], params["term"]) == ("healthTopics", "leishmaniasis")
    assert str(route.calls.last.request.url).startswith("https://wsearch.nlm.nih.gov/ws/query?")
    assert [s.title for s in outcome.sources] == ["MedlinePlus: Leishmaniasis"]
    assert outcome.sources[0].url == "https://medlineplus.gov/leishmaniasis.html"
    (passage,) = outcome.passages
    assert (passage.source, passage.section) == (0, "Summary")
    assert passage.text.startswith("Leishmaniasis is a parasitic disease spread by the bite")
    assert passage.text in outcome.formatted and "also called Kala-azar" in outcome.formatted


async def test_online_an_off_topic_topic_is_not_a_source(online, no_pages):
    """MedlinePlus answered, but about something else: the sources do not cover the question."""
    body = recorded_text("medlineplus", "search_leishmaniasis_brief.xml")
    question = "Which drug reverses an opioid overdose?"
    outcome, _ = await ask(online, "opioid overdose", question, httpx.Response(200, text=body))
    assert outcome.error_type is ToolErrorType.NOT_FOUND and not outcome.passages
    assert outcome.formatted == (
        "The available sources do not cover “opioid overdose”: nothing found in the condition "
        "pages and MedlinePlus is about it."
    )


async def test_medlineplus_unreachable_leaves_the_pages_to_answer_and_says_so(online, no_pages):
    outcome, _ = await ask(
        online, "leishmaniasis", QUESTION, side_effect=httpx.ConnectError("refused")
    )
    assert outcome.error_type is ToolErrorType.NOT_FOUND
    assert "nothing found in the condition pages is about it" in outcome.formatted


async def test_offline_medlineplus_is_never_called(settings, no_pages):
    outcome, route = await ask(settings, "leishmaniasis", QUESTION, httpx.Response(200))
    assert route.call_count == 0 and outcome.error_type is ToolErrorType.NOT_FOUND
