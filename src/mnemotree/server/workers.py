"""Serving from several processes (`mnemotree serve --workers N`).

Python runs one thread at a time: in one process, concurrent searches spend
their time waiting for each other (two reader threads gave 4% more requests
than one, for 30% more CPU). Each worker process opens its own `Memory` on
the same database (as several `serve` processes on one Postgres database
do): on SQLite, WAL lets them read side by side, writers take turns on the
file's lock, and each keeps its vector index in step with the vectors the
others store; on Postgres, the database answers vector searches itself.
Embedding and scheduled consolidation run in one process at a time.
"""

from __future__ import annotations

import json
import os
from typing import Any

from fastapi import FastAPI

from .. import InvalidInput, Memory
from .app import create_app
from .observe import log_requests

SETTINGS = "MNEMOTREE_SERVE_SETTINGS"  # JSON handed from `serve` to its workers


def settings_env(
    db: str,
    embedder: str | None,
    llm: str | None,
    auth: bool,
    host: str,
    consolidate_every: float | None = None,
    access_log: bool = True,
) -> str:
    """What `app_from_env` needs, as the value of the SETTINGS variable."""
    return json.dumps(
        {
            "db": db,
            "embedder": embedder,
            "llm": llm,
            "auth": auth,
            "host": host,
            "consolidate_every": consolidate_every,
            "access_log": access_log,
        }
    )


def app_from_env() -> FastAPI:
    """The app of one worker process (uvicorn calls it in each), over its own
    `Memory`, closed when the worker stops."""
    raw = os.environ.get(SETTINGS)
    if raw is None:
        raise InvalidInput(
            f"{SETTINGS} is not set: start workers with `mnemotree serve --workers N`", None
        )
    found: dict[str, Any] = json.loads(raw)
    if found.get("access_log", True):
        log_requests()
    # Every worker embeds in the background; they take turns on the queue.
    memory = Memory(found["db"], embedder=found["embedder"], llm=found["llm"], background=True)
    return create_app(
        memory,
        auth=bool(found["auth"]),
        host=str(found["host"]),
        owns_memory=True,
        consolidate_every=found.get("consolidate_every"),
    )
