"""`mnemotree record`, `events` and `workflows`: what the user did, and the
routines found in it."""

from __future__ import annotations

import click

from .. import InvalidInput
from . import render
from .main import _State, cli, with_memory

_SIGNAL_HELP = "Where it happened, NAME=VALUE: file, branch or activity (repeatable)."


def _situation(given: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in given:
        name, sep, value = item.partition("=")
        if not sep:
            raise InvalidInput(f"a signal is name=value (e.g. branch=main), got {item!r}", item)
        out[name.strip()] = value.strip()
    return out


@cli.command()
@click.argument("kind")
@click.argument("detail", required=False, default="")
@click.option("--signal", "signals", multiple=True, help=_SIGNAL_HELP)
@click.option("--outcome", type=click.Choice(["ok", "fail"]), help="Whether it went well.")
@click.option("--at", help="When, an ISO time (default: now).")
@click.option("--scope", help="Scope of the event (default: 'default').")
@with_memory
def record(
    state: _State,
    kind: str,
    detail: str,
    signals: tuple[str, ...],
    outcome: str | None,
    at: str | None,
    scope: str | None,
) -> None:
    """Record an event of KIND (command, test, deploy…) with its DETAIL,
    e.g. `mnemotree record command "pytest -q" --outcome ok`."""
    node = state.memory.record_event(
        kind, detail, _situation(signals), outcome=outcome, at=at, scope=scope
    )
    if state.as_json:
        render.emit_json(node.to_dict())
    else:
        render.out.print(f"[green]recorded[/] {node.id}  {render.escape(node.text)}")


@cli.command()
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option("--since", help="From this ISO time.")
@click.option("--kind", "kinds", multiple=True, help="Only events of this kind (repeatable).")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@with_memory
def events(
    state: _State, scopes: tuple[str, ...], since: str | None, kinds: tuple[str, ...], limit: int
) -> None:
    """Recorded events, oldest first (the latest LIMIT)."""
    found = state.memory.activity.events(
        scopes=list(scopes) or None, since=since, kinds=kinds, limit=limit
    )
    if state.as_json:
        render.emit_json([n.to_dict() for n in found])
        return
    if not found:
        render.err.print("[dim]no events recorded[/]")
    for node in found:
        outcome = node.metadata.get("outcome")
        mark = {"ok": " [green]ok[/]", "fail": " [red]fail[/]"}.get(str(outcome), "")
        render.out.print(
            f"[dim]{node.metadata.get('at', '')[:19]}[/]  {render.escape(node.text)}{mark}"
        )


@cli.command()
@click.option("--detect", is_flag=True, help="Find workflows in the recorded events first.")
@click.option("--dry-run", is_flag=True, help="With --detect: show what would be kept.")
@click.option("--since", help="With --detect: only events from this ISO time.")
@click.option("--min-support", type=click.IntRange(min=2), default=3, show_default=True)
@click.option("--scope", help="Scope to read and write (default: 'default').")
@with_memory
def workflows(
    state: _State,
    detect: bool,
    dry_run: bool,
    since: str | None,
    min_support: int,
    scope: str | None,
) -> None:
    """Workflow memories; with --detect, repeated step sequences in the
    recorded events are found and kept as workflows first."""
    if dry_run and not detect:
        raise InvalidInput("--dry-run only applies with --detect", "--dry-run")
    if detect:
        report = state.memory.activity.detect_workflows(
            scope=scope, since=since, min_support=min_support, dry_run=dry_run
        )
        if state.as_json:
            render.emit_json(report.to_dict())
            return
        render.err.print(
            f"[dim]{report.events} events in {report.sessions} sessions: "
            f"{len(report.workflows)} workflows ({len(report.created)} new, "
            f"{len(report.updated)} updated{', not written' if dry_run else ''})[/]"
        )
        for found in report.workflows:
            _line(found["name"], found["support"], found["success"], found["optional_steps"])
        return
    listed = state.memory.typed.memories(scopes=[scope] if scope else None, types=["workflow"])
    if state.as_json:
        render.emit_json([m.to_dict() for m in listed])
        return
    if not listed:
        render.err.print("[dim]no workflows (record events, then `workflows --detect`)[/]")
    for memory in listed:
        meta = memory.node.metadata
        optional = meta.get("optional_steps")
        _line(memory.node.text, meta.get("support"), meta.get("success"), optional)


def _line(name: str, support: object, success: object, optional: object) -> None:
    seen = f"seen {support}×" if support else "written by hand"
    if isinstance(success, (int, float)):
        seen += f", {round(100 * success)}% ok"
    steps = [str(step) for step in optional] if isinstance(optional, list) else []
    extra = f"; optional: {', '.join(steps)}" if steps else ""
    render.out.print(f"{render.escape(name)}  [dim]({seen}{extra})[/]")
