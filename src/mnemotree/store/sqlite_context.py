"""The SQLite store's queries for the context engine: the usage log and artifacts."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ..errors import InvalidInput
from ..model import Node
from .protocol import RelationRow, UsageCounts, UsageRow
from .rows import _SELECT, _chunks, _node

_USAGE_COLUMNS = {"file", "branch"}


class ContextQueries:
    """Mixed into SQLiteStore; kept apart so each module stays readable."""

    _db: sqlite3.Connection

    def put_usage(self, rows: Sequence[UsageRow]) -> None:
        self._db.executemany(
            "INSERT INTO usage (batch, node_id, event, at, hour, file, branch) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def usage_counts(self, node_ids: Sequence[str]) -> dict[str, UsageCounts]:
        """Per node: times retrieved, cited, ignored, and ignored since last cited."""
        found: dict[str, UsageCounts] = {}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            sql = f"""
                SELECT u.node_id, sum(u.event = 'retrieved'), sum(u.event = 'cited'),
                    sum(u.event = 'ignored'),
                    sum(u.event = 'ignored' AND u.at > coalesce((
                        SELECT max(c.at) FROM usage c
                        WHERE c.node_id = u.node_id AND c.event = 'cited'), ''))
                FROM usage u WHERE u.node_id IN ({marks}) GROUP BY u.node_id
            """
            for row in self._db.execute(sql, tuple(chunk)):
                found[row[0]] = UsageCounts(*row[1:])
        return found

    def co_cited(
        self, node_ids: Sequence[str], since: str, limit: int
    ) -> tuple[int, dict[str, int]]:
        """Batches since `since` in which any of `node_ids` was cited, and for
        other nodes cited in those batches, in how many of them."""
        if not node_ids:
            return 0, {}
        chunk = tuple(node_ids[:500])
        marks = ",".join("?" * len(chunk))
        anchors = f"""
            SELECT DISTINCT batch FROM usage
            WHERE node_id IN ({marks}) AND event = 'cited' AND at >= ?
        """
        total = self._db.execute(f"SELECT count(*) FROM ({anchors})", (*chunk, since)).fetchone()
        rows = self._db.execute(
            f"""
            SELECT u.node_id, count(DISTINCT u.batch) FROM usage u
            WHERE u.batch IN ({anchors}) AND u.event = 'cited' AND u.node_id NOT IN ({marks})
            GROUP BY u.node_id ORDER BY 2 DESC, u.node_id LIMIT ?
            """,
            (*chunk, since, *chunk, limit),
        )
        return int(total[0]), {r[0]: int(r[1]) for r in rows}

    def cited_under(
        self, column: str, value: str, since: str, limit: int
    ) -> tuple[int, dict[str, int]]:
        """Feedback batches since `since` given under a file or branch, and per
        node cited in them, in how many."""
        if column not in _USAGE_COLUMNS:
            raise InvalidInput(f"usage is kept by {sorted(_USAGE_COLUMNS)}, not {column!r}", column)
        total = self._db.execute(
            f"SELECT count(DISTINCT batch) FROM usage WHERE {column} = ? AND at >= ?",
            (value, since),
        ).fetchone()
        rows = self._db.execute(
            f"""
            SELECT node_id, count(DISTINCT batch) FROM usage
            WHERE {column} = ? AND event = 'cited' AND at >= ?
            GROUP BY node_id ORDER BY 2 DESC, node_id LIMIT ?
            """,
            (value, since, limit),
        )
        return int(total[0]), {r[0]: int(r[1]) for r in rows}

    def cited_at_hours(
        self, hours: Sequence[int], since: str, limit: int
    ) -> tuple[int, dict[str, int]]:
        """Days since `since` with feedback at these hours, and per node cited
        then, on how many of those days."""
        marks = ",".join("?" * len(hours))
        total = self._db.execute(
            f"SELECT count(DISTINCT substr(at, 1, 10)) FROM usage "
            f"WHERE hour IN ({marks}) AND at >= ?",
            (*hours, since),
        ).fetchone()
        rows = self._db.execute(
            f"""
            SELECT node_id, count(DISTINCT substr(at, 1, 10)) FROM usage
            WHERE hour IN ({marks}) AND event = 'cited' AND at >= ?
            GROUP BY node_id ORDER BY 2 DESC, node_id LIMIT ?
            """,
            (*hours, since, limit),
        )
        return int(total[0]), {r[0]: int(r[1]) for r in rows}

    def artifact_nodes(
        self, refs: Sequence[str], names: Sequence[str], prefixes: Sequence[str], limit: int
    ) -> list[tuple[str, str, str, str]]:
        """(node id, type, ref, how) for artifacts whose ref is one of `refs`
        ("ref"), whose file name is one of `names` ("name"), or whose ref
        starts with one of `prefixes` ("prefix")."""
        out: list[tuple[str, str, str, str]] = []
        seen: set[tuple[str, str]] = set()
        queries: list[tuple[str, str, tuple[str, ...]]] = []
        for ref in refs:
            queries.append(("ref", "ref = ?", (ref,)))
        for name in names:
            queries.append(("name", "name = ?", (name.lower(),)))
        for prefix in prefixes:
            # A range on the index instead of LIKE (refs may hold % and _).
            queries.append(("prefix", "ref >= ? AND ref < ?", (prefix, prefix + "\U0010ffff")))
        for how, clause, args in queries:
            sql = f"SELECT node_id, type, ref FROM artifacts WHERE {clause} LIMIT ?"
            for node_id, kind, ref in self._db.execute(sql, (*args, limit)):
                if (node_id, ref) not in seen:
                    seen.add((node_id, ref))
                    out.append((node_id, kind, ref, how))
        return out

    def children_of(self, parent_ids: Sequence[str], context_type: str) -> list[Node]:
        """Children of these parents that have this context type, in order."""
        found: list[Node] = []
        for chunk in _chunks(list(parent_ids)):
            marks = ",".join("?" * len(chunk))
            sql = (
                # `+`: the parent index drives (the type index would walk every level node).
                f"{_SELECT} WHERE parent_id IN ({marks}) AND +context_type = ? "
                "ORDER BY parent_id, order_key"
            )
            found.extend(_node(r) for r in self._db.execute(sql, (*chunk, context_type)))
        return found

    def relations_of_type(self, type: str, limit: int) -> list[RelationRow]:
        rows = self._db.execute(
            "SELECT * FROM relations WHERE type = ? ORDER BY created_at DESC, source_id LIMIT ?",
            (type, limit),
        )
        return [RelationRow(*r) for r in rows]
