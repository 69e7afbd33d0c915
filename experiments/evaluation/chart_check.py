"""The prescription card's chart check scored from code alone, without a model run.

Before a proposed prescription is shown, code checks the drug against the patient's
chart (``docgemma.tools.rx_check``) and the card carries what it finds. Whether the card
shows a risk the chart holds is therefore known without the model: this proposes each
case's drug for its synthetic patient, on the embedded FHIR server over HTTP, and scores
the findings. The cases (``data/eval/chart_risks.jsonl``) were written from clinical
knowledge, not from the check's own tables: a risk case names the chart entries (the
interacting medication, the allergy) a warning or caution must name; a case naming none
is a control, where any warning or caution about an interaction, an allergy or a
duplicate is a false alarm. A drug the offline interaction reference lacks is read on its
FDA label, here from the evaluation's recorded openFDA answers (``--offline``: not read,
as the app offline). The card is shown only when the agent proposes the prescription,
which the evaluation's write cases measure.

``python -m experiments.evaluation.chart_check [--split dev|test]`` prints one line a case,
the share of risks shown and the false alarms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

import pandas as pd
from pydantic import BaseModel

from docgemma.config import get_settings
from docgemma.ehr.client import EHRClient
from docgemma.ehr.server import serve_in_thread
from docgemma.tools.args import PrescribeMedicationArgs
from docgemma.tools.base import ToolContext
from docgemma.tools.rx_check import review_prescription
from docgemma.tools.write_review import WriteReview
from experiments.evaluation.services import RecordedServices

CASES = Path(__file__).resolve().parents[2] / "data" / "eval" / "chart_risks.jsonl"
RISK_KINDS = frozenset({"interaction", "allergy", "cross_reactivity", "duplicate"})
"""The findings that are about the chart's medications and allergies (not the kidneys)."""


class ChartRiskCase(BaseModel):
    id: str
    patient_id: str
    drug: str
    must_name: list[str]
    """The chart entries a warning or caution must name; empty for a control."""
    why: str
    split: str


def load_cases(split: str | None = None) -> list[ChartRiskCase]:
    cases = [ChartRiskCase.model_validate_json(line) for line in CASES.read_text().splitlines()]
    return [c for c in cases if split in (None, c.split)]


def _raised(review: WriteReview) -> list[str]:
    """The warnings and cautions about the chart's medications and allergies, as shown;
    not the note that a drug the interaction reference lacks was not checked."""
    return [
        f"{f.title} {f.detail}".lower()
        for f in review.findings
        if f.severity in ("warning", "caution")
        and f.kind in RISK_KINDS
        and not f.title.lower().startswith("interactions not checked")
    ]


def score(case: ChartRiskCase, review: WriteReview) -> dict[str, object]:
    raised = _raised(review)
    row: dict[str, object] = {
        "case_id": case.id,
        "split": case.split,
        "patient": case.patient_id,
        "drug": case.drug,
        "risk": bool(case.must_name),
        "raised": " | ".join(raised),
    }
    if case.must_name:
        row["shown"] = all(any(n.lower() in r for r in raised) for n in case.must_name)
    else:
        row["false_alarm"] = bool(raised)
    return row


async def chart_scores(
    cases: list[ChartRiskCase], fhir_url: str, *, labels: bool = True
) -> pd.DataFrame:
    """``labels``: drugs the interaction reference lacks are read on their FDA label, from
    the evaluation's recorded openFDA answers (as online); without, as offline."""
    settings = get_settings().model_copy(update={"offline": not labels})
    client = EHRClient.from_settings(settings, fhir_url)
    http = RecordedServices().client() if labels else None
    ctx = ToolContext(settings=settings, fhir=client, http=http)
    rows = []
    for case in cases:
        args = PrescribeMedicationArgs(
            patient_id=case.patient_id,
            medication_name=case.drug,
            dosage="1 dose",
            frequency="once daily",
        )
        rows.append(score(case, await review_prescription(args, ctx)))
    if http is not None:
        await http.aclose()
    return pd.DataFrame(rows)


def summary(scores: pd.DataFrame) -> str:
    lines = []
    for split, part in scores.groupby("split"):
        risks, controls = part[part["risk"]], part[~part["risk"]]
        shown = int(risks["shown"].sum())
        alarms = int(controls["false_alarm"].sum()) if len(controls) else 0
        lines.append(
            f"{split}: risks shown {shown}/{len(risks)} ({shown / max(len(risks), 1):.2f}); "
            f"false alarms {alarms}/{len(controls)}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "test"], default=None)
    parser.add_argument("--json", action="store_true", help="one JSON object a case")
    parser.add_argument("--offline", action="store_true", help="no label reading (the app offline)")
    args = parser.parse_args(argv)
    cases = load_cases(args.split)
    with tempfile.TemporaryDirectory() as tmp, serve_in_thread(Path(tmp) / "ehr.db") as url:
        scores = asyncio.run(chart_scores(cases, url, labels=not args.offline))
    if args.json:
        for row in scores.to_dict(orient="records"):
            print(json.dumps(row, default=str))
        return
    shown = scores.drop(columns=["patient"]).assign(raised=scores["raised"].str[:70])
    print(shown.to_string(index=False))
    print(f"\n{summary(scores)}")


if __name__ == "__main__":
    main()
