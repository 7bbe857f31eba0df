"""Commands. Errors become exit codes here: 0 ok, 1 user error, 2 usage."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import click

from .. import (
    ENV_DB,
    ENV_EMBEDDER,
    ENV_LLM,
    InvalidInput,
    MnemotreeError,
    SerializeMode,
    __version__,
    default_db_path,
    default_location,
)
from . import render

if TYPE_CHECKING:
    from .. import Memory

F = TypeVar("F", bound=Callable[..., Any])


class _Group(click.Group):
    """Turns our typed errors into a one-line message and exit code 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MnemotreeError as exc:
            render.err.print(f"[red]error:[/] {render.escape(str(exc))}")
            ctx.exit(1)


class _State:
    def __init__(
        self, db: str | None, as_json: bool, embedder: str | None = None, llm: str | None = None
    ) -> None:
        self.db = db
        self.as_json = as_json
        self.embedder = embedder
        self.llm = llm
        self._memory: Memory | None = None

    @property
    def memory(self) -> Memory:
        if self._memory is None:
            from .. import Memory

            self._memory = Memory(
                self.db if self.db is not None else default_location(),
                embedder=self.embedder,
                llm=self.llm,
            )
        return self._memory

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()


def with_memory(func: F) -> F:
    """Add `--json` and pass (state, ...) to the command."""

    @functools.wraps(func)
    def wrapper(*args: Any, as_json: bool, **kwargs: Any) -> Any:
        state = click.get_current_context().find_object(_State)
        assert state is not None  # the group always creates it
        state.as_json = state.as_json or as_json
        return func(state, *args, **kwargs)

    option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
    return option(wrapper)  # type: ignore[return-value]


def _text_arg(text: str) -> str:
    """`-` reads the text from standard input."""
    if text != "-":
        return text
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"standard input is not valid UTF-8 (byte {exc.start})", exc.start
        ) from None


def _show(state: _State, node: Any, verb: str = "added") -> None:
    if state.as_json:
        render.emit_json(node.to_dict())
    else:
        render.created(node, verb)


