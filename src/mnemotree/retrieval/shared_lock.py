"""A lock many threads may share, or one may hold alone (readers and a writer).

The vector index is read by every search and changed only when new vectors
arrive: searches share it; a sync takes it alone. A waiting writer keeps new
readers out, so a steady stream of searches cannot starve it. Not reentrant.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class SharedLock:
    def __init__(self) -> None:
        self._changed = threading.Condition(threading.Lock())
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._changed:
            while self._writing or self._writers_waiting:
                self._changed.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._changed:
                self._readers -= 1
                if not self._readers:
                    self._changed.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._changed:
            self._writers_waiting += 1
            try:
                while self._writing or self._readers:
                    self._changed.wait()
            finally:
                self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._changed:
                self._writing = False
                self._changed.notify_all()
