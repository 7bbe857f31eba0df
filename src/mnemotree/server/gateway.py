"""Where the web's calls on the `Memory` run: one writer, several readers.

SQLite takes one writer at a time, so every call that changes memory is
queued on a single thread (datasette's pattern) instead of contending for the
lock. Reads run on a pool beside it: the store gives each thread its own
connection, and in WAL mode readers see the last commit without waiting for
the writer. A read may still record what it returned (access times, usage);
those short writes queue on the store's transaction lock. The event loop
stays free for I/O.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from .. import Memory

T = TypeVar("T")

# One reader per core: Python runs one thread at a time, so more readers only
# wait for each other (4 readers on 2 cores: 20.4 ms of CPU a search and 72
# requests/s; 2 readers: 18.5 ms and 78/s). More processes scale instead
# (`serve --workers`).
READERS = max(2, os.cpu_count() or 1)


class Gateway:
    """Runs functions of the memory: writes on one thread, reads on a pool."""

    def __init__(self, memory: Memory, readers: int = READERS) -> None:
        self.memory = memory
        memory.serve_concurrently()
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="mnemotree-write")
        self._readers = ThreadPoolExecutor(readers, thread_name_prefix="mnemotree-read")

    async def write(self, fn: Callable[[Memory], T]) -> T:
        """Run `fn` on the writer thread, after the writes queued before it."""
        return await self._on(self._writer, fn)

    async def read(self, fn: Callable[[Memory], T]) -> T:
        """Run `fn`, which must not create or change memories, on a reader."""
        return await self._on(self._readers, fn)

    async def _on(self, pool: ThreadPoolExecutor, fn: Callable[[Memory], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(pool, functools.partial(fn, self.memory))

    def run(self, fn: Callable[[], T]) -> T:
        """Run `fn` on the writer thread from another thread, and wait."""
        return self._writer.submit(fn).result()

    def close(self) -> None:
        self._readers.shutdown(wait=True)
        self._writer.shutdown(wait=True)
