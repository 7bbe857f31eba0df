"""Clients for a running `mnemotree serve`: `Client` and `AsyncClient` (httpx).

They speak the HTTP API with the facade's verbs and raise the facade's
errors: a 404 is `NotFound`, a refused key `Unauthorized`, a bad value
`InvalidInput`, each with the server's message. A server that cannot be
reached, or an address that is not a mnemotree server, is a `ProviderError`
naming the address.

>>> with Client("http://127.0.0.1:8765", key="mt_...") as memory:
...     memory.remember("Alice prefers green tea", scope="team")
...     memory.search("what does Alice drink")

Each verb is written once, as the request it makes and what it makes of the
answer (`_Requests`); the two clients only send them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from . import errors
from .errors import MnemotreeError, ProviderError
from .model import Node

T = TypeVar("T")
_ERRORS: dict[str, type[MnemotreeError]] = {
    cls.__name__: cls
    for cls in vars(errors).values()
    if isinstance(cls, type) and issubclass(cls, MnemotreeError)
}


@dataclass(frozen=True)
class RemoteHit:
    """A search hit as the server sends it (`raw` holds every field)."""

    id: str
    text: str
    score: float
    scope: str
    context_type: str
    ancestry: list[dict[str, Any]]
    raw: dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class RemoteContext:
    """A context as the server assembled it: its text, and what each reference names."""

    text: str
    token_count: int
    budget: int
    refs: dict[str, str]
    raw: dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request, and what its answer becomes."""

    method: str
    path: str
    read: Callable[[Any], T]
    json: dict[str, Any] | None = None


def _node(data: Any) -> Node:
    return Node.from_dict(data)


def _nodes(data: Any) -> list[Node]:
    return [Node.from_dict(d) for d in data]


def _hits(data: Any) -> list[RemoteHit]:
    return [
        RemoteHit(d["id"], d["text"], d["score"], d["scope"], d["context_type"], d["ancestry"], d)
        for d in data
    ]


def _context(data: Any) -> RemoteContext:
    return RemoteContext(data["text"], data["token_count"], data["budget"], data["refs"], data)


def _as_is(data: Any) -> Any:
    return data


def _given(**values: Any) -> dict[str, Any]:
    """The values that were given (None means: the server's default)."""
    return {k: v for k, v in values.items() if v is not None}


