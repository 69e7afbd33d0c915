"""The deterministic rules engine: router and error-handler rows, ask-user and task rules."""

from __future__ import annotations

import pytest

from docgemma.agent.rules import (
    ALL_ANSWERED,
    MAX_RETRIES,
    MAX_STEPS,
    MAX_TOTAL_RETRIES,
    NOTHING_LEFT,
    ErrorDecision,
    decide_after_skip,
    decide_error,
    decide_next,
    forced_retry,
    is_duplicate_call,
    proposes_duplicate,
    required_in_order,
    scrub_tool_names,
    waiting_tools,
)
from docgemma.agent.state import ToolResult
from docgemma.tools.base import ToolRegistry
from docgemma.tools.outcomes import MESSAGES, error_message
from docgemma.tools.registry import build_registry

ALL = build_registry()


def result(
    tool: str = "check_drug_safety",
    *,
    error: str | None = None,
    q: str | None = "success_rich",
    args: dict | None = None,
    matches: int | None = None,
    **extra,
) -> ToolResult:
    return ToolResult(
        tool_name=tool,
        tool_label="Label",
        args=args or {"drug_name": "x"},
        result={} if error else {"a": 1},
        formatted_result="text",
        error_type=error,
        entity=extra.get("entity"),
        missing_fields=extra.get("missing", []),
        suggestions=extra.get("suggestions", []),
        patient_matches=matches,
        sources=[],
        quality=q,
        retry=False,
        executed=True,
        unchecked=extra.get("unchecked", []),
        not_consulted=[],
    )


def test_safety_valve_constants_match_the_seed() -> None:
    assert (MAX_STEPS, MAX_RETRIES, MAX_TOTAL_RETRIES) == (4, 2, 4)


# ── unit rows: DETERMINISTIC_ROUTER ──
@pytest.mark.parametrize(
    ("results", "step", "query", "expected"),
    [
        (
            [
                result(
                    "search_patient", matches=3, args={"name": "James Wilson"}, q="success_partial"
                )
            ],
            1,
            "Search for patient James Wilson",
            "ask_user",
        ),
        (
            [
                result("search_patient", args={"name": "a"}),
                result("get_patient_chart", args={"patient_id": "p"}),
                result("check_drug_safety"),
                result("search_medical_literature", args={"query": "q"}),
            ],
            4,
            "Find patient John Smith, check his chart, check metformin safety, find studies",
            "synthesize",
        ),
    ],
)
def test_router_rows(results, step, query, expected) -> None:
    assert (
        decide_next(
            results, step_count=step, user_query=query, patient_known=False, registry=ALL
        ).action
        == expected
    )


@pytest.mark.parametrize(
    ("query", "called", "patient_known", "expected"),
    [
        ("Check FDA warnings for dofetilide", ["check_drug_safety"], False, "synthesize"),
        ("Find patient Maria Garcia and check her chart", ["search_patient"], True, "tool_select"),
        (
            "Find patient Maria Garcia and check her chart",
            ["search_patient", "get_patient_chart"],
            True,
            "synthesize",
        ),
        ("Show the chart for patient abc-123", ["get_patient_chart"], True, "synthesize"),
        (
            "Check interactions between warfarin and aspirin",
            ["check_drug_safety"],
            False,
            "tool_select",
        ),
        ("Tell me about metformin", ["check_drug_safety"], False, "synthesize"),
    ],
)
def test_task_patterns_decide_when_the_loop_ends(query, called, patient_known, expected) -> None:
    results = [result(t, args={"k": t}) for t in called]
    got = decide_next(
        results,
        step_count=len(results),
        user_query=query,
        patient_known=patient_known,
        registry=ALL,
    )
    assert got.action == expected, got.reason


def test_router_sends_errors_to_the_error_handler_whatever_the_class() -> None:
    for q in ("error_retryable", "error_fatal"):
        assert (
            decide_next(
                [result(q=q)], step_count=1, user_query="q", patient_known=False, registry=ALL
            ).action
            == "error_handler"
        )
    # a tool-reported error goes to the handler even if classified as a success
    assert (
        decide_next(
            [result(error="timeout", q="success_rich")],
            step_count=1,
            user_query="q",
            patient_known=False,
            registry=ALL,
        ).action
        == "error_handler"
    )


