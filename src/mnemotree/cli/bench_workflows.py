"""`mnemotree bench workflows`: workflow detection on simulated event logs."""

from __future__ import annotations

from pathlib import Path

import click

from . import render
from .bench import _emit, bench, json_option


@bench.command("workflows")
@click.option(
    "--seed",
    "seeds",
    type=int,
    multiple=True,
    default=(11, 12, 13),
    show_default=True,
    help="A log's seed; repeat for several logs.",
)
@json_option
def workflows_(seeds: tuple[int, ...], json_out: Path | None) -> None:
    """Record a developer's simulated event log (planted workflows among
    noise), detect workflows, and report precision and recall against the
    planted ones, and what a log of the noise alone gives."""
    from ..bench.workflow_log import run

    result = run(seeds, progress=lambda m: render.err.print(f"[dim]{m}[/]"))
    _emit(result, json_out)
