"""The evaluation's case file and recorded services: coverage, consistency, no training overlap."""

from __future__ import annotations

import json
import re
from collections import Counter

import httpx
import pytest

from docgemma.routing.examples import EXAMPLES_DIR
from docgemma.tools.registry import build_registry
from experiments.evaluation.cases import Category, load_eval_cases, stored_image
from experiments.evaluation.services import Injection, RecordedServices

REGISTRY = build_registry()

CASES = load_eval_cases()


def folded(text: str) -> str:
    """Lower case, punctuation and runs of whitespace folded to single spaces."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def training_texts() -> set[str]:
    """Every routing training example (intent, tool, result) and its query part."""
    texts = set()
    for path in EXAMPLES_DIR.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                text = json.loads(line)["text"]
                texts.add(folded(text))
                texts.add(folded(text.split("\nResult:")[0].removeprefix("Query:")))
    return texts


def test_at_least_a_hundred_cases_over_every_category():
    counts = Counter(c.category for c in CASES)
    assert len(CASES) >= 100
    assert set(counts) == set(Category)
    assert min(counts.values()) >= 6


def test_every_tool_has_cases_of_its_own():
    alone = Counter(c.expected_tools[0] for c in CASES if len(c.expected_tools) == 1)
    assert set(alone) == set(REGISTRY.names)
    assert min(alone.values()) >= 4


def test_expected_arguments_name_real_fields():
    for case in CASES:
        for tool, args in case.expected_args.items():
            assert set(args) <= set(REGISTRY[tool].args.model_fields), case.id


def test_every_case_checks_something_in_the_answer_or_the_behaviour():
    for case in CASES:
        assert case.key_facts or case.must_ask or case.must_not_contain or not case.expected_tools


def test_no_evaluation_case_is_a_routing_training_example():
    training = training_texts()
    overlap = [c.id for c in CASES if folded(c.query) in training]
    assert not overlap, f"evaluation cases also used to train the classifiers: {overlap}"


def test_overlap_check_folds_case_and_punctuation():
    assert folded("Any boxed warnings on  SOTALOL?") == folded("any boxed warnings on sotalol")
    assert "any boxed warnings on sotalol" in training_texts()


def test_image_cases_attach_a_real_png():
    for case in CASES:
        if case.image:
            assert stored_image(case.image).startswith(b"\x89PNG")


def _get(services: RecordedServices, url: str, **params: str) -> httpx.Response:
    return services.handle(httpx.Request("GET", url, params=params))


def test_recorded_openfda_answers_by_generic_or_brand_name():
    services = RecordedServices()
    url = "https://api.fda.gov/drug/label.json"
    found = _get(services, url, search='openfda.generic_name:"Tikosyn" OR x:"Tikosyn"')
    assert found.status_code == 200
    assert "torsade de pointes" in found.json()["results"][0]["boxed_warning"][0]
    assert _get(services, url, search='openfda.generic_name:"xylotrexan"').status_code == 404


def test_injected_failure_lasts_for_its_count_then_the_record_answers():
    services = RecordedServices()
    services.reset(Injection(service="clinicaltrials", failure="server_error", times=1))
    url = "https://clinicaltrials.gov/api/v2/studies"
    assert _get(services, url, **{"query.cond": "melanoma"}).status_code == 503
    studies = _get(services, url, **{"query.cond": "melanoma"}).json()["studies"]
    assert studies[0]["protocolSection"]["identificationModule"]["nctId"] == "NCT99000001"
    services.reset(Injection(service="europepmc", failure="timeout"))
    with pytest.raises(httpx.ReadTimeout):
        _get(services, "https://www.ebi.ac.uk/europepmc/webservices/rest/search", query="x")


def test_trial_status_filter_is_honoured():
    services = RecordedServices()
    url = "https://clinicaltrials.gov/api/v2/studies"
    body = _get(services, url, **{"query.cond": "melanoma", "filter.overallStatus": "RECRUITING"})
    assert [
        s["protocolSection"]["statusModule"]["overallStatus"] for s in body.json()["studies"]
    ] == ["RECRUITING"]
