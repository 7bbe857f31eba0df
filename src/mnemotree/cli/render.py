"""Human output for the CLI (rich) and JSON output (one object or one array)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

__all__ = ["emit_json", "err", "escape", "out"]
from rich.table import Table
from rich.tree import Tree as RichTree

if TYPE_CHECKING:
    from rich.progress import Progress

    from .. import Node, NodeVersion, StoreStats

out = Console(soft_wrap=True, highlight=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)  # errors stay one line


def progress(what: str, unit: str) -> Progress:
    """A progress display on stderr for long work: what it does, a bar, done of
    total, the rate in `unit`s a second, time taken and time left (a bar with
    no total yet shows the count and rate only). Gone when the work ends."""
    from rich import progress as bars
    from rich.text import Text

    class Rate(bars.ProgressColumn):
        def render(self, task: bars.Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.0f} {unit}/s" if speed else f"- {unit}/s", style="cyan")

    return bars.Progress(
        bars.TextColumn(f"{what} [dim]{{task.description}}"),
        bars.BarColumn(),
        bars.MofNCompleteColumn(),
        Rate(),
        bars.TimeElapsedColumn(),
        bars.TextColumn("left"),
        bars.TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,  # a log or a pipe gets the result, not the bars
    )


def emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def _short(text: str, width: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _label(node: Node) -> str:
    kind = node.context_type or ("summary" if node.is_summary else "")
    flags = (" [yellow]stale[/]" if node.stale else "") + (
        f" [magenta]{escape(kind)}[/]" if kind else ""
    )
    return f"{escape(_short(node.text))} [dim]{node.id}[/]{flags}"


def node_detail(node: Node) -> None:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan")
    table.add_column()
    rows: list[tuple[str, str]] = [
        ("id", node.id),
        ("parent", node.parent_id or "— (root)"),
        ("root", node.root_id),
        ("scope", node.scope),
        (
            "context",
            " / ".join(x for x in (node.context_type, node.context_name, node.context_value) if x)
            or "—",
        ),
        ("tokens", str(node.token_count)),
        ("version", str(node.version)),
        ("created", node.created_at),
        ("updated", node.updated_at),
    ]
    if node.is_summary:
        rows.append(("summary", "stale" if node.stale else "fresh"))
    if node.tags:
        rows.append(("tags", " ".join("@" + t for t in node.tags)))
    if node.metadata:
        rows.append(("metadata", json.dumps(node.metadata, ensure_ascii=False)))
    for key, value in rows:
        table.add_row(key, escape(value))
    out.print(table)
    out.print()
    out.print(escape(node.text))


def created(node: Node, verb: str = "added") -> None:
    out.print(
        f"[green]{verb}[/] {node.id}  "
        f"[dim]({node.token_count} tokens, scope {escape(node.scope)})[/]"
    )


def tree(levels: Sequence[tuple[int, Node]], title: str | None = None) -> None:
    if not levels:
        out.print("[dim]no nodes yet: add one with  mnemotree add TEXT[/]")
        return
    top = RichTree(title, guide_style="dim") if title else None
    stack: list[RichTree] = []  # stack[d] is the branch drawn for depth d
    for depth, node in levels:
        del stack[depth:]
        parent = stack[-1] if stack else top
        branch = (
            RichTree(_label(node), guide_style="dim")
            if parent is None
            else parent.add(_label(node))
        )
        top = top or branch
        stack.append(branch)
    out.print(top)


def document(levels: Sequence[tuple[int, Node]], tokens: int | None = None) -> None:
    # Plain writes: the document is the user's text, byte for byte (no markup,
    # emoji codes or tab expansion).
    for _, node in levels:
        sys.stdout.write(node.text + "\n\n")
    sys.stdout.flush()
    if tokens is not None:
        err.print(f"[dim]{len(levels)} nodes, {tokens} tokens[/]")


def history(versions: Sequence[NodeVersion]) -> None:
    # Each past version ends with the change that replaced it ("ended by ... at").
    table = Table(show_edge=False)
    table.add_column("version", justify="right")
    table.add_column("ended by")
    table.add_column("at", no_wrap=True)
    table.add_column("text", no_wrap=True, overflow="ellipsis")
    for v in versions:
        ended = "[green](current)[/]" if v.op == "current" else v.op
        when = "" if v.op == "current" else v.recorded_at[:19].replace("T", " ")
        table.add_row(str(v.version), ended, when, escape(_short(v.node.text, 60)))
    out.print(table)


def stats(s: StoreStats, tokenizer: str, exact: bool) -> None:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan")
    table.add_column()
    for key, value in (
        ("database", s.path),
        ("schema", str(s.schema_version)),
        ("size", f"{s.size_bytes / 1024:,.0f} KiB"),
        ("nodes", f"{s.nodes:,}"),
        ("roots", f"{s.roots:,}"),
        ("summaries", f"{s.summaries:,} ({s.stale_summaries:,} stale)"),
        ("tokens", f"{s.tokens:,}"),
        ("tags", f"{s.tags:,}"),
        ("versions kept", f"{s.versions:,}"),
        ("tokenizer", tokenizer + ("" if exact else " (approximate!)")),
    ):
        table.add_row(key, escape(value))
    out.print(table)
    for warning in s.warnings:
        err.print(f"[yellow]warning:[/] {escape(warning)}")


def hits(found: Sequence[Any], explain: bool) -> None:
    if not found:
        out.print("[dim]no matches[/]")
        return
    for rank, hit in enumerate(found, 1):
        trail = " › ".join(_short(a.text, 30) for a in reversed(hit.ancestry))
        out.print(f"[bold]{rank:>2}.[/] {escape(_short(hit.node.text, 100))}")
        source = hit.citation()
        where = _cited(source) if source is not None else trail
        out.print(f"    [dim]{hit.node.id}  score {hit.score:.3f}  {escape(where)}[/]")
        if explain:
            parts = "  ".join(f"{k} {v:.3f}" for k, v in hit.parts.items())
            out.print(f"    [cyan]{parts}[/]")
        for covered in hit.covered:
            out.print(f"      [dim]covers[/] {escape(_short(covered.node.text, 90))}")


def _cited(source: Any) -> str:
    """A document hit's source: breadcrumb, then its pages."""
    first, last = source.page_start, source.page_end
    if first is None:
        return str(source.breadcrumb())
    pages = f"p. {first}" if last in (None, first) else f"pp. {first}-{last}"
    return f"{source.breadcrumb()}, {pages}"


