"""The SQLite store's queries for path memory: entries by path, snapshots."""

from __future__ import annotations

from collections.abc import Sequence

from ...model import Node, NodeFilter
from ..columns import captured_row, captured_values
from ..records import CapturedRow, RelationRow, SnapshotRow
from .connections import Connected
from .rows import _N_COLUMNS, _SELECT, _chunks, _node
from .search import _filter_sql

PATH_TYPE = "path"


class StructuredQueries(Connected):
    """Mixed into SQLiteStore; kept apart so each module stays readable."""

    def find_path(self, root_id: str, path: str) -> Node | None:
        """The path node `path` in the space `root_id` (indexed lookup)."""
        row = self._db.execute(
            f"{_SELECT} WHERE root_id = ? AND context_value = ? AND context_type = ?",
            (root_id, path, PATH_TYPE),
        ).fetchone()
        return None if row is None else _node(row)

    def paths_under(self, root_id: str, prefix: str) -> list[Node]:
        """Path nodes at `prefix` or below it (all of them for an empty prefix)."""
        sql = f"{_SELECT} WHERE root_id = ? AND context_type = ?"
        args: list[str] = [root_id, PATH_TYPE]
        if prefix:
            # A range on the index instead of LIKE (paths may hold % and _).
            sql += " AND (context_value = ? OR (context_value >= ? AND context_value < ?))"
            args += [prefix, prefix + "/", prefix + "0"]  # "0" sorts right after "/"
        return [_node(r) for r in self._db.execute(sql + " ORDER BY context_value", args)]

    def put_snapshot(self, node_id: str, rows: Sequence[SnapshotRow]) -> None:
        """Replace the snapshot of `node_id`."""
        self._db.execute("DELETE FROM snapshots WHERE node_id = ?", (node_id,))
        self._db.executemany(
            "INSERT INTO snapshots VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(node_id, i, *row) for i, row in enumerate(rows)],
        )

    def snapshots(self, node_ids: Sequence[str]) -> dict[str, list[SnapshotRow]]:
        """The snapshot rows of these nodes, in their saved order."""
        found: dict[str, list[SnapshotRow]] = {}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            sql = (
                "SELECT node_id, text, source_id, role, similarity, tokens, embedder, embedding "
                f"FROM snapshots WHERE node_id IN ({marks}) ORDER BY node_id, position"
            )
            for r in self._db.execute(sql, tuple(chunk)):
                found.setdefault(r[0], []).append(
                    SnapshotRow(r[1], r[2], r[3], r[4], r[5], r[6], r[7])
                )
        return found

    def put_relation(self, row: RelationRow) -> None:
        """Add or update (a new strength) a relation."""
        self._db.execute("INSERT OR REPLACE INTO relations VALUES (?, ?, ?, ?, ?)", row)

    def relations(self, node_ids: Sequence[str]) -> list[RelationRow]:
        """Relations from or to any of these nodes."""
        found: dict[tuple[str, str, str], RelationRow] = {}
        for ids in _chunks(list(node_ids)):
            chunk = tuple(ids)
            marks = ",".join("?" * len(chunk))
            sql = (
                f"SELECT * FROM relations WHERE source_id IN ({marks}) "
                f"UNION SELECT * FROM relations WHERE target_id IN ({marks})"
            )
            for r in self._db.execute(sql, chunk + chunk):
                found[(r[0], r[1], r[2])] = RelationRow(*r)
        return sorted(found.values(), key=lambda r: (r.created_at, r.source_id, r.target_id))

    def put_captured(self, rows: Sequence[CapturedRow]) -> None:
        """Add captured facts, or replace them (a new status, a memory id)."""
        self._db.executemany(
            "INSERT OR REPLACE INTO captured VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [captured_values(r) for r in rows],
        )

    def captured(
        self, scopes: Sequence[str] | None, status: str | None, limit: int
    ) -> list[CapturedRow]:
        """Captured facts in these scopes (None: all) with this status, newest first."""
        sql, args = "SELECT * FROM captured WHERE 1", []
        if scopes is not None:
            sql += f" AND scope IN ({','.join('?' * len(scopes))})"
            args += list(scopes)
        if status is not None:
            sql += " AND status = ?"
            args.append(status)
        sql += " ORDER BY created_at DESC, id LIMIT ?"
        return [captured_row(r) for r in self._db.execute(sql, (*args, limit))]

    def get_captured(self, captured_id: str) -> CapturedRow | None:
        row = self._db.execute("SELECT * FROM captured WHERE id = ?", (captured_id,)).fetchone()
        return None if row is None else captured_row(row)

    def latest_of_types(
        self, types: Sequence[str], where: NodeFilter, per_type: int
    ) -> dict[str, list[Node]]:
        """One statement of one indexed range per type (newest first, `per_type`
        rows each), so a context's background costs one read, not one per type."""
        found: dict[str, list[Node]] = {t: [] for t in types}
        if not types:
            return found
        clause, args = _filter_sql(where, "n")
        one = (
            f"SELECT * FROM (SELECT {_N_COLUMNS} FROM nodes n WHERE n.context_type = ?{clause} "
            "ORDER BY n.created_at DESC, n.seq DESC LIMIT ?)"
        )
        sql = " UNION ALL ".join([one] * len(found))
        values = [v for t in found for v in (t, *args, per_type)]
        for row in self._db.execute(sql, values):
            node = _node(row)
            found[node.context_type].append(node)
        return found

    def typed_nodes(self, types: Sequence[str], where: NodeFilter, limit: int) -> list[Node]:
        """Nodes of these context types passing the filter, newest first."""
        clause, args = _filter_sql(where, "n")
        marks = ",".join("?" * len(types))
        sql = (
            f"SELECT {_N_COLUMNS} FROM nodes n WHERE n.context_type IN ({marks}){clause} "
            # seq, not id, breaks ties: the (type, time) index then gives the
            # order as it is (id forced a sort of every node of the type: 11 ms at 20k).
            "ORDER BY n.created_at DESC, n.seq DESC LIMIT ?"
        )
        return [_node(r) for r in self._db.execute(sql, (*types, *args, limit))]
