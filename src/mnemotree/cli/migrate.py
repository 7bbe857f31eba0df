"""`mnemotree migrate --to ADDRESS`: the whole memory into another store."""

from __future__ import annotations

import click

from . import render
from .main import _State, cli, with_memory


@cli.command()
@click.option(
    "--to",
    "target",
    required=True,
    metavar="FILE|URL",
    help="An empty database (a new SQLite file or a postgresql:// address), or one an "
    "earlier run of this migration left unfinished.",
)
@with_memory
def migrate(state: _State, target: str) -> None:
    """Copy the memory (history, keys, vectors) into another store. Rows are
    committed in chunks: if it stops, running it again resumes where it
    stopped. Every table's row count is checked on arrival."""
    with render.progress("copying", "rows") as progress:
        task = progress.add_task("", total=None)

        def step(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        rows = state.memory.migrate_to(target, step)
    if state.as_json:
        render.emit_json({"rows": rows, "to": _shown(target)})
    else:
        render.out.print(f"[green]migrated[/] {rows:,} rows to {_shown(target)}")


def _shown(location: str) -> str:
    """A location without a password in it."""
    head, at, rest = location.partition("@")
    if not at or "://" not in head:
        return location
    scheme, _, user = head.partition("://")
    return f"{scheme}://{user.partition(':')[0]}@{rest}"
