"""A memory database built to tempt scope leaks, for the scope-leak campaign.

Every stored text carries a token that names its scope (`zq` + the scope's
letter + 8 random characters), so any response can be checked for text of
another scope by pattern alone. The world holds what has leaked before or
could: parents in a shared scope, legacy parents in an unshared scope (built
while it was shared), relations across scopes, a node whose scope and text
changed (its history holds the old scope's text), contradictions, documents,
chat sessions and path entries in every scope.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass, field

from ..memory import Memory
from ..model import Node

SCOPES = {"a": "scope-alpha", "b": "scope-beta", "g": "scope-gamma", "k": "scope-kb"}
CODE = {name: letter for letter, name in SCOPES.items()}
SHARED = "scope-kb"
# Keys by name: what each may reach. No key but '*' reaches gamma.
KEYS = {
    "alpha": "scope-alpha",
    "beta": "scope-beta",
    "both": "scope-alpha,scope-beta",
    "kb": "scope-kb",
    "star": "*",
}
TOKEN = re.compile(r"zq([abgk])[a-z0-9]{8}")
SCOPE_NAME = re.compile(r"scope-(?:alpha|beta|gamma|kb)")
ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
WORDS = "deploy budget garden tea river piano atlas invoice server backup release".split()


def token(rng: random.Random, scope: str) -> str:
    tail = "".join(rng.choices(string.ascii_lowercase + string.digits, k=8))
    return f"zq{CODE[scope]}{tail}"


def sentence(rng: random.Random, scope: str) -> str:
    """A statement of `scope`: ordinary words and the scope's token."""
    words = rng.sample(WORDS, 3)
    return f"The {words[0]} {words[1]} note {token(rng, scope)} mentions {words[2]}."


@dataclass
class World:
    """The ids the campaign draws requests from."""

    nodes: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    contradictions: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    # Nodes next to another scope's nodes; requests draw from them often.
    tempting: list[str] = field(default_factory=list)


def build(memory: Memory, rng: random.Random) -> World:
    """Fill `memory` with every kind of node in every scope, and the cross-scope
    structures that could carry text across."""
    world = World()
    memory.keys.share_scope(SHARED)
    kb_root = memory.add(sentence(rng, SHARED), scope=SHARED)
    world.nodes.append(kb_root.id)
    for scope in SCOPES.values():
        _fill(memory, rng, scope, world)
        # Notes of every scope under the shared root are allowed.
        child = memory.append_child(kb_root.id, sentence(rng, scope), scope=scope)
        world.nodes.append(child.id)
    _legacy(memory, rng, world)
    _moved(memory, rng, world)
    alpha, beta = _first(memory, "scope-alpha"), _first(memory, "scope-beta")
    memory.typed.relate(alpha.id, beta.id, "related_to")
    world.tempting += [alpha.id, beta.id]
    world.nodes += world.tempting
    world.contradictions = [c.id for c in memory.consolidation.contradictions(status=None)]
    return world


def _fill(memory: Memory, rng: random.Random, scope: str, world: World) -> None:
    root = memory.add(sentence(rng, scope), scope=scope, context_type="space")
    kids = memory.append_many(root.id, [sentence(rng, scope) for _ in range(4)])
    summary = memory.add_summary([k.id for k in kids[:2]], sentence(rng, scope))
    world.nodes += [root.id, summary.id, *(k.id for k in kids)]
    for kind in ("fact", "decision", "preference"):
        world.nodes.append(memory.remember(sentence(rng, scope), type=kind, scope=scope).id)
    for value in ("Berlin", "Lisbon"):
        world.nodes.append(
            memory.typed.fact("office_city", f"{value} {token(rng, scope)}", scope=scope).id
        )
    doc = f"# Handbook {token(rng, scope)}\n\n## Deploys\n\n{sentence(rng, scope)}\n"
    memory.ingest(doc.encode(), scope=scope, filename=f"{scope}.md")
    session = memory.chat.start_session(scope, f"Chat {token(rng, scope)}")
    memory.chat.add_message(session.id, "user", sentence(rng, scope))
    world.sessions.append(session.id)
    path = f"Proj/{CODE[scope]}/entry"
    memory.paths(scope).save(path, {"note": sentence(rng, scope)})
    world.paths.append(path)


def _legacy(memory: Memory, rng: random.Random, world: World) -> None:
    """Parents in scopes that were shared once and are no longer: every
    private scope under every other one."""
    private = [s for s in SCOPES.values() if s != SHARED]
    for parent_scope in private:
        memory.keys.share_scope(parent_scope)
        parent = memory.add(sentence(rng, parent_scope), scope=parent_scope)
        world.tempting.append(parent.id)
        for child_scope in private:
            if child_scope == parent_scope:
                continue
            child = memory.append_child(parent.id, sentence(rng, child_scope), scope=child_scope)
            grandchild = memory.append_child(child.id, sentence(rng, child_scope))
            memory.typed.relate(child.id, parent.id, "related_to")
            world.tempting += [child.id, grandchild.id]
        memory.keys.share_scope(parent_scope, shared=False)


def _moved(memory: Memory, rng: random.Random, world: World) -> None:
    """A gamma node rewritten into alpha: its history holds gamma's text."""
    node = memory.add(sentence(rng, "scope-gamma"), scope="scope-gamma")
    memory.update(node.id, sentence(rng, "scope-alpha"), scope="scope-alpha")
    world.tempting.append(node.id)


def _first(memory: Memory, scope: str) -> Node:
    return next(r for r in memory.roots() if r.scope == scope)
