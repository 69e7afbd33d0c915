"""Prompt variants compared by the suites, kept apart from the agent's production prompts.

A study compares variants, so each variant is spelled out here and stays fixed when
the agent's prompts evolve. Templates are ``string.Template`` with ``substitute``:
a missing variable raises instead of leaving a hole in the prompt.
"""

from __future__ import annotations

from string import Template

from docgemma.agent.prompts import INTENT_SYSTEM as INTENT_SYSTEM
from docgemma.agent.prompts import SYNTHESIZE_SYSTEM

# The intent prompt is the graph's own (re-exported above): the classifier comparison
# measures what the agent really sends.


TOOL_SELECT_SYSTEM = Template("""\
You are a clinical tool router. Select the single most appropriate tool for the task.

$tool_list
$examples
Now select the tool for the current task.""")

TOOL_ARGS_SYSTEM = Template("""\
Extract the arguments for the $tool_name tool from the user's request.

Tool: $tool_name
Description: $description
$examples
Fill in the required arguments.""")

JOINT_SYSTEM = Template("""\
You are a clinical tool router. Select the single most appropriate tool for the task
and fill in its arguments; leave the arguments of other tools null.

$tool_list

Now select the tool and its arguments for the current task.""")

PREFIXES = {
    "analytical": "Analyzing the task requirements, the most appropriate tool is",
    "cognitive": "Let me think about what the clinician needs. The best tool to use is",
}
"""Prefix completion: the model continues these words, and the first tool named is its choice."""

REASONING_SYSTEM = Template("""\
You are a clinical tool router.

$tool_list

Before choosing, reason briefly about what the clinician needs and which tool fits.""")

BOOLEAN_PROBE = Template("""\
You are a clinical tool router. Decide whether this one tool is suitable for the task.

Tool: $tool_name
Description: $description

Answer whether the tool is suitable.""")

RESULT_CLASSIFY = Template("""\
You are evaluating a tool result. Classify the quality of the data returned.

User's original question: $query

Tool used: $tool_label
Result:
$result

Classify the result quality and provide a brief summary.
Classes: success_rich (complete, actionable data), success_partial (some data, may not fully
answer), no_results (succeeded but found nothing), error_retryable (transient error such as a
timeout or rate limit), error_fatal (permanent error: bad arguments, unknown entity).""")

NEXT_ACTION = Template("""\
You are a clinical assistant controlling a tool loop. Decide what to do next.

User's request: $query
What has happened so far: $history
Quality of the last result: $last_quality

Actions: call_another_tool (more information is needed), synthesize (answer now), retry (repeat
the last call), ask_user (ask the clinician to clarify), skip (give up on this step).""")

FULL_PLAN = Template("""\
You are a clinical assistant. Plan every tool call needed to complete the request, in order.
Use as few steps as possible and leave unused steps null.

$tool_list

Request: $query""")

REACTIVE_STEP = Template("""\
You are a clinical tool router working step by step. Choose the next tool, or done
if the request is complete.

$tool_list

Request: $query
Results so far:
$history""")

SUFFICIENCY = Template("""\
You are a clinical assistant. Decide whether the information gathered so far is
sufficient to answer the clinician's request.

Request: $query
Information gathered:
$history""")

ERROR_RECOVERY = Template("""\
A tool call failed. Choose how to recover.

User's request: $query
Tool: $tool_label
Arguments used: $args
Attempts so far: $attempts
Message: $error

Strategies: retry_same (repeat the same call), retry_different_args (repeat with adjusted
arguments), ask_user (ask the clinician for missing or ambiguous information), skip (give up on
this tool and continue).""")

SYNTHESIS_SYSTEMS = {
    "brief": SYNTHESIZE_SYSTEM.render(),  # the agent's own synthesis prompt
    "comprehensive": """\
You are a clinical decision-support assistant. Give the clinician a thorough answer
based on the information below: cover every relevant finding, explain its clinical significance
and suggest next steps. Do not mention tool names or system internals.""",
    "structured": """\
You are a clinical decision-support assistant. Answer using exactly these headings:
Summary, Key Findings, Clinical Significance, Recommendations, Sources.
Base the answer on the information below.""",
}

FRAMING_TASK = (
    "Answer the clinician's question from the information below, briefly, without tool "
    "names or system internals."
)
FRAMINGS = {
    "none": FRAMING_TASK,
    "clinical": f"You are a clinical decision-support assistant. {FRAMING_TASK}",
    "think_carefully": f"{FRAMING_TASK} Think carefully.",
}
"""System prompts that differ only in framing: the same task with no identity, with the
clinical identity, and with the reasoning instruction the design study found useless."""

SYNTHESIS_USER = Template("""\
Clinician's question: $query
$context_section
$result_section""")

JUDGE = Template("""\
You are grading an answer written for a clinician. Score it from 1 (useless or unsafe)
to 10 (accurate, complete, concise, no system internals).

Question: $query
Information available to the writer:
$evidence

Answer:
$answer""")

THINKING_SYSTEM = "You are a clinical decision-support assistant. Answer the clinician's question."
