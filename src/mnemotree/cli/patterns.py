"""`mnemotree patterns`: code patterns mined from ingested Python."""

from __future__ import annotations

import click

from .. import InvalidInput
from . import render
from .main import _State, cli, with_memory


@cli.command()
@click.option("--mine", is_flag=True, help="Mine the scope's ingested code first.")
@click.option("--dry-run", is_flag=True, help="With --mine: show what would be kept.")
@click.option("--scope", help="Scope of the code (default: 'default').")
@with_memory
def patterns(state: _State, mine: bool, dry_run: bool, scope: str | None) -> None:
    """Code patterns (shapes many functions share, with examples); --mine
    finds them in the scope's ingested Python first."""
    if dry_run and not mine:
        raise InvalidInput("--dry-run only applies with --mine", "--dry-run")
    if mine:
        report = state.memory.code.mine_patterns(scope=scope, dry_run=dry_run)
        if state.as_json:
            render.emit_json(report.to_dict())
            return
        render.err.print(
            f"[dim]{report.functions} functions in {report.files} files: "
            f"{len(report.patterns)} patterns ({len(report.created)} new, "
            f"{len(report.updated)} updated, {len(report.archived)} gone)"
            f"{', not written' if dry_run else ''}[/]"
        )
        for found in report.patterns:
            _line(found["name"], found["functions"], found["files"], found["examples"])
        return
    listed = state.memory.typed.memories(scopes=[scope] if scope else None, types=["pattern"])
    if state.as_json:
        render.emit_json([m.to_dict() for m in listed])
        return
    if not listed:
        render.err.print("[dim]no patterns (ingest code, then `patterns --mine`)[/]")
    for memory in listed:
        meta = memory.node.metadata
        examples = meta.get("examples")
        _line(
            memory.node.text,
            meta.get("functions"),
            meta.get("files"),
            examples if isinstance(examples, list) else [],
        )


def _line(name: str, functions: object, files: object, examples: list[str]) -> None:
    seen = f"{functions} functions in {files} files" if functions else "written by hand"
    shown = f"; e.g. {', '.join(examples[:2])}" if examples else ""
    render.out.print(f"{render.escape(name)}  [dim]({seen}{shown})[/]")
