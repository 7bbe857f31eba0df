"""`Memory`'s consolidation methods: contradictions (found on write), their
listing and resolution (seed 004)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .consolidate.contradictions import RESOLUTIONS, STATUSES, clean_resolution, same_key
from .errors import InvalidInput, InvalidOperation, NotFound
from .model import Node, clean_id, clean_scope
from .store import ContradictionRow
from .timeutil import to_iso

if TYPE_CHECKING:
    from .store import Store
    from .timeutil import Clock

MAX_LISTED = 10_000


class ConsolidateMixin:
    """Mixed into Memory, which provides the store, clock and typed memory methods."""

    store: Store
    clock: Clock

    if TYPE_CHECKING:

        def relate(self, source: str, target: str, type: str, *, strength: float = 1.0) -> None: ...

        def _fact(self, key: str, value: Any, **options: Any) -> Node: ...

        def get(self, node_id: str) -> Node: ...

    def _contradicted(self, node: Node) -> None:
        """Record what a new memory contradicts (inside its write)."""
        for row in same_key(self.store, node, self.clock()):
            self.store.put_contradiction(row)

    def contradictions(
        self,
        *,
        status: str | None = "open",
        scopes: Sequence[str] | None = None,
        limit: int = 1000,
    ) -> list[ContradictionRow]:
        """Contradictions, newest first: open ones by default, `status=None` for all."""
        if status is not None and status not in STATUSES:
            raise InvalidInput(f"unknown status {status!r}; choose one of {list(STATUSES)}", status)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LISTED:
            raise InvalidInput(f"limit must be from 1 to {MAX_LISTED}, got {limit!r}", limit)
        chosen = None if scopes is None else tuple(clean_scope(s) for s in scopes)
        return self.store.contradictions(status, chosen, limit)

    def resolve(self, contradiction_id: str, resolution: str, note: str = "") -> ContradictionRow:
        """Settle a contradiction: `a_wins` or `b_wins` ends the loser's validity
        with a supersedes relation; `both_valid` keeps both; `merged` ends both
        and stores `note` as the memory that supersedes them. Nothing is deleted."""
        chosen = clean_resolution(resolution)
        if not isinstance(note, str):
            raise InvalidInput(f"note must be text, got {type(note).__name__}", note)
        if chosen == "merged" and not note.strip():
            raise InvalidInput(
                "a merged resolution needs the merged statement as its note", contradiction_id
            )
        with self.store.transaction():
            row = self.store.get_contradiction(clean_id(contradiction_id, "contradiction id"))
            if row is None:
                raise NotFound(f"no contradiction {contradiction_id!r}", contradiction_id)
            if row.status == "resolved":
                raise InvalidOperation(
                    f"contradiction {row.id} was already resolved ({row.resolution}) "
                    f"at {row.resolved_at}",
                    row.id,
                )
            if chosen == "a_wins":
                self.relate(row.a_id, row.b_id, "supersedes")
            elif chosen == "b_wins":
                self.relate(row.b_id, row.a_id, "supersedes")
            elif chosen == "merged":
                merged = self._merged(row, note.strip())
                for loser in (row.a_id, row.b_id):
                    self.relate(merged.id, loser, "supersedes")
            done = row._replace(
                status="resolved", resolution=chosen, note=note, resolved_at=to_iso(self.clock())
            )
            self.store.set_contradiction(done)
        return done

    def _merged(self, row: ContradictionRow, statement: str) -> Node:
        """The memory a merge leaves: a fact of the same key when A was one."""
        a = self.get(row.a_id)
        key = a.metadata.get("key")
        if a.context_type == "fact" and isinstance(key, str):
            # Not `fact`: the merged value must not contradict what it replaces.
            return self._fact(key, statement, scope=a.scope)
        raise InvalidOperation(
            f"only contradictions between facts can be merged for now; resolve {row.id} "
            f"with one of {[r for r in RESOLUTIONS if r != 'merged']}",
            row.id,
        )
