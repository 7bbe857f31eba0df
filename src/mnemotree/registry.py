"""Named providers (tokenizers, embedders, later LLMs and parsers), built lazily once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from .errors import InvalidInput

T = TypeVar("T")


class Registry(Generic[T]):
    """Factories by name; `get` builds a provider on first use and shares it."""

    def __init__(self, kind: str, factories: dict[str, Callable[[], T]]) -> None:
        self.kind = kind
        self._factories = dict(factories)
        self._instances: dict[str, T] = {}
        self._lock = threading.RLock()

    def register(self, name: str, factory: Callable[[], T]) -> None:
        with self._lock:
            self._factories[name] = factory
            self._instances.pop(name, None)

    def names(self) -> list[str]:
        return sorted(self._factories)

    def get(self, name: str) -> T:
        with self._lock:
            if name not in self._factories:
                raise InvalidInput(
                    f"unknown {self.kind} {name!r}; choose one of {self.names()}", name
                )
            if name not in self._instances:
                self._instances[name] = self._factories[name]()
            return self._instances[name]
