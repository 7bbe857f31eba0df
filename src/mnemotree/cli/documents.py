"""Commands for documents: ingest, docs, ask, forget-doc (the documents-and-chat design)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .. import IngestLimits
from . import render
from .main import _State, _text_arg, cli, with_memory

if TYPE_CHECKING:
    from .. import FileResult


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--scope", required=True, help="Scope the documents belong to (required).")
@click.option("--include", "include", multiple=True, help="Only files matching this glob.")
@click.option("--exclude", "exclude", multiple=True, help="Skip files matching this glob.")
@click.option(
    "--read-generated",
    is_flag=True,
    help="Also read generated files a directory holds (skipped by default: protobuf "
    "output, node_modules, *.egg-info, site-packages, *.min.js; see GENERATED_FILES).",
)
@click.option("--prune", is_flag=True, help="Forget documents whose files are gone.")
@click.option(
    "--limit",
    "limit_pairs",
    multiple=True,
    metavar="NAME=VALUE",
    help="Change an ingest limit (repeatable), e.g. --limit max_pdf_pages=20000. Names: "
    + ", ".join(f"{f.name} ({getattr(IngestLimits(), f.name)})" for f in fields(IngestLimits))
    + ".",
)
@with_memory
def ingest(
    state: _State,
    paths: tuple[Path, ...],
    scope: str,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    read_generated: bool,
    prune: bool,
    limit_pairs: tuple[str, ...],
) -> None:
    """Read files or directories (PDF, DOCX, Markdown, HTML, text, Python; TypeScript,
    JavaScript, Go, Rust and Java with the code extra) into SCOPE.

    Unchanged files are skipped; changed ones rewrite only what changed.
    A file over an ingest limit (see --limit) fails naming it.
    Exits with 1 if any file failed (the others are ingested).
    """
    limits = IngestLimits.parse(limit_pairs)
    with render.progress("ingesting", "files") as progress:
        task = progress.add_task("", total=None)

        def step(done: int, total: int, result: FileResult) -> None:
            progress.update(task, completed=done, total=total, description=Path(result.path).name)

        report = state.memory.ingest(
            list(paths),
            scope=scope,
            include=include,
            exclude=exclude,
            generated=() if read_generated else None,
            prune=prune,
            progress=step,
            limits=limits,
        )
    if state.as_json:
        render.emit_json(report.to_dict())
    else:
        for failed in report.failed:
            render.err.print(f"[red]failed:[/] {render.escape(failed.error or failed.path)}")
        for gone in report.pruned:
            render.out.print(f"[yellow]pruned[/] {render.escape(gone)}")
        s = report.summary()
        render.out.print(
            f"{s['added']} added, {s['changed']} changed, {s['unchanged']} unchanged, "
            f"{s['failed']} failed; {s['chunks']} chunks ({s['written']} nodes written)"
        )
    if report.failed:
        click.get_current_context().exit(1)


@cli.command()
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@with_memory
def docs(state: _State, scopes: tuple[str, ...]) -> None:
    """List ingested documents with their chunk counts, per scope."""
    found = state.memory.docs.list(list(scopes) or None)
    if state.as_json:
        render.emit_json([d.to_dict() for d in found])
        return
    render.documents(found)


@cli.command()
@click.argument("question")
@click.option("--scope", "scopes", multiple=True, help="Search only these scopes (repeatable).")
@click.option("--limit", type=int, default=5, show_default=True, help="Sources to cite.")
@click.option("--no-record", is_flag=True, help="Do not count this search as an access.")
@with_memory
def ask(state: _State, question: str, scopes: tuple[str, ...], limit: int, no_record: bool) -> None:
    """Build the cited prompt for QUESTION from memories and documents."""
    answer = state.memory.ask(
        _text_arg(question), scopes=list(scopes) or None, limit=limit, record=not no_record
    )
    if state.as_json:
        render.emit_json(answer.to_dict())
        return
    if answer.answer is not None:
        render.out.print(answer.answer)
        render.out.print()
    elif answer.error:
        render.err.print(f"[yellow]no answer: {render.escape(answer.error)}[/]")
    render.out.print(render.escape(answer.system_prompt))
    if not answer.sources and not answer.memories:
        render.err.print("[yellow]nothing relevant found[/]")


@cli.command("forget-doc")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--scope", "scopes", multiple=True, help="Only in these scopes (repeatable).")
@with_memory
def forget_doc(state: _State, path: Path, scopes: tuple[str, ...]) -> None:
    """Forget the document read from PATH (or every one under a directory)."""
    gone = state.memory.docs.forget(path, scopes=list(scopes) or None)
    if state.as_json:
        render.emit_json({"forgotten": gone})
    elif not gone:
        render.err.print(f"[yellow]no ingested document from[/] {render.escape(str(path))}")
    for source in gone if not state.as_json else ():
        render.out.print(f"[green]forgot[/] {render.escape(source)}")
    if not gone:
        click.get_current_context().exit(1)