class _Requests:
    """The facade's verbs as HTTP requests."""

    @staticmethod
    def health() -> Call[dict[str, Any]]:
        return Call("GET", "/health", _as_is)

    @staticmethod
    def remember(
        text: str,
        *,
        type: str | None = None,
        scope: str | None = None,
        importance: float | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Call[Node]:
        body = _given(text=text, type=type, scope=scope, importance=importance, metadata=metadata)
        return Call("POST", "/remember", _node, json=body)

    @staticmethod
    def search(
        query: str,
        *,
        scopes: Sequence[str] | None = None,
        limit: int = 10,
        min_relevance: float | None = None,
    ) -> Call[list[RemoteHit]]:
        body = _given(
            query=query,
            scopes=None if scopes is None else list(scopes),
            limit=limit,
            min_relevance=min_relevance,
        )
        return Call("POST", "/search", _hits, json=body)

    @staticmethod
    def context(
        query: str = "",
        *,
        budget: int = 8000,
        activity: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> Call[RemoteContext]:
        body = _given(
            query=query,
            budget=budget,
            activity=activity,
            scopes=None if scopes is None else list(scopes),
        )
        return Call("POST", "/context/assemble", _context, json=body)

    @staticmethod
    def ask(
        question: str, *, scopes: Sequence[str] | None = None, limit: int = 5
    ) -> Call[dict[str, Any]]:
        body = _given(
            question=question, scopes=None if scopes is None else list(scopes), limit=limit
        )
        return Call("POST", "/ask", _as_is, json=body)

    @staticmethod
    def add(
        text: str,
        *,
        parent: str | None = None,
        scope: str | None = None,
        context_type: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> Call[Node]:
        body = _given(
            text=text, parent=parent, scope=scope, context_type=context_type, metadata=metadata
        )
        return Call("POST", "/nodes", _node, json=body)

    @staticmethod
    def get(node_id: str) -> Call[Node]:
        return Call("GET", f"/nodes/{_segment(node_id)}", _node)

    @staticmethod
    def children(node_id: str) -> Call[list[Node]]:
        return Call("GET", f"/nodes/{_segment(node_id)}/children", _nodes)

    @staticmethod
    def update(node_id: str, text: str) -> Call[Node]:
        return Call("PATCH", f"/nodes/{_segment(node_id)}", _node, json={"text": text})

    @staticmethod
    def delete(node_id: str) -> Call[int]:
        return Call("DELETE", f"/nodes/{_segment(node_id)}", lambda d: int(d["deleted"]))

    @staticmethod
    def fact(
        key: str, value: Any, *, scope: str | None = None, confidence: float = 1.0
    ) -> Call[Node]:
        body = _given(key=key, value=value, scope=scope, confidence=confidence)
        return Call("POST", "/facts", _node, json=body)

    @staticmethod
    def purge(
        ids: Sequence[str] = (), *, subject: str | None = None, dry_run: bool = True
    ) -> Call[dict[str, Any]]:
        body = _given(ids=list(ids), subject=subject, dry_run=dry_run)
        return Call("POST", "/purge", _as_is, json=body)


def _segment(node_id: str) -> str:
    """An id as one path segment: nothing in it may reach another route."""
    return quote(str(node_id), safe="")


def _answer(url: str, status: int, data: Any, text: str) -> None:
    """Raise the facade's error for an error answer."""
    if status < 400:
        return
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        kind = _ERRORS.get(data["error"], MnemotreeError)
        raise kind(str(data.get("message", "")), data.get("value"))
    raise ProviderError(
        f"{url} answered {status} without a mnemotree error: is it a mnemotree server?",
        text[:200],
    )


def _decoded(url: str, response: Any) -> Any:
    try:
        data = response.json() if response.content else None
    except ValueError:
        data = None
        if response.status_code < 400:
            raise ProviderError(
                f"{url} answered with something other than JSON: is it a mnemotree server?",
                response.text[:200],
            ) from None
    _answer(url, response.status_code, data, response.text)
    return data


def _httpx() -> Any:
    try:
        import httpx
    except ImportError:
        raise errors.MissingExtra(
            "the HTTP client needs httpx: pip install 'mnemotree[server]' (or httpx)", "httpx"
        ) from None
    return httpx


def _options(base_url: str, key: str | None, timeout: float) -> dict[str, Any]:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    return {"base_url": base_url.rstrip("/"), "headers": headers, "timeout": timeout}


class Client:
    """A mnemotree server, with the facade's verbs (blocking)."""

    def __init__(self, base_url: str, *, key: str | None = None, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        httpx = _httpx()
        self._http = httpx.Client(**_options(base_url, key, timeout))
        self._unreachable = (httpx.TransportError,)

    def send(self, call: Call[T]) -> T:
        """Make the request and read its answer."""
        url = self.base_url + call.path
        try:
            response = self._http.request(call.method, call.path, json=call.json)
        except self._unreachable as exc:
            raise ProviderError(f"cannot reach {url}: {exc}", self.base_url) from None
        return call.read(_decoded(url, response))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def health(self) -> dict[str, Any]:
        """Liveness, version and schema of the server (needs no key)."""
        return self.send(_Requests.health())

    def remember(
        self,
        text: str,
        *,
        type: str | None = None,
        scope: str | None = None,
        importance: float | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Node:
        """Store a memory; a newer value of something remembered supersedes it."""
        return self.send(
            _Requests.remember(
                text, type=type, scope=scope, importance=importance, metadata=metadata
            )
        )

    def search(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None = None,
        limit: int = 10,
        min_relevance: float | None = None,
    ) -> list[RemoteHit]:
        """Hybrid search within the key's scopes (or these of them)."""
        return self.send(
            _Requests.search(query, scopes=scopes, limit=limit, min_relevance=min_relevance)
        )

    def context(
        self,
        query: str = "",
        *,
        budget: int = 8000,
        activity: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> RemoteContext:
        """A context of at most `budget` tokens for the query."""
        return self.send(_Requests.context(query, budget=budget, activity=activity, scopes=scopes))

    def ask(
        self, question: str, *, scopes: Sequence[str] | None = None, limit: int = 5
    ) -> dict[str, Any]:
        """A cited answer (the server's LLM's, when it has one)."""
        return self.send(_Requests.ask(question, scopes=scopes, limit=limit))

    def add(
        self,
        text: str,
        *,
        parent: str | None = None,
        scope: str | None = None,
        context_type: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> Node:
        """A node: a new root, or the last child of `parent`."""
        return self.send(
            _Requests.add(
                text, parent=parent, scope=scope, context_type=context_type, metadata=metadata
            )
        )

    def get(self, node_id: str) -> Node:
        """The node with this id."""
        return self.send(_Requests.get(node_id))

    def children(self, node_id: str) -> list[Node]:
        """A node's children, in order."""
        return self.send(_Requests.children(node_id))

    def update(self, node_id: str, text: str) -> Node:
        """Correct a node's text (the old one stays in history)."""
        return self.send(_Requests.update(node_id, text))

    def delete(self, node_id: str) -> int:
        """Delete a node and its subtree (restorable); returns how many went."""
        return self.send(_Requests.delete(node_id))

    def fact(
        self, key: str, value: Any, *, scope: str | None = None, confidence: float = 1.0
    ) -> Node:
        """A structured fact; another value for its key supersedes or contradicts it."""
        return self.send(_Requests.fact(key, value, scope=scope, confidence=confidence))

    def purge(
        self, ids: Sequence[str] = (), *, subject: str | None = None, dry_run: bool = True
    ) -> dict[str, Any]:
        """Erase for good (a dry run by default: what would go)."""
        return self.send(_Requests.purge(ids, subject=subject, dry_run=dry_run))


class AsyncClient:
    """A mnemotree server, with the facade's verbs (awaitable)."""

    def __init__(self, base_url: str, *, key: str | None = None, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        httpx = _httpx()
        self._http = httpx.AsyncClient(**_options(base_url, key, timeout))
        self._unreachable = (httpx.TransportError,)

    async def send(self, call: Call[T]) -> T:
        """Make the request and read its answer."""
        url = self.base_url + call.path
        try:
            response = await self._http.request(call.method, call.path, json=call.json)
        except self._unreachable as exc:
            raise ProviderError(f"cannot reach {url}: {exc}", self.base_url) from None
        return call.read(_decoded(url, response))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def health(self) -> dict[str, Any]:
        """Liveness, version and schema of the server (needs no key)."""
        return await self.send(_Requests.health())

    async def remember(
        self,
        text: str,
        *,
        type: str | None = None,
        scope: str | None = None,
        importance: float | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Node:
        """Store a memory; a newer value of something remembered supersedes it."""
        return await self.send(
            _Requests.remember(
                text, type=type, scope=scope, importance=importance, metadata=metadata
            )
        )

    async def search(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None = None,
        limit: int = 10,
        min_relevance: float | None = None,
    ) -> list[RemoteHit]:
        """Hybrid search within the key's scopes (or these of them)."""
        return await self.send(
            _Requests.search(query, scopes=scopes, limit=limit, min_relevance=min_relevance)
        )

    async def context(
        self,
        query: str = "",
        *,
        budget: int = 8000,
        activity: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> RemoteContext:
        """A context of at most `budget` tokens for the query."""
        return await self.send(
            _Requests.context(query, budget=budget, activity=activity, scopes=scopes)
        )

    async def ask(
        self, question: str, *, scopes: Sequence[str] | None = None, limit: int = 5
    ) -> dict[str, Any]:
        """A cited answer (the server's LLM's, when it has one)."""
        return await self.send(_Requests.ask(question, scopes=scopes, limit=limit))

    async def add(
        self,
        text: str,
        *,
        parent: str | None = None,
        scope: str | None = None,
        context_type: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> Node:
        """A node: a new root, or the last child of `parent`."""
        return await self.send(
            _Requests.add(
                text, parent=parent, scope=scope, context_type=context_type, metadata=metadata
            )
        )

    async def get(self, node_id: str) -> Node:
        """The node with this id."""
        return await self.send(_Requests.get(node_id))

    async def children(self, node_id: str) -> list[Node]:
        """A node's children, in order."""
        return await self.send(_Requests.children(node_id))

    async def update(self, node_id: str, text: str) -> Node:
        """Correct a node's text (the old one stays in history)."""
        return await self.send(_Requests.update(node_id, text))

    async def delete(self, node_id: str) -> int:
        """Delete a node and its subtree (restorable); returns how many went."""
        return await self.send(_Requests.delete(node_id))

    async def fact(
        self, key: str, value: Any, *, scope: str | None = None, confidence: float = 1.0
    ) -> Node:
        """A structured fact; another value for its key supersedes or contradicts it."""
        return await self.send(_Requests.fact(key, value, scope=scope, confidence=confidence))

    async def purge(
        self, ids: Sequence[str] = (), *, subject: str | None = None, dry_run: bool = True
    ) -> dict[str, Any]:
        """Erase for good (a dry run by default: what would go)."""
        return await self.send(_Requests.purge(ids, subject=subject, dry_run=dry_run))
