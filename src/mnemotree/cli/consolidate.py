"""`mnemotree contradictions` and `resolve`: consolidation at the command line."""

from __future__ import annotations

import click

from ..consolidate.contradictions import RESOLUTIONS
from . import render
from .main import _State, cli, with_memory


@cli.command()
@click.option("--all", "show_all", is_flag=True, help="Resolved ones too (default: open only).")
@click.option("--open", "open_only", is_flag=True, help="Open ones only (the default).")
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option("--limit", type=int, default=1000, show_default=True)
@with_memory
def contradictions(
    state: _State, show_all: bool, open_only: bool, scopes: tuple[str, ...], limit: int
) -> None:
    """Contradictions between memories, newest first."""
    if show_all and open_only:
        raise click.UsageError("give --all or --open, not both")
    found = state.memory.contradictions(
        status=None if show_all else "open", scopes=list(scopes) or None, limit=limit
    )
    if state.as_json:
        render.emit_json([row._asdict() for row in found])
        return
    if not found:
        render.err.print("[dim]no contradictions[/dim]")
    for row in found:
        status = row.status if row.resolution is None else f"{row.status}: {row.resolution}"
        render.out.print(
            f"{row.id}  {render.escape(row.reason)}  [dim]{row.a_id} vs {row.b_id} · "
            f"{row.scope} · {status}[/dim]"
        )


@cli.command()
@click.argument("contradiction_id")
@click.option("--resolution", type=click.Choice(RESOLUTIONS), required=True)
@click.option("--note", default="", help="Why (for merged: the merged statement).")
@with_memory
def resolve(state: _State, contradiction_id: str, resolution: str, note: str) -> None:
    """Resolve a contradiction; the loser's validity ends, nothing is deleted."""
    row = state.memory.resolve(contradiction_id, resolution, note)
    if state.as_json:
        render.emit_json(row._asdict())
    else:
        render.out.print(f"resolved {row.id}: {row.resolution}")
