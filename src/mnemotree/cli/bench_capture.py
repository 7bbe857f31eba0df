"""`mnemotree bench capture`: offline capture and summaries on labelled chats."""

from __future__ import annotations

from pathlib import Path

import click

from .. import InvalidInput
from . import render
from .bench import _emit, bench, json_option


@bench.command("capture")
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    help="A folder of capture_chats_*.jsonl (default: the shipped labelled chats).",
)
@click.option(
    "--embedder",
    default="minilm",
    show_default=True,
    help="The embedder that judges whether a capture says what a label says.",
)
@click.option(
    "--locomo",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also report the share of a LoCoMo file's observations a capture says "
    "(e.g. ../shared/bench/locomo/locomo_dev.json; evaluation only).",
)
@json_option
def capture_(data: Path | None, embedder: str, locomo: Path | None, json_out: Path | None) -> None:
    """Precision and recall of offline capture by memory type, whole action
    items, false captures of hedges, questions and rumours, and summary
    coverage of decisions and causes, on hand-labelled chats (dev and
    held-out test reported apart)."""
    from ..bench.capture import run
    from ..bench.capture_data import load

    if data is not None and not data.is_dir():
        raise InvalidInput(f"no folder at {str(data)!r}", str(data))
    try:
        chats = load(data)
    except ValueError as exc:
        raise InvalidInput(str(exc), str(data)) from None
    if not chats:
        raise InvalidInput(f"no capture_chats_*.jsonl in {str(data)!r}", str(data))
    if locomo is not None and not locomo.is_file():
        raise InvalidInput(f"no LoCoMo file at {str(locomo)!r}", str(locomo))

    def say(message: str) -> None:
        render.err.print(f"[dim]{message}[/]")

    result = run(chats, embedder, say)
    if locomo is not None:
        from ..bench.capture_locomo import observation_share

        result["locomo_observations"] = observation_share(locomo, embedder, say)
    _emit(result, json_out)
