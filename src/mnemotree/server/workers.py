"""Serving from several processes (`mnemotree serve --workers N`).

Python runs one thread at a time: in one process, concurrent searches spend
their time waiting for each other (two reader threads gave 4% more requests
than one, for 30% more CPU). Each worker process opens its own `Memory` on
the same database file; SQLite's WAL lets them read side by side, writers
take turns on the file's lock, and each keeps its vector index in step with
the vectors the others store.
"""

from __future__ import annotations

import fcntl
import json
import os
from typing import Any

from fastapi import FastAPI

from .. import InvalidInput, Memory
from .app import create_app

SETTINGS = "MNEMOTREE_SERVE_SETTINGS"  # JSON handed from `serve` to its workers


def settings_env(db: str, embedder: str | None, llm: str | None, auth: bool, host: str) -> str:
    """What `app_from_env` needs, as the value of the SETTINGS variable."""
    return json.dumps({"db": db, "embedder": embedder, "llm": llm, "auth": auth, "host": host})


def app_from_env() -> FastAPI:
    """The app of one worker process (uvicorn calls it in each), over its own
    `Memory`, closed when the worker stops."""
    raw = os.environ.get(SETTINGS)
    if raw is None:
        raise InvalidInput(
            f"{SETTINGS} is not set: start workers with `mnemotree serve --workers N`", None
        )
    found: dict[str, Any] = json.loads(raw)
    embeds = _first_to_embed(str(found["db"]))
    memory = Memory(found["db"], embedder=found["embedder"], llm=found["llm"], background=embeds)
    if not embeds:  # the process that embeds does it for all; searches never do
        memory.retriever.piggyback = 0
    return create_app(memory, auth=bool(found["auth"]), host=str(found["host"]), owns_memory=True)


_held: list[int] = []  # the lock file stays open (and locked) while the process lives


def _first_to_embed(db: str) -> bool:
    """Whether this worker embeds new nodes: one process does, or each would
    embed the same queue. The first to lock a file beside the database wins
    (a file of its own: a descriptor closed on the database itself would drop
    SQLite's locks)."""
    handle = os.open(f"{db}.embedding.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(handle)
        return False
    _held.append(handle)
    return True
