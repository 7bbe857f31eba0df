"""The Postgres store's queries for consolidation: contradictions, runs, the
archive, decay and importance, and cached judgements."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from ...model import Node
from ..columns import run_row, run_values
from ..records import ContradictionRow, RunRow, Scopes
from .connections import Connections
from .rows import COLUMNS, node

_N_COLUMNS = ", ".join("n." + c.strip() for c in COLUMNS.split(","))


class ConsolidateQueries:
    """Mixed into PostgresStore."""

    _db: Connections

    def alone(self, task: str) -> AbstractContextManager[bool]:
        return self._db.alone(task)

    def put_contradiction(self, row: ContradictionRow) -> bool:
        """Record a contradiction; False if this pair is already recorded."""
        marks = ", ".join(["%s"] * 13)
        return bool(
            self._db.changed(
                f"INSERT INTO contradictions VALUES ({marks}) ON CONFLICT DO NOTHING", row
            )
        )

    def get_contradiction(self, contradiction_id: str) -> ContradictionRow | None:
        found = self._db.execute("SELECT * FROM contradictions WHERE id = %s", (contradiction_id,))
        return ContradictionRow(*found[0]) if found else None

    def set_contradiction(self, row: ContradictionRow) -> None:
        self._db.execute(
            "UPDATE contradictions SET status = %s, resolution = %s, note = %s, "
            "resolved_at = %s WHERE id = %s",
            (row.status, row.resolution, row.note, row.resolved_at, row.id),
        )

    def contradictions(
        self, status: str | None, scopes: Scopes, limit: int, resolution: str | None = None
    ) -> list[ContradictionRow]:
        """Newest first; `status` and `resolution` None for any."""
        parts, args = ["TRUE"], list[Any]()
        for column, value in (("status", status), ("resolution", resolution)):
            if value is not None:
                parts.append(f"{column} = %s")
                args.append(value)
        if scopes is not None:
            parts.append("scope = ANY(%s)")
            args.append(list(scopes))
        found = self._db.execute(
            f"SELECT * FROM contradictions WHERE {' AND '.join(parts)} "
            "ORDER BY detected_at DESC, id LIMIT %s",
            (*args, limit),
        )
        return [ContradictionRow(*r) for r in found]

    def contradictions_of(
        self, node_ids: Sequence[str], statuses: Sequence[str]
    ) -> list[ContradictionRow]:
        """Rows of these statuses naming any of the nodes, oldest first."""
        ids = list(node_ids)
        found = self._db.execute(
            "SELECT * FROM contradictions WHERE status = ANY(%s) "
            "AND (a_id = ANY(%s) OR b_id = ANY(%s)) ORDER BY detected_at, id",
            (list(statuses), ids, ids),
        )
        return [ContradictionRow(*r) for r in found]

    def delete_contradiction(self, contradiction_id: str) -> None:
        self._db.execute("DELETE FROM contradictions WHERE id = %s", (contradiction_id,))

    def live_memories(self, types: Sequence[str]) -> list[tuple[Node, float | None]]:
        """Every node of these types not archived, with its stored decay, oldest first."""
        found = self._db.execute(
            f"SELECT {COLUMNS}, decay FROM nodes WHERE context_type = ANY(%s) "
            "AND archived_at IS NULL ORDER BY created_at, seq",
            (list(types),),
        )
        return [(node(r[:-1]), r[-1]) for r in found]

    def decays(self, node_ids: Sequence[str]) -> dict[str, float | None]:
        found = self._db.execute(
            "SELECT id, decay FROM nodes WHERE id = ANY(%s)", (list(node_ids),)
        )
        return {i: d for i, d in found}

    def set_decay(self, changes: Sequence[tuple[str, float | None]]) -> None:
        self._db.executemany(
            "UPDATE nodes SET decay = %s WHERE id = %s", [(v, i) for i, v in changes]
        )

    def set_importance(self, changes: Sequence[tuple[str, float]]) -> None:
        self._db.executemany(
            "UPDATE nodes SET importance = %s WHERE id = %s", [(v, i) for i, v in changes]
        )

    def archive(self, node_ids: Sequence[str], at: str) -> list[str]:
        """Archive these nodes (those not archived yet, which are returned):
        their vectors go, so the vector index forgets them too."""
        done = [
            r[0]
            for r in self._db.execute(
                "UPDATE nodes SET archived_at = %s WHERE id = ANY(%s) "
                "AND archived_at IS NULL RETURNING id",
                (at, list(node_ids)),
            )
        ]
        if done:
            self._db.execute("DELETE FROM vectors WHERE node_id = ANY(%s)", (done,))
            self._db.execute("DELETE FROM vector_queue WHERE node_id = ANY(%s)", (done,))
        return _in_order(done, node_ids)

    def unarchive(self, node_ids: Sequence[str]) -> list[str]:
        """Restore archived nodes (returned); their vectors are queued again."""
        done = [
            r[0]
            for r in self._db.execute(
                "UPDATE nodes SET archived_at = NULL WHERE id = ANY(%s) "
                "AND archived_at IS NOT NULL RETURNING id",
                (list(node_ids),),
            )
        ]
        self._db.executemany(
            "INSERT INTO vector_queue VALUES (%s) ON CONFLICT DO NOTHING", [(i,) for i in done]
        )
        return _in_order(done, node_ids)

    def archived(self, node_ids: Sequence[str]) -> dict[str, str]:
        """{node id: archived at} for the archived ones among these."""
        found = self._db.execute(
            "SELECT id, archived_at FROM nodes WHERE id = ANY(%s) AND archived_at IS NOT NULL",
            (list(node_ids),),
        )
        return {i: a for i, a in found}

    def archived_nodes(self, scopes: Scopes, limit: int) -> list[tuple[Node, str]]:
        """Archived nodes, most recently archived first."""
        clause, args = "", list[Any]()
        if scopes is not None:
            clause, args = " AND n.scope = ANY(%s)", [list(scopes)]
        found = self._db.execute(
            f"SELECT {_N_COLUMNS}, n.archived_at FROM nodes n WHERE n.archived_at IS NOT NULL"
            f"{clause} ORDER BY n.archived_at DESC, n.seq LIMIT %s",
            (*args, limit),
        )
        return [(node(r[:-1]), r[-1]) for r in found]

    def put_run(self, row: RunRow) -> None:
        self._db.execute(
            "INSERT INTO consolidation_runs VALUES (%s, %s, %s, %s, %s, %s, %s)",
            run_values(row),
        )

    def get_run(self, run_id: str) -> RunRow | None:
        found = self._db.execute("SELECT * FROM consolidation_runs WHERE id = %s", (run_id,))
        return run_row(found[0]) if found else None

    def runs(self, limit: int) -> list[RunRow]:
        """Applied runs, newest first."""
        found = self._db.execute(
            "SELECT * FROM consolidation_runs ORDER BY applied_at DESC, id LIMIT %s", (limit,)
        )
        return [run_row(r) for r in found]

    def set_run_undone(self, run_id: str, at: str) -> None:
        self._db.execute("UPDATE consolidation_runs SET undone_at = %s WHERE id = %s", (at, run_id))

    def judgement(self, pair: str) -> tuple[str, str] | None:
        found = self._db.execute("SELECT verdict, reason FROM judgements WHERE pair = %s", (pair,))
        return (found[0][0], found[0][1]) if found else None

    def put_judgement(self, pair: str, verdict: str, reason: str, at: str) -> None:
        self._db.execute(
            "INSERT INTO judgements VALUES (%s, %s, %s, %s) ON CONFLICT (pair) DO UPDATE SET "
            "verdict = excluded.verdict, reason = excluded.reason, judged_at = excluded.judged_at",
            (pair, verdict, reason, at),
        )


def _in_order(found: list[str], asked: Sequence[str]) -> list[str]:
    """`found` in the order the caller asked for them."""
    position = {node_id: i for i, node_id in enumerate(asked)}
    return sorted(found, key=position.__getitem__)
