"""What the routes answer, as the OpenAPI document declares it.

The handlers build their answers as plain JSON (the domain's `to_dict`) and
FastAPI sends them as the `dict[str, Any]` they are annotated with. The
models here describe those dicts for /openapi.json (and for the TypeScript
client generated from it); they never touch an answer: `Declared` changes
only the JSON schema of a handler's return annotation, not how FastAPI
validates or serializes it, so the bytes sent are those of the plain dict.
(`response_model=` a model would re-validate and filter every answer;
`responses={200: {"model": ...}}` merges into the bare object FastAPI infers
from the annotation, and turning that off with `response_model=None` would
send answers through json.dumps instead of pydantic, which spells some
floats differently: 1e-06 for 1e-6.)

tests/test_openapi_answers.py holds the server's real answers to these
declarations. The models are closed (`additionalProperties: false`) where the
dict is, so a key a handler adds, drops or retypes fails that test.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, GetJsonSchemaHandler, TypeAdapter
from pydantic.json_schema import JsonSchemaValue, SkipJsonSchema
from pydantic_core import CoreSchema, core_schema

Json = dict[str, Any]


class Declared:
    """Return-annotation metadata: document the answer as `shape` (a model,
    or a list of one) while it is checked and sent as the annotated type."""

    def __init__(self, shape: Any) -> None:
        schema = TypeAdapter(shape).core_schema
        ref = schema.get("ref")
        # The handler inlines a model given as the schema itself; one reached
        # through a reference becomes a component, so the answer is a $ref
        # like any other model's (and the TypeScript type has its name).
        self.schema = (
            schema
            if ref is None
            else core_schema.definitions_schema(
                core_schema.definition_reference_schema(ref), [schema]
            )
        )

    def __get_pydantic_json_schema__(
        self, _: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(self.schema)


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def _sometimes(description: str) -> Any:
    """A key only some answers have (and never null for being absent): not
    required, with no default shown (an absent key is not a null one)."""
    return Field(None, description=description, json_schema_extra=_no_default)


class Out(BaseModel):
    # Closed: an answer's keys are exactly those declared.
    model_config = ConfigDict(extra="forbid")


# -- errors --------------------------------------------------------------------------


class ErrorOut(Out):
    """Every error answer: the error's class, what went wrong, and the
    offending value (cut short), the same for every status."""

    error: str = Field(description="NotFound, Unauthorized, ScopeDenied, InvalidInput, ...")
    message: str
    value: Any = Field(description="what was refused (a long one cut short), or null")


WHY: dict[int, str] = {
    400: "A value the engine refuses (InvalidInput).",
    401: "No API key, or one that is not live (Unauthorized).",
    403: "Outside the key's scopes, or read-only for it (ScopeDenied).",
    404: "No such node, or one outside the key's scopes (NotFound).",
    409: "At odds with the tree as it is (InvalidOperation, AlreadyExists).",
    413: "The request body is over the server's limit (InvalidInput).",
    422: "A body or parameter that does not fit this document, or content "
    "that cannot be parsed (InvalidInput, ParseError).",
    501: "The feature needs an extra that is not installed (MissingExtra).",
    502: "The embedding or language model provider failed (ProviderError).",
    503: "The store failed (StorageError).",
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` for the error statuses a route answers with, and 4XX for
    any other client error (a method the path lacks): each as ErrorOut, the
    shape every error has. Declaring them keeps FastAPI from adding its
    default 422 shape, which this server never sends."""
    declared: dict[int | str, dict[str, Any]] = {
        code: {"model": ErrorOut, "description": WHY[code]} for code in codes
    }
    declared["4XX"] = {"model": ErrorOut, "description": "Any other client error."}
    # On loopback a request naming another host (DNS rebinding) is refused
    # before any route, by Starlette's TrustedHostMiddleware, in plain text.
    for code in (400, "4XX"):
        if code in declared:
            declared[code]["description"] += HOST_REFUSED
            declared[code]["content"] = {"text/plain": {"schema": {"type": "string"}}}
    return declared


HOST_REFUSED = " A Host header the server does not answer to: 400, in plain text."


# -- service -------------------------------------------------------------------------


class HealthOut(Out):
    status: Literal["ok"]
    version: str = Field(description="the server's mnemotree version")
    # `schema` would shadow a BaseModel attribute: the key is an alias.
    schema_: int = Field(alias="schema", description="the store's schema version")
    auth: bool = Field(description="whether requests need a key")


# -- nodes ---------------------------------------------------------------------------


class NodeOut(Out):
    """A node of the memory tree."""

    id: str
    root_id: str | None = Field(
        description="its root's id; null where that is out of the key's reach"
    )
    parent_id: str | None = Field(
        description="null for a root, or where the parent is out of the key's reach"
    )
    order_key: float = Field(description="its place among its siblings")
    text: str
    token_count: int
    created_at: str
    updated_at: str
    context_type: str
    context_name: str
    context_value: str
    scope: str
    version: int
    is_summary: bool
    stale: bool = Field(description="a summary whose children changed since it was written")
    metadata: dict[str, Any]
    importance: float
    tags: list[str] = Field(description="@tags in its text, and those its metadata gives")


class ListedNodeOut(NodeOut):
    """A node in a list of nodes."""

    children: int | SkipJsonSchema[None] = _sometimes(
        "how many children it has that the key can open (with counts=true)"
    )


class NodeWithAncestorsOut(NodeOut):
    """A node and the nodes above it."""

    ancestors: list[NodeOut] = Field(description="root first, those the key can open")


