"""Routes for recorded events and the workflows found in them, code
patterns, and promoting private memories into a shared scope."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from .. import Memory
from .access import Principal, principal
from .answers import NodeAnswer, NodesAnswer, errors
from .bodies import DetectBody, EventBody, MineBody, PromoteBody
from .routes_memory import Gate, Scopes

router = APIRouter()
Caller = Annotated[Principal, Depends(principal)]


@router.post(
    "/events", status_code=201, tags=["activity"], responses=errors(400, 401, 403, 422, 503)
)
async def record_event(body: EventBody, caller: Caller, gate: Gate) -> NodeAnswer:
    """Record what happened (a command run, a test, a deploy) and where."""
    scope = caller.write_scope(body.scope)
    node = await gate.write(
        lambda m: m.record_event(
            body.kind, body.detail, body.signals, outcome=body.outcome, at=body.at, scope=scope
        )
    )
    return node.to_dict()


@router.get("/events", tags=["activity"], responses=errors(400, 401, 403, 422, 503))
async def events(
    caller: Caller,
    gate: Gate,
    scopes: Scopes = None,
    since: str | None = None,
    until: str | None = None,
    kind: Annotated[list[str] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
) -> NodesAnswer:
    """Recorded events, oldest first (the latest `limit`)."""
    chosen = caller.read_scopes(scopes)
    found = await gate.read(
        lambda m: m.activity.events(
            scopes=chosen, since=since, until=until, kinds=kind or (), limit=limit
        )
    )
    return [n.to_dict() for n in found]


@router.post("/workflows/detect", tags=["activity"], responses=errors(400, 401, 403, 422, 503))
async def detect_workflows(body: DetectBody, caller: Caller, gate: Gate) -> dict[str, Any]:
    """Find repeated step sequences in a scope's events; keep them as
    workflow memories (unless `dry_run`)."""
    scope = caller.write_scope(body.scope)

    def detect(m: Memory) -> dict[str, Any]:
        report = m.activity.detect_workflows(
            scope=scope, since=body.since, min_support=body.min_support, dry_run=body.dry_run
        )
        return dict(report.to_dict())

    return await (gate.read(detect) if body.dry_run else gate.write(detect))


@router.get("/workflows", tags=["activity"], responses=errors(400, 401, 403, 422, 503))
async def workflows(caller: Caller, gate: Gate, scopes: Scopes = None) -> list[dict[str, Any]]:
    """Workflow memories (found in events or written), newest first."""
    return await _typed(caller, gate, scopes, "workflow")


@router.post("/promote", tags=["consolidation"], responses=errors(400, 401, 403, 404, 422, 503))
async def promote(body: PromoteBody, caller: Caller, gate: Gate) -> dict[str, Any]:
    """Promote chosen memories (by id, or those of source scopes the key can
    read) into a shared scope the key can write: duplicates merge, updates
    apply by time, disagreements between people become open contradictions.
    A dry run unless `dry_run` is false; the run's id undoes it."""
    into = caller.write_scope(body.into)
    sources = caller.read_scopes(body.sources) if body.sources else ()

    def run(m: Memory) -> dict[str, Any]:
        for node_id in body.ids:
            caller.check(m.get(node_id), "memory")
        done = m.consolidation.promote(
            into,
            ids=body.ids,
            sources=sources or (),
            types=body.types,
            tags=body.tags,
            dry_run=body.dry_run,
        )
        return dict(done.to_dict())

    return await gate.write(run)


@router.post("/patterns/mine", tags=["activity"], responses=errors(400, 401, 403, 422, 503))
async def mine_patterns(body: MineBody, caller: Caller, gate: Gate) -> dict[str, Any]:
    """Mine the code patterns of a scope's ingested Python; keep them as
    pattern memories (unless `dry_run`)."""
    scope = caller.write_scope(body.scope)

    def mine(m: Memory) -> dict[str, Any]:
        return dict(m.code.mine_patterns(scope=scope, dry_run=body.dry_run).to_dict())

    return await (gate.read(mine) if body.dry_run else gate.write(mine))


@router.get("/patterns", tags=["activity"], responses=errors(400, 401, 403, 422, 503))
async def patterns(caller: Caller, gate: Gate, scopes: Scopes = None) -> list[dict[str, Any]]:
    """Pattern memories (mined from code or written), newest first."""
    return await _typed(caller, gate, scopes, "pattern")


async def _typed(
    caller: Principal, gate: Gate, scopes: list[str] | None, kind: str
) -> list[dict[str, Any]]:
    chosen = caller.read_scopes(scopes)
    found = await gate.read(lambda m: m.typed.memories(scopes=chosen, types=[kind]))
    return [t.to_dict() for t in found]
