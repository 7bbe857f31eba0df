"""Consolidation at the command line: `consolidate`, `undo`, `runs`, the
archive, `contradictions` and `resolve`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .. import CONSOLIDATION_STEPS, RESOLUTIONS
from . import render
from .main import _State, cli, with_memory

if TYPE_CHECKING:
    from .. import Action, ContradictionRow


@cli.command()
@click.option("--all", "show_all", is_flag=True, help="Resolved ones too (default: open only).")
@click.option("--open", "open_only", is_flag=True, help="Open ones only (the default).")
@click.option("--review", is_flag=True, help="Candidates the detectors were unsure of.")
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option("--limit", type=int, default=1000, show_default=True)
@with_memory
def contradictions(
    state: _State,
    show_all: bool,
    open_only: bool,
    review: bool,
    scopes: tuple[str, ...],
    limit: int,
) -> None:
    """Contradictions that wait for a person, newest first (updates: `mnemotree updates`)."""
    if show_all + open_only + review > 1:
        raise click.UsageError("give one of --all, --open and --review")
    status = None if show_all else "review" if review else "open"
    found = state.memory.consolidation.contradictions(
        status=status, scopes=list(scopes) or None, limit=limit
    )
    _rows(state, found, "no contradictions")


@cli.command()
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option("--limit", type=int, default=1000, show_default=True)
@with_memory
def updates(state: _State, scopes: tuple[str, ...], limit: int) -> None:
    """Automatic updates, newest first: a newer statement superseded an older one."""
    found = state.memory.consolidation.updates(scopes=list(scopes) or None, limit=limit)
    _rows(state, found, "no updates")


@cli.command("revert-update")
@click.argument("update_id")
@with_memory
def revert_update(state: _State, update_id: str) -> None:
    """Undo an automatic update: the older memory is valid again."""
    row = state.memory.consolidation.revert_update(update_id)
    if state.as_json:
        render.emit_json(row._asdict())
    else:
        render.out.print(f"reverted {row.id}: {row.a_id} is valid again")


def _rows(state: _State, found: list[ContradictionRow], empty: str) -> None:
    """Rows with both statements' texts (as they are now)."""
    if state.as_json:
        render.emit_json([row._asdict() for row in found])
        return
    if not found:
        render.err.print(f"[dim]{empty}[/dim]")
    texts = {n.id: n.text for n in state.memory.nodes([i for r in found for i in (r.a_id, r.b_id)])}
    for row in found:
        status = row.status if row.resolution is None else f"{row.status}: {row.resolution}"
        if row.a_id == row.b_id:
            said = f"{row.a_id} v{row.a_version} → v{row.b_version}"
        else:
            was, now = (render.escape(texts.get(i, "(deleted)")[:80]) for i in (row.a_id, row.b_id))
            said = f"«{was}» → «{now}»"
        render.out.print(
            f"{row.id}  {render.escape(row.reason)}\n    {said}  [dim]{row.scope} · {status}[/dim]"
        )


@cli.command()
@click.argument("contradiction_id")
@click.option("--resolution", type=click.Choice(RESOLUTIONS), required=True)
@click.option("--note", default="", help="Why (for merged: the merged statement).")
@with_memory
def resolve(state: _State, contradiction_id: str, resolution: str, note: str) -> None:
    """Resolve a contradiction; the loser's validity ends, nothing is deleted.
    For a path update, a_wins restores the earlier version."""
    row = state.memory.consolidation.resolve(contradiction_id, resolution, note)
    if state.as_json:
        render.emit_json(row._asdict())
    else:
        render.out.print(f"resolved {row.id}: {row.resolution}")


@cli.command()
@click.option(
    "--dry-run",
    "mode",
    flag_value="dry-run",
    default=True,
    help="Show the plan, change nothing (the default).",
)
@click.option("--apply", "mode", flag_value="apply", help="Apply the plan and record a run.")
@click.option(
    "--step",
    "steps",
    multiple=True,
    type=click.Choice(CONSOLIDATION_STEPS),
    help="Only these steps (repeatable; default: all).",
)
@click.option(
    "--set",
    "settings",
    multiple=True,
    metavar="NAME=VALUE",
    help="Change a threshold, e.g. --set forget_after_days=180.",
)
@click.option("--judge", is_flag=True, help="Ask the configured LLM about similar statements.")
@click.option(
    "--every",
    type=click.FloatRange(min=1),
    metavar="SECONDS",
    help="Keep running: apply a consolidation every SECONDS until Ctrl-C.",
)
@with_memory
def consolidate(
    state: _State,
    mode: str,
    steps: tuple[str, ...],
    settings: tuple[str, ...],
    judge: bool,
    every: float | None,
) -> None:
    """Plan (or with --apply, run) a consolidation: decay, dedupe, merge,
    contradictions, forgetting (archive), compression, links."""
    policy = _policy(settings)
    if every is not None:
        _every(state, every, policy)
        return
    quiet = state.as_json
    note = None if quiet else (lambda step: render.err.print(f"[dim]… {step}[/dim]"))
    result = state.memory.consolidation.run(
        dry_run=mode != "apply",
        policy=policy,
        steps=list(steps) or None,
        progress=note,
        judge=judge,
    )
    if quiet:
        render.emit_json(result.to_dict())
        return
    from .. import Plan

    if isinstance(result, Plan):
        _print_actions(result.actions, result.summary)
        if result.actions:
            render.err.print("[dim]dry run: nothing changed; --apply to run it[/dim]")
        return
    _print_actions(result.actions, result.summary)
    if result.id:
        render.out.print(
            f"applied run {result.id} ({result.skipped} skipped); "
            f"`mnemotree undo {result.id}` reverses it"
        )