class DeletedOut(Out):
    deleted: int = Field(description="how many nodes went: the node and its subtree")


class VersionOut(Out):
    """A past version of a node."""

    node_id: str
    version: int
    op: str = Field(description="update, move, delete or current")
    change_id: str
    recorded_at: str
    node: NodeOut


# -- search and answers --------------------------------------------------------------


class CitationOut(Out):
    """Where a document's text comes from."""

    file: str = Field(description="the file's name without its folders")
    path: str = Field(description="the file as it was read")
    title: str
    section: list[str] = Field(description="headings from the top, the innermost last")
    page_start: int | None
    page_end: int | None
    line_start: int | None = Field(description="source code: the first line cited")
    line_end: int | None = Field(description="source code: the last line cited")


class AncestorOut(Out):
    id: str
    text: str
    context_type: str


# Only memories written with a validity hold an ISO time here; the key comes
# from the node's metadata as written, which a plain node may fill with anything.
VALID_TO = "when it stops being true (an ISO time) or null; from the node's metadata as written"


class HitOut(Out):
    """A search result."""

    id: str
    text: str
    score: float
    scope: str
    context_type: str
    context_name: str
    version: int = Field(description="which version of the truth it is")
    valid_from: str | None
    valid_to: Any = Field(description=VALID_TO)
    ancestry: list[AncestorOut] = Field(description="the nodes above it, nearest first")
    source: CitationOut | SkipJsonSchema[None] = _sometimes("for a document's text")
    parts: dict[str, float] | SkipJsonSchema[None] = _sometimes(
        "the score's parts (with explain=true)"
    )
    covered: list[HitOut] | SkipJsonSchema[None] = _sometimes(
        "the hits under this summary, folded into it"
    )


class RagMessageOut(Out):
    role: str
    content: str


class SourceOut(Out):
    """A document chunk the prompt cites."""

    id: str
    header: str = Field(description="how it is cited: file > section, pages; code: path:lines")
    file: str
    path: str
    title: str
    page_start: int | None
    page_end: int | None
    section: list[str]
    score: float
    text: str


class CitedMemoryOut(Out):
    id: str
    text: str


class AskOut(Out):
    """The prompts built for a question, what they cite, and the model's answer."""

    question: str
    answer: str | None = Field(description="null without a language model, or when it failed")
    error: str | None = Field(description="why there is no answer although a model is configured")
    system_prompt: str
    rag_messages: list[RagMessageOut]
    sources: list[SourceOut]
    memories: list[CitedMemoryOut]


# -- contexts ------------------------------------------------------------------------


class StatementOut(Out):
    """One side of a contradiction in a context."""

    type: str
    version: int
    valid_from: str | None
    valid_to: Any = Field(description=VALID_TO)
    source: CitationOut | SkipJsonSchema[None] = _sometimes("for a document's text")


class ItemOut(Out):
    """A line of a context's tier. A line that stands for one node also says
    its type and validity; a contradiction's line holds its two statements."""

    node_id: str = Field(description='"" for a line that is no node (the topics)')
    ref: str = Field(description='the reference leading its line (m1, m2, ...), or ""')
    level: str = Field(description="the detail it is rendered at")
    text: str
    tokens: int
    priority: float
    reason: str
    covers: list[str] = Field(description="other nodes it stands for")
    group: str = Field(description='the heading it is shown under, or ""')
    type: str | SkipJsonSchema[None] = _sometimes("its node's context type")
    version: int | SkipJsonSchema[None] = _sometimes("its node's version")
    valid_from: str | None = _sometimes("when its node became valid")
    valid_to: Any = _sometimes(VALID_TO)
    source: CitationOut | SkipJsonSchema[None] = _sometimes("for a document's text")
    statements: list[StatementOut] | SkipJsonSchema[None] = _sometimes(
        "an unresolved contradiction's two statements, the earlier first"
    )


class TierOut(Out):
    name: str = Field(description="critical, relevant, background or index")
    budget: int
    tokens: int
    items: list[ItemOut]


class ContextOut(Out):
    """An assembled context: its text, exact token count and tiers."""

    budget: int
    token_count: int
    text: str
    activity: str
    tiers: list[TierOut]
    refs: dict[str, str] = Field(description="each reference (m1) to the node id it stands for")
    warnings: list[str]


# -- erasure -------------------------------------------------------------------------


class PurgeOut(Out):
    """What a purge removed (or, in a dry run, would remove)."""

    selector: Literal["ids", "scope", "subject", "query"]
    dry_run: bool
    node_ids: list[str]
    nodes: int
    versions: int
    other_rows: int
    compacted: bool = Field(description="the file was rewritten")


# -- return annotations: sent as the plain JSON, documented as the models ------------

HealthAnswer = Annotated[Json, Declared(HealthOut)]
NodeAnswer = Annotated[Json, Declared(NodeOut)]
NodeWithAncestorsAnswer = Annotated[Json, Declared(NodeWithAncestorsOut)]
NodesAnswer = Annotated[list[Json], Declared(list[NodeOut])]
ListedNodesAnswer = Annotated[list[Json], Declared(list[ListedNodeOut])]
VersionsAnswer = Annotated[list[Json], Declared(list[VersionOut])]
DeletedAnswer = Annotated[Json, Declared(DeletedOut)]
HitsAnswer = Annotated[list[Json], Declared(list[HitOut])]
AskAnswer = Annotated[Json, Declared(AskOut)]
ContextAnswer = Annotated[Json, Declared(ContextOut)]
PurgeAnswer = Annotated[Json, Declared(PurgeOut)]
