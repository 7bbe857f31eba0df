"""Request bodies: pydantic at the boundary only; the domain takes plain values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .. import InvalidInput, check_json

MAX_TEXT = 1_000_000  # characters in one text field
MAX_LIMIT = 1000


def _within_limits(what: str) -> Callable[[Any], Any]:
    """A validator holding free-form JSON to the limits of jsonlimits, so a
    deep or huge value is a 422 here, before any domain code walks it."""

    def check(value: Any) -> Any:
        try:
            check_json(value, what)
        except InvalidInput as exc:
            raise ValueError(exc.message) from None
        return value

    return check


Metadata = Annotated[dict[str, Any] | None, AfterValidator(_within_limits("metadata"))]
SignalsJson = Annotated[dict[str, Any] | None, AfterValidator(_within_limits("signals"))]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Filters(Body):
    roots: list[str] = []
    context_types: list[str] = []
    tags: list[str] = []
    since: str | None = None
    until: str | None = None
    min_importance: float | None = Field(None, ge=0, le=1)
    valid_at: str | None = Field(None, description="what was valid then (default: now)")
    include_expired: bool = Field(False, description="also superseded and expired memories")


class SearchBody(Body):
    query: str = Field(..., max_length=MAX_TEXT)
    scopes: list[str] | None = None
    limit: int = Field(10, ge=1, le=MAX_LIMIT, description="a maximum: weak hits are left out")
    min_relevance: float | None = Field(
        None, ge=0, le=1, description="the relevance floor, a cosine (default 0.35; 0: none)"
    )
    filters: Filters | None = None
    explain: bool = False


class RememberBody(Body):
    text: str = Field(..., max_length=MAX_TEXT)
    type: str | None = Field(None, description="fact, decision, preference, entity, ...")
    scope: str | None = None
    under: str | None = Field(None, description="a parent node id (default: the scope's space)")
    importance: float | None = Field(None, ge=0, le=1)
    tags: list[str] | None = None
    category: str | None = None
    confidence: float | None = Field(None, ge=0, le=1)
    source: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    metadata: Metadata = None


class NodeBody(Body):
    text: str = Field(..., max_length=MAX_TEXT)
    parent: str | None = None
    context_type: str = ""
    context_name: str = ""
    context_value: str = ""
    scope: str | None = None
    metadata: Metadata = None


class UpdateBody(Body):
    text: str | None = Field(None, max_length=MAX_TEXT)
    context_type: str | None = None
    context_name: str | None = None
    context_value: str | None = None
    metadata: Metadata = None


class MoveBody(Body):
    parent: str | None = None
    after: str | None = None
    before: str | None = None


class FactBody(Body):
    key: str
    value: Annotated[Any, AfterValidator(_within_limits("value"))]
    applies_to: str = ""
    confidence: float = Field(1.0, ge=0, le=1)
    scope: str | None = None


class PathBody(Body):
    content: Annotated[Any, AfterValidator(_within_limits("content"))]
    context_tokens: int = Field(1000, ge=0, le=100_000)


class SessionBody(Body):
    scope: str | None = None
    title: str | None = None


class MessageBody(Body):
    role: str
    content: str = Field(..., max_length=MAX_TEXT)
    name: str | None = None


class AskBody(Body):
    question: str = Field(..., max_length=MAX_TEXT)
    scopes: list[str] | None = None
    limit: int = Field(5, ge=1, le=100)
    generate: bool = True


class AssembleBody(Body):
    query: str = Field("", max_length=MAX_TEXT)
    budget: int = Field(8000, ge=1, le=1_000_000)
    signals: SignalsJson = None
    activity: str | None = None
    scopes: list[str] | None = None


class PredictBody(Body):
    signals: Annotated[dict[str, Any], AfterValidator(_within_limits("signals"))]
    scopes: list[str] | None = None
    limit: int = Field(20, ge=1, le=200)


class ConsolidateBody(Body):
    dry_run: bool = True
    steps: list[str] | None = None
    policy: Annotated[dict[str, Any] | None, AfterValidator(_within_limits("policy"))] = None


class PurgeBody(Body):
    ids: list[str] = Field([], max_length=1000, description="nodes, with their subtrees")
    scope: str | None = Field(None, description="every memory of this scope")
    subject: str | None = Field(
        None, max_length=200, description="every memory whose own text names this"
    )
    query: str | None = Field(
        None, max_length=200, description="what a search for this finds (review the dry run)"
    )
    scopes: list[str] | None = Field(None, description="with subject, query: only these scopes")
    dry_run: bool = Field(True, description="list what would go (the default); false erases")
    all: bool = Field(False, description="allow a selection of every memory")


class ResolveBody(Body):
    resolution: str = Field(..., description="a_wins, b_wins, both_valid or merged")
    note: str = Field("", max_length=MAX_TEXT)


class EventBody(Body):
    kind: str = Field(..., min_length=1, max_length=40, description="command, test, deploy…")
    detail: str = Field("", max_length=2000)
    signals: dict[str, str] = Field({}, description="where it happened: file, branch, activity")
    outcome: str | None = Field(None, description="ok or fail")
    at: str | None = Field(None, description="when (ISO time; default now)")
    scope: str | None = None


class DetectBody(Body):
    scope: str | None = None
    since: str | None = Field(None, description="only events from this ISO time")
    min_support: int = Field(3, ge=2, le=1000)
    dry_run: bool = False


class PromoteBody(Body):
    into: str = Field(..., description="the shared scope to promote into")
    ids: list[str] = Field([], max_length=MAX_LIMIT, description="memories to promote")
    sources: list[str] = Field([], description="promote the memories of these scopes")
    types: list[str] = []
    tags: list[str] = []
    dry_run: bool = True


class MineBody(Body):
    scope: str | None = None
    dry_run: bool = False
