"""A drug the offline interaction reference lacks, checked on its FDA label: a name found in
the label's sections is a finding quoting the label; a name not found claims nothing;
offline, or without a label, the pair stays "not checked"."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
import respx
from recorded import recorded

from docgemma.tools import drug_safety
from docgemma.tools.base import ToolContext
from docgemma.tools.http import create_client
from docgemma.tools.label_interactions import LabelPair, label_findings, named_on_label
from docgemma.tools.rx_check import ChartFacts, check, unlisted_pairs

LABEL = {
    "openfda": {"brand_name": ["Rhythmol Test"], "generic_name": ["DOFETILIDE"]},
    "set_id": "test-dofetilide",
    "contraindications": [
        "Known long QT syndrome. Do not give with verapamil, trimethoprim (alone or with "
        "sulfamethoxazole) or ketoconazole. Severe renal impairment."
    ],
    "drug_interactions": ["Grapefruit juice and diltiazem may raise exposure."],
}
PAIR = "warfarin with dofetilide (in the chart)"


@pytest.fixture
def online(settings):
    return settings.model_copy(update={"offline": False})


async def findings_for(settings, pairs, response):
    with respx.mock:
        respx.get(drug_safety.OPENFDA_LABEL_URL).mock(return_value=response)
        async with create_client(settings) as http:
            return await label_findings(pairs, ToolContext(settings, http=http))


@pytest.mark.parametrize(
    ("other", "severity", "quoted"),
    [
        ("verapamil", "warning", "Do not give with verapamil"),
        ("sulfamethoxazole-trimethoprim", "warning", "trimethoprim (alone or with"),
        ("diltiazem", "caution", "Grapefruit juice and diltiazem"),
    ],
)
async def test_a_name_on_the_label_is_a_finding_quoting_it(
    online, other: str, severity: str, quoted: str
) -> None:
    pair = LabelPair(label_of="dofetilide", other=other, title=f"{other} with dofetilide")
    found, read = await findings_for(online, [pair], httpx.Response(200, json={"results": [LABEL]}))
    [finding] = found
    assert read == {"dofetilide"} and finding.severity == severity
    assert quoted in finding.detail and finding.title.endswith("of the dofetilide label")
    assert finding.source.startswith("FDA drug label")


async def test_a_name_not_on_the_label_claims_nothing(online) -> None:
    pair = LabelPair(label_of="dofetilide", other="amoxicillin", title=PAIR)
    found, read = await findings_for(online, [pair], httpx.Response(200, json={"results": [LABEL]}))
    assert found == [] and read == {"dofetilide"}


async def test_offline_or_without_a_label_nothing_is_read(settings, online) -> None:
    pair = LabelPair(label_of="dofetilide", other="verapamil", title=PAIR)
    assert await label_findings([pair], ToolContext(settings)) == ([], set())
    missing = httpx.Response(404, json=recorded("openfda", "error_not_found_404.json"))
    assert await findings_for(online, [pair], missing) == ([], set())


def test_the_card_says_which_drugs_were_read_on_their_label_only() -> None:
    chart = ChartFacts(patient="T (t-1)", medications=("dofetilide",))
    assert [(p.label_of, p.other) for p in unlisted_pairs("verapamil", chart.medications)] == [
        ("dofetilide", "verapamil")
    ]
    unread = check("verapamil", chart)
    assert any(f.title == "Interactions not checked for dofetilide" for f in unread.findings)
    read = check("verapamil", chart, read_on_label={"dofetilide"})
    titles = [f.title for f in read.findings]
    assert "Interactions of dofetilide checked on the FDA label only" in titles
    assert not any(t.startswith("Interactions not checked") for t in titles)


def test_a_real_label_names_its_contraindicated_drug() -> None:
    """A recorded sertraline label: its contraindications name linezolid (an MAOI)."""
    label = recorded("openfda", "label_zoloft_sertraline_boxed.json")["results"][0]
    pair = LabelPair(label_of="sertraline", other="linezolid", title="linezolid with sertraline")
    finding = named_on_label(label, pair, "FDA drug label: Zoloft")
    assert finding is not None and finding.severity == "warning"
    assert "linezolid" in finding.detail and "contraindications" in finding.title
    assert named_on_label(label, LabelPair("sertraline", "paracetamol", "x"), "label") is None


async def test_a_slow_label_service_costs_the_labels_only(online) -> None:
    """The chart check runs under the tools' deadline; the labels take half of it at most,
    all at once, so the offline findings still reach the card."""
    quick = online.model_copy(update={"tool_timeout_s": 0.4})
    pairs = [LabelPair(d, "verapamil", PAIR) for d in ("dofetilide", "dronedarone")]

    async def slow(request):
        await asyncio.sleep(5)
        return httpx.Response(200, json={"results": [LABEL]})

    start = time.perf_counter()
    with respx.mock:
        respx.get(drug_safety.OPENFDA_LABEL_URL).mock(side_effect=slow)
        async with create_client(quick) as http:
            found = await label_findings(pairs, ToolContext(quick, http=http))
    assert found == ([], set()) and time.perf_counter() - start < 1.5


def test_a_long_sentence_is_quoted_around_the_name_and_a_metal_is_no_name() -> None:
    sentence = "Avoid use with " + ", ".join(f"agent{n}" for n in range(150)) + ", verapamil."
    label = {"contraindications": [sentence]}
    finding = named_on_label(label, LabelPair("dofetilide", "verapamil", PAIR), "label")
    assert finding is not None and "verapamil" in finding.detail
    assert finding.detail.startswith('"… ') and len(finding.detail) < 320
    sparing = {"warnings": ["Do not combine with potassium-sparing diuretics."]}
    pair = LabelPair("dofetilide", "potassium chloride", PAIR)
    assert named_on_label(sparing, pair, "label") is None