def test_duplicate_call_stops_the_loop() -> None:
    same = [
        result("search_patient", args={"name": "A"}),
        result("search_patient", args={"name": "A"}),
    ]
    assert is_duplicate_call(same)
    got = decide_next(
        same,
        step_count=2,
        user_query="find patient A and check chart",
        patient_known=False,
        registry=ALL,
    )
    assert (got.action, got.reason) == ("synthesize", "the same call was repeated")
    assert not is_duplicate_call([result(error="timeout", q="error_retryable"), result()])


def test_required_in_order_skips_search_when_patient_known_and_unregistered_tools() -> None:
    q = "Find patient Maria and review her record"
    assert required_in_order(q, patient_known=False, registry=ALL) == [
        "search_patient",
        "get_patient_chart",
    ]
    assert required_in_order(q, patient_known=True, registry=ALL) == ["get_patient_chart"]
    alone = ToolRegistry([ALL["search_patient"]])
    assert required_in_order(q, patient_known=False, registry=alone) == ["search_patient"]


@pytest.mark.parametrize(
    ("query", "order"),
    [
        (
            "Check the FDA warnings for dofetilide, its interaction with azithromycin, "
            "and trials in atrial fibrillation.",
            ["check_drug_safety", "check_drug_interactions", "find_clinical_trials"],
        ),
        (
            "Find recruiting trials for diabetes, then find patient Raj Patel and his chart.",
            ["find_clinical_trials", "search_patient", "get_patient_chart"],
        ),
        (
            "Review the chart of patient Linda Chen and check lisinopril interactions.",
            ["search_patient", "get_patient_chart", "check_drug_interactions"],
        ),
        (  # no "patient", but "her record"
            "Look up Maria Garcia and summarise her record.",
            ["search_patient", "get_patient_chart"],
        ),
        ("What is hypertension?", []),
        ("Which warning signs of stroke should the public be taught?", []),
        ("Does dofetilide carry a boxed warning?", ["check_drug_safety"]),
        ("Is there a warning about lung toxicity with amiodarone?", ["check_drug_safety"]),
        ("Black box warning for rosiglitazone please", ["check_drug_safety"]),
        # a question about starting or prescribing a drug asks for no record write
        ("Should I start metformin in a patient with an eGFR of 38?", []),
        (
            "What would you prescribe for her cough, and what are its interactions with warfarin?",
            ["check_drug_interactions"],
        ),
        # an order does, after the search and the chart
        (
            "Find patient Raj Patel, review his chart and start atorvastatin 20 mg at night",
            ["search_patient", "get_patient_chart", "prescribe_medication"],
        ),
    ],
)
def test_required_tools_come_in_the_order_the_query_asks(query, order) -> None:
    assert required_in_order(query, patient_known=False, registry=ALL) == order


THREE = "Check the FDA warnings for dofetilide, its interaction with azithromycin, and AF trials"
LABEL_DOWN = result("check_drug_safety", error="service_unavailable", q="error_retryable")
INTERACTIONS = result("check_drug_interactions", args={"drug_names": ["a", "b"]})


@pytest.mark.parametrize(
    ("results", "skipped", "step", "expected"),
    [
        ([LABEL_DOWN], ["check_drug_safety"], 1, "tool_select"),
        ([LABEL_DOWN, INTERACTIONS], ["check_drug_safety"], 2, "tool_select"),
        (
            [LABEL_DOWN, INTERACTIONS, result("find_clinical_trials", args={"condition": "AF"})],
            ["check_drug_safety"],
            3,
            "synthesize",
        ),
        ([LABEL_DOWN], ["check_drug_safety"], MAX_STEPS, "synthesize"),
    ],
    ids=["goes-on", "goes-on-after-a-success", "nothing-left", "step-limit"],
)
def test_a_tool_given_up_on_does_not_end_the_turn(results, skipped, step, expected) -> None:
    got = decide_after_skip(
        results, skipped, step_count=step, user_query=THREE, patient_known=False, registry=ALL
    )
    assert got.action == expected, got.reason


def test_a_turn_that_gave_up_on_a_source_does_not_say_its_needs_are_met() -> None:
    done = [LABEL_DOWN, INTERACTIONS, result("find_clinical_trials", args={"condition": "AF"})]
    got = decide_after_skip(
        done, ["check_drug_safety"], step_count=3, user_query=THREE, patient_known=False,
        registry=ALL,
    )  # fmt: skip
    assert (got.action, got.reason) == ("synthesize", NOTHING_LEFT)


