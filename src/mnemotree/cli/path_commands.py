"""`mnemotree path ...`: path memory (the path-memory design) from the command line."""

from __future__ import annotations

import json

import click

from .. import parse_json
from . import render
from .main import _State, _text_arg, cli, with_memory

_SCOPE = click.option("--scope", default="default", show_default=True, help="The space's scope.")


@cli.group()
def path() -> None:
    """Path memory: JSON entries under paths such as Project/Goals/Phase1."""


@path.command("save")
@click.argument("entry_path", metavar="PATH")
@click.argument("content", metavar="JSON")
@click.option("--context-tokens", type=int, default=1000, show_default=True)
@_SCOPE
@with_memory
def save(state: _State, entry_path: str, content: str, context_tokens: int, scope: str) -> None:
    """Save JSON (use '-' to read it from stdin) at PATH, with a context snapshot."""
    value = parse_json(
        _text_arg(content), "content", hint="quote text as JSON, e.g. '\"remember this\"'"
    )
    entry = state.memory.paths(scope).save(entry_path, value, context_tokens=context_tokens)
    if state.as_json:
        render.emit_json(entry.to_dict())
    else:
        tokens = sum(c.tokens for c in entry.snapshot)
        render.out.print(
            f"[green]saved[/] {render.escape(entry.path)}  (version {entry.version}, "
            f"{len(entry.snapshot)} context chunks, {tokens} tokens)"
        )


@path.command("get")
@click.argument("entry_path", metavar="PATH")
@_SCOPE
@with_memory
def get(state: _State, entry_path: str, scope: str) -> None:
    """Show the entry at PATH with its context snapshot."""
    entry = state.memory.paths(scope).get(entry_path)
    if state.as_json:
        render.emit_json(entry.to_dict())
        return
    render.out.print(f"[bold]{render.escape(entry.path)}[/]  version {entry.version}")
    render.out.print(render.escape(json.dumps(entry.content, ensure_ascii=False, indent=2)))
    for chunk in entry.snapshot:
        render.out.print(
            f"  [dim]{chunk.similarity:.2f} [{render.escape(chunk.role or 'context')}][/] "
            f"{render.escape(chunk.text)}"
        )


@path.command("ls")
@click.argument("prefix", default="")
@_SCOPE
@with_memory
def ls(state: _State, prefix: str, scope: str) -> None:
    """List paths (below PREFIX)."""
    entries = state.memory.paths(scope).list(prefix)
    if state.as_json:
        render.emit_json([{**e.to_dict(), "has_content": e.has_content} for e in entries])
        return
    if not entries:
        render.out.print("[dim]no paths; save one with `mnemotree path save PATH JSON`[/]")
    parents = {e.path.rsplit("/", 1)[0] for e in entries if "/" in e.path}
    for entry in entries:
        indent = "  " * entry.path.count("/")
        mark = "/" if entry.path in parents or not entry.has_content else ""
        render.out.print(f"{indent}{render.escape(entry.heading)}{mark}")


@path.command("rm")
@click.argument("entry_path", metavar="PATH")
@click.option("--recursive", is_flag=True, help="Also delete the entries below PATH.")
@_SCOPE
@with_memory
def rm(state: _State, entry_path: str, recursive: bool, scope: str) -> None:
    """Delete the entry at PATH (kept in history)."""
    count = state.memory.paths(scope).delete(entry_path, recursive=recursive)
    if state.as_json:
        render.emit_json({"path": entry_path, "deleted": count})
    else:
        render.out.print(f"[green]deleted[/] {render.escape(entry_path)} ({count} nodes)")


@path.command("query")
@click.argument("entry_path", metavar="PATH", default="")
@click.argument("query", required=False)
@click.option("--recency-bias", type=float, default=0.3, show_default=True)
@_SCOPE
@with_memory
def query(
    state: _State, entry_path: str, query: str | None, recency_bias: float, scope: str
) -> None:
    """The entries under the heading PATH, ranked by QUERY and recency."""
    entries = state.memory.paths(scope).query_heading(entry_path, query, recency_bias=recency_bias)
    if state.as_json:
        render.emit_json([e.to_dict() for e in entries])
        return
    if not entries:
        render.out.print("[dim]nothing under this heading[/]")
    for entry in entries:
        score = "" if entry.score is None else f"{entry.score:.3f}  "
        content = json.dumps(entry.content, ensure_ascii=False)
        render.out.print(f"{score}[bold]{render.escape(entry.path)}[/]  {render.escape(content)}")


@path.command("tools")
def tools() -> None:
    """Print the OpenAI-style tool schemas of path memory (JSON)."""
    from .. import PATH_TOOLS

    render.emit_json(PATH_TOOLS)
