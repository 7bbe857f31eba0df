"""Routes for sessions, documents, answers, contexts and consolidation."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from .. import InvalidInput, Memory, NotFound
from .access import Principal, principal, purge_for
from .answers import AskAnswer, ContextAnswer, NodeAnswer, NodesAnswer, PurgeAnswer, errors
from .bodies import (
    AskBody,
    AssembleBody,
    ConsolidateBody,
    MessageBody,
    PredictBody,
    PurgeBody,
    ResolveBody,
    SessionBody,
)
from .routes_memory import Gate, Scopes

router = APIRouter()
Caller = Annotated[Principal, Depends(principal)]
# An uploaded file's name: one path segment of ordinary characters.
_FILENAME = re.compile(r"[\w][\w .()+,=@-]{0,199}", re.UNICODE)


# -- sessions ------------------------------------------------------------------------


@router.post(
    "/sessions", status_code=201, tags=["sessions"], responses=errors(400, 401, 403, 413, 422, 503)
)
async def start_session(body: SessionBody, caller: Caller, gate: Gate) -> dict[str, Any]:
    """A new chat session (a subtree of messages and summaries)."""
    scope = caller.write_scope(body.scope)
    return (await gate.write(lambda m: m.chat.start_session(scope, body.title))).to_dict()


@router.get("/sessions", tags=["sessions"], responses=errors(400, 401, 403, 422, 503))
async def sessions(
    caller: Caller, gate: Gate, scopes: Scopes = None, status: str | None = None
) -> list[dict[str, Any]]:
    """Chat sessions, newest first."""
    chosen = caller.read_scopes(scopes)
    found = await gate.read(lambda m: m.chat.sessions(list(chosen) if chosen else None, status))
    return [s.to_dict() for s in found]


@router.post(
    "/sessions/{session_id}/messages",
    status_code=201,
    tags=["sessions"],
    responses=errors(400, 401, 403, 404, 409, 413, 422, 502, 503),
)
async def add_message(session_id: str, body: MessageBody, caller: Caller, gate: Gate) -> NodeAnswer:
    """Add a message; summaries and capture follow in the background."""

    def write(m: Memory) -> dict[str, Any]:
        caller.check_write(m.chat.session(session_id), "chat session")
        return caller.one(
            m, m.chat.add_message(session_id, body.role, body.content, name=body.name)
        )

    return await gate.write(write)


@router.get(
    "/sessions/{session_id}/messages", tags=["sessions"], responses=errors(400, 401, 404, 503)
)
async def messages(session_id: str, caller: Caller, gate: Gate) -> NodesAnswer:
    """A session's messages in order."""

    def read(m: Memory) -> list[dict[str, Any]]:
        caller.check(m.chat.session(session_id), "chat session")
        return caller.shown(m, caller.visible(m.chat.session_messages(session_id)))

    return await gate.read(read)


# -- documents and answers -------------------------------------------------------------


@router.post(
    "/documents",
    status_code=201,
    tags=["documents"],
    responses=errors(400, 401, 403, 413, 422, 501, 502, 503),
)
async def upload(
    request: Request,
    caller: Caller,
    gate: Gate,
    filename: Annotated[str, Query(description="the file's name, such as report.pdf")],
    scope: str | None = None,
) -> dict[str, Any]:
    """Ingest one file sent as the raw request body (PDF, DOCX, Markdown, HTML,
    text); sending it again writes only what changed. A file that cannot be
    read, or is over an ingest limit, is answered 422 naming why."""
    if not _FILENAME.fullmatch(filename) or ".." in filename:
        raise InvalidInput(
            f"filename must be a plain file name such as 'report.pdf', got {filename!r}", filename
        )
    chosen = caller.write_scope(scope)
    data = await request.body()
    if not data:
        raise InvalidInput("the request body is empty: send the file's bytes", filename)
    # Parsing and planning run on a reader; each write batch is queued on the
    # writer (gate.run), so other writes run between batches of a large file.
    report = await gate.read(
        lambda m: m.ingest(data, scope=chosen, filename=filename, run_write=gate.run)
    )
    failed = next((f.cause for f in report.files if f.cause is not None), None)
    if failed is not None:
        raise failed
    return report.to_dict()


@router.get("/documents", tags=["documents"], responses=errors(400, 401, 403, 422, 503))
async def documents(caller: Caller, gate: Gate, scopes: Scopes = None) -> list[dict[str, Any]]:
    """Ingested documents with their chunk counts."""
    chosen = caller.read_scopes(scopes)
    found = await gate.read(lambda m: m.docs.list(list(chosen) if chosen else None))
    return [d.to_dict() for d in found]


@router.post("/ask", tags=["search"], responses=errors(400, 401, 403, 413, 422, 502, 503))
async def ask(body: AskBody, caller: Caller, gate: Gate) -> AskAnswer:
    """A cited prompt for the question (and the LLM's answer when one is configured)."""
    chosen = caller.read_scopes(body.scopes)
    answer = await gate.read(
        lambda m: m.ask(body.question, scopes=chosen, limit=body.limit, generate=body.generate)
    )
    return answer.to_dict()


# -- contexts ------------------------------------------------------------------------


@router.post(
    "/context/assemble", tags=["context"], responses=errors(400, 401, 403, 413, 422, 502, 503)
)
async def assemble(body: AssembleBody, caller: Caller, gate: Gate) -> ContextAnswer:
    """A four-tier context of at most `budget` tokens (exact counts)."""
    chosen = caller.read_scopes(body.scopes)
    context = await gate.read(
        lambda m: m.context(
            body.query,
            budget=body.budget,
            signals=body.signals,
            activity=body.activity,
            scopes=chosen,
        )
    )
    return context.to_dict()


