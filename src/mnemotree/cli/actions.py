"""`mnemotree action`, `actions` and `done`: action items, open until done."""

from __future__ import annotations

import click

from . import render
from .main import _show, _State, _text_arg, cli, with_memory


@cli.command()
@click.argument("text")
@click.option("--owner", required=True, help="Who will do it (a name).")
@click.option("--due", help="By when: a date such as 2026-03-04.")
@click.option("--scope", help="Scope of the action (default: 'default').")
@with_memory
def action(state: _State, text: str, owner: str, due: str | None, scope: str | None) -> None:
    """Store TEXT as an action item of OWNER: shown in contexts until done."""
    node = state.memory.typed.action(_text_arg(text), owner=owner, due=due, scope=scope)
    _show(state, node, "remembered")


@cli.command()
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option(
    "--status",
    type=click.Choice(["open", "done", "all"]),
    default="open",
    show_default=True,
)
@with_memory
def actions(state: _State, scopes: tuple[str, ...], status: str) -> None:
    """Action items, soonest due first (captured from chat, or added with `action`)."""
    found = state.memory.typed.actions(
        scopes=list(scopes) or None, status=None if status == "all" else status
    )
    if state.as_json:
        render.emit_json([n.to_dict() for n in found])
        return
    if not found:
        render.err.print(f"[dim]no {'' if status == 'all' else status + ' '}action items[/]")
    from .. import action_state

    for node in found:
        fields = node.metadata
        render.out.print(
            f"{node.id}  [bold]{render.escape(str(fields.get('owner', '')))}[/]  "
            f"{render.escape(node.text)}  [dim]({action_state(fields)})[/]"
        )


@cli.command()
@click.argument("node_id")
@with_memory
def done(state: _State, node_id: str) -> None:
    """Mark an action item done (it leaves contexts; history keeps it open)."""
    node = state.memory.typed.done(node_id)
    if state.as_json:
        render.emit_json(node.to_dict())
    else:
        render.out.print(f"[green]done[/] {node.id}  {render.escape(node.text)}")