# Commands that run long or serve many requests keep numpy's BLAS threads
# (`chat` is the interactive one).
_LONG_RUNNING = frozenset(
    {"serve", "mcp", "bench", "consolidate", "reindex", "ingest", "import", "migrate", "chat"}
)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    metavar="FILE|URL",
    envvar=ENV_DB,
    help=f"Database: a SQLite file or a postgresql:// address (env {ENV_DB}; "
    f"default: {default_db_path()}).",
)
@click.option(
    "--embedder",
    envvar=ENV_EMBEDDER,
    default=None,
    help="minilm (offline default), hashing, or openai (an OpenAI-compatible endpoint "
    "set by MNEMOTREE_EMBED_BASE_URL / _MODEL / _API_KEY). Env MNEMOTREE_EMBEDDER.",
)
@click.option(
    "--llm",
    envvar=ENV_LLM,
    default=None,
    help="offline (never call a model) or openai (an OpenAI-compatible endpoint set by "
    "MNEMOTREE_LLM_BASE_URL / _MODEL / _API_KEY). Default: openai when "
    "MNEMOTREE_LLM_MODEL is set, else offline. Env MNEMOTREE_LLM.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.version_option(__version__, prog_name="mnemotree")
@click.pass_context
def cli(
    ctx: click.Context, db: str | None, embedder: str | None, llm: str | None, as_json: bool
) -> None:
    """mnemotree: memory for LLM applications, as one tree of nodes."""
    if ctx.invoked_subcommand not in _LONG_RUNNING:
        # numpy's BLAS starts a thread a core on import, ~60 ms of CPU that
        # one command's small vector products never win back. Set before
        # anything imports numpy; the user's own setting wins.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    state = _State(db, as_json, embedder, llm)
    ctx.obj = state
    ctx.call_on_close(state.close)


context_options = [
    click.option("--type", "context_type", default="", help="context_type, e.g. message, note."),
    click.option("--name", "context_name", default="", help="context_name, e.g. a role or date."),
    click.option("--value", "context_value", default="", help="context_value, e.g. user."),
]


def with_context(func: F) -> F:
    for option in reversed(context_options):
        func = option(func)
    return func


@cli.command()
@with_memory
def init(state: _State) -> None:
    """Create the database if needed and show its status."""
    if not state.as_json:
        render.out.print(f"[green]ready[/] {state.memory.location}")
    _print_stats(state)


@cli.command()
@click.argument("text")
@click.option("--parent", help="Append under this node instead of creating a root.")
@click.option("--scope", help="Scope (default: inherited from the parent, or 'default').")
@with_context
@with_memory
def add(state: _State, text: str, parent: str | None, scope: str | None, **context: Any) -> None:
    """Add TEXT as a new root, or under --parent. TEXT '-' reads stdin."""
    node = state.memory.add(_text_arg(text), parent=parent, scope=scope, **context)
    _show(state, node)


@cli.command()
@click.argument("text")
@click.option("--after", "first", required=True, help="The sibling before the new node.")
@click.option("--before", "second", required=True, help="The sibling after the new node.")
@with_context
@with_memory
def insert(state: _State, text: str, first: str, second: str, **context: Any) -> None:
    """Insert TEXT between two adjacent siblings."""
    node = state.memory.insert_between(first, second, _text_arg(text), **context)
    _show(state, node, "inserted")


@cli.command()
@click.argument("node_id")
@click.argument("text", required=False)
@click.option("--type", "context_type", help="New context_type.")
@click.option("--name", "context_name", help="New context_name.")
@click.option("--value", "context_value", help="New context_value.")
@click.option("--scope", help="New scope.")
@with_memory
def update(state: _State, node_id: str, text: str | None, **fields: Any) -> None:
    """Change a node's TEXT (and/or fields); the old version is kept."""
    node = state.memory.update(node_id, None if text is None else _text_arg(text), **fields)
    _show(state, node, f"updated to version {node.version}:")


@cli.command()
@click.argument("node_id")
@with_memory
def delete(state: _State, node_id: str) -> None:
    """Delete a node and its subtree (restorable from history)."""
    count = state.memory.delete(node_id)
    if state.as_json:
        render.emit_json({"deleted": node_id, "nodes": count})
    else:
        render.out.print(
            f"[red]deleted[/] {node_id} and {count - 1} descendants "
            f"[dim](undo: mnemotree history {node_id})[/]"
        )


@cli.command()
@click.argument("node_id")
@click.option("--parent", help="New parent (appends at the end).")
@click.option("--after", help="Place right after this sibling.")
@click.option("--before", help="Place right before this sibling.")
@with_memory
def move(
    state: _State, node_id: str, parent: str | None, after: str | None, before: str | None
) -> None:
    """Re-parent or reorder a node."""
    node = state.memory.move(node_id, parent=parent, after=after, before=before)
    _show(state, node, "moved")


@cli.command()
@click.argument("node_id")
@with_memory
def show(state: _State, node_id: str) -> None:
    """Show one node."""
    node = state.memory.get(node_id)
    if state.as_json:
        render.emit_json(node.to_dict())
    else:
        render.node_detail(node)


@cli.command()
@click.argument("root", required=False)
@click.option("--depth", type=click.IntRange(min=0), help="Stop drawing below this depth.")
@with_memory
def tree(state: _State, root: str | None, depth: int | None) -> None:
    """Draw a tree, or list the roots when ROOT is omitted."""
    memory = state.memory
    if root is None:
        levels = [(0, node) for node in memory.roots()]
    else:
        levels = memory.serialize_with_depth(root)
        if depth is not None:
            levels = [(d, n) for d, n in levels if d <= depth]
    if state.as_json:
        render.emit_json([{**n.to_dict(), "depth": d} for d, n in levels])
    else:
        render.tree(levels, "[bold]roots[/]" if root is None else None)


@cli.command()
@click.argument("root")
@click.option(
    "--mode",
    type=click.Choice([m.value for m in SerializeMode]),
    default=SerializeMode.INCLUDE.value,
    show_default=True,
    help="Interior summaries: include them, skip them, or collapse (summary instead of children).",
)
@with_memory
def serialize(state: _State, root: str, mode: str) -> None:
    """Print a subtree as a document, depth first in reading order."""
    levels = state.memory.serialize_with_depth(root, mode)
    _document(state, levels)


@cli.command()
@click.argument("root")
@click.option("--budget", type=int, required=True, help="Token budget.")
@click.option("--query", help="Open the branches closest to this first (best first).")
@with_memory
def expand(state: _State, root: str, budget: int, query: str | None) -> None:
    """Expand a subtree within --budget tokens: breadth first, or best first for --query."""
    nodes = state.memory.expand_to_budget(root, budget, query=query)
    # Either expansion keeps every node's parent, so depths follow from the list.
    depth: dict[str | None, int] = {}
    for node in nodes:
        depth[node.id] = depth.get(node.parent_id, -1) + 1
    _document(state, [(depth[n.id], n) for n in nodes])


def _document(state: _State, levels: list[tuple[int, Any]]) -> None:
    tokens = sum(n.token_count for _, n in levels)
    if state.as_json:
        render.emit_json([{**n.to_dict(), "depth": d} for d, n in levels])
    else:
        render.document(levels, tokens)


@cli.command()
@click.argument("node_ids", nargs=-1, required=True)
@click.option("--text", required=True, help="The summary text ('-' reads stdin).")
@with_context
@with_memory
def summarize(state: _State, node_ids: tuple[str, ...], text: str, **context: Any) -> None:
    """Put a summary over contiguous sibling leaves NODE_IDS."""
    context = {k: v for k, v in context.items() if v}
    node = state.memory.add_summary(list(node_ids), _text_arg(text), **context)
    _show(state, node, "summary")


@cli.command()
@with_memory
def stale(state: _State) -> None:
    """List summaries whose children changed since they were written."""
    nodes = state.memory.stale_summaries()
    if state.as_json:
        render.emit_json([n.to_dict() for n in nodes])
    else:
        render.tree([(0, n) for n in nodes], "[bold]stale summaries[/]")


@cli.command()
@click.argument("node_id")
@with_memory
def history(state: _State, node_id: str) -> None:
    """List a node's versions (deleted nodes too)."""
    versions = state.memory.history(node_id)
    if state.as_json:
        render.emit_json([v.to_dict() for v in versions])
    else:
        render.history(versions)


@cli.command()
@click.argument("node_id")
@click.argument("version", type=int)
@with_memory
def restore(state: _State, node_id: str, version: int) -> None:
    """Restore VERSION of a node (undeletes it if it was deleted)."""
    node = state.memory.restore(node_id, version)
    _show(state, node, f"restored version {version} as version {node.version}:")


@cli.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "jsonl"]),
    help="Default: from --out's extension (.md, .jsonl), else jsonl.",
)
@click.option("--root", help="Markdown: export only this tree.")
@click.option("--scope", help="Markdown: export only this scope's trees.")
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="File (default stdout).",
)
@click.option("--include-keys", is_flag=True, help="JSONL: API keys too (hashes, never secrets).")
@click.option("--include-vectors", is_flag=True, help="JSONL: vectors too (else re-embedded).")
@with_memory
def export(
    state: _State,
    fmt: str | None,
    root: str | None,
    scope: str | None,
    out_path: Path | None,
    include_keys: bool,
    include_vectors: bool,
) -> None:
    """Export as Markdown (readable, round-trips) or JSONL (the whole memory)."""
    memory = state.memory
    if out_path is not None:
        implied = _format_of(out_path)
        if fmt is not None and implied is not None and implied != fmt:
            raise InvalidInput(
                f"--format {fmt} but {str(out_path)!r} names a {implied} file; change one of them",
                str(out_path),
            )
        fmt = fmt or _guess_format(out_path)
    fmt = fmt or "jsonl"
    for name, value in (("--root", root), ("--scope", scope)):
        if value is not None and fmt == "jsonl":
            raise InvalidInput(
                f"{name} works with --format markdown; JSONL exports everything", value
            )
    if root is not None and scope is not None:
        raise InvalidInput("--root and --scope exclude each other", root)
    if fmt == "markdown" and (include_keys or include_vectors):
        raise InvalidInput("--include-keys and --include-vectors work with --format jsonl", fmt)
    write = functools.partial(
        _export_to, memory, fmt, root=root, scope=scope, keys=include_keys, vectors=include_vectors
    )
    if out_path is None:
        write(sys.stdout)
        return
    # Write beside the target and rename on success: a failed export never
    # truncates an existing backup.
    partial = out_path.with_name(out_path.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8", newline="") as handle:
            write(handle)
        partial.replace(out_path)
    except OSError as exc:
        raise InvalidInput(
            f"cannot write {str(out_path)!r}: {exc.strerror}", str(out_path)
        ) from None
    finally:
        partial.unlink(missing_ok=True)
    render.err.print(f"[green]exported[/] {fmt} to {out_path}")


def _export_to(
    memory: Memory,
    fmt: str,
    handle: TextIO,
    *,
    root: str | None,
    scope: str | None,
    keys: bool,
    vectors: bool,
) -> None:
    with render.err.status(f"exporting {fmt}…"):
        if fmt == "markdown":
            handle.write(memory.exchange.export_markdown(root, scope=scope))
        else:
            memory.exchange.export_jsonl(handle, include_keys=keys, include_vectors=vectors)


@cli.command("import")
@click.argument("file", type=click.Path(path_type=Path, allow_dash=True))
@click.option(
    "--format", "fmt", type=click.Choice(["markdown", "jsonl"]), help="Default: from the extension."
)
@click.option(
    "--from",
    "other",
    type=click.Choice(["mem0", "openai-chat", "markdown"]),
    help="Another tool's export: mem0's memories JSON, ChatGPT's conversations.json, "
    "or a folder of Markdown notes (FILE is the folder).",
)
@click.option("--scope", help="Markdown outlines, --from: scope of what names none.")
@click.option(
    "--merge", is_flag=True, help="JSONL: add the backup's trees to a database that has memories."
)
@with_memory
def import_(
    state: _State, file: Path, fmt: str | None, other: str | None, scope: str | None, merge: bool
) -> None:
    """Import a Markdown document, restore a JSONL backup, or move in from
    another tool (--from); all or nothing."""
    memory = state.memory
    if other is not None:
        if fmt is not None:
            raise InvalidInput("--from and --format exclude each other", fmt)
        with render.err.status(f"importing {file} from {other}…"):
            if other == "markdown":
                report = memory.exchange.import_notes(file, scope=scope)
            else:
                report = memory.exchange.import_from(
                    other, _read_text(file), file=str(file), scope=scope
                )
        if state.as_json:
            render.emit_json(report.to_dict())
        else:
            render.err.print(
                f"[green]imported[/] {report.memories} memories, {report.sessions} sessions, "
                f"{report.messages} messages, {report.documents} notes with "
                f"{report.relations} links ({report.dangling} dangling) from {other} "
                f"({report.skipped} skipped) into "
                + ", ".join(f"{s} ({n})" for s, n in sorted(report.scopes.items()))
            )
        return
    text = _read_text(file)
    fmt = fmt or _guess_format(file)
    if fmt == "markdown":
        with render.err.status(f"importing {file}…"):
            tops = memory.exchange.import_markdown(text, source=str(file), scope=scope)
    else:
        with render.progress("restoring", "rows") as progress:
            task = progress.add_task(file.name, total=None)
            tops = memory.exchange.import_jsonl(
                text.split("\n"),
                source=str(file),
                merge=merge,
                progress=lambda done, total: progress.update(task, completed=done, total=total),
            )
    if state.as_json:
        render.emit_json([n.to_dict() for n in tops])
    else:
        for node in tops:
            render.created(node, "imported")


def _format_of(file: Path) -> str | None:
    suffix = file.suffix.lower()
    if suffix in (".md", ".markdown"):
        return "markdown"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    return None


def _guess_format(file: Path) -> str:
    found = _format_of(file)
    if found is not None:
        return found
    raise InvalidInput(
        f"cannot tell the format of {str(file)!r}; pass --format markdown or --format jsonl",
        str(file),
    )


def _read_text(file: Path) -> str:
    try:
        data = sys.stdin.buffer.read() if str(file) == "-" else file.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read {str(file)!r}: {exc.strerror}", str(file)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{str(file)!r} is not valid UTF-8 (byte {exc.start})", str(file)
        ) from None


def _stats_dict(memory: Memory) -> dict[str, Any]:
    s = memory.stats()
    return {
        "schema_version": s.schema_version,
        "nodes": s.nodes,
        "roots": s.roots,
        "summaries": s.summaries,
        "stale_summaries": s.stale_summaries,
        "tokens": s.tokens,
        "tags": s.tags,
        "versions": s.versions,
        "size_bytes": s.size_bytes,
        "warnings": list(s.warnings),
        "tokenizer": memory.tokenizer.name,
        "tokenizer_exact": memory.tokenizer.exact,
    }


@cli.command()
@with_memory
def stats(state: _State) -> None:
    """Counts, sizes and the tokenizer of the database."""
    _print_stats(state)


def _print_stats(state: _State) -> None:
    memory = state.memory
    if state.as_json:
        render.emit_json({"database": memory.location, **_stats_dict(memory)})
    else:
        render.stats(memory.stats(), memory.tokenizer.name, memory.tokenizer.exact)


def main() -> None:
    cli(prog_name="mnemotree")
