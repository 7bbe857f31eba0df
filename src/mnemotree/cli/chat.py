"""`mnemotree session ...`, `capture`, `promote`, `captured`, `prune`: chat
memory from the command line (the documents-and-chat design). The REPL is in `repl.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from .. import CHAT_ROLES, SESSION_STATUSES, Retention
from . import render
from .main import _State, _text_arg, cli, with_memory

if TYPE_CHECKING:
    from .. import CapturedRow, CaptureReport, Node


@cli.group()
def session() -> None:
    """Chat sessions: messages, rolling summaries, the model's message list."""


@session.command("new")
@click.option("--scope", default="default", show_default=True, help="e.g. admin or user:42.")
@click.option("--title", default=None, help="Default: 'Chat YYYY-MM-DD'.")
@click.option("--max-recent", type=int, default=20, show_default=True)
@click.option("--chunk-size", type=int, default=10, show_default=True)
@click.option("--max-chunks", type=int, default=5, show_default=True)
@with_memory
def new(
    state: _State,
    scope: str,
    title: str | None,
    max_recent: int,
    chunk_size: int,
    max_chunks: int,
) -> None:
    """Start a session; prints its id."""
    node = state.memory.chat.start_session(
        scope, title, max_recent=max_recent, chunk_size=chunk_size, max_chunks=max_chunks
    )
    if state.as_json:
        render.emit_json(node.to_dict())
    else:
        label = render.escape(node.text)
        render.out.print(f"[green]session[/] {node.id}  ({label}, scope {node.scope})")


@session.command("add")
@click.argument("session_id", metavar="SESSION")
@click.argument("role", type=click.Choice(CHAT_ROLES))
@click.argument("text")
@click.option("--name", default=None, help="The speaker's name (default: the role).")
@with_memory
def add(state: _State, session_id: str, role: str, text: str, name: str | None) -> None:
    """Append a message (TEXT '-' reads stdin); summaries and capture follow."""
    node = state.memory.chat.add_message(session_id, role, _text_arg(text), name=name)
    state.memory.chat.wait_for_chat()
    if state.as_json:
        render.emit_json(node.to_dict())
    else:
        turn = node.metadata.get("turn")
        render.out.print(f"[green]message[/] {node.id}  (turn {turn}, {node.token_count} tokens)")


@session.command("list")
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option("--status", type=click.Choice(SESSION_STATUSES), default=None)
@with_memory
def list_(state: _State, scopes: tuple[str, ...], status: str | None) -> None:
    """Sessions, oldest first."""
    found = state.memory.chat.sessions(list(scopes) or None, status)
    if state.as_json:
        render.emit_json([_session_dict(state, s) for s in found])
        return
    for s in found:
        info = _session_dict(state, s)
        render.out.print(
            f"{s.id}  {render.escape(s.text)}  [dim]{s.scope} · {info['status']} · "
            f"{info['turns']} turns[/]"
        )
    if not found:
        render.err.print("[yellow]no sessions[/]")


def _session_dict(state: _State, node: Node) -> dict[str, Any]:
    memory = state.memory
    top = memory.children(node.id)
    return {
        **node.to_dict(),
        "status": node.metadata.get("status"),
        "turns": memory.chat.session_turns(node.id),
        "summaries": sum(n.is_summary for n in top),
        "recent": sum(n.context_type == "message" for n in top),
        "milestones": node.metadata.get("milestones", []),
        "window": node.metadata.get("window", {}),
    }


@session.command("show")
@click.argument("session_id", metavar="SESSION")
@with_memory
def show(state: _State, session_id: str) -> None:
    """A session: status, window, milestones, and its top level."""
    memory = state.memory
    info = _session_dict(state, memory.chat.session(session_id))
    if state.as_json:
        render.emit_json(info)
        return
    render.out.print(
        f"[bold]{render.escape(info['text'])}[/] {info['id']}  scope {info['scope']} · "
        f"{info['status']} · {info['turns']} turns · {info['summaries']} summaries · "
        f"{info['recent']} recent"
    )
    for milestone in info["milestones"]:
        render.out.print(f"  ★ turn {milestone['turn']}: {render.escape(milestone['text'])}")
    for node in memory.children(info["id"]):
        if node.is_summary:
            label = f"[cyan]{node.context_value}[/]"
        else:
            who = render.escape(node.context_name)
            label = f"[dim]{node.metadata.get('turn')}[/] [bold]{who}[/]"
        render.out.print(f"  {label}: {render.escape(node.text)}")


@session.command("messages")
@click.argument("session_id", metavar="SESSION")
@click.option("--budget", type=int, default=None, help="Fit this many tokens (newest kept).")
@with_memory
def messages(state: _State, session_id: str, budget: int | None) -> None:
    """The OpenAI chat messages for the session (summaries as tool call pairs)."""
    found = state.memory.chat.build_message_list(session_id, budget)
    if state.as_json:
        render.emit_json(found)
        return
    for message in found:
        if message.get("tool_calls"):
            call = message["tool_calls"][0]["function"]
            arguments = render.escape(call["arguments"])
            render.out.print(f"[cyan]assistant → {call['name']}[/] {arguments}")
        else:
            who = message.get("name") or message["role"]
            render.out.print(f"[bold]{render.escape(who)}[/]: {render.escape(message['content'])}")