_RETRIEVAL = ("recall@1", "recall@5", "recall@10", "recall@20", "all@10", "ndcg@10")


def retrieval(result: dict[str, Any], by: str, label: str) -> None:
    """The default search beside its baselines (bench/retrieval_eval): figures
    over all questions with latency, R@10 per group, and the verdict."""
    methods = {"default": result["default"], **result["baselines"]}
    table = Table(show_edge=False, title="all questions (latency in ms)")
    columns = ("method", "n", "R@1", "R@5", "R@10", "R@20", "All@10", "NDCG@10", "p50", "p95")
    for column in columns:
        table.add_column(column, justify="right", no_wrap=True)
    for name, figures in methods.items():
        r, lat = figures["overall"], figures["latency_ms"]
        table.add_row(
            name,
            str(r["n"]),
            *(f"{r.get(k, 0.0):.3f}" for k in _RETRIEVAL),
            f"{lat.get('p50', 0.0):.1f}",
            f"{lat.get('p95', 0.0):.1f}",
        )
    out.print(table)
    groups = Table(show_edge=False, title=f"R@10 by {label}")
    for column in (label, "n", *methods):
        groups.add_column(column, justify="right", no_wrap=True)
    for group, r in result["default"][by].items():
        row = [f"{methods[m][by].get(group, {}).get('recall@10', 0.0):.3f}" for m in methods]
        groups.add_row(group, str(r["n"]), *row)
    out.print(groups)
    c = result["comparison"]
    verdict = "yes" if c["default_beats_every_baseline"] else "no"
    best = f"{c['best_baseline']} {c['best_baseline_value']:.3f}"
    out.print(
        f"default_beats_every_baseline: {verdict} (R@10 {c['default']:.3f}; "
        f"best baseline {best}; margin {c['margin']:+.3f})"
    )
    if "latency_p50_vs_dense" in c:
        out.print(f"latency: default p50 {c['latency_p50_vs_dense']:.2f}x plain cosine's")


def documents(found: Sequence[Any]) -> None:
    """Ingested documents grouped by scope, with file and chunk totals."""
    if not found:
        out.print("[dim]no documents; add some with `mnemotree ingest PATH --scope S`[/]")
        return
    table = Table(show_edge=False)
    for column in ("scope", "file", "type", "chunks", "pages", "title"):
        table.add_column(column, justify="right" if column in ("chunks", "pages") else "left")
    totals: dict[str, list[int]] = {}
    for doc in sorted(found, key=lambda d: (d.scope, d.source)):
        table.add_row(
            escape(doc.scope),
            escape(doc.source),
            doc.document_type,
            str(doc.chunks),
            "" if doc.pages is None else str(doc.pages),
            escape(_short(doc.title, 40)),
        )
        files_chunks = totals.setdefault(doc.scope, [0, 0])
        files_chunks[0] += 1
        files_chunks[1] += doc.chunks
    out.print(table)
    for scope, (files, chunks) in totals.items():
        out.print(f"[bold]{escape(scope)}[/]: {files} files, {chunks} chunks")
