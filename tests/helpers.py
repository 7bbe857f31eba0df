"""Small helpers shared by the tests."""

from __future__ import annotations

from mnemotree import Memory


def texts(memory: Memory, node_id: str, mode: str = "include") -> list[str]:
    return [n.text for n in memory.serialize(node_id, mode)]


def snapshot(memory: Memory) -> list[dict[str, object]]:
    """Every node and every kept version, for before/after comparisons."""
    nodes = [n.to_dict() for n in memory.store.iter_nodes()]
    versions = [v.to_dict() for v in memory.store.iter_versions()]
    return sorted(nodes, key=lambda d: str(d["id"])) + versions
