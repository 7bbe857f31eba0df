"""Search results (`Hit`) and what vectors are made from; re-exported by
`retrieval.search`, where callers import them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from ..model import Node

# Metadata flag of structural nodes (e.g. a scope's default space): never hits.
CONTAINER = "container"


@dataclass
class Hit:
    """A search result: the node, its score, its ancestry and what it covers."""

    node: Node
    score: float
    ancestry: list[Node]
    parts: dict[str, float] = field(default_factory=dict)
    covered: list[Hit] = field(default_factory=list)

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.node.id,
            "text": self.node.text,
            "score": round(self.score, 6),
            "scope": self.node.scope,
            "context_type": self.node.context_type,
            "context_name": self.node.context_name,
            "ancestry": [
                {"id": a.id, "text": a.text, "context_type": a.context_type} for a in self.ancestry
            ],
        }
        if explain:
            data["parts"] = {k: round(v, 6) for k, v in self.parts.items()}
        if self.covered:
            data["covered"] = [c.to_dict(explain) for c in self.covered]
        return data


def embed_text(node: Node) -> str:
    """What a node's vector is computed from: its name (speaker, heading) and text."""
    return f"{node.context_name}: {node.text}" if node.context_name else node.text


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fold(hits: list[Hit]) -> list[Hit]:
    """Hits under a returned summary are folded into it (the summary covers them)."""
    by_id = {h.node.id: h for h in hits}
    kept: list[Hit] = []
    for hit in hits:
        cover = next((by_id[a.id] for a in hit.ancestry if a.is_summary and a.id in by_id), None)
        if cover is not None:
            cover.covered.append(hit)
        else:
            kept.append(hit)
    return kept