def test_after_a_skip_the_router_waits_only_on_the_tools_not_given_up() -> None:
    after = decide_next(
        [LABEL_DOWN, INTERACTIONS],
        step_count=2,
        user_query=THREE,
        patient_known=False,
        registry=ALL,
        skipped=["check_drug_safety"],
    )
    assert after == decide_after_skip(
        [LABEL_DOWN, INTERACTIONS],
        ["check_drug_safety"],
        step_count=2,
        user_query=THREE,
        patient_known=False,
        registry=ALL,
    )
    assert after.reason == f"the question still needs: {ALL['find_clinical_trials'].label}"
    assert waiting_tools(THREE, [LABEL_DOWN], patient_known=False, registry=ALL) == [
        "check_drug_safety",
        "check_drug_interactions",
        "find_clinical_trials",
    ]


@pytest.mark.parametrize(
    "query",
    [
        "Should I start metformin in a patient with an eGFR of 38?",
        "What dose of enoxaparin would you order for a DVT at a creatinine clearance of 20?",
    ],
)
def test_a_drug_question_answered_by_its_label_waits_for_no_write(query: str) -> None:
    """The words "start" and "order" in a question ask for advice: once the label has
    answered, the turn is answered, and no prescription is waited for."""
    got = decide_next([result()], step_count=1, user_query=query, patient_known=True, registry=ALL)
    assert (got.action, got.reason) == ("synthesize", ALL_ANSWERED)


# ── unit rows: ERROR_HANDLER ──
@pytest.mark.parametrize(
    ("res", "retries", "total", "action"),
    [
        (
            result(error="timeout", q="error_retryable"),
            0,
            0,
            "llm_decide",
        ),  # timeout, retry_count=0 → retry
        (result(error="drug_not_in_database", q="error_fatal", entity="zzzumab"), 0, 0, "skip"),
        (result(error="timeout", q="error_retryable"), MAX_RETRIES, 2, "skip"),
        (result(error="timeout", q="error_retryable"), 0, MAX_TOTAL_RETRIES, "skip"),
        (result(error="service_unavailable", q="error_retryable"), 1, 1, "skip"),
        (result(error="service_unavailable", q="error_retryable"), 0, 0, "llm_decide"),
        (
            result(
                "search_patient",
                error="multiple_patient_matches",
                q="error_fatal",
                entity="James Wilson",
            ),
            0,
            0,
            "ask_user",
        ),
        (
            result(error="missing_required_args", q="error_fatal", missing=["patient_id"]),
            0,
            0,
            "ask_user",
        ),
        (
            result(
                error="ambiguous_drug_name",
                q="error_fatal",
                suggestions=["hydroxyzine", "hydralazine"],
            ),
            0,
            0,
            "ask_user",
        ),
        (
            result(
                "get_patient_chart",
                error="not_found",
                q="error_fatal",
                args={"patient_id": "zzz-999"},
            ),
            0,
            0,
            "ask_user",
        ),
    ],
)
def test_error_handler_rows(res, retries, total, action) -> None:
    assert decide_error(res, retries, total, registry=ALL).action == action


def test_a_source_out_of_service_is_skipped_without_a_retry_and_with_its_own_note() -> None:
    down = result(error="service_unavailable", q="error_retryable")
    assert decide_error(down, 0, 0, registry=ALL).action == "llm_decide"
    note = "The Label could not be used: reasons. No information was retrieved."
    out = {**result(error="out_of_service", q="error_fatal"), "formatted_result": note}
    assert decide_error(out, 0, 0, registry=ALL) == ErrorDecision("skip", note)


def test_ask_user_messages_follow_the_seed_templates() -> None:
    many = result(
        "search_patient", matches=3, entity="James Wilson", suggestions=["pat-1", "pat-2", "pat-3"]
    )
    assert decide_error(many, 0, 0, registry=ALL).message.startswith(
        "I found 3 patients matching 'James Wilson'. Which one"
    )
    assert decide_error(
        result(error="missing_required_args", missing=["patient_id"]), 0, 0, registry=ALL
    ).message == ("I need a patient ID to proceed. Could you provide one?")
    amb = result(error="ambiguous_drug_name", suggestions=["hydroxyzine", "hydralazine"])
    assert (
        decide_error(amb, 0, 0, registry=ALL).message == "Did you mean hydroxyzine or hydralazine?"
    )
    unlisted = result(error="drug_not_in_database", entity="zzzumab")
    unlisted["formatted_result"] = "The offline reference does not list zzzumab."
    assert decide_error(unlisted, 0, 0, registry=ALL).message == unlisted["formatted_result"]


