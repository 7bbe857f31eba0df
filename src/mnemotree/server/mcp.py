"""The MCP server (official `mcp` SDK): memory as tools an agent calls.

`mnemotree mcp` serves it over stdio for a local client (every scope: the
user's own machine); `mnemotree serve` mounts it at /mcp (streamable HTTP),
where each call is limited to the scopes of the request's API key. Each
tool's description is written for the model that reads it. Calls run
through the server's gateway: writes on one thread, reads beside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from .. import PATH_TOOLS, Memory, MnemotreeError, __version__, call_path_tool
from . import mcp_activity
from .access import Principal, delete_for, purge_for
from .gateway import Gateway

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DELETE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
Scope = Annotated[
    str | None,
    Field(
        description=(
            "Memory scope, such as 'default', 'kb' or 'user:42' "
            "(default: your only scope, or 'default')."
        )
    ),
]
Scopes = Annotated[list[str] | None, Field(description="Scopes to search (default: all yours).")]

INSTRUCTIONS = (
    "mnemotree is your long-term memory. Before answering, `search` (or build a `context`) "
    "for what you may already know; `remember` durable facts, decisions and preferences as "
    "short self-contained statements; use the path tools (saveMemory, queryMemory, ...) for "
    "structured notes you will look up by name. Cite memories by their ids."
)


class _StrictServer(MCPServer):
    """Refuses an argument a tool does not take, naming the ones it does: a
    model that writes `scope` to a tool taking `scopes` must hear it, not
    search (or write) somewhere it did not mean."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            known = set(tool.parameters.get("properties", {}))
            unknown = sorted(set(arguments) - known)
            if unknown:
                raise ToolError(_unknown_arguments(name, unknown, known))
        return await super().call_tool(name, arguments, context)


def _unknown_arguments(tool: str, unknown: list[str], known: set[str]) -> str:
    hints = [
        f"'{u}' (did you mean '{alt}'?)" if alt in known else f"'{u}'"
        for u in unknown
        for alt in [u + "s" if u + "s" in known else u.removesuffix("s")]
    ]
    return f"{tool} takes no argument {', '.join(hints)}; it takes {sorted(known)}"


