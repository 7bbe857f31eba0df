"""`mnemotree serve` (the HTTP API) and `mnemotree keys` (its API keys)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import click

from .. import ENV_HOST, ENV_PORT, InvalidInput, MissingExtra, default_location
from . import render
from .main import _State, cli, with_memory

if TYPE_CHECKING:
    from .. import Memory

DEFAULT_PORT = 8765


@cli.group()
def keys() -> None:
    """API keys for the HTTP API: create (shown once), list, revoke."""


@keys.command("create")
@click.option(
    "--scopes",
    required=True,
    help="Comma-separated scopes the key may reach, e.g. kb,user:42; '*' for all.",
)
@click.option("--name", default="", help="A label to recognise the key by.")
@with_memory
def keys_create(state: _State, scopes: str, name: str) -> None:
    """Create a key; it is shown this once (only its hash is stored)."""
    row, key = state.memory.keys.create(scopes, name=name)
    if state.as_json:
        render.emit_json({"key": key, "id": row.id, "name": row.name, "scopes": list(row.scopes)})
        return
    render.out.print(key)
    render.err.print(
        f"[dim]key {row.id} for scopes {', '.join(row.scopes)}: copy it now, it is not "
        f"shown again; send it as 'Authorization: Bearer <key>'[/dim]"
    )


@keys.command("list")
@with_memory
def keys_list(state: _State) -> None:
    """Keys with their scopes and last use (never their secrets)."""
    found = state.memory.keys.list()
    if state.as_json:
        render.emit_json([_key_dict(r) for r in found])
        return
    if not found:
        render.err.print("[dim]no keys; make one with `mnemotree keys create --scopes ...`[/dim]")
    for r in found:
        status = f"revoked {r.revoked_at}" if r.revoked_at else f"last used {r.last_used_at or '-'}"
        shown = f"{r.id}  {render.escape(r.name or '-')}  scopes {','.join(r.scopes)}"
        render.out.print(f"{shown}  [dim]created {r.created_at} · {status}[/dim]")


@keys.command("revoke")
@click.argument("key_id")
@with_memory
def keys_revoke(state: _State, key_id: str) -> None:
    """Revoke a key: requests with it get 401 from now on."""
    state.memory.keys.revoke(key_id)
    if state.as_json:
        render.emit_json({"revoked": key_id})
    else:
        render.out.print(f"revoked {key_id}")


def _key_dict(row: Any) -> dict[str, Any]:
    data: dict[str, Any] = row._asdict()
    data.pop("secret_hash")
    data["scopes"] = list(row.scopes)
    return data


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, envvar=ENV_HOST)
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True, envvar=ENV_PORT)
@click.option(
    "--no-auth", is_flag=True, help="Serve without API keys (only on a loopback address)."
)
@click.option(
    "--consolidate-every",
    type=float,
    default=None,
    metavar="SECONDS",
    help="Apply a consolidation this often (each run can be undone).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=64),
    default=1,
    show_default=True,
    help="Server processes over the same database (one per core serves the most requests).",
)
@click.option(
    "--access-log/--no-access-log",
    default=True,
    show_default=True,
    help="A JSON line on stderr per request: method, route, status, ms, key id.",
)
@click.pass_obj
def serve(
    state: _State,
    host: str,
    port: int,
    no_auth: bool,
    consolidate_every: float | None,
    workers: int,
    access_log: bool,
) -> None:
    """Serve the HTTP API (OpenAPI docs at /docs, Prometheus figures at /metrics)."""
    try:
        import uvicorn

        from ..server.app import create_app, is_loopback
        from ..server.observe import log_requests
    except ImportError as exc:
        raise MissingExtra(
            f"the server needs the 'server' extra: pip install 'mnemotree[server]' ({exc.name})",
            exc.name,
        ) from None
    if no_auth and not is_loopback(host):
        raise InvalidInput(
            f"--no-auth is allowed only on a loopback address (127.0.0.1, ::1), not {host!r}",
            host,
        )
    if workers > 1:
        _serve_workers(state, host, port, no_auth, consolidate_every, workers, access_log)
        return
    if access_log:
        log_requests()
    with _serving_memory(state) as memory:
        app = _app(memory, create_app, host, port, no_auth, consolidate_every)
        uvicorn.run(app, host=host, port=port, log_level="warning")


def _serve_workers(
    state: _State,
    host: str,
    port: int,
    no_auth: bool,
    consolidate_every: float | None,
    workers: int,
    access_log: bool,
) -> None:
    """`workers` processes, each with its own Memory on the database."""
    import uvicorn

    from ..server.workers import SETTINGS, settings_env

    with state.memory as memory:  # creates the database; says where it is served
        _announce(memory, host, port, no_auth)
        db = state.db if state.db is not None else default_location()
    os.environ[SETTINGS] = settings_env(
        db, state.embedder, state.llm, not no_auth, host, consolidate_every, access_log
    )
    render.err.print(f"[dim]{workers} worker processes[/dim]")
    uvicorn.run(
        "mnemotree.server.workers:app_from_env",
        factory=True,
        workers=workers,
        host=host,
        port=port,
        log_level="warning",
    )


def _serving_memory(state: _State) -> Memory:
    """A long-running server embeds new nodes in a worker thread: a search
    embeds only the few newest itself, so without the worker a backlog (a bulk
    ingest, other processes' writes) would never shrink."""
    from .. import Memory

    return Memory(
        state.db if state.db is not None else default_location(),
        embedder=state.embedder,
        llm=state.llm,
        background=True,
    )


def _app(
    memory: Memory,
    create_app: Any,
    host: str,
    port: int,
    no_auth: bool,
    consolidate_every: float | None,
) -> Any:
    """The ASGI app, after telling the user where it is and how it is guarded."""
    _announce(memory, host, port, no_auth)
    return create_app(memory, auth=not no_auth, consolidate_every=consolidate_every, host=host)


def _announce(memory: Memory, host: str, port: int, no_auth: bool) -> None:
    url = f"http://{host if ':' not in host else f'[{host}]'}:{port}"
    if no_auth:
        render.err.print(
            "[bold red]WARNING: authentication is OFF: anyone who can reach "
            f"{url} reads and writes every scope.[/bold red]"
        )
    elif not [k for k in memory.keys.list() if k.revoked_at is None]:
        render.err.print(
            "[yellow]no API keys yet: make one with `mnemotree keys create --scopes '*'`[/yellow]"
        )
    render.err.print(
        f"serving {memory.path} at {url}: the memory browser; API docs at "
        f"{url}/docs; MCP (streamable HTTP) at {url}/mcp"
    )


@cli.command("mcp")
@click.pass_obj
def mcp_(state: _State) -> None:
    """Serve the MCP tools over stdio (for Claude Desktop, Cursor, ...): every scope."""
    try:
        from ..server.mcp import build
    except ImportError as exc:
        raise MissingExtra(
            f"the MCP server needs the 'server' extra: pip install 'mnemotree[server]' "
            f"({exc.name})",
            exc.name,
        ) from None
    with _serving_memory(state) as memory:
        build(memory).run("stdio")
