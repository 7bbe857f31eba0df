"""Routes over the tree and its memories: health, search, remember, nodes,
typed memories and paths."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from .. import Memory, Node, __version__
from .access import Principal, delete_for, principal
from .answers import (
    DeletedAnswer,
    HealthAnswer,
    HitsAnswer,
    ListedNodesAnswer,
    NodeAnswer,
    NodeWithAncestorsAnswer,
    VersionsAnswer,
    errors,
)
from .bodies import FactBody, MoveBody, NodeBody, PathBody, RememberBody, SearchBody, UpdateBody
from .gateway import Gateway

router = APIRouter()
Caller = Annotated[Principal, Depends(principal)]
Scopes = Annotated[list[str] | None, Query(description="scopes to read (default: the key's)")]
_TYPED = ("tags", "category", "confidence", "source", "valid_from", "valid_to")


def gateway(request: Request) -> Gateway:
    gate: Gateway = request.app.state.gateway
    return gate


Gate = Annotated[Gateway, Depends(gateway)]


@router.get("/health", tags=["service"], responses=errors(503))
async def health(request: Request, gate: Gate) -> HealthAnswer:
    """Liveness, the schema version and whether keys are needed; needs no key."""
    version = await gate.read(lambda m: m.store.schema_version)
    auth: bool = request.app.state.auth
    return {"status": "ok", "version": __version__, "schema": version, "auth": auth}


@router.post("/search", tags=["search"], responses=errors(400, 401, 403, 413, 422, 502, 503))
async def search(body: SearchBody, caller: Caller, gate: Gate) -> HitsAnswer:
    """Hybrid search (words, meaning and the tree) within the caller's scopes."""
    scopes = caller.read_scopes(body.scopes)
    f = body.filters
    options: dict[str, Any] = (
        {}
        if f is None
        else {
            "roots": f.roots,
            "context_types": f.context_types,
            "tags": f.tags,
            "since": f.since,
            "until": f.until,
            "min_importance": f.min_importance,
            "valid_at": f.valid_at,
            "include_expired": f.include_expired,
        }
    )
    hits = await gate.read(
        lambda m: m.search(
            body.query, scopes=scopes, limit=body.limit, min_relevance=body.min_relevance, **options
        )
    )
    return [h.to_dict(explain=body.explain) for h in hits]


@router.post(
    "/remember",
    status_code=201,
    tags=["memories"],
    responses=errors(400, 401, 403, 404, 409, 413, 422, 502, 503),
)
async def remember(body: RememberBody, caller: Caller, gate: Gate) -> NodeAnswer:
    """Store an atomic memory (typed with `type`); contradictions are found on write."""
    scope = caller.write_scope(body.scope)
    typed = {k: getattr(body, k) for k in _TYPED if getattr(body, k) is not None}

    def write(m: Memory) -> dict[str, Any]:
        if body.under is not None:
            caller.check_write(m.get(body.under))
        node = m.remember(
            body.text,
            type=body.type,
            scope=scope,
            under=body.under,
            importance=body.importance,
            metadata=body.metadata,
            **typed,
        )
        return caller.one(m, node)

    return await gate.write(write)


@router.post(
    "/facts",
    status_code=201,
    tags=["memories"],
    responses=errors(400, 401, 403, 413, 422, 502, 503),
)
async def fact(body: FactBody, caller: Caller, gate: Gate) -> NodeAnswer:
    """A structured fact; another value for the same key is a contradiction."""
    scope = caller.write_scope(body.scope)
    node = await gate.write(
        lambda m: m.typed.fact(
            body.key,
            body.value,
            applies_to=body.applies_to,
            confidence=body.confidence,
            scope=scope,
        )
    )
    return node.to_dict()


@router.get("/memories", tags=["memories"], responses=errors(400, 401, 403, 422, 503))
async def memories(
    caller: Caller,
    gate: Gate,
    scopes: Scopes = None,
    type: Annotated[list[str] | None, Query()] = None,
    valid_at: str | None = None,
    include_expired: bool = False,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
) -> list[dict[str, Any]]:
    """Typed memories valid now (or at `valid_at`), newest first."""
    chosen = caller.read_scopes(scopes)
    found = await gate.read(
        lambda m: m.typed.memories(
            scopes=chosen,
            types=type or (),
            valid_at=valid_at,
            include_expired=include_expired,
            limit=limit,
        )
    )
    return [t.to_dict() for t in found]


