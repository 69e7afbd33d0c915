"""The node prompts as named templates that refuse to render with a gap.

``Prompt.render`` raises ``MissingPromptVariable`` naming every absent variable, so a
renamed field can never silently send "$task_summary" to the model. The system texts
come first and never vary within a node, so llama.cpp can reuse their KV cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template


class MissingPromptVariable(KeyError):
    """A template was rendered without one of its variables."""


@dataclass(frozen=True)
class Prompt:
    name: str
    text: str

    @property
    def variables(self) -> set[str]:
        found = set()
        for match in Template.pattern.finditer(self.text):
            name = match.group("named") or match.group("braced")
            if name:
                found.add(name)
        return found

    def render(self, **values: object) -> str:
        missing = sorted(self.variables - set(values))
        if missing:
            raise MissingPromptVariable(f"prompt {self.name!r} is missing {', '.join(missing)}")
        return Template(self.text).substitute({k: str(v) for k, v in values.items()})


INTENT_SYSTEM = Prompt(
    "intent_system",
    """\
You are a clinical decision-support assistant integrated with an electronic health record
system and medical knowledge tools.

Your task: classify the user's query and provide a brief clinical summary.

Classification rules:
- DIRECT: General medical questions, greetings, thanks, or questions answerable from
  medical knowledge alone (e.g., "What is hypertension?", "Hello", "Explain metformin MOA")
- TOOL_NEEDED: Requests requiring specific patient data, drug safety lookups, literature
  searches, clinical trial searches, prescriptions, allergy documentation, clinical notes,
  or medical image analysis

Provide a task_summary that captures the clinical context in ~50 words or fewer.
If TOOL_NEEDED, suggest the most relevant tool name.""",
)

INTENT_USER = Prompt("intent_user", "${history}${image}User query: ${user_query}")

TOOL_SELECT_SYSTEM = Prompt(
    "tool_select_system",
    """\
You are a clinical tool router. Select the single most appropriate tool for the task.

${tool_list}

Example:
User: "${example_query}"
Tool: ${example_tool}

Now select the tool for the current task.""",
)

TOOL_SELECT_USER = Prompt(
    "tool_select_user",
    """\
${history}${image}User query: ${user_query}
${clinical_context}${previous_results}${entity_hints}""",
)

TOOL_ARGS_SYSTEM = Prompt(
    "tool_args_system",
    """\
Extract the arguments for the ${tool_name} tool from the user's request.

Tool: ${tool_name}
Description: ${tool_description}""",
)

TOOL_ARGS_USER = Prompt(
    "tool_args_user",
    """\
${image}User query: ${user_query}
${entity_hints}${previous_results}${retry_note}
Fill in the required arguments.""",
)

RESULT_SYSTEM = Prompt(
    "result_system",
    """\
You are evaluating a tool result. Classify the quality of the data returned.""",
)

RESULT_USER = Prompt(
    "result_user",
    """\
User's original question: ${user_query}
${clinical_context}${image}
Tool used: ${tool_label}
Result:
${formatted_result}

Classify the result quality and provide a brief summary.""",
)

RETRY_SYSTEM = Prompt(
    "retry_system",
    """\
A tool request failed. Choose how to retry it: retry_same repeats the identical request
(for temporary problems such as timeouts or busy services); retry_different_args changes
the request (for empty or rejected queries).""",
)

RETRY_USER = Prompt(
    "retry_user",
    """\
User query: ${user_query}
Tool used: ${tool_label}
Arguments: ${args}
What happened: ${error_message}""",
)

SYNTHESIZE_SYSTEM = Prompt(
    "synthesize_system",
    """\
You are a clinical decision-support assistant answering a clinician. Answer only from the
numbered sources you are given, as a list of statements. For each statement:
- quote: the sentence of a source that shows the fact, exactly as the source has it;
- text: the fact, stated plainly for a clinician, saying no more than the quote shows.
Put the facts that answer the question first. Use the sources' numbers, doses and names
exactly. If the sources do not answer the question, give no statements.""",
)
"""The answer as cited statements (``answer.quotes.answer_schema``): the grammar offers the
sources' sentences as quotes and code checks each statement against its quote, so the
guidelines ask only for what the check can hold."""

SYNTHESIZE_SOURCES_USER = Prompt(
    "synthesize_sources_user",
    """\
${brief_prefix}Clinician's question: ${user_query}
${clinical_context}
Sources:
${sources}""",
)

SYNTHESIZE_RETRY = Prompt(
    "synthesize_retry",
    """\
These statements were not accepted:
${failures}
Write them again only if a source supports them: choose as the quote the source sentence
that shows the fact, and state nothing, and no number, that the quote does not have. Give
no statements if the sources do not support them.""",
)

SYNTHESIZE_FROM_MEMORY_SYSTEM = Prompt(
    "synthesize_from_memory_system",
    """\
You are a clinical decision-support assistant. Answer the clinician's question clearly and
concisely from general medical knowledge.

Guidelines:
- Include only the most critical points
- Nothing was looked up for this answer: cite no studies, authors, guidelines or references
- Do not reference any system internals, tool names, or databases
- Use standard medical terminology appropriate for a clinical audience""",
)
"""For an answer with no source in front of the model. Given the sourced prompt instead,
a model echoes "The lookups required are:" and invents citations such as "(Nelson et al.,
2012)": that prompt's guidelines speak of lookups and numbered sources."""

SYNTHESIZE_BRIEF_PREFIX = "Include only the most critical findings.\n\n"

SYNTHESIZE_USER = Prompt(
    "synthesize_user",
    """\
${brief_prefix}${history}Clinician's question: ${user_query}
${clinical_context}${sections}""",
)

IMAGE_SYSTEM = Prompt(
    "image_system",
    """\
You are a medical imaging assistant. Describe the image: its modality and the key
findings, each as a short phrase, with your overall confidence from 0 to 1.""",
)

NO_FURTHER_TOOL = "If the results so far already answer the query, choose none.\n"

ANALYTICAL_PREFIX = "Analyzing the task requirements, "
"""Stage 1's completion prefix: the opening words of the model's own turn, not the user's."""