def test_error_templates_cover_the_seed_and_never_leak_detail() -> None:
    assert {"timeout", "not_found", "invalid_args", "rate_limit", "server_error"} <= set(MESSAGES)
    assert error_message("timeout", "Drug Safety Report") == (
        "The Drug Safety Report was temporarily unavailable. Please try again shortly."
    )
    assert (
        error_message("weird_new_error", "Clinical Trial Search")
        == "The Clinical Trial Search could not be completed."
    )


def test_scrub_replaces_tool_names_with_labels() -> None:
    text = "Per [check_drug_safety] and `search_patient`, see check_drug_safety."
    assert scrub_tool_names(
        text, {"check_drug_safety": "Drug Safety Report", "search_patient": "Patient Search"}
    ) == ("Per Drug Safety Report and Patient Search, see Drug Safety Report.")


def test_step_limit_ends_the_loop_even_when_the_query_needs_more_tools() -> None:
    """Four different tools done and a fifth still needed: only MAX_STEPS stops the loop."""
    query = (
        "Find patient John Smith, check his chart, verify metformin safety, check interactions "
        "with lisinopril and find recruiting trials"
    )
    done = ["search_patient", "get_patient_chart", "check_drug_safety", "check_drug_interactions"]
    results = [result(t, args={"k": t}) for t in done]
    at_limit = decide_next(
        results, step_count=MAX_STEPS, user_query=query, patient_known=True, registry=ALL
    )
    assert (at_limit.action, at_limit.reason) == ("synthesize", "step limit of 4 reached")
    below = decide_next(
        results[:3], step_count=MAX_STEPS - 1, user_query=query, patient_known=True, registry=ALL
    )
    assert below.action == "tool_select"


# ── a call that found nothing is never repeated identically ──
def test_a_call_that_found_nothing_counts_as_already_made() -> None:
    failed = result("search_patient", error="not_found", q="no_results", args={"name": "Zed"})
    assert proposes_duplicate("search_patient", {"name": "Zed"}, [failed])
    assert not proposes_duplicate("search_patient", {"name": "Zed Zyx"}, [failed])
    again = result("search_patient", error="not_found", q="no_results", args={"name": "Zed"})
    assert is_duplicate_call([failed, again])


def test_a_timeout_may_still_be_retried_with_the_same_arguments() -> None:
    slow = result(error="timeout", q="error_retryable")
    assert not proposes_duplicate("check_drug_safety", {"drug_name": "x"}, [slow])
    assert forced_retry(slow) is None  # the model chooses


@pytest.mark.parametrize("error", ["not_found", "drug_not_in_database"])
def test_after_finding_nothing_code_retries_with_other_arguments(error: str) -> None:
    assert forced_retry(result(error=error)) == "retry_different_args"


def test_a_patient_search_that_found_nobody_asks_the_clinician() -> None:
    nobody = result("search_patient", error="not_found", q="no_results", args={"name": "Zed Zyx"})
    verdict = decide_error(nobody, 0, 0, registry=ALL)
    assert verdict.action == "ask_user" and "named 'Zed Zyx'" in verdict.message


@pytest.mark.parametrize(
    ("missing", "question"),
    [
        (["name"], "Which patient do you mean?"),
        (["drug_names"], "Which drug do you mean?"),
        (["medication_name", "dosage"], "Which drug do you mean?"),
        (["image"], "Please attach the image"),
        (["frequency"], "Please give the dosage and frequency"),
        (["condition"], "What exactly should I search for?"),
        (["substance"], "What is the patient allergic to"),
        (["reaction"], "What is the patient allergic to"),
        (["note_type"], "I need more information: note type."),
    ],
)
def test_each_missing_argument_gets_its_own_question(missing: list[str], question: str) -> None:
    verdict = decide_error(
        result(error="missing_required_args", missing=missing), 0, 0, registry=ALL
    )
    assert verdict.action == "ask_user" and verdict.message.startswith(question)


def test_a_question_whether_drugs_interact_asks_for_the_interaction_check() -> None:
    """The verb asks as the noun does: with a patient selected, her list comes first."""
    q = "Does any of her medication interact with ciprofloxacin?"
    assert required_in_order(q, patient_known=True, registry=ALL) == [
        "get_patient_chart",
        "check_drug_interactions",
    ]
    assert required_in_order("Is it interacting with statins?", patient_known=True, registry=ALL)
