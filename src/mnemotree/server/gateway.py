"""One thread owns the `Memory`: every call from the web goes through it.

SQLite takes one writer at a time, and the store's connection is shared, so
requests are queued on a single thread (datasette's single-writer pattern)
instead of contending for locks; the event loop stays free for I/O.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ..memory import Memory

T = TypeVar("T")


class Gateway:
    """Runs functions of the memory on its own thread."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="mnemotree-db")

    async def __call__(self, fn: Callable[[Memory], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, functools.partial(fn, self.memory))

    def run(self, fn: Callable[[], T]) -> T:
        """Run `fn` on the memory's thread from another thread, and wait."""
        return self._thread.submit(fn).result()

    def close(self) -> None:
        self._thread.shutdown(wait=True)
