"""Node ① INPUT_ASSEMBLY: deterministic context for every later node.

Formats recent history, extracts patient IDs, drugs and action verbs without the
model, pre-fetches the selected patient's summary, and turns an attached image into
findings when the backend can see. It also starts the turn: the state's per-turn
fields go back to their start values (``state.turn_start``). Code decides here, before any
model call, which requests the assistant declines (``harmful_requests``), which can't-miss
diagnoses the answer opens with (``cant_miss``), answers a message with no clinical content
(``small_talk``), asks for a patient, drug or image the message refers to and nobody
gave (``references``), and turns a reply that asks for a declined write again, or corrects
the latest write, into a new proposal (``amendment``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from docgemma.agent import llm_calls
from docgemma.agent.amendment import reproposal
from docgemma.agent.cant_miss import clinician_messages, reasoning_detail, recognise
from docgemma.agent.confirmation import confirmed_query, unconfirmed
from docgemma.agent.context import HISTORY_MESSAGES
from docgemma.agent.deps import AgentDeps
from docgemma.agent.drug_names import misspelt_drugs
from docgemma.agent.entities import action_verbs, drug_dictionary, patient_ids
from docgemma.agent.harmful_requests import refusal
from docgemma.agent.patient_choice import chosen_patient, only_picks
from docgemma.agent.person_names import introduced_names
from docgemma.agent.prompts import IMAGE_SYSTEM
from docgemma.agent.references import Context, unresolved_references
from docgemma.agent.rules import unknown_drug_question
from docgemma.agent.schemas import ImageFindings
from docgemma.agent.small_talk import REPLIES, last_assistant_message, small_talk
from docgemma.agent.state import RESET, AgentState, turn_start
from docgemma.agent.tracing import TIMELINE_SUMMARY_CHARS, decision, note, traced
from docgemma.llm.repair import ModelFailure
from docgemma.llm.types import Message
from docgemma.tools.ehr import describe_patient, next_steps
from docgemma.tools.text import shorten

log = logging.getLogger(__name__)

NO_VISION_NOTICE = "The attached image was not analysed: the current model cannot read images."
_CONFIRMED = "Went on with the drug names confirmed"
RECORD_UNAVAILABLE = (
    "The record of patient {patient_id} could not be loaded just now; the answer does not use it."
)


@traced("input_assembly")
async def input_assembly(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    query = state["user_query"]
    has_image = bool(state.get("has_image"))
    update = turn_start()
    update["turn_number"] = state.get("turn_number", 0) + 1
    confirmed = confirmed_query(query, state.get("unconfirmed_drugs"))
    update["unconfirmed_drugs"] = None  # confirmed now, or dropped by any other reply
    if confirmed:  # "yes" to "did you mean simvastatin?": the held-back request, corrected
        query = update["user_query"] = confirmed
    entities = {
        "patient_ids": patient_ids(query),
        "drug_mentions": drug_dictionary().find(query),
        "action_verbs": action_verbs(query),
        "has_image": has_image,
    }
    update["extracted_entities"] = entities
    update["conversation_history"] = (state.get("conversation") or [])[-HISTORY_MESSAGES:]
    update["trace"] = [
        *RESET,
        *([decision("input_assembly", "confirmed", query, title=_CONFIRMED)] if confirmed else []),
        note(
            "input_assembly",
            "Read the question",
            "; ".join(
                f"{k.replace('_', ' ')}: {', '.join(v)}"
                for k, v in entities.items()
                if isinstance(v, list) and v
            )
            or "no patient IDs or drug names detected",
        ),
    ]

    previous = state.get("active_patient_id")
    named = entities["patient_ids"] if deps.patient_summary is not None else []
    patient_id, picked = _patient(query, named, state)
    update["patient_choices"] = None  # a pick answers the list once; any other reply drops it
    if patient_id != previous:
        update["active_patient_id"] = patient_id
        how = "the clinician picked from the list" if picked else "the message names"
        update["trace"].append(
            decision(
                "input_assembly",
                "patient",
                f"{how} patient {patient_id}",
                title="Took the patient " + ("picked" if picked else "named in the message"),
            )
        )
    history = update["conversation_history"]
    question = unresolved_references(
        query,
        Context(
            earlier_messages=[t["content"] for t in history],
            patient_selected=bool(patient_id),
            image_available=has_image or bool(state.get("image_findings")),
            unfound_patient=state.get("unfound_patient"),
        ),
    )
    refused = refusal(query)
    if refused is not None:  # no model call, no tool, no can't-miss opening
        update["refusal"] = refused.reply
        update["trace"].append(
            decision(
                "input_assembly",
                "refuse",
                f"{refused.kind} (matched " + ", ".join(f"“{e}”" for e in refused.evidence) + ")",
                title="Declined by code",
                detail="The request asks for something the assistant does not help with.",
            )
        )
        return update
    found = recognise(query, clinician_messages(history))
    update["cant_miss"] = [dict(f) for f in found]
    if found:  # the answer opens with them, whatever the model writes
        update["trace"].append(
            decision(
                "input_assembly",
                "cant_miss",
                ", ".join(f["rule_id"] for f in found),
                title="Can't-miss diagnoses to exclude first",
                detail=reasoning_detail(found),
            )
        )
    chatter = None if has_image else small_talk(query, last_assistant_message(history))
    again = reproposal(
        query,
        (state.get("saved_write"), state.get("declined_write")),
        turn=update["turn_number"],
        registry=deps.registry,
        active_patient=patient_id,
        patient_ids=entities["patient_ids"],
        drugs_named=drug_dictionary().find,
    )
    if again is not None and "ask" in again:  # a new drug named without all its order
        update["clarification_request"] = again["ask"]
    elif again is not None:  # "save it again with … added", "make that 20 mg": changed by code
        update["reproposal"] = again
        replacing = again["replacing"]["replaced"] if "replacing" in again else None
        update["trace"].append(
            decision(
                "input_assembly",
                "propose_again",
                ", ".join(f"{k}: {v}" for k, v in again["args"].items()),
                title=f"Proposing {'a correction' if replacing else 'the declined write again'}",
                detail=(
                    f"The clinician's changes, applied by code to the saved {replacing}; "
                    "approving marks that entry entered in error."
                    if replacing
                    else "The clinician's changes, applied by code to the card they rejected."
                ),
            )
        )
    elif picked is not None and only_picks(query, picked):  # nothing asked yet: say who it is
        update["clarification_request"] = (
            f"{describe_patient(picked)} is now the selected patient. {next_steps(picked)}"
        )
    elif chatter is not None:  # a model answers a fragment with its last answer again
        update["clarification_request"] = REPLIES[chatter]
        update["trace"].append(
            decision(
                "input_assembly",
                "reply",
                f"no clinical content ({chatter})",
                title="Answered without the model",
                detail="The message holds no clinical question.",
            )
        )
    elif question:  # asked before any model call: a guess here would become a tool argument
        update["clarification_request"] = question
        update["trace"].append(
            decision("input_assembly", "ask_user", question, title="Need more information")
        )
    elif misspelt := misspelt_drugs(query, introduced_names(query)):
        # read as no drug, "interacton warfrin ibuprofn" went to the condition pages
        update["clarification_request"] = unknown_drug_question(misspelt)
        update["unconfirmed_drugs"] = unconfirmed(query, misspelt)
        update["trace"].append(
            decision(
                "input_assembly",
                "ask_user",
                f"spelt nearly like a known drug: {', '.join(misspelt)}",
                title="Need more information",
            )
        )
    notices: list[str] = []
    if patient_id and deps.patient_summary is not None:
        try:
            summary = await deps.patient_summary(patient_id)
        except Exception:  # noqa: BLE001 - an unreachable EHR must not end the turn
            log.exception("could not load the record of patient %s", patient_id)
            notices.append(RECORD_UNAVAILABLE.format(patient_id=patient_id))
        else:
            if summary is None:
                update["clarification_request"] = (
                    f"I could not find a patient with ID '{patient_id}'. "
                    "Could you check the ID or search by name?"
                )
                # an unknown id typed now leaves the patient selected before it selected
                update["active_patient_id"] = None if patient_id == previous else previous
                update["trace"].append(
                    decision("input_assembly", "ask_user", f"unknown patient ID {patient_id}")
                )
            else:
                update["patient_summary"] = summary
                update["trace"].append(
                    note(
                        "input_assembly",
                        "Loaded the active patient",
                        shorten(summary, TIMELINE_SUMMARY_CHARS),
                    )
                )

    if has_image:
        image = await _image_findings(deps)
        update["image_findings"] = image["image_findings"]
        update["llm_calls"] = [*RESET, *image.get("llm_calls", [])]
        notices += image.get("notices", [])
    update["notices"] = [*RESET, *notices]
    return update


def _patient(
    query: str, named: list[str], state: AgentState
) -> tuple[str | None, Mapping[str, Any] | None]:
    """The turn's patient, and the listed record the message picks if it picks one.

    A reply that picks one of the patients a name search listed selects that patient; a
    message naming one patient's id selects that patient (the record is loaded below, so an
    id no record has is asked about; ``named`` is empty when no record can be loaded);
    otherwise the patient selected before stays.
    """
    picked = chosen_patient(query, state.get("patient_choices") or [])
    if picked is not None:
        return str(picked["patient_id"]), picked
    if len(named) == 1:
        return named[0], None
    return state.get("active_patient_id"), None


async def _image_findings(deps: AgentDeps) -> dict[str, Any]:
    if not (deps.llm.supports_vision and deps.image is not None):
        return {"image_findings": None, "notices": [NO_VISION_NOTICE]}
    messages = [
        Message(role="system", content=IMAGE_SYSTEM.render()),
        Message(role="user", content="Describe this image.", images=(deps.image,)),
    ]
    try:
        value, calls = await llm_calls.structured(
            deps, "input_assembly", "image", messages, ImageFindings
        )
    except ModelFailure as exc:
        log.warning("image analysis failed: %s", exc)
        return {
            "image_findings": None,
            "llm_calls": exc.calls,
            "notices": ["The attached image could not be analysed."],
        }
    return {"image_findings": value.model_dump(), "llm_calls": calls}
