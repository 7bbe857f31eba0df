"""`mnemotree merge`: chosen private memories promoted into a shared scope."""

from __future__ import annotations

import click

from . import render
from .main import _State, cli, with_memory


@cli.command("merge")
@click.argument("into")
@click.option("--id", "ids", multiple=True, help="A memory to promote (repeatable).")
@click.option(
    "--from", "sources", multiple=True, help="Promote the memories of this scope (repeatable)."
)
@click.option("--type", "types", multiple=True, help="With --from: only this type (repeatable).")
@click.option("--tag", "tags", multiple=True, help="With --from: only with this tag (repeatable).")
@click.option("--apply", "apply_", is_flag=True, help="Do it (the default is a dry run).")
@with_memory
def merge(
    state: _State,
    into: str,
    ids: tuple[str, ...],
    sources: tuple[str, ...],
    types: tuple[str, ...],
    tags: tuple[str, ...],
    apply_: bool,
) -> None:
    """Merge chosen private memories into the shared scope INTO: the same statement
    merges (both authors kept), a newer value updates, two people who
    disagree get an open contradiction naming both. A dry run unless
    --apply; `mnemotree undo RUN` reverses an applied one."""
    done = state.memory.consolidation.promote(
        into, ids=ids, sources=sources, types=types, tags=tags, dry_run=not apply_
    )
    if state.as_json:
        render.emit_json(done.to_dict())
        return
    for action in done.actions:
        render.out.print(
            f"[cyan]{action.step}[/]  {' '.join(action.nodes)}  "
            f"[dim]{render.escape(action.reason)}[/dim]"
        )
        for found in action.data.get("found", []):
            render.out.print(f"    [yellow]{found['status']}[/] {render.escape(found['reason'])}")
    counts = ", ".join(f"{step} {n}" for step, n in done.summary.items()) or "nothing"
    if done.dry_run:
        render.err.print(f"dry run: would {counts}; --apply to do it")
    else:
        render.err.print(f"run {done.run_id}: {counts}; `mnemotree undo {done.run_id}` reverses it")
