"""`mnemotree bench code`: a Python or TypeScript project as memory."""

from __future__ import annotations

from pathlib import Path

import click

from .. import InvalidInput
from . import render
from .bench import _emit, bench, json_option


@bench.command("code")
@click.option(
    "--path",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    help="The project's source folder (default: this package's own source).",
)
@click.option(
    "--questions",
    "project",
    default="mnemotree",
    show_default=True,
    help="Which shipped question set to ask: mnemotree; sqlite-utils (with --path "
    "pointing at the sqlite_utils folder of the sqlite-utils 3.38 sdist); trpc-server "
    "(--path at the src folder of the @trpc/server 10.45.2 npm package).",
)
@click.option("--embedder", default="minilm", show_default=True)
@click.option(
    "--typescript",
    type=click.Path(file_okay=False, path_type=Path),
    help="The TypeScript compiler's package folder, for a TypeScript project's "
    "reference count (default: the one Node.js finds).",
)
@json_option
def code_(
    folder: Path | None,
    project: str,
    embedder: str,
    typescript: Path | None,
    json_out: Path | None,
) -> None:
    """Ingest a Python or TypeScript project: files/s, symbols found against
    the language's own tooling (Python's symbol tables, the TypeScript
    compiler), and questions by description answered in the top 3."""
    from ..bench.code import default_folder, questions, run

    if folder is not None and not folder.is_dir():
        raise InvalidInput(f"no folder at {str(folder)!r}", str(folder))
    if typescript is not None:  # refused now, not after the project is read
        from ..bench.code_typescript import check_package

        check_package(typescript)
    try:
        questions(project)
    except KeyError as exc:
        raise InvalidInput(str(exc.args[0]), project) from None
    result = run(
        folder or default_folder(),
        project,
        embedder,
        lambda m: render.err.print(f"[dim]{m}[/]"),
        typescript=typescript,
    )
    _emit(result, json_out)


@bench.command("patterns")
@click.option(
    "--path",
    "folders",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A folder of the project (repeatable; default: this package's own source).",
)
@click.option(
    "--project",
    default="mnemotree",
    show_default=True,
    help="Whose expected patterns to judge by: mnemotree; sqlite-utils (with --path "
    "pointing at the sqlite-utils 3.38 sdist's sqlite_utils and tests folders); "
    "trpc-server (--path at the src folder of the @trpc/server 10.45.2 npm package).",
)
@json_option
def patterns_(folders: tuple[Path, ...], project: str, json_out: Path | None) -> None:
    """Mine a Python or TypeScript project's code patterns and judge them
    against the patterns listed for it before the miner's output on it was
    seen: precision, and how many listed ones were found."""
    from ..bench.code import default_folder
    from ..bench.code_patterns import expected, run

    missing = [f for f in folders if not f.is_dir()]
    if missing:
        raise InvalidInput(f"no folder at {str(missing[0])!r}", str(missing[0]))
    try:
        expected(project)
    except KeyError as exc:
        raise InvalidInput(str(exc.args[0]), project) from None
    result = run(
        list(folders) or [default_folder()], project, lambda m: render.err.print(f"[dim]{m}[/]")
    )
    _emit(result, json_out)
