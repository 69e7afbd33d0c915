"""What a tool is: one spec holding everything the rest of the project derives from.

A ``ToolSpec`` is the single source of truth for a tool's name, clinical label,
description, argument model, behaviour and whether it writes to the EHR. The
registry derives the ``ToolSelection`` literal, the prompt's tool list, the label
map and the approval gate from the specs, so nothing is defined twice.

Tools never raise into the graph: every failure becomes a ``ToolOutcome`` with an
``error_type``; the raw detail stays in ``error_detail`` and is never shown to a model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, Field, create_model

from docgemma.tools.facts import RequestPattern, ToolRole
from docgemma.tools.outcomes import ToolErrorType
from docgemma.tools.write_review import WriteReview


class Source(BaseModel):
    """A citation shown to the clinician as ``[n]`` with a link where one exists."""

    title: str
    url: str | None = None
    kind: Literal["literature", "trial", "label", "ehr", "reference", "image"] = "reference"


class Passage(BaseModel):
    """One citable piece of a source: the text an answer's statement may quote from.

    ``text`` is the source's own words (whitespace folded, markup removed), never a
    paraphrase, so a quote can be checked against it. A source may give several passages
    (a drug label's sections), each named by the source's own ``section`` heading.
    """

    source: int
    """Index of the source in ``ToolOutcome.sources`` (0-based)."""
    section: str
    """The source's own name for this part: "Dosage and administration", "Summary"."""
    text: str
    relevance: float | None = None
    """Cosine similarity to the question when relevance was judged (``tools.relevance``)."""


class ToolOutcome(BaseModel):
    """The typed result of one tool call."""

    data: dict[str, Any] = Field(default_factory=dict)
    formatted: str = ""
    """Clinician-readable text of the result; never mentions tool names."""
    error_type: ToolErrorType | None = None
    error_detail: str | None = None
    """Raw error (status code, exception text) for logs and the audit trail only."""
    entity: str | None = None
    """What was looked up (drug, patient, query), for the pre-formatted error templates."""
    missing_fields: list[str] = Field(default_factory=list)
    suggestions: list[str] = Field(default_factory=list)
    patient_matches: int | None = None
    sources: list[Source] = Field(default_factory=list)
    passages: list[Passage] | None = None
    """The citable texts of ``sources``: only what addresses the question is kept, and an
    answer may quote nothing else of this result (its headings, notes on provenance or on
    what failed are context, not findings). None: the tool marks no parts, so its whole
    text may be quoted (a chart, an image reading)."""
    unchecked: list[str] = Field(default_factory=list)
    """What was asked about and could not be checked (a drug no reference lists): the
    answer says so beside whatever else it reports."""
    not_consulted: list[str] = Field(default_factory=list)
    """References this tool failed to reach while others answered, each with why ("the FDA
    drug labels (openFDA timed out)"): the answer says so, and rests on the others."""

    @property
    def ok(self) -> bool:
        return self.error_type is None

    @property
    def empty(self) -> bool:
        return self.ok and not self.data


@dataclass
class ToolContext:
    """What a running tool may use; built once per turn by the agent."""

    settings: Any
    http: Any = None
    """A shared ``httpx.AsyncClient`` for remote services."""
    fhir: Any = None
    """The EHR client."""
    llm: Any = None
    """The LLM backend, for tools that need a model (image analysis)."""
    image: Any = None
    """The image attached to the current turn, if any (``docgemma.llm.types.ImageInput``)."""
    session_id: str | None = None
    question: str | None = None
    """The clinician's message of this turn: sources are judged relevant against it as well
    as against the tool's own arguments (which a model wrote)."""
    approved_by: str | None = None
    """Set only when a clinician approved this write; EHR writes refuse to run without it."""
    idempotency_key: str | None = None
    replaces: str | None = None
    """An approved correction: the entry ("MedicationRequest/…") the write marks entered in
    error as it saves the corrected one."""
    documents: Any = None
    """The session's tenant's own documents (``docgemma.kb.documents.TenantDocuments``),
    searched beside the condition pages; None outside a tenant's API session."""
    extras: dict[str, Any] = field(default_factory=dict)


ToolFn = Callable[[BaseModel, ToolContext], Awaitable[ToolOutcome]]
ReviewFn = Callable[[BaseModel, ToolContext], Awaitable[WriteReview]]


@dataclass(frozen=True)
class ToolExample:
    """A one-shot example for tool selection: a query and the arguments it should produce."""

    query: str
    args: dict[str, Any]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    label: str
    """Clinician-facing label, e.g. ``Drug Safety Report``."""
    description: str
    """The full description: full descriptions chose tools best (tool_selection suite)."""
    short_description: str
    args: type[BaseModel]
    run: ToolFn
    writes_ehr: bool = False
    example: ToolExample | None = None
    role: ToolRole | None = None
    needs_patient: bool = False
    """Acts on one patient's record, so it needs the patient's id."""
    needs_image: bool = False
    """Runs only with an image attached to the turn."""
    brief_answer: bool = False
    """A single successful lookup of this tool is answered briefly (the brief synthesis variant)."""
    summary_fields: tuple[str, ...] = ()
    """The arguments that say what a proposed write is, for the approval card's summary."""
    review: ReviewFn | None = None
    """A write's check against the record, run by code before the clinician is asked (a
    prescription against the patient's medications, allergies and kidney function); what
    it finds goes on the approval card. It must not raise."""
    requested_by: tuple[RequestPattern, ...] = ()
    """The words by which a question asks for this tool (the task patterns)."""

    def signature(self) -> str:
        parts = [
            f"{fname}: {_type_name(info.annotation)}"
            + ("" if info.is_required() else f" = {info.default}")
            for fname, info in self.args.model_fields.items()
        ]
        return f"{self.name}({', '.join(parts)})"


def _type_name(annotation: Any) -> str:
    """A prompt-friendly type name: ``str``, ``list[str]``; optional types show their base, and
    a closed vocabulary is a ``str`` (its values are in the argument schema, not in every
    tool-choice prompt)."""
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Literal:
        return "str"
    if origin is Annotated:
        return _type_name(args[0])
    if origin in (Union, UnionType):
        return " | ".join(_type_name(a) for a in args if a is not type(None))
    if origin is not None:
        return f"{origin.__name__}[{', '.join(_type_name(a) for a in args)}]"
    return getattr(annotation, "__name__", str(annotation))


NO_TOOL = "none"
"""Tool selection's answer on re-entry when the model sees no further source to consult."""


class ToolRegistry:
    """Tools by name; everything the prompts and schemas need is derived from here."""

    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self._selection: dict[tuple[bool, frozenset[str]], type[BaseModel]] = {}
        for spec in specs:
            self.register(spec)

    def register(self, spec: ToolSpec) -> None:
        if spec.name in self._specs:
            raise ValueError(f"tool {spec.name!r} is registered twice")
        self._specs[spec.name] = spec
        self._selection = {}

    def __getitem__(self, name: str) -> ToolSpec:
        return self._specs[name]

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    @property
    def names(self) -> list[str]:
        return list(self._specs)

    def label(self, name: str) -> str:
        spec = self._specs.get(name)
        return spec.label if spec else "requested service"

    def labels(self) -> dict[str, str]:
        return {s.name: s.label for s in self}

    def write_tools(self) -> set[str]:
        return {s.name for s in self if s.writes_ehr}

    def with_role(self, role: ToolRole) -> ToolSpec | None:
        """The tool that plays ``role``, when one is registered."""
        return next((s for s in self if s.role is role), None)

    def has_role(self, name: str, role: ToolRole) -> bool:
        spec = self._specs.get(name)
        return spec is not None and spec.role is role

    def describe(self, verbosity: Literal["full", "short", "names"] = "full") -> str:
        """The tool list for the selection prompt, in one of the verbosity levels studied."""
        if verbosity == "names":
            return "Available tools: " + ", ".join(self.names)
        lines = ["Available tools:", ""]
        for s in self:
            text = s.description if verbosity == "full" else s.short_description
            lines.append(f"- {s.signature()} — {text}")
        return "\n".join(lines)

    def selection_model(
        self, *, allow_none: bool = False, withheld: frozenset[str] = frozenset()
    ) -> type[BaseModel]:
        """Stage-1 schema: one field whose values are exactly the registered tool names.

        ``allow_none`` adds ``NO_TOOL`` for the loop's re-entry (the reactive
        signal); ``withheld`` tools cannot be chosen (the prompt still lists them, so its
        saved prefix state serves). Each variant is built once per registry, so backends
        that compile a grammar per schema class (and cache it) compile it once.
        """
        names = tuple(n for n in self.names if n not in withheld)
        if not names:
            raise ValueError("no tool to select from: the registry is empty, or all withheld")
        key = (allow_none, withheld)
        if key not in self._selection:
            choices = (*names, NO_TOOL) if allow_none else names
            self._selection[key] = create_model(
                "ToolSelection",
                __doc__="Select the appropriate tool. Single field, no nullable distractors.",
                tool_name=(Literal[choices], ...),
            )
        return self._selection[key]

    def unavailable(self, *, has_image: bool) -> frozenset[str]:
        """Tools that cannot run this turn: those needing an image, when none is attached.

        A message that refers to an image at hand with none attached is asked back by code
        before any model call, so an imaging word left in a question is a study to order or
        one already reported ("does she need an X-ray?"), never a reason to offer the tool.
        """
        if has_image:
            return frozenset()
        return frozenset(s.name for s in self if s.needs_image)
