"""MCP tools for what the user did and how the code is built: recorded
events and the workflows found in them, code patterns, and promotion into
a shared scope."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from .. import Memory, Node

Scope = Annotated[str | None, Field(description="Memory scope (default: your only scope).")]
Target = Callable[[Context, str | None], str]
Reach = Callable[[Context, list[str] | None], tuple[str, ...] | None]


def register(
    server: MCPServer, run: Any, target: Target, reach: Reach, write: ToolAnnotations
) -> None:
    """record_event, workflows, patterns and promote, writing through `run`
    to the scope `target` picks and reading the scopes `reach` allows."""
    _event_tools(server, run, target, write)
    _promote_tool(server, run, target, reach, write)
    _patterns_tool(server, run, target, write)


def _event_tools(server: MCPServer, run: Any, target: Target, write: ToolAnnotations) -> None:
    @server.tool(annotations=write)
    async def record_event(
        ctx: Context,
        kind: Annotated[str, Field(description="What happened: command, test, deploy, …")],
        detail: Annotated[str, Field(description="E.g. the command line run.")] = "",
        signals: Annotated[
            dict[str, str] | None,
            Field(description="Where: file, branch, activity (all optional)."),
        ] = None,
        outcome: Annotated[str | None, Field(description="ok or fail, if known.")] = None,
        at: Annotated[
            str | None, Field(description="When it happened (ISO time; default now).")
        ] = None,
        scope: Scope = None,
    ) -> dict[str, Any]:
        """Record something you or the user did (a command, a test run, a deploy).
        Repeated sequences of events become workflows (see `workflows`)."""
        chosen = target(ctx, scope)
        node = await run(
            lambda m: m.record_event(
                kind, detail, signals or {}, outcome=outcome, at=at, scope=chosen
            ),
            write=True,
        )
        return {"id": node.id, "text": node.text, "at": node.metadata.get("at")}

    @server.tool(annotations=write)
    async def workflows(
        ctx: Context,
        detect: Annotated[
            bool, Field(description="Find workflows in the recorded events first.")
        ] = False,
        scope: Scope = None,
    ) -> list[dict[str, Any]]:
        """The workflows known in a scope (routines of ordered steps, with how
        often each was seen and went well); `detect` finds new ones in the
        recorded events first."""
        chosen = target(ctx, scope)

        def listed(m: Memory) -> list[dict[str, Any]]:
            if detect:
                m.activity.detect_workflows(scope=chosen)
            return _listed(m, chosen, "workflow", _workflow)

        result: list[dict[str, Any]] = await run(listed, write=detect)
        return result


def _promote_tool(
    server: MCPServer, run: Any, target: Target, reach: Reach, write: ToolAnnotations
) -> None:
    @server.tool(annotations=write)
    async def promote(
        ctx: Context,
        into: Annotated[str, Field(description="The shared scope, such as 'project:web'.")],
        sources: Annotated[list[str], Field(description="Private scopes to take memories from.")],
        types: Annotated[list[str] | None, Field(description="Only these types.")] = None,
        dry_run: Annotated[bool, Field(description="Only report (the default).")] = True,
    ) -> dict[str, Any]:
        """Promote the memories of chosen scopes (optionally of some types) into
        a shared scope: the same statement merges (both authors kept), newer
        values update older ones, and people who disagree get an open
        contradiction naming both. Run it dry first; an applied run can be
        undone."""
        chosen = target(ctx, into)
        scopes = reach(ctx, sources) if sources else ()
        result: dict[str, Any] = await run(
            lambda m: m.consolidation.promote(
                chosen, sources=scopes or (), types=types or (), dry_run=dry_run
            ).to_dict(),
            write=True,  # a dry run writes in a transaction it rolls back
        )
        return result


def _patterns_tool(server: MCPServer, run: Any, target: Target, write: ToolAnnotations) -> None:
    @server.tool(annotations=write)
    async def patterns(
        ctx: Context,
        mine: Annotated[
            bool, Field(description="Mine the scope's ingested code for patterns first.")
        ] = False,
        scope: Scope = None,
    ) -> list[dict[str, Any]]:
        """The code patterns known in a scope: shapes many functions share
        (decorators, context managers, errors, calls), with examples as
        path:line and the folder they belong to. Follow them when writing
        code there; `mine` finds them in the ingested code first."""
        chosen = target(ctx, scope)

        def listed(m: Memory) -> list[dict[str, Any]]:
            if mine:
                m.code.mine_patterns(scope=chosen)
            return _listed(m, chosen, "pattern", _pattern)

        result: list[dict[str, Any]] = await run(listed, write=mine)
        return result


def _listed(
    m: Memory, scope: str, kind: str, shown: Callable[[Node], dict[str, Any]]
) -> list[dict[str, Any]]:
    return [
        {"id": t.node.id, **shown(t.node)} for t in m.typed.memories(scopes=[scope], types=[kind])
    ]


def _workflow(node: Node) -> dict[str, Any]:
    meta = node.metadata
    return {
        "name": node.text,
        "steps": meta.get("steps", []),
        "optional": meta.get("optional_steps", []),
        "seen": meta.get("support"),
        "success": meta.get("success"),
        "trigger": {
            "activity": meta.get("trigger", ""),
            "branch": meta.get("trigger_branch", ""),
            "area": meta.get("trigger_area", ""),
        },
    }


def _pattern(node: Node) -> dict[str, Any]:
    meta = node.metadata
    return {
        "pattern": node.text,
        "functions": meta.get("functions"),
        "examples": meta.get("examples", []),
        "area": meta.get("trigger", ""),
    }
