"""Commands for remembering and searching."""

from __future__ import annotations

from typing import Any

import click

from .. import MEMORY_TYPES, RELATION_TYPES, InvalidInput
from . import render
from .main import _show, _State, _text_arg, cli, with_memory


@cli.command()
@click.argument("text")
@click.option("--scope", help="Scope of the memory (default: 'default').")
@click.option("--under", help="Parent node (default: the scope's own space).")
@click.option("--type", "kind", type=click.Choice(MEMORY_TYPES[:7]), help="A typed memory.")
@click.option("--importance", type=float, help="0-1 (default: 0.5, or the type's).")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable; typed memories).")
@click.option("--category", default="", help="A category (typed memories).")
@click.option("--confidence", type=float, default=1.0, help="0-1 (typed memories).")
@click.option("--source", default="", help="Where it came from (typed memories).")
@click.option("--valid-from", help="ISO time it became true (typed memories).")
@click.option("--valid-to", help="ISO time it stopped being true (typed memories).")
@with_memory
def remember(
    state: _State,
    text: str,
    scope: str | None,
    under: str | None,
    kind: str | None,
    importance: float | None,
    tags: tuple[str, ...],
    category: str,
    confidence: float,
    source: str,
    valid_from: str | None,
    valid_to: str | None,
) -> None:
    """Store TEXT as an atomic memory, searchable at once (typed with --type)."""
    typed: dict[str, Any] = {}
    if kind is not None:
        typed = {
            "tags": tags,
            "category": category,
            "confidence": confidence,
            "source": source,
            "valid_from": valid_from,
            "valid_to": valid_to,
        }
    elif tags or category or source or valid_from or valid_to or confidence != 1.0:
        raise InvalidInput(
            "--tag, --category, --confidence, --source and --valid-* need --type", kind
        )
    node = state.memory.remember(
        _text_arg(text), type=kind, scope=scope, under=under, importance=importance, **typed
    )
    _show(state, node, "remembered")
    if not state.as_json:
        _changes(state, node.id, node.scope)


def _changes(state: _State, node_id: str, scope: str) -> None:
    """What a new memory updated, contradicts, or may contradict (on stderr)."""
    found = state.memory.consolidation.contradictions(status=None, scopes=[scope], limit=50)
    rows = [r for r in found if r.b_id == node_id]
    texts = {n.id: n.text for n in state.memory.nodes([r.a_id for r in rows])}
    said = {
        "update": "[green]updates[/]",
        "open": "[yellow]contradicts[/]",
        "review": "[dim]may contradict (to review)[/]",
        "both_valid": "[dim]agrees with[/]",
    }
    for row in rows:
        how = said.get(row.resolution or row.status, row.status)
        older = render.escape(texts.get(row.a_id, row.a_id)[:80])
        render.err.print(f"  {how} «{older}»  [dim]{render.escape(row.reason)} · {row.id}[/]")


@cli.command()
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option("--type", "types", multiple=True, type=click.Choice(MEMORY_TYPES), help="Only these.")
@click.option("--valid-at", help="Only memories valid at this ISO time (time travel).")
@click.option("--include-expired", is_flag=True, help="Also superseded and expired ones.")
@click.option("--limit", type=int, default=1000, show_default=True)
@with_memory
def memories(
    state: _State,
    scopes: tuple[str, ...],
    types: tuple[str, ...],
    valid_at: str | None,
    include_expired: bool,
    limit: int,
) -> None:
    """List typed memories valid now (or at --valid-at), newest first."""
    found = state.memory.typed.memories(
        scopes=list(scopes) or None,
        types=types,
        valid_at=valid_at,
        include_expired=include_expired,
        limit=limit,
    )
    if state.as_json:
        render.emit_json([m.to_dict() for m in found])
        return
    if not found:
        render.out.print(
            "[dim]no typed memories; add one with `mnemotree remember TEXT --type fact`[/]"
        )
    for memory in found:
        window = ""
        if memory.valid_from or memory.valid_to:
            window = f"  valid {memory.valid_from or '…'} → {memory.valid_to or 'now'}"
        render.out.print(
            f"[bold]{memory.type:<10}[/] {render.escape(memory.node.text[:90])}\n"
            f"           [dim]{memory.id}  importance {memory.node.importance:.2f}  "
            f"decay {memory.decay:.2f}{render.escape(window)}[/]"
        )


@cli.command()
@click.argument("source")
@click.argument("target")
@click.option("--type", "kind", type=click.Choice(RELATION_TYPES), required=True)
@click.option("--strength", type=float, default=1.0, show_default=True)
@with_memory
def relate(state: _State, source: str, target: str, kind: str, strength: float) -> None:
    """Relate SOURCE to TARGET (supersedes also ends TARGET's validity)."""
    state.memory.typed.relate(source, target, kind, strength=strength)
    if state.as_json:
        render.emit_json([r._asdict() for r in state.memory.typed.relations(source)])
    else:
        render.out.print(f"[green]related[/] {source} {kind} {target}")


@cli.command()
@click.argument("query")
@click.option("--scope", "scopes", multiple=True, help="Search only these scopes (repeatable).")
@click.option("--root", "roots", multiple=True, help="Search only under these roots.")
@click.option("--type", "context_types", multiple=True, help="Only these context types.")
@click.option("--tag", "tags", multiple=True, help="Only nodes with these @tags.")
@click.option(
    "--limit",
    type=int,
    default=10,
    show_default=True,
    help="At most this many (weak matches are left out).",
)
@click.option(
    "--min-relevance", type=float, help="The relevance floor (a cosine, default 0.35; 0: no floor)."
)
@click.option("--explain", is_flag=True, help="Show each hit's score parts.")
@click.option("--weight", "weights", multiple=True, help="Override a weight: NAME=VALUE.")
@click.option("--since", help="Only nodes created at or after this ISO time.")
@click.option("--until", help="Only nodes created before this ISO time.")
@click.option("--min-importance", type=float, help="Only nodes at least this important.")
@click.option("--valid-at", help="Search what was valid at this ISO time (time travel).")
@click.option("--include-expired", is_flag=True, help="Also find superseded and expired memories.")
@click.option("--include-archived", is_flag=True, help="Also find archived nodes (by words).")
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
    min_relevance: float | None,
    explain: bool,
    weights: tuple[str, ...],
    since: str | None,
    until: str | None,
    min_importance: float | None,
    valid_at: str | None,
    include_expired: bool,
    include_archived: bool,
    no_record: bool,
) -> None:
    """Hybrid search (words and meaning) over what is valid now."""
    memory = state.memory
    # A search stays quick whatever waits: a long queue is not embedded here.
    pending = memory.pending_vectors()
    if pending > 200 and not state.as_json:
        render.err.print(
            f"[dim]{pending:,} nodes wait for their vectors: found by their words for now; "
            "`mnemotree reindex` embeds them[/dim]"
        )
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
        valid_at=valid_at,
        include_expired=include_expired,
        include_archived=include_archived,
        min_relevance=min_relevance,
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
    with render.progress("indexing", "vectors") as progress:
        # Large memories get their vector graph now, not in the first search.
        task = progress.add_task("", total=None)
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
    with render.progress("embedding", "nodes") as progress:
        task = progress.add_task("", total=total or None)
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
