"""One memory superseding another: the older one's validity ends, and open
contradictions between the two are settled. Used by relations made on
purpose and by updates found as statements are written."""

from __future__ import annotations

from ..errors import InvalidInput, InvalidOperation
from ..model import Node
from ..store import RelationRow, Store
from ..tree import Tree
from . import typed


def supersede(tree: Tree, newer: Node, older: Node, now: str, strength: float = 1.0) -> None:
    """`newer` supersedes `older`: its validity ends when `newer` became
    valid (at once if `older` became valid later: it never held), and open
    contradictions between the two are settled."""
    store = tree.store
    if newer.scope != older.scope:
        raise InvalidInput(
            f"{newer.id} (scope {newer.scope!r}) cannot supersede {older.id} "
            f"(scope {older.scope!r}): a memory supersedes memories of its own scope",
            (newer.id, older.id),
        )
    if _supersedes_chain(store, older.id, newer.id):
        raise InvalidOperation(
            f"{older.id} already supersedes {newer.id} (directly or through others); "
            "superseding it back would leave neither valid",
            (newer.id, older.id),
        )
    store.put_relation(RelationRow(newer.id, older.id, "supersedes", strength, now))
    end = typed.superseded_end(newer, older)
    if end is not None:
        tree.update(older.id, metadata={**older.metadata, "valid_to": end})
    for row in store.contradictions_of([newer.id], ("open", "review")):
        if {row.a_id, row.b_id} == {newer.id, older.id}:
            won = "a_wins" if row.a_id == newer.id else "b_wins"
            store.set_contradiction(
                row._replace(
                    status="resolved",
                    resolution=won,
                    resolved_at=now,
                    note=row.note or f"settled: {newer.id} supersedes {older.id}",
                )
            )


def _supersedes_chain(store: Store, start: str, goal: str) -> bool:
    """Whether `start` supersedes `goal`, directly or through others."""
    seen, todo = {start}, [start]
    while todo:
        current = todo.pop()
        for r in store.relations([current]):
            if r.type == "supersedes" and r.source_id == current:
                if r.target_id == goal:
                    return True
                if r.target_id not in seen:
                    seen.add(r.target_id)
                    todo.append(r.target_id)
    return False