@session.command("status")
@click.argument("session_id", metavar="SESSION")
@click.argument("status", type=click.Choice(SESSION_STATUSES))
@with_memory
def status(state: _State, session_id: str, status: str) -> None:
    """Set a session active, paused or ended."""
    node = state.memory.chat.set_session_status(session_id, status)
    if state.as_json:
        render.emit_json(node.to_dict())
    else:
        render.out.print(f"[green]{status}[/] {node.id}")


@session.command("milestone")
@click.argument("session_id", metavar="SESSION")
@click.argument("text")
@with_memory
def milestone(state: _State, session_id: str, text: str) -> None:
    """Mark a moment of the session."""
    node = state.memory.chat.add_milestone(session_id, _text_arg(text))
    if state.as_json:
        render.emit_json(node.to_dict())
    else:
        render.out.print(f"[green]milestone[/] at turn {node.metadata['milestones'][-1]['turn']}")


@session.command("log")
@click.option("--scope", default="default", show_default=True)
@click.option("--day", default=None, help="YYYY-MM-DD (default: today, UTC).")
@with_memory
def log(state: _State, scope: str, day: str | None) -> None:
    """The day's messages in a scope as Markdown (a daily log)."""
    text = state.memory.chat.daily_log(scope, day)
    if state.as_json:
        render.emit_json({"scope": scope, "markdown": text})
    else:
        click.echo(text, nl=False)


# -- capture ----------------------------------------------------------------------


@cli.command()
@click.argument("session_id", metavar="SESSION")
@with_memory
def capture(state: _State, session_id: str) -> None:
    """Capture memories from the session's messages not captured yet."""
    memory = state.memory
    memory.chat.wait_for_chat()  # a background capture may be under way
    report = memory.chat.capture(session_id)
    if state.as_json:
        render.emit_json(_report_dict(report))
        return
    render.out.print(
        f"found {report.found}, new {report.new}, promoted {len(report.promoted)}, "
        f"pending {len(report.pending)}"
    )
    for row in memory.chat.captured(status=None):
        if row.id in report.pending or row.memory_id in report.promoted:
            _print_row(row)


def _report_dict(report: CaptureReport) -> dict[str, Any]:
    return {
        "session": report.session_id,
        "found": report.found,
        "new": report.new,
        "promoted": report.promoted,
        "pending": report.pending,
    }


def _print_row(row: CapturedRow) -> None:
    mark = {"promoted": "[green]promoted[/]", "pending": "[yellow]pending[/]"}.get(
        row.status, f"[dim]{row.status}[/]"
    )
    render.out.print(
        f"{row.id}  {mark}  {row.type} {row.confidence:.2f}  {render.escape(row.text)}"
    )


@cli.command()
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option(
    "--status",
    type=click.Choice(["pending", "promoted", "dismissed", "all"]),
    default="pending",
    show_default=True,
)
@with_memory
def captured(state: _State, scopes: tuple[str, ...], status: str) -> None:
    """Captured facts, newest first (by default those waiting for `promote`)."""
    rows = state.memory.chat.captured(list(scopes) or None, None if status == "all" else status)
    if state.as_json:
        render.emit_json([{**r._asdict(), "fields": dict(r.fields)} for r in rows])
        return
    for row in rows:
        _print_row(row)
    if not rows:
        render.err.print(f"[yellow]no {'' if status == 'all' else status + ' '}captured facts[/]")


@cli.command()
@click.argument("captured_id", metavar="ID")
@with_memory
def promote(state: _State, captured_id: str) -> None:
    """Make a pending captured fact a typed memory."""
    node = state.memory.chat.promote(captured_id)
    if state.as_json:
        render.emit_json(node.to_dict())
    else:
        render.created(node, "promoted")


@cli.command()
@click.argument("captured_id", metavar="ID")
@with_memory
def dismiss(state: _State, captured_id: str) -> None:
    """Drop a pending captured fact (kept, marked dismissed)."""
    state.memory.chat.dismiss(captured_id)
    if state.as_json:
        render.emit_json({"dismissed": captured_id})
    else:
        render.out.print(f"[green]dismissed[/] {captured_id}")


@cli.command("memory-log")
@click.option("--scope", default="default", show_default=True)
@with_memory
def memory_log(state: _State, scope: str) -> None:
    """The scope's memory log (what capture found) as Markdown."""
    text = state.memory.chat.memory_log(scope)
    if state.as_json:
        render.emit_json({"scope": scope, "markdown": text})
    else:
        click.echo(text, nl=False)


@cli.command()
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option("--messages-days", type=float, default=Retention().messages_days, show_default=True)
@click.option("--summaries-days", type=float, default=Retention().summaries_days, show_default=True)
@click.option("--admin-days", type=float, default=Retention().admin_days, show_default=True)
@click.option("--dry-run", is_flag=True, help="Count what would go; delete nothing.")
@with_memory
def prune(
    state: _State,
    scopes: tuple[str, ...],
    messages_days: float,
    summaries_days: float,
    admin_days: float,
    dry_run: bool,
) -> None:
    """Apply chat retention: summarised messages, then old summaries and log
    sections. Unsummarised messages stay; what goes stays in history."""
    rules = Retention(messages_days, summaries_days, admin_days)
    report = state.memory.chat.prune(rules, scopes=list(scopes) or None, dry_run=dry_run)
    if state.as_json:
        render.emit_json(report.to_dict())
        return
    verb = "would prune" if dry_run else "pruned"
    render.out.print(
        f"{verb} {len(report.messages)} messages, {len(report.summaries)} summaries, "
        f"{len(report.log_sections)} memory-log sections"
    )
