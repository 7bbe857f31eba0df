"""The Postgres store's queries for what typed memories carry: relations,
context snapshots, captured candidates, levels and artifacts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...model import Node, NodeFilter
from ..columns import captured_row, captured_values
from ..records import CapturedRow, RelationRow, Scopes, SnapshotRow
from .connections import Connections
from .filters import filter_sql
from .rows import COLUMNS, SELECT, node

_N_COLUMNS = ", ".join("n." + c.strip() for c in COLUMNS.split(","))
_NEWEST = "ORDER BY n.created_at DESC, n.seq DESC"
_PREFIX = 'a.ref COLLATE "C" >= %s AND a.ref COLLATE "C" < %s'


class MemoryQueries:
    """Mixed into PostgresStore."""

    _db: Connections

    def typed_nodes(self, types: Sequence[str], where: NodeFilter, limit: int) -> list[Node]:
        """Nodes of these context types passing the filter, newest first."""
        clause, args = filter_sql(where, "n")
        found = self._db.execute(
            f"SELECT {_N_COLUMNS} FROM nodes n WHERE n.context_type = ANY(%s){clause} "
            f"{_NEWEST} LIMIT %s",
            (list(types), *args, limit),
        )
        return [node(r) for r in found]

    def latest_of_types(
        self, types: Sequence[str], where: NodeFilter, per_type: int
    ) -> dict[str, list[Node]]:
        """The newest `per_type` nodes of each type, in one statement."""
        found: dict[str, list[Node]] = {t: [] for t in types}
        if not types:
            return found
        clause, args = filter_sql(where, "n")
        one = (
            f"(SELECT {_N_COLUMNS} FROM nodes n WHERE n.context_type = %s{clause} "
            f"{_NEWEST} LIMIT %s)"
        )
        values = [v for t in found for v in (t, *args, per_type)]
        for row in self._db.execute(" UNION ALL ".join([one] * len(found)), values):
            got = node(row)
            found[got.context_type].append(got)
        return found

    def facts_with_key(self, key: str, where: NodeFilter, limit: int) -> list[Node]:
        """Facts whose key is `key` (by the facts_by_key index), oldest first."""
        clause, args = filter_sql(where, "n")
        found = self._db.execute(
            f"SELECT {_N_COLUMNS} FROM nodes n WHERE (n.metadata::jsonb ->> 'key') = %s "
            f"AND n.context_type = 'fact'{clause} ORDER BY n.created_at, n.seq LIMIT %s",
            (key, *args, limit),
        )
        return [node(r) for r in found]

    def children_of(self, parent_ids: Sequence[str], context_type: str) -> list[Node]:
        """Children of these parents of this type, in order (archived ones left out)."""
        found = self._db.execute(
            f"{SELECT} WHERE parent_id = ANY(%s) AND context_type = %s "
            "AND archived_at IS NULL ORDER BY parent_id, order_key",
            (list(parent_ids), context_type),
        )
        return [node(r) for r in found]

    def put_snapshot(self, node_id: str, rows: Sequence[SnapshotRow]) -> None:
        """Replace the snapshot of `node_id`."""
        self._db.execute("DELETE FROM snapshots WHERE node_id = %s", (node_id,))
        self._db.executemany(
            "INSERT INTO snapshots VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [(node_id, i, *row) for i, row in enumerate(rows)],
        )

    def snapshots(self, node_ids: Sequence[str]) -> dict[str, list[SnapshotRow]]:
        """The snapshot rows of these nodes, in their saved order."""
        found: dict[str, list[SnapshotRow]] = {}
        for r in self._db.execute(
            "SELECT node_id, text, source_id, role, similarity, tokens, embedder, embedding "
            "FROM snapshots WHERE node_id = ANY(%s) ORDER BY node_id, position",
            (list(node_ids),),
        ):
            node_id, text, source, role, similarity, tokens, embedder, blob = r
            row = SnapshotRow(
                text,
                source,
                role,
                similarity,
                tokens,
                embedder,
                None if blob is None else bytes(blob),
            )
            found.setdefault(node_id, []).append(row)
        return found

    def put_relation(self, row: RelationRow) -> None:
        """Add or update (a new strength) a relation."""
        self._db.execute(
            "INSERT INTO relations VALUES (%s, %s, %s, %s, %s) ON CONFLICT "
            "(source_id, target_id, type) DO UPDATE SET strength = excluded.strength, "
            "created_at = excluded.created_at",
            row,
        )

    def relations(self, node_ids: Sequence[str]) -> list[RelationRow]:
        """Relations from or to any of these nodes."""
        ids = list(node_ids)
        found = self._db.execute(
            "SELECT * FROM relations WHERE source_id = ANY(%s) OR target_id = ANY(%s) "
            'ORDER BY created_at, source_id COLLATE "C", target_id COLLATE "C"',
            (ids, ids),
        )
        return [RelationRow(*r) for r in found]

    def relations_of_type(self, type: str, limit: int, scopes: Scopes = None) -> list[RelationRow]:
        """The newest relations of a type whose source is in `scopes`."""
        join, args = "", list[Any]()
        if scopes is not None:
            join, args = (
                " JOIN nodes sn ON sn.id = r.source_id AND sn.scope = ANY(%s)",
                [list(scopes)],
            )
        found = self._db.execute(
            f"SELECT r.* FROM relations r{join} WHERE r.type = %s "
            'ORDER BY r.created_at DESC, r.source_id COLLATE "C" LIMIT %s',
            (*args, type, limit),
        )
        return [RelationRow(*r) for r in found]

    def relations_between(self, source_id: str, target_id: str, type: str | None) -> bool:
        """Whether `source_id` relates to `target_id` (by `type`, or by any)."""
        sql = "SELECT 1 FROM relations WHERE source_id = %s AND target_id = %s"
        args: list[Any] = [source_id, target_id]
        if type is not None:
            sql, args = sql + " AND type = %s", [*args, type]
        return bool(self._db.execute(sql + " LIMIT 1", args))

    def delete_relation(self, source_id: str, target_id: str, type: str) -> None:
        self._db.execute(
            "DELETE FROM relations WHERE source_id = %s AND target_id = %s AND type = %s",
            (source_id, target_id, type),
        )

    def put_captured(self, rows: Sequence[CapturedRow]) -> None:
        """Add captured facts, or replace them (a new status, a memory id)."""
        self._db.executemany(
            "INSERT INTO captured VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (id) DO UPDATE SET status = excluded.status, "
            "memory_id = excluded.memory_id, text = excluded.text, type = excluded.type, "
            "confidence = excluded.confidence, sources = excluded.sources, "
            "fields = excluded.fields",
            [captured_values(r) for r in rows],
        )

    def captured(
        self, scopes: Sequence[str] | None, status: str | None, limit: int
    ) -> list[CapturedRow]:
        """Captured facts in these scopes (None: all) with this status, newest first."""
        sql, args = "SELECT * FROM captured WHERE TRUE", list[Any]()
        if scopes is not None:
            sql, args = sql + " AND scope = ANY(%s)", [*args, list(scopes)]
        if status is not None:
            sql, args = sql + " AND status = %s", [*args, status]
        found = self._db.execute(sql + " ORDER BY created_at DESC, id LIMIT %s", (*args, limit))
        return [captured_row(r) for r in found]

    def get_captured(self, captured_id: str) -> CapturedRow | None:
        found = self._db.execute("SELECT * FROM captured WHERE id = %s", (captured_id,))
        return captured_row(found[0]) if found else None

    def artifact_nodes(
        self,
        refs: Sequence[str],
        names: Sequence[str],
        prefixes: Sequence[str],
        limit: int,
        scopes: Scopes = None,
    ) -> list[tuple[str, str, str, str]]:
        """(node id, type, ref, how) for artifacts of memories in `scopes` whose
        ref is one of `refs`, whose file name is one of `names`, or whose ref
        starts with one of `prefixes`."""
        queries: list[tuple[str, str, tuple[Any, ...]]] = [
            *(("ref", "a.ref = %s", (ref,)) for ref in refs),
            *(("name", "a.name = %s", (name.lower(),)) for name in names),
            # A range instead of LIKE (refs may hold % and _).
            *(
                (
                    "prefix",
                    'a.ref COLLATE "C" >= %s AND a.ref COLLATE "C" < %s',
                    (p, p + "\U0010ffff"),
                )
                for p in prefixes
            ),
        ]
        join, args = "", list[Any]()
        if scopes is not None:
            join, args = (
                " JOIN nodes sn ON sn.id = a.node_id AND sn.scope = ANY(%s)",
                [list(scopes)],
            )
        out: list[tuple[str, str, str, str]] = []
        seen: set[tuple[str, str]] = set()
        for how, clause, values in queries:
            sql = f"SELECT a.node_id, a.type, a.ref FROM artifacts a{join} WHERE {clause} LIMIT %s"
            for node_id, kind, ref in self._db.execute(sql, (*args, *values, limit)):
                if (node_id, ref) not in seen:
                    seen.add((node_id, ref))
                    out.append((node_id, kind, ref, how))
        return out