# -- nodes -------------------------------------------------------------------------


Counts = Annotated[bool, Query(description="add each node's number of children as `children`")]


def _listed(m: Memory, caller: Principal, nodes: list[Node], counts: bool) -> list[dict[str, Any]]:
    shown = caller.shown(m, nodes)
    if not counts:
        return shown
    # Counts cover only what the caller can open.
    have = m.child_counts([n.id for n in nodes], scopes=caller.readable())
    return [{**d, "children": have[n.id]} for d, n in zip(shown, nodes, strict=True)]


@router.get("/roots", tags=["tree"], responses=errors(400, 401, 403, 422, 503))
async def roots(
    caller: Caller, gate: Gate, scopes: Scopes = None, counts: Counts = False
) -> ListedNodesAnswer:
    """Root nodes (spaces, documents, sessions) within the caller's scopes."""
    chosen = caller.read_scopes(scopes)

    def read(m: Memory) -> list[dict[str, Any]]:
        found = [n for n in caller.visible(m.roots()) if chosen is None or n.scope in chosen]
        return _listed(m, caller, found, counts)

    return await gate.read(read)


@router.post(
    "/nodes",
    status_code=201,
    tags=["tree"],
    responses=errors(400, 401, 403, 404, 409, 413, 422, 502, 503),
)
async def add_node(body: NodeBody, caller: Caller, gate: Gate) -> NodeAnswer:
    """A new root, or a last child of `parent`."""

    def write(m: Memory) -> dict[str, Any]:
        scope = body.scope
        if body.parent is not None:
            parent = caller.check(m.get(body.parent))
            scope = scope or parent.scope
        node = m.add(
            body.text,
            parent=body.parent,
            context_type=body.context_type,
            context_name=body.context_name,
            context_value=body.context_value,
            scope=caller.write_scope(scope),
            metadata=body.metadata,
        )
        return caller.one(m, node)

    return await gate.write(write)


@router.get("/nodes/{node_id}", tags=["tree"], responses=errors(400, 401, 404, 503))
async def get_node(node_id: str, caller: Caller, gate: Gate) -> NodeWithAncestorsAnswer:
    """A node with its ancestors (root first)."""

    def read(m: Memory) -> dict[str, Any]:
        node = caller.check(m.get(node_id))
        return {
            **caller.one(m, node),
            "ancestors": caller.shown(m, caller.visible(m.ancestors(node.id))),
        }

    return await gate.read(read)


@router.get("/nodes/{node_id}/children", tags=["tree"], responses=errors(400, 401, 404, 422, 503))
async def children(
    node_id: str,
    caller: Caller,
    gate: Gate,
    counts: Counts = False,
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int | None, Query(ge=1, le=100_000)] = None,
) -> ListedNodesAnswer:
    """A node's children in order (those within the caller's scopes), from
    `offset`, at most `limit` of them."""

    def read(m: Memory) -> list[dict[str, Any]]:
        caller.check(m.get(node_id))
        found = caller.visible(m.children(node_id))
        end = None if limit is None else offset + limit
        return _listed(m, caller, found[offset:end], counts)

    return await gate.read(read)


@router.get("/nodes/{node_id}/history", tags=["tree"], responses=errors(400, 401, 404, 503))
async def history(node_id: str, caller: Caller, gate: Gate) -> VersionsAnswer:
    """A node's past versions, oldest first."""

    def read(m: Memory) -> list[dict[str, Any]]:
        caller.check(m.get(node_id))
        # A past version may have sat in another scope before a scope change.
        versions = [v for v in m.history(node_id) if caller.can_read(v.node.scope)]
        shown = caller.shown(m, [v.node for v in versions])
        return [{**v.to_dict(), "node": d} for v, d in zip(versions, shown, strict=True)]

    return await gate.read(read)


