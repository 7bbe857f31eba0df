from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mnemotree.retrieval.query import MAX_TERMS, lexical_query

_FTS = sqlite3.connect(":memory:")
_FTS.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61')")
_FTS.execute("INSERT INTO t VALUES ('Caroline went to the LGBTQ support group')")

hostile = st.one_of(
    st.text(max_size=300),
    st.lists(
        st.sampled_from(['"', "*", "NEAR", "AND", "OR", "NOT", "-", ":", "^", "(", ")", "{",
                         "}", "col:", "NEAR(a b)", "'", "’", "+", "\\", "group", "CAROLINE"]),
        max_size=30,
    ).map(" ".join),
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(hostile)
def test_no_query_text_can_break_match(text: str) -> None:
    query = lexical_query(text)
    if query:
        _FTS.execute("SELECT rowid FROM t WHERE t MATCH ?", (query.match,)).fetchall()
    assert len(query.terms) <= MAX_TERMS


def test_stopwords_and_operators_are_plain_terms() -> None:
    query = lexical_query('When did Caroline go to the "LGBTQ" support-group? NEAR AND')
    assert query.terms == ("caroline", "go", "lgbtq", "support", "group", "near")
    rows = _FTS.execute("SELECT rowid FROM t WHERE t MATCH ?", (query.match,)).fetchall()
    assert rows == [(1,)]
    assert not lexical_query("   the of and ?! ")
    assert len(lexical_query("word " * 50_000 + "x").terms) == 1
    assert len(lexical_query(" ".join(f"w{i}" for i in range(1000))).terms) == MAX_TERMS


def test_very_common_terms_leave_the_query() -> None:
    from mnemotree.retrieval.query import COMMON_MIN_DOCS, LexicalQuery, without_common

    query = LexicalQuery(("meeting", "alice", "budget"))
    counts = {"meeting": 900_000, "alice": 40, "budget": 3_000}
    assert without_common(query, counts, 1_000_000).terms == ("alice", "budget")
    # Small corpora keep everything: no term passes the absolute floor.
    assert without_common(query, {"meeting": COMMON_MIN_DOCS}, 3_000).terms == query.terms
    # All common: the rarest two stay, in query order.
    everywhere = {"meeting": 900_000, "alice": 500_000, "budget": 700_000}
    assert without_common(query, everywhere, 1_000_000).terms == ("alice", "budget")


def test_the_store_counts_documents_per_stemmed_term(tmp_path: Path) -> None:
    from mnemotree import Memory

    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        root = mem.add("Runners")
        mem.append_many(root.id, ["running fast", "she runs daily", "walking slowly"])
        counts, total = mem.store.term_documents(["running", "walking", "swimming"])
        assert counts == {"running": 2, "walking": 1, "swimming": 0}  # porter: run/runs
        assert total == 4
