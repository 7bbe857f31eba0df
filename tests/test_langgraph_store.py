"""mnemotree as LangGraph's store, with the real langgraph package: the
store API of LangGraph's documentation, and a compiled graph whose node
reads and writes memories through `get_store()`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import TypedDict

import pytest
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from mnemotree import InvalidInput, Memory
from mnemotree.integrations.langgraph import MnemotreeStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MnemotreeStore]:
    with Memory(tmp_path / "m.db", embedder="hashing") as memory:
        yield MnemotreeStore(memory, scope="user:42")


def test_the_documented_store_api(store: MnemotreeStore) -> None:
    namespace = ("users", "42", "memories")
    store.put(namespace, "a-memory", {"food_preference": "I like pizza", "n": 1})
    store.put(namespace, "b-memory", {"food_preference": "I dislike olives", "n": 2})
    store.put(("users", "42", "profile"), "name", {"name": "Ada"})
    item = store.get(namespace, "a-memory")
    assert item is not None and item.value == {"food_preference": "I like pizza", "n": 1}
    assert item.namespace == namespace and item.key == "a-memory"
    assert store.get(namespace, "missing") is None

    found = store.search(namespace, query="does the user like pizza")
    assert found[0].key == "a-memory" and found[0].score is not None
    assert [i.key for i in store.search(("users", "42"), filter={"n": {"$gte": 2}})] == ["b-memory"]
    assert {i.key for i in store.search(("users",))} == {"a-memory", "b-memory", "name"}
    assert store.list_namespaces(prefix=("users",)) == [
        ("users", "42", "memories"),
        ("users", "42", "profile"),
    ]
    assert store.list_namespaces(max_depth=2) == [("users", "42")]

    store.put(namespace, "a-memory", {"food_preference": "I like pizza with olives now"})
    assert store.get(namespace, "a-memory").value["food_preference"].endswith("now")  # type: ignore[union-attr]
    store.delete(namespace, "a-memory")
    assert store.get(namespace, "a-memory") is None
    # Kept in mnemotree's history like any node.
    paths = store.memory.paths("user:42")
    kept = {e.path for e in paths.list("users/42/memories") if e.has_content}
    assert kept == {"users/42/memories/b-memory"}
    deleted = item.key  # a-memory: gone from the store, still in history
    assert deleted == "a-memory"


def test_a_namespace_that_is_no_path_is_refused_clearly(store: MnemotreeStore) -> None:
    with pytest.raises(InvalidInput, match="cannot be a mnemotree path"):
        store.put(("users", "a/b"), "k", {"v": 1})
    with pytest.raises(InvalidInput, match="must be a dict"):
        store.put(("users",), "k", "plain text")  # type: ignore[arg-type]


class State(TypedDict):
    user: str
    said: str
    recalled: list[str]


def remember_and_recall(state: State) -> dict[str, list[str]]:
    """A node as LangGraph's memory guide writes it: the store from the runtime."""
    memories: BaseStore = get_store()
    namespace = ("memories", state["user"])
    memories.put(namespace, f"m{len(memories.search(namespace)) + 1}", {"text": state["said"]})
    found = memories.search(namespace, query=state["said"], limit=3)
    return {"recalled": [item.value["text"] for item in found]}


def test_a_graph_keeps_memories_in_mnemotree(store: MnemotreeStore) -> None:
    builder = StateGraph(State)
    builder.add_node("remember_and_recall", remember_and_recall)
    builder.add_edge(START, "remember_and_recall")
    builder.add_edge("remember_and_recall", END)
    graph = builder.compile(store=store)
    graph.invoke({"user": "ada", "said": "I prefer green tea", "recalled": []})
    out = graph.invoke({"user": "ada", "said": "what tea do I prefer", "recalled": []})
    assert "I prefer green tea" in out["recalled"]
    assert asyncio.run(store.aget(("memories", "ada"), "m1")).value == {  # type: ignore[union-attr]
        "text": "I prefer green tea"
    }