@router.get("/nodes/{node_id}/relations", tags=["tree"], responses=errors(400, 401, 404, 503))
async def relations(node_id: str, caller: Caller, gate: Gate) -> list[dict[str, Any]]:
    """Relations from and to a node (related_to, supersedes, ...)."""

    def read(m: Memory) -> list[dict[str, Any]]:
        node = caller.check(m.get(node_id))
        found = m.typed.relations(node.id)
        ends = {
            n.id
            for n in caller.visible(
                m.nodes([r.source_id for r in found] + [r.target_id for r in found])
            )
        }
        return [r._asdict() for r in found if r.source_id in ends and r.target_id in ends]

    return await gate.read(read)


@router.patch(
    "/nodes/{node_id}", tags=["tree"], responses=errors(400, 401, 403, 404, 413, 422, 502, 503)
)
async def update_node(node_id: str, body: UpdateBody, caller: Caller, gate: Gate) -> NodeAnswer:
    """Change a node's text or labels (a new version; the old one is kept)."""

    def write(m: Memory) -> dict[str, Any]:
        caller.check_write(m.get(node_id))
        node = m.update(
            node_id,
            body.text,
            context_type=body.context_type,
            context_name=body.context_name,
            context_value=body.context_value,
            metadata=body.metadata,
        )
        return caller.one(m, node)

    return await gate.write(write)


@router.post(
    "/nodes/{node_id}/move",
    tags=["tree"],
    responses=errors(400, 401, 403, 404, 409, 413, 422, 503),
)
async def move_node(node_id: str, body: MoveBody, caller: Caller, gate: Gate) -> NodeAnswer:
    """Re-parent or reorder a node (`after` / `before` a sibling)."""

    def write(m: Memory) -> dict[str, Any]:
        caller.check_write(m.get(node_id))
        for other in (body.parent, body.after, body.before):
            if other is not None:
                caller.check(m.get(other))
        moved = m.move(node_id, parent=body.parent, after=body.after, before=body.before)
        return caller.one(m, moved)

    return await gate.write(write)


@router.delete("/nodes/{node_id}", tags=["tree"], responses=errors(400, 401, 403, 404, 503))
async def delete_node(node_id: str, caller: Caller, gate: Gate) -> DeletedAnswer:
    """Delete a node and its subtree (kept in history, restorable)."""

    deleted = await gate.write(lambda m: delete_for(caller, m, node_id))
    return {"deleted": deleted}


# -- paths -------------------------------------------------------------------------


@router.get("/paths", tags=["paths"], responses=errors(400, 401, 403, 422, 503))
async def list_paths(
    caller: Caller, gate: Gate, scope: str | None = None, prefix: str = ""
) -> list[dict[str, Any]]:
    """Path entries under `prefix` in one scope."""
    chosen = caller.write_scope(scope)
    found = await gate.read(lambda m: m.paths(chosen).list(prefix))
    return [e.to_dict() for e in found]


@router.get("/paths/{path:path}", tags=["paths"], responses=errors(400, 401, 403, 404, 422, 503))
async def get_path(path: str, caller: Caller, gate: Gate, scope: str | None = None) -> Any:
    """The entry at `path` with its context snapshot."""
    chosen = caller.write_scope(scope)
    return (await gate.read(lambda m: m.paths(chosen).get(path))).to_dict()


@router.put(
    "/paths/{path:path}",
    tags=["paths"],
    responses=errors(400, 401, 403, 413, 422, 502, 503),
)
async def save_path(
    path: str, body: PathBody, caller: Caller, gate: Gate, scope: str | None = None
) -> Any:
    """Create or update the entry at `path` (JSON content); an update that changes
    a value is recorded as a contradiction to review."""
    chosen = caller.write_scope(scope)
    entry = await gate.write(
        lambda m: m.paths(chosen).save(path, body.content, context_tokens=body.context_tokens)
    )
    return entry.to_dict()


@router.delete(
    "/paths/{path:path}", tags=["paths"], responses=errors(400, 401, 403, 404, 409, 422, 503)
)
async def delete_path(
    path: str, caller: Caller, gate: Gate, scope: str | None = None, recursive: bool = False
) -> dict[str, Any]:
    """Delete the entry (kept in history); with `recursive`, what is below it too."""
    chosen = caller.write_scope(scope)
    deleted = await gate.write(lambda m: m.paths(chosen).delete(path, recursive=recursive))
    return {"deleted": deleted}
