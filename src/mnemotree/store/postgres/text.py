"""The Postgres store's text index: a weighted tsvector over each node's text,
name, neighbours' text and breadcrumb. Terms are passed as values to
`plainto_tsquery`, so no input reaches the query language as syntax."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from ...errors import InvalidInput
from ...model import Node, NodeFilter
from .connections import Connections
from .filters import filter_sql
from .rows import COLUMNS, node

_N_COLUMNS = ", ".join("n." + c.strip() for c in COLUMNS.split(","))


_COUNTS_KEPT = 4_096  # terms whose document counts are kept


class TextQueries:
    """Mixed into PostgresStore."""

    _db: Connections
    _mean_words_at: tuple[int, float] = (0, 1.0)  # (document total, mean words) when counted
    _term_counts: tuple[int, dict[str, int]] = (0, {})  # (document total, {term: nodes})

    def lexical(
        self, terms: Sequence[str], where: NodeFilter, limit: int
    ) -> list[tuple[str, float]]:
        """(node id, relevance > 0) of nodes matching any of `terms`, best BM25
        first: FTS5's formula (k1 1.2, b 0.75; a term's frequency weighted by
        the part of the node it is in, the length counted over all parts), so
        a search ranks words alike on both stores. A term's document count
        is over every node (as FTS5's), so a filter never changes a score."""
        if isinstance(terms, str):  # a str is a Sequence[str] of letters
            raise InvalidInput("lexical() takes a list of terms, not one string", terms)
        if not terms:
            return []
        clause, filters = filter_sql(where, "n")
        total = max(1, self.document_total())
        counts = self._counts(terms, total)
        # A term's frequency, weighted by where it is: ts_rank_cd of a
        # one-term query sums its occurrences' weights (breadcrumb, neighbours,
        # name, text), which is exactly that. Each (node, term) is scored as it
        # is read, so only narrow rows are grouped, never the tsvectors.
        found = self._db.execute(
            "WITH t AS (SELECT q, greatest(1e-6, ln((%s::float8 - max(df) + 0.5) "
            "/ (max(df) + 0.5))) AS idf FROM unnest(%s::text[], %s::int[]) AS u(term, df), "
            "plainto_tsquery('english', u.term) AS q WHERE numnode(q) > 0 GROUP BY q), "
            "s AS MATERIALIZED (SELECT n.id, n.seq, n.word_total, t.idf, "
            "ts_rank_cd('{0.2, 0.4, 0.5, 1.0}', n.words, t.q, 0) AS tf "
            f"FROM t JOIN nodes n ON n.words @@ t.q WHERE TRUE{clause}) "
            "SELECT id, sum(idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * word_total "
            "/ %s::float8))) AS score FROM s GROUP BY id, seq ORDER BY score DESC, seq LIMIT %s",
            (
                total,
                list(terms),
                [counts[t] for t in terms],
                *filters,
                self._mean_words(total),
                limit,
            ),
        )
        return [(i, float(r)) for i, r in found if r > 0]

    def _counts(self, terms: Sequence[str], total: int, cap: int | None = None) -> dict[str, int]:
        """How many nodes hold each term (BM25's document frequency), at most
        `cap`: kept from earlier searches, found for the others. A count
        below its cap is the whole count, kept for BM25 too."""
        cache = self._known_counts(total)
        unknown = [t for t in dict.fromkeys(terms) if t not in cache]
        found = self._document_counts(unknown, total, cap) if unknown else {}
        self._keep_counts(cache, found, cap)
        capped = cap if cap is not None else sys.maxsize
        return {t: min(cache[t], capped) if t in cache else found[t] for t in terms}

    def _known_counts(self, total: int) -> dict[str, int]:
        """The document counts known, kept until the collection grows 5%:
        finding one costs up to milliseconds a term, and the counts only
        matter to within a few percent."""
        known, cache = self._term_counts
        if not known <= total <= known * 1.05 or known == 0:
            cache = {}
            self._term_counts = (total, cache)
        return cache

    @staticmethod
    def _keep_counts(cache: dict[str, int], found: dict[str, int], cap: int | None) -> None:
        """Keep the counts of `found` that are whole (below the cap they stopped at)."""
        cache.update({t: n for t, n in found.items() if cap is None or n < cap})
        if len(cache) > _COUNTS_KEPT:
            for stale in list(cache)[: len(cache) - _COUNTS_KEPT]:
                del cache[stale]

    def _mean_words(self, total: int) -> float:
        """The mean node length in words (BM25's average), counted again once
        the collection has grown 5% since (it moves slowly; counting reads
        every row)."""
        known, mean = self._mean_words_at
        if not known <= total <= known * 1.05 or known == 0:
            ((found,),) = self._db.execute("SELECT coalesce(avg(word_total), 1) FROM nodes")
            mean = max(1.0, float(found))
            self._mean_words_at = (total, mean)
        return mean

    def term_documents(
        self,
        terms: Sequence[str],
        *,
        in_names: bool = False,
        cap: int | None = None,
        context_type: str | None = None,
    ) -> dict[str, int]:
        """{term: nodes matching it} (in names only; at most `cap`; of one type)."""
        if in_names or context_type is not None:
            column = "name_words" if in_names else "words"
            return self._count_terms(terms, column, cap, context_type)
        # Counts over all text are BM25's document counts too.
        return self._counts(terms, self.document_total(), cap)

    def _document_counts(
        self, terms: Sequence[str], total: int, cap: int | None = None
    ) -> dict[str, int]:
        """{term: nodes holding it} (at most `cap`). A term among the most
        common elements of the text index is estimated from the planner's
        statistics (its share of rows, refreshed by ANALYZE), not counted:
        counting a word in a tenth of a million rows reads them (~100 ms),
        and BM25 needs its count only to within a few percent. Rarer terms
        are counted exactly, which is cheap for them. The statistics' array
        is cast and each term's share found once (MATERIALIZED): inlined,
        both ran again per term and per use, ~0.7 ms a term at 100k."""
        found = self._db.execute(
            "WITH s AS MATERIALIZED (SELECT most_common_elems::text::text[] AS e, "
            "most_common_elem_freqs AS f FROM pg_stats WHERE schemaname = current_schema() "
            "AND tablename = 'nodes' AND attname = 'words'), "
            "x AS (SELECT u.term, tsvector_to_array(to_tsvector('english', u.term)) AS lex "
            "FROM unnest(%s::text[]) AS u(term)), "
            "y AS MATERIALIZED (SELECT x.term, x.lex, (SELECT min(s.f[array_position(s.e, l)]) "
            "FROM s, unnest(x.lex) AS l HAVING bool_and(array_position(s.e, l) IS NOT NULL)) "
            "AS share FROM x) "
            "SELECT y.term, y.share, CASE WHEN cardinality(y.lex) = 0 THEN 0 "
            "WHEN y.share IS NULL THEN (SELECT count(*) FROM (SELECT 1 FROM nodes "
            "WHERE words @@ plainto_tsquery('english', y.term) LIMIT %s) AS hits) END FROM y",
            (list(dict.fromkeys(terms)), cap),
        )
        counts: dict[str, int] = {}
        for term, share, counted in found:
            estimate = round(float(share) * total) if counted is None else int(counted)
            counts[term] = estimate if cap is None else min(estimate, cap)
        return counts

    def _count_terms(
        self,
        terms: Sequence[str],
        column: str,
        cap: int | None = None,
        context_type: str | None = None,
    ) -> dict[str, int]:
        """{term: nodes whose `column` matches it, counted up to `cap`}, in one statement."""
        typed = " AND context_type = %s" if context_type is not None else ""
        limit = " LIMIT %s" if cap is not None else ""
        args: list[Any] = [a for a in (context_type, cap) if a is not None]
        found = self._db.execute(
            f"SELECT u.term, (SELECT count(*) FROM (SELECT 1 FROM nodes WHERE {column} @@ "
            f"plainto_tsquery('english', u.term){typed}{limit}) AS hits) "
            "FROM unnest(%s::text[]) AS u(term)",
            (*args, list(dict.fromkeys(terms))),
        )
        return {t: int(n) for t, n in found}

    def document_total(self) -> int:
        """About how many nodes there are (the highest row number: fast, never low)."""
        ((total,),) = self._db.execute("SELECT coalesce(max(seq), 0) FROM nodes")
        return int(total)

    def visible(self, node_ids: Sequence[str], where: NodeFilter) -> dict[str, Node]:
        """The nodes among `node_ids` that pass the filter (scopes included)."""
        clause, args = filter_sql(where, "n")
        found = self._db.execute(
            f"SELECT {_N_COLUMNS} FROM nodes n WHERE n.id = ANY(%s){clause}",
            (list(node_ids), *args),
        )
        return {r[0]: node(r) for r in found}

    def ancestor_links(self, node_ids: Sequence[str]) -> dict[str, str | None]:
        """{ancestor id: its parent id} for every ancestor of these nodes."""
        found = self._db.execute(
            "WITH RECURSIVE up(id) AS ("
            " SELECT parent_id FROM nodes WHERE id = ANY(%s) AND parent_id IS NOT NULL"
            " UNION SELECT n.parent_id FROM nodes n JOIN up ON n.id = up.id"
            " WHERE n.parent_id IS NOT NULL)"
            " SELECT n.id, n.parent_id FROM nodes n WHERE n.id IN (SELECT id FROM up)",
            (list(node_ids),),
        )
        return {i: p for i, p in found}

    def adjacent(self, node_ids: Sequence[str]) -> list[tuple[str, str | None, str | None]]:
        """(id, previous sibling id, next sibling id) for each node."""
        found = self._db.execute(
            "SELECT n.id,"
            " (SELECT s.id FROM nodes s WHERE s.parent_id = n.parent_id"
            "  AND s.order_key < n.order_key ORDER BY s.order_key DESC LIMIT 1),"
            " (SELECT s.id FROM nodes s WHERE s.parent_id = n.parent_id"
            "  AND s.order_key > n.order_key ORDER BY s.order_key LIMIT 1)"
            " FROM nodes n WHERE n.id = ANY(%s) AND n.parent_id IS NOT NULL",
            (list(node_ids),),
        )
        order = {node_id: i for i, node_id in enumerate(node_ids)}
        return sorted(((i, b, a) for i, b, a in found), key=lambda r: order[r[0]])

    def _beside(self, node_ids: Sequence[str]) -> set[str]:
        """Siblings whose neighbour text may hold these nodes' text: the adjacent
        ones, and any holding the same order key (during a batched rewrite)."""
        found = {other for row in self.adjacent(node_ids) for other in row[1:] if other}
        found.update(
            r[0]
            for r in self._db.execute(
                "SELECT s.id FROM nodes d JOIN nodes s ON s.parent_id = d.parent_id "
                "AND s.order_key = d.order_key AND s.id <> d.id WHERE d.id = ANY(%s)",
                (list(node_ids),),
            )
        )
        return found