def build(memory: Memory, gateway: Gateway | None = None) -> MCPServer:
    """The MCP server over `memory` (tools only). Over stdio a call reaches every
    scope; over HTTP, the scopes of the key the request's `state` carries."""
    gate = gateway or Gateway(memory)
    server: MCPServer = _StrictServer(
        "mnemotree", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    async def run(fn: Any, *, write: bool = False) -> Any:
        with _as_tool_error():
            return await (gate.write(fn) if write else gate.read(fn))

    _memory_tools(server, run)
    _file_tools(server, run)
    _path_tools(server, run)
    mcp_activity.register(server, run, _target, _reach, WRITE)
    return server


def _memory_tools(server: MCPServer, run: Any) -> None:
    """remember, search, context and ask."""
    _remember_tool(server, run)
    _change_tools(server, run)
    _search_tool(server, run)
    _context_tool(server, run)
    _ask_tool(server, run)


def _remember_tool(server: MCPServer, run: Any) -> None:
    @server.tool(annotations=WRITE)
    async def remember(
        ctx: Context,
        text: Annotated[str, Field(description="One self-contained statement to keep.")],
        type: Annotated[
            str | None,
            Field(
                description=(
                    "Optional kind: fact, decision, preference, entity, procedure, "
                    "constraint, goal."
                )
            ),
        ] = None,
        scope: Scope = None,
        importance: Annotated[float | None, Field(ge=0, le=1)] = None,
    ) -> dict[str, Any]:
        """Store a memory for later. Write it so it makes sense on its own ("Alice
        prefers green tea", not "she likes it"). A newer value of something already
        remembered replaces it (`updates`: the memories it superseded); a conflict the
        engine cannot settle is recorded for a person (`contradicts`). Returns its id."""
        chosen = _target(ctx, scope)

        def write(m: Memory) -> dict[str, Any]:
            node = m.remember(text, type=type, scope=chosen, importance=importance)
            found = m.consolidation.contradictions(status=None, scopes=[chosen], limit=50)
            rows = [c for c in found if c.b_id == node.id]
            return {
                "id": node.id,
                "scope": node.scope,
                "updates": [c._asdict() for c in rows if c.resolution == "update"],
                "contradicts": [c._asdict() for c in rows if c.status == "open"],
            }

        result: dict[str, Any] = await run(write, write=True)
        return result


MemoryId = Annotated[str, Field(description="The memory's id, as `remember` or `search` gave it.")]


def _change_tools(server: MCPServer, run: Any) -> None:
    """update and delete, for memories this caller may change."""

    @server.tool(annotations=WRITE)
    async def update(
        ctx: Context,
        id: MemoryId,
        text: Annotated[str, Field(description="The corrected statement, whole.")],
    ) -> dict[str, Any]:
        """Correct a memory that was stored wrongly (a typo, a wrong name): its text
        is replaced and the old text kept in history. When something changed in
        the world instead (Alice moved), `remember` the new statement: the engine
        marks it as the newer value. Returns the memory as it now is."""
        caller = caller_of(ctx)

        def write(m: Memory) -> dict[str, Any]:
            caller.check_write(m.get(id), "memory")
            return caller.one(m, m.update(id, text))

        result: dict[str, Any] = await run(write, write=True)
        return result

    @server.tool(annotations=DELETE)
    async def delete(ctx: Context, id: MemoryId) -> dict[str, Any]:
        """Delete a memory that is wrong or no longer wanted, with anything stored
        under it. It stays in history, where a person can restore it; when the user
        asks you to forget something for good, use `purge` instead."""
        caller = caller_of(ctx)
        deleted = await run(lambda m: delete_for(caller, m, id), write=True)
        return {"deleted": deleted}


def _search_tool(server: MCPServer, run: Any) -> None:
    @server.tool(annotations=READ)
    async def search(
        ctx: Context,
        query: Annotated[str, Field(description="What you are looking for, in plain words.")],
        scopes: Scopes = None,
        limit: Annotated[
            int,
            Field(
                ge=1,
                le=50,
                description=(
                    "At most this many: weak matches are left out, so fewer may come back."
                ),
            ),
        ] = 10,
        valid_at: Annotated[
            str | None,
            Field(
                description=("An ISO time: search what was valid then instead of now (optional).")
            ),
        ] = None,
        include_expired: Annotated[
            bool, Field(description=("Also find superseded and expired memories."))
        ] = False,
        min_relevance: Annotated[
            float | None,
            Field(
                ge=0,
                le=1,
                description=(
                    "The relevance floor, a cosine (default 0.35; 0 returns the best matches "
                    "whatever they are)."
                ),
            ),
        ] = None,
    ) -> list[dict[str, Any]]:
        """Search memories, documents and conversations by words and meaning: only
        what is valid now unless asked otherwise. Each hit has its id, text, score,
        and where it sits in the tree (its ancestry)."""
        reach = _reach(ctx, scopes)
        hits = await run(
            lambda m: m.search(
                query,
                scopes=reach,
                limit=limit,
                valid_at=valid_at,
                include_expired=include_expired,
                min_relevance=min_relevance,
            )
        )
        return [h.to_dict() for h in hits]


def _context_tool(server: MCPServer, run: Any) -> None:
    @server.tool(annotations=READ)
    async def context(
        ctx: Context,
        query: Annotated[str, Field(description="The task or question at hand.")] = "",
        budget: Annotated[int, Field(ge=50, le=200_000, description="Tokens at most.")] = 4000,
        activity: Annotated[
            str | None,
            Field(
                description=(
                    "What you are doing: coding, debugging, reviewing, planning, ... (optional)."
                )
            ),
        ] = None,
        scopes: Scopes = None,
    ) -> dict[str, Any]:
        """Assemble what you should know now into one text of at most `budget` tokens:
        unresolved contradictions and key decisions first, then what is relevant to
        the query, then background, then an index of what else exists. Each line
        starts with a short reference (m3); `refs` maps each to its memory's id."""
        reach = _reach(ctx, scopes)
        built = await run(
            lambda m: m.context(query, budget=budget, activity=activity, scopes=reach)
        )
        return {"text": built.text, "refs": dict(built.refs), "tokens": built.token_count}


def _ask_tool(server: MCPServer, run: Any) -> None:
    @server.tool(annotations=READ)
    async def ask(
        ctx: Context,
        question: Annotated[str, Field(description="A question to answer from memory.")],
        scopes: Scopes = None,
        limit: Annotated[int, Field(ge=1, le=20)] = 5,
    ) -> dict[str, Any]:
        """Gather the memories and document passages that answer a question, as a
        cited prompt (and an answer when the server has an LLM configured)."""
        reach = _reach(ctx, scopes)
        answer = await run(lambda m: m.ask(question, scopes=reach, limit=limit))
        result: dict[str, Any] = answer.to_dict()
        return result


def _file_tools(server: MCPServer, run: Any) -> None:
    """ingest (files on the server) and purge (erasure for good)."""
    _ingest_tool(server, run)
    _purge_tool(server, run)


def _ingest_tool(server: MCPServer, run: Any) -> None:
    @server.tool(annotations=WRITE)
    async def ingest(
        ctx: Context,
        path: Annotated[str, Field(description="A file or directory on the server's machine.")],
        scope: Scope = None,
    ) -> dict[str, Any]:
        """Read documents (PDF, DOCX, Markdown, HTML, text) into memory as searchable
        sections and chunks. Reading the same files again only writes what changed."""
        # The path is on the server: over HTTP only a key that reaches every
        # scope may read its files (any other could read them back by search).
        with _as_tool_error():
            caller_of(ctx).require_every("reading the server's files")
        chosen = _target(ctx, scope)
        source = Path(path).expanduser()
        report = await run(lambda m: m.ingest(source, scope=chosen), write=True)
        result: dict[str, Any] = report.to_dict()
        return result


def _purge_tool(server: MCPServer, run: Any) -> None:
    @server.tool(annotations=DELETE)
    async def purge(
        ctx: Context,
        subject: Annotated[
            str | None,
            Field(
                description=(
                    "Erase every memory whose own text names this (a person, an account number)."
                )
            ),
        ] = None,
        ids: Annotated[list[str] | None, Field(description="Or these memories by id.")] = None,
        dry_run: Annotated[
            bool,
            Field(
                description=("True (the default) lists what would go; false erases it for good.")
            ),
        ] = True,
    ) -> dict[str, Any]:
        """Erase memories for good when the user asks you to forget something
        (unlike a delete, nothing stays in history). Run it with dry_run first
        and show the user what would go; only your scopes are searched."""
        caller = caller_of(ctx)
        result: dict[str, Any] = await run(
            lambda m: purge_for(caller, m, ids=ids or (), subject=subject, dry_run=dry_run),
            write=True,
        )
        return result


def caller_of(ctx: Context) -> Principal:
    """Who is calling: over HTTP the key the app put in the request's state;
    over stdio (no request) the local user, who reaches every scope."""
    request = ctx.request_context.request
    if request is None:
        return Principal(None)
    found = getattr(request, "state", None)
    principal = getattr(found, "principal", None)
    if not isinstance(principal, Principal):
        raise ToolError("this request carries no checked API key")
    return principal


@contextmanager
def _as_tool_error() -> Iterator[None]:
    """Our errors (a refused scope, a bad value) reach the model as tool errors,
    with the message it needs to correct its call."""
    try:
        yield
    except MnemotreeError as exc:
        raise ToolError(exc.message) from exc


def _reach(ctx: Context, scopes: list[str] | None) -> tuple[str, ...] | None:
    """The scopes a read covers (None: every scope)."""
    with _as_tool_error():
        return caller_of(ctx).read_scopes(scopes)


def _target(ctx: Context, scope: str | None) -> str:
    """The scope a write goes to."""
    with _as_tool_error():
        return caller_of(ctx).write_scope(scope)


PathArg = Annotated[str, Field(description="Hierarchical path such as 'Project/Goals/Phase1'.")]
_DESCRIBED = {t["function"]["name"]: t["function"]["description"] for t in PATH_TOOLS}


def _path_tools(server: MCPServer, run: Any) -> None:
    """The path-memory design's tools, each with a `scope`; results are its objects."""

    def call(ctx: Context, scope: str | None, name: str, arguments: dict[str, Any]) -> Any:
        chosen = _target(ctx, scope)
        change = name in ("saveMemory", "deleteMemory")
        return run(lambda m: call_path_tool(m.paths(chosen), name, arguments), write=change)

    @server.tool(name="saveMemory", description=_DESCRIBED["saveMemory"], annotations=WRITE)
    async def save_memory(
        ctx: Context,
        path: PathArg,
        content: Annotated[Any, Field(description="Text, object or list.")],
        contextTokens: Annotated[int, Field(ge=0, le=100_000)] = 1000,
        scope: Scope = None,
    ) -> dict[str, Any]:
        args = {"path": path, "content": content, "contextTokens": contextTokens}
        result: dict[str, Any] = await call(ctx, scope, "saveMemory", args)
        return result

    @server.tool(name="queryMemory", description=_DESCRIBED["queryMemory"], annotations=READ)
    async def query_memory(ctx: Context, path: PathArg, scope: Scope = None) -> dict[str, Any]:
        result: dict[str, Any] = await call(ctx, scope, "queryMemory", {"path": path})
        return result

    @server.tool(
        name="queryMemoryHeading", description=_DESCRIBED["queryMemoryHeading"], annotations=READ
    )
    async def query_memory_heading(
        ctx: Context,
        path: PathArg,
        query: str | None = None,
        recencyBias: Annotated[float, Field(ge=0, le=1)] = 0.3,
        scope: Scope = None,
    ) -> dict[str, Any]:
        args = {"path": path, "recencyBias": recencyBias, **({"query": query} if query else {})}
        result: dict[str, Any] = await call(ctx, scope, "queryMemoryHeading", args)
        return result

    @server.tool(name="listMemory", description=_DESCRIBED["listMemory"], annotations=READ)
    async def list_memory(ctx: Context, rootPath: str = "", scope: Scope = None) -> dict[str, Any]:
        result: dict[str, Any] = await call(ctx, scope, "listMemory", {"rootPath": rootPath})
        return result

    @server.tool(name="deleteMemory", description=_DESCRIBED["deleteMemory"], annotations=DELETE)
    async def delete_memory(
        ctx: Context, path: PathArg, recursive: bool = False, scope: Scope = None
    ) -> dict[str, Any]:
        args = {"path": path, "recursive": recursive}
        result: dict[str, Any] = await call(ctx, scope, "deleteMemory", args)
        return result
