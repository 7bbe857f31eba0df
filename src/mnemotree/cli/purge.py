"""`mnemotree purge`: erase memories for good (a delete keeps history)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .. import InvalidInput
from . import render
from .main import _State, cli, with_memory

if TYPE_CHECKING:
    from .. import PurgeReport


@cli.command()
@click.argument("ids", nargs=-1)
@click.option("--scope", help="Every memory of this scope.")
@click.option("--subject", help="Every memory whose own text names this (its words in order).")
@click.option("--query", help="What a search for this finds (meaning too: --dry-run first).")
@click.option(
    "--in-scope", "scopes", multiple=True, help="With --subject, --query: only in these scopes."
)
@click.option("--dry-run", is_flag=True, help="List what would go; change nothing.")
@click.option("--all", "everything", is_flag=True, help="Allow erasing every memory.")
@click.option("--yes", is_flag=True, help="Confirm --all.")
@with_memory
def purge(
    state: _State,
    ids: tuple[str, ...],
    scope: str | None,
    subject: str | None,
    query: str | None,
    scopes: tuple[str, ...],
    dry_run: bool,
    everything: bool,
    yes: bool,
) -> None:
    """Erase IDS (with what is under them), a --scope or a --subject: the
    text leaves every row, the history, the index and the file itself."""
    if everything and not yes:
        raise InvalidInput("--all erases every memory it selects; add --yes to confirm", "--all")
    with render.err.status("erasing…" if not dry_run else "looking…"):
        report = state.memory.purge(
            list(ids),
            scope=scope,
            subject=subject,
            query=query,
            scopes=list(scopes) or None,
            dry_run=dry_run,
            everything=everything,
        )
    _show(state, report)


def _show(state: _State, report: PurgeReport) -> None:
    if state.as_json:
        render.emit_json(report.to_dict())
        return
    if report.dry_run:
        render.err.print(f"would erase {len(report.node_ids)} memories:")
        for node_id in report.node_ids:
            render.out.print(node_id)
        return
    render.err.print(
        f"[green]erased[/] {report.nodes} memories, {report.versions} versions and "
        f"{report.other_rows} derived rows"
        + (
            ""
            if report.compacted
            else "; another process was reading, so the WAL may keep "
            "old pages: once it stops, run the same purge again to rewrite the file"
        )
    )