def _policy(settings: tuple[str, ...]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in settings:
        name, sep, value = item.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise click.BadParameter(f"{item!r} is not NAME=NUMBER", param_hint="--set")
    return out


def _print_actions(actions: tuple[Action, ...], summary: dict[str, int]) -> None:
    if not actions:
        render.err.print("[dim]nothing to do[/dim]")
        return
    for action in actions:
        if action.step == "decay":
            render.out.print(
                f"[cyan]decay[/]  {len(action.nodes)} memories  "
                f"[dim]{render.escape(action.reason)}[/dim]"
            )
            continue
        render.out.print(
            f"[cyan]{action.step}[/]  {' '.join(action.nodes)}  "
            f"[dim]{render.escape(action.reason)}[/dim]"
        )
    render.out.print(", ".join(f"{step} {count}" for step, count in summary.items()))


@cli.command()
@click.argument("run_id")
@with_memory
def undo(state: _State, run_id: str) -> None:
    """Reverse a consolidation run: archived memories come back."""
    run = state.memory.consolidation.undo(run_id)
    if state.as_json:
        render.emit_json(run.to_dict())
    else:
        render.out.print(f"undid run {run.id} ({sum(run.summary.values())} actions)")


@cli.command()
@click.option("--limit", type=int, default=20, show_default=True)
@with_memory
def runs(state: _State, limit: int) -> None:
    """Applied consolidation runs, newest first."""
    found = state.memory.consolidation.runs(limit)
    if state.as_json:
        render.emit_json([r.to_dict() for r in found])
        return
    if not found:
        render.err.print("[dim]no runs[/dim]")
    for run in found:
        undone = f" · undone {run.undone_at}" if run.undone_at else ""
        counts = ", ".join(f"{k} {v}" for k, v in run.summary.items())
        render.out.print(f"{run.id}  {run.applied_at}  [dim]{counts}{undone}[/dim]")


@cli.command()
@click.argument("node_id")
@with_memory
def archive(state: _State, node_id: str) -> None:
    """Archive a node and its subtree (out of search and contexts, restorable)."""
    count = state.memory.consolidation.archive(node_id)
    if state.as_json:
        render.emit_json({"archived": count})
    else:
        render.out.print(f"archived {count} node{'s' if count != 1 else ''}")


@cli.command()
@click.argument("node_id")
@with_memory
def unarchive(state: _State, node_id: str) -> None:
    """Bring an archived node and its subtree back."""
    count = state.memory.consolidation.unarchive(node_id)
    if state.as_json:
        render.emit_json({"restored": count})
    else:
        render.out.print(f"restored {count} node{'s' if count != 1 else ''}")


@cli.command()
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option("--limit", type=int, default=100, show_default=True)
@with_memory
def archived(state: _State, scopes: tuple[str, ...], limit: int) -> None:
    """Archived nodes, most recently archived first."""
    found = state.memory.consolidation.archived(scopes=list(scopes) or None, limit=limit)
    if state.as_json:
        render.emit_json([{**n.to_dict(), "archived_at": at} for n, at in found])
        return
    if not found:
        render.err.print("[dim]nothing archived[/dim]")
    for node, at in found:
        render.out.print(f"{node.id}  {render.escape(node.text[:80])}  [dim]{at}[/dim]")


def _every(state: _State, every: float, policy: dict[str, float]) -> None:
    schedule = state.memory.consolidation.schedule(every, policy=policy)
    render.err.print(f"[dim]consolidating every {every:g} s; Ctrl-C stops[/dim]")
    seen = 0
    try:
        while True:
            schedule.wait_for_runs(seen + 1, timeout=every * 2)
            for run in schedule.runs[seen:]:
                counts = ", ".join(f"{k} {v}" for k, v in run.summary.items()) or "nothing to do"
                render.out.print(f"{run.applied_at}  {run.id or '-'}  {counts}")
            seen = len(schedule.runs)
    except KeyboardInterrupt:
        render.err.print("[dim]stopped[/dim]")
    finally:
        schedule.stop()
