"""`mnemotree scopes`: which scopes are shared (readable by every key)."""

from __future__ import annotations

import click

from . import render
from .main import _State, cli, with_memory


@cli.group()
def scopes() -> None:
    """Shared scopes: readable by every API key, and allowed to hold other
    scopes' nodes under their own (a knowledge base with user notes below)."""


@scopes.command("share")
@click.argument("scope")
@with_memory
def share(state: _State, scope: str) -> None:
    """Make SCOPE readable by every key (writes still need a key of SCOPE)."""
    _show(state, state.memory.keys.share_scope(scope))


@scopes.command("unshare")
@click.argument("scope")
@with_memory
def unshare(state: _State, scope: str) -> None:
    """Stop sharing SCOPE; nodes already under it stay, readers stop seeing it."""
    _show(state, state.memory.keys.share_scope(scope, shared=False))


@scopes.command("shared")
@with_memory
def shared(state: _State) -> None:
    """List the shared scopes."""
    _show(state, state.memory.keys.shared_scopes())


def _show(state: _State, found: frozenset[str]) -> None:
    if state.as_json:
        render.emit_json(sorted(found))
        return
    if not found:
        render.err.print("[dim]no shared scopes[/dim]")
    for scope in sorted(found):
        render.out.print(render.escape(scope))
