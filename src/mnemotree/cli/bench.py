"""`mnemotree bench ...`: benchmarks as commands, printing figures."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from .. import InvalidInput
from . import render
from .main import cli


@cli.group()
def bench() -> None:
    """Run a benchmark (numbers, not tests)."""


_DB_HELP = (
    "Run on this empty database (a postgresql:// address, or a new SQLite file) "
    "instead of a temporary SQLite file."
)


@contextmanager
def _bench_db(db: str | None, name: str) -> Iterator[str]:
    """The database a benchmark fills: the one named (refused unless empty),
    else a temporary file removed after."""
    if db is None:
        with tempfile.TemporaryDirectory() as tmp:
            yield str(Path(tmp) / name)
        return
    from .. import Memory

    with Memory(db, embedder="hashing", llm="offline") as probe:
        if not probe.store.is_empty():
            raise InvalidInput(
                f"{probe.location} already holds memories; a benchmark fills an empty database",
                probe.location,
            )
    yield db


# Every benchmark can also write its figures to a file.
json_option = click.option(
    "--json",
    "json_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the figures here.",
)


@bench.command()
@click.option(
    "--data",
    "data",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="LoCoMo JSON (e.g. ../shared/bench/locomo/locomo_dev.json).",
)
@json_option
@click.option("--db", help=_DB_HELP)
def locomo(data: Path, json_out: Path | None, db: str | None) -> None:
    """Turn retrieval on LoCoMo conversations (categories 1-4 overall) beside
    plain FTS5, plain cosine and their fusion."""
    from ..bench.locomo import run

    if not data.is_file():
        raise InvalidInput(f"no LoCoMo file at {str(data)!r}", str(data))
    with _bench_db(db, "locomo.db") as location:
        result = run(data, location, lambda m: render.err.print(f"[dim]{m}[/]"))
    if json_out is not None:
        json_out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    render.retrieval(result, "by_category", "category")


@bench.command()
@click.option(
    "--split",
    type=click.Choice(["dev", "heldout"]),
    default="dev",
    show_default=True,
    help="Which half of the hand-written pools the chats are made from.",
)
@click.option(
    "--chats",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="How many chats (the first N of the full run).",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--embedder",
    default="minilm",
    show_default=True,
    help="minilm (the default configuration) or hashing (fast).",
)
@json_option
@click.option(
    "--write-data",
    "data_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the generated chats and questions here (JSON).",
)
def longchat(
    split: str,
    chats: int,
    seed: int,
    embedder: str,
    json_out: Path | None,
    data_out: Path | None,
) -> None:
    """Retrieval on generated long user-assistant chats (instructions,
    preferences, updated values, dated events), per ability, beside plain
    FTS5, plain cosine and their fusion."""
    from ..bench.longchat import run
    from ..bench.longchat_gen import generate, to_json

    if data_out is not None:
        data = to_json(generate(split, chats, seed), split, seed)
        data_out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    say = lambda m: render.err.print(f"[dim]{m}[/]")  # noqa: E731
    with tempfile.TemporaryDirectory() as tmp:
        result = run(Path(tmp) / "longchat.db", split, chats, seed, embedder, say)
    if json_out is not None:
        json_out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    render.retrieval(result, "by_ability", "ability")


@bench.command()
@click.option(
    "--n",
    "count",
    type=click.IntRange(min=100),
    default=10_000,
    show_default=True,
    help="Number of synthetic memories.",
)
@click.option(
    "--embedder",
    default="minilm",
    show_default=True,
    help="minilm (the default configuration) or hashing (fast, for quick runs).",
)
@click.option("--queries", type=click.IntRange(min=10), default=200, show_default=True)
@json_option
@click.option("--db", help=_DB_HELP)
def scale(count: int, embedder: str, queries: int, json_out: Path | None, db: str | None) -> None:
    """Write throughput, search latency with FTS5 and numpy baselines, peak RSS."""
    from ..bench.scale import run

    with _bench_db(db, "scale.db") as location:
        result = run(count, embedder, queries, lambda m: render.err.print(f"[dim]{m}[/]"), location)
    _emit(result, json_out)


@bench.command()
@json_option
def docs(json_out: Path | None) -> None:
    """Ingest a 120-page PDF and 1,000 Markdown files, then re-scan them."""
    from ..bench.docs import run

    result = run(lambda m: render.err.print(f"[dim]{m}[/]"))
    _emit(result, json_out)


@bench.command()
@click.option(
    "--n",
    "count",
    type=click.IntRange(min=100),
    default=100_000,
    show_default=True,
    help="Path entries to read among.",
)
@click.option("--embedder", default="minilm", show_default=True, help="For the snapshots.")
@json_option
def paths(count: int, embedder: str, json_out: Path | None) -> None:
    """get(path) among N entries; save with a context snapshot."""
    from ..bench.path_bench import run

    result = run(count, embedder, progress=lambda m: render.err.print(f"[dim]{m}[/]"))
    _emit(result, json_out)


@bench.command("chat")
@click.option(
    "--data",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A LoCoMo JSON file to take conversations from (default: generated ones).",
)
@click.option("--sessions", type=click.IntRange(min=1), default=4, show_default=True)
@click.option("--turns", type=click.IntRange(min=20), default=250, show_default=True)
@json_option
def chat_bench(data: Path | None, sessions: int, turns: int, json_out: Path | None) -> None:
    """add_message with upkeep on; offline summary and capture."""
    from ..bench.chat import run

    if data is not None and not data.is_file():
        raise InvalidInput(f"no LoCoMo file at {str(data)!r}", str(data))
    result = run(data, sessions, turns, progress=lambda m: render.err.print(f"[dim]{m}[/]"))
    _emit(result, json_out)


@bench.command("context")
@click.option(
    "--n",
    "count",
    type=click.IntRange(min=1000),
    default=100_000,
    show_default=True,
    help="Memories to assemble from.",
)
@click.option("--embedder", default="minilm", show_default=True, help="minilm or hashing.")
@click.option("--budget", type=click.IntRange(min=1), default=8000, show_default=True)
@click.option("--queries", type=click.IntRange(min=10), default=100, show_default=True)
@json_option
def context_(count: int, embedder: str, budget: int, queries: int, json_out: Path | None) -> None:
    """Four-tier context assembly latency over N memories (the living-memory design's 8k budget)."""
    from ..bench.context import run

    result = run(count, embedder, queries, budget, lambda m: render.err.print(f"[dim]{m}[/]"))
    _emit(result, json_out)


@bench.command("consolidate")
@click.option("--n", "count", type=click.IntRange(min=1000), default=100_000, show_default=True)
@click.option("--embedder", default="minilm", show_default=True, help="minilm or hashing.")
@json_option
def consolidate_(count: int, embedder: str, json_out: Path | None) -> None:
    """Time one consolidation (plan, apply, undo) of N memories written over a year."""
    from ..bench.consolidation import run

    result = run(count, embedder, lambda m: render.err.print(f"[dim]{m}[/]"))
    _emit(result, json_out)


@bench.command("contradictions")
@click.option(
    "--pairs",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A JSONL of labelled pairs (default: the shipped set).",
)
@click.option("--embedder", default="minilm", show_default=True, help="minilm or hashing.")
@click.option("--judge", is_flag=True, help="Also ask the configured LLM (cached verdicts).")
@json_option
def contradictions_(pairs: Path | None, embedder: str, judge: bool, json_out: Path | None) -> None:
    """Recall and precision of contradiction detection on labelled statement pairs."""
    from .. import Judge, LLMSettings, get_llm
    from ..bench.contradictions import run

    if judge and not LLMSettings.configured():
        raise InvalidInput("--judge needs MNEMOTREE_LLM_MODEL and MNEMOTREE_LLM_BASE_URL", judge)
    arbiter = Judge(get_llm("openai")) if judge else None
    result = run(embedder, arbiter, pairs, lambda m: render.err.print(f"[dim]{m}[/]"))
    _emit(result, json_out)


@bench.command()
@click.option(
    "--data",
    "data",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="LoCoMo JSON (e.g. ../shared/bench/locomo/locomo_dev.json).",
)
@click.option(
    "--months",
    type=click.IntRange(min=1),
    default=6,
    show_default=True,
    help="How long after the last session consolidation runs.",
)
@json_option
def forgetting(data: Path, months: int, json_out: Path | None) -> None:
    """False forgetting: LoCoMo retrieval before and after consolidating months later."""
    from ..bench.forgetting import run

    if not data.is_file():
        raise InvalidInput(f"no LoCoMo file at {str(data)!r}", str(data))
    with tempfile.TemporaryDirectory() as tmp:
        result = run(
            data, Path(tmp) / "forgetting.db", months, lambda m: render.err.print(f"[dim]{m}[/]")
        )
    _emit(result, json_out)


@bench.command()
@click.option("--embedder", default="minilm", show_default=True, help="minilm or hashing.")
@json_option
def salience(embedder: str, json_out: Path | None) -> None:
    """Would disuse forgetting archive each labelled note: useful notes archived
    (false forgetting) and trivia archived, on notes written before the estimator."""
    from ..bench.forgetting import salience as run

    _emit(run(embedder, lambda m: render.err.print(f"[dim]{m}[/]")), json_out)


@bench.command()
@click.option("--embedder", default="minilm", show_default=True, help="minilm or hashing.")
@json_option
def dedupe(embedder: str, json_out: Path | None) -> None:
    """Wrong merges (statements of different values merged) and paraphrases
    merged by the dedupe step, on labelled pairs."""
    from ..bench.forgetting import dedupe as run

    with tempfile.TemporaryDirectory() as tmp:
        result = run(Path(tmp) / "dedupe.db", embedder, lambda m: render.err.print(f"[dim]{m}[/]"))
    _emit(result, json_out)


def _emit(result: object, json_out: Path | None) -> None:
    if json_out is not None:
        json_out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    render.emit_json(result)


@bench.command()
@click.option("--days", type=click.IntRange(min=5), default=48, show_default=True)
@click.option(
    "--k",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Predictions fetched per event (tier 2 holds about 20).",
)
@click.option("--seed", type=int, default=5, show_default=True)
@click.option("--embedder", default="minilm", show_default=True, help="minilm or hashing.")
@click.option(
    "--code", is_flag=True, help="Ingest the project's source too (imports become evidence)."
)
@json_option
def predict(days: int, k: int, seed: int, embedder: str, code: bool, json_out: Path | None) -> None:
    """Replay a simulated development workflow; share of cited memories predicted."""
    from ..bench.workflow import run

    result = run(days, k, seed, embedder, lambda m: render.err.print(f"[dim]{m}[/]"), code=code)
    _emit(result, json_out)


@bench.command("serve")
@click.option("--clients", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--seconds", type=click.FloatRange(min=1), default=60, show_default=True)
@click.option(
    "--n",
    "count",
    type=click.IntRange(min=100),
    default=10_000,
    show_default=True,
    help="Memories in the database before the load starts.",
)
@click.option("--embedder", default="minilm", show_default=True, help="minilm or hashing.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Server processes (serve --workers).",
)
@json_option
@click.option(
    "--servers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Separate serve processes on the database, the clients spread over them.",
)
@click.option("--db", help=_DB_HELP)
def serve_(
    clients: int,
    seconds: float,
    count: int,
    embedder: str,
    workers: int,
    json_out: Path | None,
    servers: int,
    db: str | None,
) -> None:
    """The HTTP API under N concurrent clients: throughput, p50/p95, errors."""
    from ..bench.serve import run

    say = lambda m: render.err.print(f"[dim]{m}[/]")  # noqa: E731
    with _bench_db(db, "serve.db") as location:
        result = run(clients, seconds, count, embedder, say, workers, location, servers)
    _emit(result, json_out)


@bench.command("scope-leaks")
@click.option(
    "--requests",
    "count",
    type=click.IntRange(min=1),
    default=10_000,
    show_default=True,
    help="Random requests over every route and MCP tool.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@json_option
def scope_leaks(count: int, seed: int, json_out: Path | None) -> None:
    """Keys of different scopes against every route and MCP tool: any text, id
    or scope name of a scope out of the key's reach is a leak (exit 1)."""
    from ..bench.scope_leaks import run

    started = time.perf_counter()

    def shown(done: int) -> None:
        rate = done / max(time.perf_counter() - started, 1e-9)
        status.update(f"requests: {done:,} of {count:,} ({rate:,.0f}/s)")

    with render.err.status("building the world") as status:
        result = run(count, seed, shown)
    figures = result.to_dict()
    if json_out is not None:
        json_out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    render.emit_json(figures)
    if result.leaks or result.server_errors:
        raise SystemExit(1)


@bench.command("writers")
@click.option("--seconds", type=click.FloatRange(min=1), default=60, show_default=True)
@click.option(
    "--n",
    "count",
    type=click.IntRange(min=10),
    default=2000,
    show_default=True,
    help="Memories in the database before the writers start.",
)
@click.option("--embedder", default="minilm", show_default=True, help="minilm or hashing.")
@click.option("--writers", type=click.IntRange(min=1), default=4, show_default=True)
@click.option(
    "--cli-writers",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="How many writers run `mnemotree remember` per write.",
)
@click.option(
    "--worker", is_flag=True, help="The searcher embeds in a background worker, as serve does."
)
@click.option(
    "--kill",
    "kills",
    type=click.IntRange(min=0),
    default=0,
    help="Instead: SIGKILL a writing process N times and check the file.",
)
@json_option
def writers_(
    seconds: float,
    count: int,
    embedder: str,
    writers: int,
    cli_writers: int,
    worker: bool,
    kills: int,
    json_out: Path | None,
) -> None:
    """Writer processes beside a searcher: lost writes, lock errors, search
    latency (--kill: killed writers, then integrity and acknowledged writes)."""
    from ..bench.writers import run, run_kill

    def shown(message: str) -> None:
        render.err.print(f"[dim]{message}[/]")

    if kills:
        result = run_kill(kills, count, embedder, progress=shown)
    else:
        result = run(seconds, count, embedder, writers, min(cli_writers, writers), worker, shown)
    _emit(result, json_out)
    if result.get("lost") or result.get("failures") or result.get("writes", {}).get("lost"):
        raise SystemExit(1)


@bench.command("ingest-limits")
@click.option(
    "--upload-mb",
    type=click.FloatRange(min=1, max=50),
    default=50,
    show_default=True,
    help="Size of the upload /remember runs beside.",
)
@click.option(
    "--bomb-mb",
    type=click.IntRange(min=10),
    default=1500,
    show_default=True,
    help="What the DOCX bomb inflates to (1,500 MB: ~1.5 MB on disk).",
)
@click.option(
    "--text-mb",
    type=click.FloatRange(min=0.1),
    default=4,
    show_default=True,
    help="Size of the repetitive and the distinct text.",
)
@json_option
def ingest_limits_(upload_mb: float, bomb_mb: int, text_mb: float, json_out: Path | None) -> None:
    """Hostile uploads: repetitive text, a DOCX bomb, /remember beside a large upload."""
    from ..bench.ingest_limits import run

    result = run(upload_mb, bomb_mb, text_mb, lambda m: render.err.print(f"[dim]{m}[/]"))
    _emit(result, json_out)


@bench.command("bad-input")
@json_option
def bad_input(json_out: Path | None) -> None:
    """Hostile values through the facade and the HTTP API: each must end in a
    clean error (HTTP: a 4xx in the documented shape) and write nothing (exit 1
    otherwise)."""
    from ..bench.bad_input import run

    figures = run()
    if json_out is not None:
        json_out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    render.emit_json(figures)
    if figures["facade"]["failures"] or figures["http"]["failures"]:
        raise SystemExit(1)


@bench.command("hygiene")
@click.option("--embedder", default="minilm", show_default=True, help="minilm or hashing.")
@click.option(
    "--months",
    "months",
    type=click.IntRange(min=1),
    multiple=True,
    default=(1, 3, 12),
    show_default=True,
    help="Horizons after the last write (repeat the option for several).",
)
@click.option(
    "--slice",
    "count",
    type=click.IntRange(min=1),
    default=None,
    help="Write only the store's first N memories (quick runs).",
)
@click.option(
    "--examples",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="Offending texts listed per figure.",
)
@json_option
def hygiene(
    embedder: str,
    months: tuple[int, ...],
    count: int | None,
    examples: int,
    json_out: Path | None,
) -> None:
    """Stale memories served, false forgetting, wrong merges, contradiction
    precision and recall, and context content on a labelled year of a team's
    memory, 1, 3 and 12 months after the last write."""
    from ..bench.hygiene import run

    result = run(embedder, months, count, examples, lambda m: render.err.print(f"[dim]{m}[/]"))
    _emit(result, json_out)
