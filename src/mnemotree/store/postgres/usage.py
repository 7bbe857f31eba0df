"""The Postgres store's usage log: accesses, and what contexts held and cited."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import InvalidInput
from ..protocol import UsageSignal
from ..records import MemoryStats, Scopes, UsageCounts, UsageRow
from .connections import Connections

_SIGNALS = {"file", "branch", "activity"}
_COUNT = "count(*) FILTER (WHERE event = %s)"


class UsageQueries:
    """Mixed into PostgresStore."""

    _db: Connections

    def record_accesses(self, node_ids: Sequence[str], at: str, keep: int = 50) -> None:
        """Log an access per node and keep only each node's last `keep` accesses."""
        self._db.executemany(
            "INSERT INTO accesses (node_id, at) VALUES (%s, %s)", [(i, at) for i in node_ids]
        )
        self._db.execute(
            "DELETE FROM accesses a USING (SELECT seq, row_number() OVER "
            "(PARTITION BY node_id ORDER BY at DESC, seq DESC) AS newest FROM accesses "
            "WHERE node_id = ANY(%s)) r WHERE a.seq = r.seq AND r.newest > %s",
            (list(dict.fromkeys(node_ids)), keep),
        )

    def access_times(self, node_ids: Sequence[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for node_id, at in self._db.execute(
            "SELECT node_id, at FROM accesses WHERE node_id = ANY(%s) ORDER BY seq",
            (list(node_ids),),
        ):
            found.setdefault(node_id, []).append(at)
        return found

    def access_ages(self, node_ids: Sequence[str], now: str, latest: int) -> dict[str, list[float]]:
        """Seconds from each node's `latest` newest accesses to `now`, newest first."""
        found: dict[str, list[float]] = {}
        for node_id, age in self._db.execute(
            "SELECT node_id, extract(epoch FROM %s::timestamptz - at::timestamptz) FROM ("
            " SELECT node_id, at, row_number() OVER (PARTITION BY node_id ORDER BY at DESC)"
            " AS newest FROM accesses WHERE node_id = ANY(%s)) r"
            " WHERE newest <= %s ORDER BY node_id, at DESC",
            (now, list(node_ids), latest),
        ):
            found.setdefault(node_id, []).append(float(age))
        return found

    def put_usage(self, rows: Sequence[UsageRow]) -> None:
        batches = {r.batch: r for r in rows}
        self._db.executemany(
            "INSERT INTO usage_batches (batch, at, day, hour, file, branch, activity) "
            "VALUES (%s, %s, substr(%s, 1, 10), %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            [(r.batch, r.at, r.at, r.hour, r.file, r.branch, r.activity) for r in batches.values()],
        )
        self._db.executemany(
            "INSERT INTO usage (batch, node_id, event, at, hour, file, branch, activity) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            [tuple(r) for r in rows],
        )

    def usage_counts(self, node_ids: Sequence[str]) -> dict[str, UsageCounts]:
        """Per node: times retrieved, cited, ignored, and ignored since last cited."""
        found = self._db.execute(
            f"WITH s AS (SELECT node_id, {_COUNT} AS r, {_COUNT} AS c, {_COUNT} AS i,"
            " max(at) FILTER (WHERE event = 'cited') AS last"
            " FROM usage WHERE node_id = ANY(%s) GROUP BY node_id)"
            " SELECT s.node_id, s.r, s.c, s.i, (SELECT count(*) FROM usage u"
            " WHERE u.node_id = s.node_id AND u.event = 'ignored'"
            " AND u.at > coalesce(s.last, '')) FROM s",
            ("retrieved", "cited", "ignored", list(node_ids)),
        )
        return {r[0]: UsageCounts(*(int(v) for v in r[1:])) for r in found}

    def co_cited(
        self, node_ids: Sequence[str], since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]:
        """Batches since `since` in which any of `node_ids` was cited, and for
        other nodes (in `scopes`) cited in those batches, in how many of them."""
        if not node_ids:
            return 0, {}
        ids = list(node_ids)
        anchors = (
            "SELECT DISTINCT batch FROM usage WHERE node_id = ANY(%s) "
            "AND event = 'cited' AND at >= %s"
        )
        ((total,),) = self._db.execute(f"SELECT count(*) FROM ({anchors}) a", (ids, since))
        join, args = _in_scopes("u", scopes)
        rows = self._db.execute(
            f"SELECT u.node_id, count(DISTINCT u.batch) FROM usage u{join} "
            f"WHERE u.batch IN ({anchors}) AND u.event = 'cited' AND NOT u.node_id = ANY(%s) "
            "GROUP BY u.node_id ORDER BY 2 DESC, u.node_id LIMIT %s",
            (*args, ids, since, ids, limit),
        )
        return int(total), {r[0]: int(r[1]) for r in rows}

    def cited_under(
        self, signal: UsageSignal, value: str, since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]:
        """Feedback batches since `since` given under a file, branch or activity
        (that touched memories in `scopes`), and per node cited in them, in how many."""
        if signal not in _SIGNALS:
            raise InvalidInput(f"usage is kept by {sorted(_SIGNALS)}, not {signal!r}", signal)
        column = signal  # each signal has a column of its own
        touched, touched_args = _batch_in_scopes(scopes)
        ((total,),) = self._db.execute(
            f"SELECT count(*) FROM usage_batches b WHERE b.{column} = %s AND b.at >= %s{touched}",
            (value, since, *touched_args),
        )
        join, args = _in_scopes("u", scopes)
        rows = self._db.execute(
            f"SELECT u.node_id, count(DISTINCT u.batch) FROM usage u{join} "
            f"WHERE u.{column} = %s AND u.event = 'cited' AND u.at >= %s "
            "GROUP BY u.node_id ORDER BY 2 DESC, u.node_id LIMIT %s",
            (*args, value, since, limit),
        )
        return int(total), {r[0]: int(r[1]) for r in rows}

    def cited_at_hours(
        self, hours: Sequence[int], since: str, limit: int, scopes: Scopes = None
    ) -> tuple[int, dict[str, int]]:
        """Days since `since` with feedback (on memories in `scopes`) at these
        UTC hours, and per node cited then, on how many of those days."""
        touched, touched_args = _batch_in_scopes(scopes)
        ((total,),) = self._db.execute(
            "SELECT count(DISTINCT b.day) FROM usage_batches b "
            f"WHERE b.hour = ANY(%s) AND b.at >= %s{touched}",
            (list(hours), since, *touched_args),
        )
        join, args = _in_scopes("u", scopes)
        rows = self._db.execute(
            f"SELECT u.node_id, count(DISTINCT substr(u.at, 1, 10)) FROM usage u{join} "
            "WHERE u.hour = ANY(%s) AND u.event = 'cited' AND u.at >= %s "
            "GROUP BY u.node_id ORDER BY 2 DESC, u.node_id LIMIT %s",
            (*args, list(hours), since, limit),
        )
        return int(total), {r[0]: int(r[1]) for r in rows}

    def memory_stats(self, usage_since: str) -> dict[str, MemoryStats]:
        """Accesses (ever) and usage since `usage_since` per node that has any."""
        found: dict[str, list[Any]] = {}
        for node_id, count, last in self._db.execute(
            "SELECT node_id, count(*), max(at) FROM accesses GROUP BY node_id"
        ):
            found[node_id] = [int(count), last, 0, 0, 0]
        for node_id, retrieved, cited, ignored in self._db.execute(
            f"SELECT node_id, {_COUNT}, {_COUNT}, {_COUNT} FROM usage WHERE at >= %s "
            "GROUP BY node_id",
            ("retrieved", "cited", "ignored", usage_since),
        ):
            row = found.setdefault(node_id, [0, None, 0, 0, 0])
            row[2:] = [int(retrieved), int(cited), int(ignored)]
        return {k: MemoryStats(*v) for k, v in found.items()}

    def co_cited_pairs(
        self, since: str, min_batches: int, limit: int
    ) -> list[tuple[str, str, int]]:
        """Pairs of nodes cited in the same context at least `min_batches` times."""
        found = self._db.execute(
            "SELECT a.node_id, b.node_id, count(DISTINCT a.batch) AS together "
            "FROM usage a JOIN usage b ON b.batch = a.batch AND b.node_id > a.node_id "
            "WHERE a.event = 'cited' AND b.event = 'cited' AND a.at >= %s "
            "GROUP BY a.node_id, b.node_id HAVING count(DISTINCT a.batch) >= %s "
            'ORDER BY together DESC, a.node_id COLLATE "C", b.node_id COLLATE "C" LIMIT %s',
            (since, min_batches, limit),
        )
        return [(a, b, int(n)) for a, b, n in found]


def _batch_in_scopes(scopes: Scopes) -> tuple[str, tuple[Any, ...]]:
    """A condition keeping batches that showed a memory in `scopes`."""
    if scopes is None:
        return "", ()
    return (
        " AND EXISTS (SELECT 1 FROM usage u JOIN nodes sn ON sn.id = u.node_id "
        "AND sn.scope = ANY(%s) WHERE u.batch = b.batch)",
        (list(scopes),),
    )


def _in_scopes(alias: str, scopes: Scopes, column: str = "node_id") -> tuple[str, tuple[Any, ...]]:
    """A join keeping rows whose node is in `scopes` (None: every scope), so a
    limit counts only what the caller may see."""
    if scopes is None:
        return "", ()
    return f" JOIN nodes sn ON sn.id = {alias}.{column} AND sn.scope = ANY(%s)", (list(scopes),)
