"""`mnemotree context`, `predict`, `usage` and `working`: the context engine."""

from __future__ import annotations

import click

from .. import ACTIVITIES
from . import render
from .main import _State, _text_arg, cli, with_memory

_SIGNAL_HELP = "A signal NAME=VALUE: file, branch, error, time, collaborator (repeatable)."


@cli.command()
@click.argument("query", default="")
@click.option("--budget", type=int, default=8000, show_default=True, help="Tokens, exactly.")
@click.option("--signal", "signals", multiple=True, help=_SIGNAL_HELP)
@click.option("--activity", type=click.Choice(ACTIVITIES), help="Rebalances the tiers.")
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@with_memory
def context(
    state: _State,
    query: str,
    budget: int,
    signals: tuple[str, ...],
    activity: str | None,
    scopes: tuple[str, ...],
) -> None:
    """Assemble a context of at most BUDGET tokens in four tiers (critical,
    relevant, background, index). Each line is led by a short reference (m3);
    --json maps them to node ids ("refs")."""
    memory = state.memory
    built = memory.context(
        _text_arg(query) if query else "",
        budget=budget,
        signals=list(signals),
        activity=activity,
        scopes=list(scopes) or None,
    )
    if state.as_json:
        render.emit_json(built.to_dict())
        return
    render.out.print(built.text, markup=False, highlight=False)
    used = ", ".join(f"{t.name} {t.tokens}/{t.budget}" for t in built.tiers)
    render.err.print(f"[dim]{built.token_count} of {built.budget} tokens ({used})[/dim]")
    for warning in built.warnings:
        render.err.print(f"[yellow]{render.escape(warning)}[/yellow]")


@cli.command()
@click.option("--signal", "signals", multiple=True, help=_SIGNAL_HELP)
@click.option("--activity", type=click.Choice(ACTIVITIES), help="The current activity.")
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option("--limit", type=int, default=20, show_default=True)
@with_memory
def predict(
    state: _State,
    signals: tuple[str, ...],
    activity: str | None,
    scopes: tuple[str, ...],
    limit: int,
) -> None:
    """Memories likely to be needed now, with confidence and reasons."""
    given = list(signals) + ([f"activity={activity}"] if activity else [])
    found = state.memory.predict(given, scopes=list(scopes) or None, limit=limit)
    if state.as_json:
        render.emit_json([p.to_dict() for p in found])
        return
    if not found:
        render.err.print("[dim]nothing predicted for these signals[/dim]")
    for p in found:
        reasons = render.escape("; ".join(p.reasons))
        render.out.print(
            f"{p.confidence:.2f}  {render.escape(p.node.text)}  [dim]{p.node.id} · {reasons}[/dim]",
            highlight=False,
        )


@cli.command()
@click.option("--retrieved", "retrieved", multiple=True, required=True, help="A node id shown.")
@click.option("--cited", "cited", multiple=True, help="A node id the answer used.")
@click.option("--answer", help="The answer's text (- reads standard input).")
@click.option("--signal", "signals", multiple=True, help=_SIGNAL_HELP)
@with_memory
def usage(
    state: _State,
    retrieved: tuple[str, ...],
    cited: tuple[str, ...],
    answer: str | None,
    signals: tuple[str, ...],
) -> None:
    """Record which memories a context held and which the answer used."""
    report = state.memory.record_usage(
        list(retrieved),
        cited=list(cited),
        answer=_text_arg(answer) if answer is not None else None,
        signals=list(signals),
    )
    if state.as_json:
        render.emit_json(report.to_dict())
        return
    render.out.print(
        f"recorded: {len(report.cited)} cited, {len(report.ignored)} ignored "
        f"[dim](batch {report.batch})[/dim]"
    )


@cli.command()
@click.argument("session")
@click.option("--total", type=int, required=True, help="The model's whole context, in tokens.")
@click.option("--system", "system_prompt", default="", help="The system prompt.")
@click.option("--query", default="", help="What to retrieve for (default: the last user turn).")
@click.option("--system-reserve", type=int, default=2000, show_default=True)
@click.option("--working-reserve", type=int, default=8000, show_default=True)
@click.option("--recent-share", type=float, default=0.6, show_default=True)
@with_memory
def working(
    state: _State,
    session: str,
    total: int,
    system_prompt: str,
    query: str,
    system_reserve: int,
    working_reserve: int,
    recent_share: float,
) -> None:
    """The tiered-memory design's working memory for a chat session's next turn."""
    built = state.memory.working_memory(
        session,
        total=total,
        system_prompt=system_prompt,
        query=query,
        system_reserve=system_reserve,
        working_reserve=working_reserve,
        recent_share=recent_share,
    )
    if state.as_json:
        render.emit_json(built.to_dict())
        return
    for section in built.sections:
        render.out.print(
            f"{section.name:<10} {section.tokens:>7} / {section.budget:<7} tokens, "
            f"{len(section.items)} items"
        )
    for warning in built.warnings:
        render.err.print(f"[yellow]{render.escape(warning)}[/yellow]")
