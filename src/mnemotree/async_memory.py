"""`AsyncMemory`: the facade's verbs as coroutines, for asyncio applications.

The engine is synchronous (SQLite is); each verb runs on a worker thread, so
an event loop never waits on a search or a write. The verbs keep the
facade's signatures and errors; `memory` is the `Memory` underneath.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from .memory import Memory

P = ParamSpec("P")
R = TypeVar("R")


def _threaded(verb: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """`verb` as a coroutine function that runs it on a worker thread."""

    @functools.wraps(verb)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(verb, *args, **kwargs)

    return run


class AsyncMemory:
    """A `Memory` whose verbs are awaited.

    >>> async with AsyncMemory("memory.db") as mem:
    ...     await mem.remember("Alice prefers green tea")
    ...     hits = await mem.search("what does Alice drink")
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, **options: Any) -> None:
        self.memory = memory = Memory(path, **options)
        self.remember = _threaded(memory.remember)
        self.search = _threaded(memory.search)
        self.context = _threaded(memory.context)
        self.ask = _threaded(memory.ask)
        self.ingest = _threaded(memory.ingest)
        self.add = _threaded(memory.add)
        self.append_child = _threaded(memory.append_child)
        self.get = _threaded(memory.get)
        self.children = _threaded(memory.children)
        self.update = _threaded(memory.update)
        self.delete = _threaded(memory.delete)
        self.purge = _threaded(memory.purge)
        self.flush = _threaded(memory.flush)

    async def close(self) -> None:
        await asyncio.to_thread(self.memory.close)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