@router.post(
    "/context/predict", tags=["context"], responses=errors(400, 401, 403, 413, 422, 502, 503)
)
async def predict(body: PredictBody, caller: Caller, gate: Gate) -> list[dict[str, Any]]:
    """Memories likely to be needed now, from signals (file, branch, error, ...)."""
    chosen = caller.read_scopes(body.scopes)
    found = await gate.read(lambda m: m.predict(body.signals, scopes=chosen, limit=body.limit))
    return [p.to_dict() for p in found]


# -- consolidation and contradictions ----------------------------------------------------


@router.post(
    "/consolidate",
    tags=["consolidation"],
    responses=errors(400, 401, 403, 409, 413, 422, 502, 503),
)
async def consolidate(body: ConsolidateBody, caller: Caller, gate: Gate) -> dict[str, Any]:
    """Plan a consolidation (`dry_run`, the default) or apply it as a run that
    `mnemotree undo RUN` reverses. It reaches every scope: a '*' key only."""
    caller.require_every("consolidation")
    result = await gate.write(
        lambda m: m.consolidation.run(dry_run=body.dry_run, steps=body.steps, policy=body.policy)
    )
    return result.to_dict()


@router.post("/purge", tags=["tree"], responses=errors(400, 401, 403, 404, 413, 422, 502, 503))
async def purge(body: PurgeBody, caller: Caller, gate: Gate) -> PurgeAnswer:
    """Erase memories for good (a delete keeps history): `ids` with their
    subtrees, a `scope`, or every memory whose text names a `subject`, and
    every row that holds their words; the file is rewritten. A dry run (the
    default) lists what would go. Every memory it selects must be in the
    key's scopes; a subject is looked for only there."""

    options = body.model_dump(exclude={"all"})
    return await gate.write(lambda m: purge_for(caller, m, everything=body.all, **options))


@router.get("/contradictions", tags=["consolidation"], responses=errors(400, 401, 403, 422, 503))
async def contradictions(
    caller: Caller,
    gate: Gate,
    scopes: Scopes = None,
    status: Annotated[
        str | None, Query(description="open (default), review, resolved, or all")
    ] = "open",
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
) -> list[dict[str, Any]]:
    """Contradictions between memories, newest first, with the two statements'
    current texts (`a_text`, `b_text`): `open` ones wait for a person, `review`
    ones are candidates the detectors were unsure of."""
    chosen = caller.read_scopes(scopes)
    wanted = None if status == "all" else status
    return await gate.read(
        lambda m: _with_texts(
            m, caller, m.consolidation.contradictions(status=wanted, scopes=chosen, limit=limit)
        )
    )


@router.get("/updates", tags=["consolidation"], responses=errors(400, 401, 403, 422, 503))
async def updates(
    caller: Caller,
    gate: Gate,
    scopes: Scopes = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
) -> list[dict[str, Any]]:
    """Automatic updates, newest first: a newer statement superseded an older
    one as it was written (`a_text` the older, `b_text` the newer)."""
    chosen = caller.read_scopes(scopes)
    return await gate.read(
        lambda m: _with_texts(m, caller, m.consolidation.updates(scopes=chosen, limit=limit))
    )


@router.post(
    "/updates/{update_id}/revert", tags=["consolidation"], responses=errors(400, 401, 404, 409, 503)
)
async def revert_update(update_id: str, caller: Caller, gate: Gate) -> dict[str, Any]:
    """Undo an automatic update: the older memory is valid again."""

    def write(m: Memory) -> dict[str, Any]:
        _check_row(m, caller, m.consolidation.contradiction(update_id))
        return m.consolidation.revert_update(update_id)._asdict()

    return await gate.write(write)


def _with_texts(m: Memory, caller: Principal, found: list[Any]) -> list[dict[str, Any]]:
    """Rows with their statements as they are now (None for a node deleted since)."""
    ids = sorted({i for row in found for i in (row.a_id, row.b_id)})
    nodes = {n.id: n for n in m.nodes(ids)}
    texts = {n.id: n.text for n in caller.visible(nodes.values())}
    # A row whose statement is in a scope out of reach is not this caller's.
    hidden = set(nodes) - set(texts)
    return [
        {**row._asdict(), "a_text": texts.get(row.a_id), "b_text": texts.get(row.b_id)}
        for row in found
        if row.a_id not in hidden and row.b_id not in hidden
    ]


def _check_row(m: Memory, caller: Principal, row: Any) -> None:
    """Outside the key's own scopes a row is answered as if it did not exist."""
    ends = [row.scope, *(n.scope for n in m.nodes([row.a_id, row.b_id]))]
    if not caller.every_scope and any(s not in caller.key_scopes for s in ends):
        raise NotFound(f"no contradiction {row.id!r}", row.id)


@router.post(
    "/contradictions/{contradiction_id}/resolve",
    tags=["consolidation"],
    responses=errors(400, 401, 404, 409, 413, 422, 503),
)
async def resolve(
    contradiction_id: str, body: ResolveBody, caller: Caller, gate: Gate
) -> dict[str, Any]:
    """Settle a contradiction: a_wins, b_wins, both_valid or merged (with the
    merged statement as `note`). Nothing is deleted."""

    def write(m: Memory) -> dict[str, Any]:
        row = m.consolidation.contradiction(contradiction_id)
        _check_row(m, caller, row)
        return m.consolidation.resolve(row.id, body.resolution, body.note)._asdict()

    return await gate.write(write)
