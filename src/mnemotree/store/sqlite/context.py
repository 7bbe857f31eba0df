"""The SQLite store's queries for the context engine: the usage log and artifacts."""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InvalidInput
from ...model import Node
from ..protocol import UsageSignal
from ..records import RelationRow, UsageCounts, UsageRow
from .connections import Connected
from .rows import _SELECT, _chunks, _node

_USAGE_COLUMNS = {"file", "branch", "activity"}


class ContextQueries(Connected):
    """Mixed into SQLiteStore; kept apart so each module stays readable."""

    def put_usage(self, rows: Sequence[UsageRow]) -> None:
        self._db.executemany(
            "INSERT OR IGNORE INTO usage_batches (batch, at, day, hour, file, branch, activity) "
            "VALUES (?, ?, substr(?, 1, 10), ?, ?, ?, ?)",
            list(
                {
                    r.batch: (r.batch, r.at, r.at, r.hour, r.file, r.branch, r.activity)
                    for r in rows
                }.values()
            ),
        )
        self._db.executemany(
            "INSERT INTO usage (batch, node_id, event, at, hour, file, branch, activity) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def usage_counts(self, node_ids: Sequence[str]) -> dict[str, UsageCounts]:
        """Per node: times retrieved, cited, ignored, and ignored since last cited."""
        found: dict[str, UsageCounts] = {}
        for chunk in _chunks(list(node_ids)):
            marks = ",".join("?" * len(chunk))
            # Totals per node first, then the ignores after its last citation
            # along the (node, event, at) index: one range per node, not per row.
            sql = f"""
                WITH s AS (
                    SELECT node_id, sum(event = 'retrieved') AS r, sum(event = 'cited') AS c,
                        sum(event = 'ignored') AS i,
                        max(CASE WHEN event = 'cited' THEN at END) AS last
                    FROM usage WHERE node_id IN ({marks}) GROUP BY node_id
                )
                SELECT s.node_id, s.r, s.c, s.i, (
                    SELECT count(*) FROM usage u WHERE u.node_id = s.node_id
                    AND u.event = 'ignored' AND u.at > coalesce(s.last, '')
                ) FROM s
            """
            for row in self._db.execute(sql, tuple(chunk)):
                found[row[0]] = UsageCounts(*row[1:])
        return found

    def co_cited(
        self, node_ids: Sequence[str], since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]:
        """Batches since `since` in which any of `node_ids` was cited, and for
        other nodes (in `scopes`) cited in those batches, in how many of them."""
        if not node_ids:
            return 0, {}
        chunk = tuple(node_ids[:500])
        marks = ",".join("?" * len(chunk))
        anchors = f"""
            SELECT DISTINCT batch FROM usage
            WHERE node_id IN ({marks}) AND event = 'cited' AND at >= ?
        """
        total = self._db.execute(f"SELECT count(*) FROM ({anchors})", (*chunk, since)).fetchone()
        join, args = _in_scopes("u", scopes)
        rows = self._db.execute(
            f"""
            SELECT u.node_id, count(DISTINCT u.batch) FROM usage u{join}
            WHERE u.batch IN ({anchors}) AND u.event = 'cited' AND u.node_id NOT IN ({marks})
            GROUP BY u.node_id ORDER BY 2 DESC, u.node_id LIMIT ?
            """,
            (*args, *chunk, since, *chunk, limit),
        )
        return int(total[0]), {r[0]: int(r[1]) for r in rows}

    def cited_under(
        self, signal: UsageSignal, value: str, since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]:
        """Feedback batches since `since` given under a file, branch or activity
        (that touched memories in `scopes`), and per node cited in them, in how many."""
        if signal not in _USAGE_COLUMNS:
            raise InvalidInput(f"usage is kept by {sorted(_USAGE_COLUMNS)}, not {signal!r}", signal)
        column = signal  # each signal has a column of its own
        touched, touched_args = _batch_in_scopes(scopes)
        total = self._db.execute(
            f"SELECT count(*) FROM usage_batches b WHERE b.{column} = ? AND b.at >= ?{touched}",
            (value, since, *touched_args),
        ).fetchone()
        join, args = _in_scopes("u", scopes)
        rows = self._db.execute(
            f"""
            SELECT u.node_id, count(DISTINCT u.batch) FROM usage u{join}
            WHERE u.{column} = ? AND u.event = 'cited' AND u.at >= ?
            GROUP BY u.node_id ORDER BY 2 DESC, u.node_id LIMIT ?
            """,
            (*args, value, since, limit),
        )
        return int(total[0]), {r[0]: int(r[1]) for r in rows}

    def cited_at_hours(
        self, hours: Sequence[int], since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]:
        """Days since `since` with feedback (on memories in `scopes`) at these
        UTC hours, and per node cited then, on how many of those days."""
        marks = ",".join("?" * len(hours))
        touched, touched_args = _batch_in_scopes(scopes)
        total = self._db.execute(
            f"SELECT count(DISTINCT b.day) FROM usage_batches b "
            f"WHERE b.hour IN ({marks}) AND b.at >= ?{touched}",
            (*hours, since, *touched_args),
        ).fetchone()
        join, args = _in_scopes("u", scopes)
        rows = self._db.execute(
            f"""
            SELECT u.node_id, count(DISTINCT substr(u.at, 1, 10)) FROM usage u{join}
            WHERE u.hour IN ({marks}) AND u.event = 'cited' AND u.at >= ?
            GROUP BY u.node_id ORDER BY 2 DESC, u.node_id LIMIT ?
            """,
            (*args, *hours, since, limit),
        )
        return int(total[0]), {r[0]: int(r[1]) for r in rows}

    def artifact_nodes(
        self,
        refs: Sequence[str],
        names: Sequence[str],
        prefixes: Sequence[str],
        limit: int,
        scopes: Scopes = None,
    ) -> list[tuple[str, str, str, str]]:
        """(node id, type, ref, how) for artifacts of memories in `scopes` whose
        ref is one of `refs` ("ref"), whose file name is one of `names`
        ("name"), or whose ref starts with one of `prefixes` ("prefix")."""
        out: list[tuple[str, str, str, str]] = []
        seen: set[tuple[str, str]] = set()
        queries: list[tuple[str, str, tuple[str, ...]]] = []
        for ref in refs:
            queries.append(("ref", "a.ref = ?", (ref,)))
        for name in names:
            queries.append(("name", "a.name = ?", (name.lower(),)))
        for prefix in prefixes:
            # A range on the index instead of LIKE (refs may hold % and _).
            queries.append(("prefix", "a.ref >= ? AND a.ref < ?", (prefix, prefix + "\U0010ffff")))
        join, args = _in_scopes("a", scopes)
        for how, clause, values in queries:
            sql = f"SELECT a.node_id, a.type, a.ref FROM artifacts a{join} WHERE {clause} LIMIT ?"
            for node_id, kind, ref in self._db.execute(sql, (*args, *values, limit)):
                if (node_id, ref) not in seen:
                    seen.add((node_id, ref))
                    out.append((node_id, kind, ref, how))
        return out

    def children_of(self, parent_ids: Sequence[str], context_type: str) -> list[Node]:
        """Children of these parents that have this context type, in order
        (archived ones left out: contexts read levels through this)."""
        found: list[Node] = []
        for chunk in _chunks(list(parent_ids)):
            marks = ",".join("?" * len(chunk))
            sql = (
                # `+`: the parent index drives (the type index would walk every level node).
                f"{_SELECT} WHERE parent_id IN ({marks}) AND +context_type = ? "
                "AND archived_at IS NULL ORDER BY parent_id, order_key"
            )
            found.extend(_node(r) for r in self._db.execute(sql, (*chunk, context_type)))
        return found

    def relations_of_type(self, type: str, limit: int, scopes: Scopes = None) -> list[RelationRow]:
        """The newest relations of a type whose source is in `scopes`."""
        join, args = _in_scopes("r", scopes, column="source_id")
        rows = self._db.execute(
            f"SELECT r.* FROM relations r{join} WHERE r.type = ? "
            "ORDER BY r.created_at DESC, r.source_id LIMIT ?",
            (*args, type, limit),
        )
        return [RelationRow(*r) for r in rows]


Scopes = tuple[str, ...] | None


def _batch_in_scopes(scopes: Scopes) -> tuple[str, tuple[str, ...]]:
    """A condition keeping batches that showed a memory in `scopes`."""
    if scopes is None:
        return "", ()
    marks = ",".join("?" * len(scopes))
    return (
        " AND EXISTS (SELECT 1 FROM usage u JOIN nodes sn ON sn.id = u.node_id "
        f"AND +sn.scope IN ({marks}) WHERE u.batch = b.batch)",
        tuple(scopes),
    )


def _in_scopes(alias: str, scopes: Scopes, column: str = "node_id") -> tuple[str, tuple[str, ...]]:
    """A join keeping rows whose node is in `scopes` (None: every scope), so a
    limit counts only what the caller may see."""
    if scopes is None:
        return "", ()
    marks = ",".join("?" * len(scopes))
    return f" JOIN nodes sn ON sn.id = {alias}.{column} AND +sn.scope IN ({marks})", tuple(scopes)
