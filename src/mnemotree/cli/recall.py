"""Commands for remembering and searching."""

from __future__ import annotations

from typing import Any

import click
from rich.progress import Progress

from ..errors import InvalidInput
from . import render
from .main import _show, _State, _text_arg, cli, with_memory


@cli.command()
@click.argument("text")
@click.option("--scope", help="Scope of the memory (default: 'default').")
@click.option("--under", help="Parent node (default: the scope's own space).")
@click.option("--importance", type=float, default=0.5, show_default=True)
@with_memory
def remember(
    state: _State, text: str, scope: str | None, under: str | None, importance: float
) -> None:
    """Store TEXT as an atomic memory, searchable at once."""
    node = state.memory.remember(_text_arg(text), scope=scope, under=under, importance=importance)
    _show(state, node, "remembered")


@cli.command()
@click.argument("query")
@click.option("--scope", "scopes", multiple=True, help="Search only these scopes (repeatable).")
@click.option("--root", "roots", multiple=True, help="Search only under these roots.")
@click.option("--type", "context_types", multiple=True, help="Only these context types.")
@click.option("--tag", "tags", multiple=True, help="Only nodes with these @tags.")
@click.option("--limit", type=int, default=10, show_default=True)
@click.option("--explain", is_flag=True, help="Show each hit's score parts.")
@click.option("--weight", "weights", multiple=True, help="Override a weight: NAME=VALUE.")
@click.option("--since", help="Only nodes created at or after this ISO time.")
@click.option("--until", help="Only nodes created before this ISO time.")
@click.option("--min-importance", type=float, help="Only nodes at least this important.")
@click.option("--no-record", is_flag=True, help="Do not count this search as an access.")
@with_memory
def search(
    state: _State,
    query: str,
    scopes: tuple[str, ...],
    roots: tuple[str, ...],
    context_types: tuple[str, ...],
    tags: tuple[str, ...],
    limit: int,
    explain: bool,
    weights: tuple[str, ...],
    since: str | None,
    until: str | None,
    min_importance: float | None,
    no_record: bool,
) -> None:
    """Hybrid search (words and meaning) over memory."""
    memory = state.memory
    pending = memory.pending_vectors()
    if pending > 200 and not state.as_json:
        _embed_with_progress(state, pending)
    hits = memory.search(
        _text_arg(query),
        scopes=list(scopes) or None,
        roots=roots,
        context_types=context_types,
        tags=tags,
        limit=limit,
        weights=_parse_weights(weights),
        since=since,
        until=until,
        min_importance=min_importance,
        record=not no_record,
    )
    if state.as_json:
        render.emit_json([h.to_dict(explain) for h in hits])
    else:
        render.hits(hits, explain)


@cli.command()
@with_memory
def reindex(state: _State) -> None:
    """Embed every node that lacks a current vector (e.g. after changing embedder)."""
    memory = state.memory
    count = _embed_with_progress(state, memory.pending_vectors(), reindex=True)
    with Progress(console=render.err, transient=True) as progress:
        # Large memories get their vector graph now, not in the first search.
        task = progress.add_task("indexing vectors", total=None)
        graph = memory.prepare_index(lambda n: progress.advance(task, n))
    identity = memory.retriever.embedder.identity
    if state.as_json:
        render.emit_json({"embedded": count, "embedder": identity, "graph_rows": graph})
    else:
        render.out.print(f"[green]embedded[/] {count} nodes with {identity}")
        if graph:
            render.out.print(f"[green]indexed[/] {graph} vectors in the search graph")


def _embed_with_progress(state: _State, total: int, reindex: bool = False) -> int:
    memory = state.memory
    with Progress(console=render.err, transient=True) as progress:
        task = progress.add_task("embedding", total=total or None)
        step = lambda n: progress.advance(task, n)  # noqa: E731
        return memory.reindex(step) if reindex else memory.flush(step)


def _parse_weights(items: tuple[str, ...]) -> dict[str, Any] | None:
    if not items:
        return None
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise InvalidInput(f"--weight wants NAME=NUMBER, got {item!r}", item) from None
        if not sep:
            raise InvalidInput(f"--weight wants NAME=NUMBER, got {item!r}", item)
    return out
