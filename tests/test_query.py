from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mnemotree import Memory, NewNode
from mnemotree.model import NodeFilter
from mnemotree.retrieval.query import MAX_TERMS, lexical_query, terms_of
from mnemotree.store.sqlite.search import match_any

_FTS = sqlite3.connect(":memory:")
_FTS.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61')")
_FTS.execute("INSERT INTO t VALUES ('Caroline went to the LGBTQ support group')")

hostile = st.one_of(
    st.text(max_size=300),
    st.lists(
        st.sampled_from(
            [
                '"',
                "*",
                "NEAR",
                "AND",
                "OR",
                "NOT",
                "-",
                ":",
                "^",
                "(",
                ")",
                "{",
                "}",
                "col:",
                "NEAR(a b)",
                "'",
                "’",
                "+",
                "\\",
                "group",
                "CAROLINE",
            ]
        ),
        max_size=30,
    ).map(" ".join),
)


@settings(max_examples=400, deadline=None)
@given(hostile)
def test_no_query_text_can_break_match(text: str) -> None:
    query = lexical_query(text)
    if query:
        _FTS.execute("SELECT rowid FROM t WHERE t MATCH ?", (match_any(query.terms),)).fetchall()
    assert len(query.terms) <= MAX_TERMS


def test_stopwords_and_operators_are_plain_terms() -> None:
    query = lexical_query('When did Caroline go to the "LGBTQ" support-group? NEAR AND')
    assert query.terms == ("caroline", "go", "lgbtq", "support", "group", "near")
    rows = _FTS.execute("SELECT rowid FROM t WHERE t MATCH ?", (match_any(query.terms),)).fetchall()
    assert rows == [(1,)]
    assert not lexical_query("   the of and ?! ")
    assert len(lexical_query("word " * 50_000 + "x").terms) == 1
    assert len(lexical_query(" ".join(f"w{i}" for i in range(1000))).terms) == MAX_TERMS


def test_very_common_terms_leave_the_query() -> None:
    from mnemotree.retrieval.query import (
        COMMON_MIN_DOCS,
        ROW_BUDGET,
        LexicalQuery,
        without_common,
    )

    query = LexicalQuery(("meeting", "alice", "budget"))
    counts = {"meeting": 900_000, "alice": 40, "budget": ROW_BUDGET - 100}
    assert without_common(query, counts, 1_000_000).terms == ("alice", "budget")
    # Small corpora keep everything: no term passes the absolute floor.
    assert without_common(query, {"meeting": COMMON_MIN_DOCS}, 3_000).terms == query.terms
    # All common: no lexical part at all (meaning still answers the query).
    everywhere = {"meeting": 900_000, "alice": 500_000, "budget": 700_000}
    assert not without_common(query, everywhere, 1_000_000)
    few = {"meeting": 600_000, "alice": ROW_BUDGET // 2 - 100, "budget": ROW_BUDGET // 2}
    assert without_common(query, few, 100_000_000).terms == ("alice", "budget")


def test_kept_terms_fit_the_row_budget_rarest_first() -> None:
    from mnemotree.retrieval.query import ROW_BUDGET, LexicalQuery, without_common

    query = LexicalQuery(("red", "green", "blue", "teal"))
    counts = {"red": ROW_BUDGET // 2, "green": 10, "blue": ROW_BUDGET // 2, "teal": 5}
    # teal + green + red fit; blue would pass the budget.
    assert without_common(query, counts, 10_000_000).terms == ("red", "green", "teal")
    # One term is always kept, however many rows it matches.
    assert without_common(LexicalQuery(("red",)), {"red": 10 * ROW_BUDGET}, 10**9).terms == ("red",)


def test_the_store_counts_documents_per_stemmed_term(tmp_path: Path) -> None:
    from mnemotree import Memory

    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        root = mem.add("Runners")
        mem.append_many(root.id, ["running fast", "she runs daily", "walking slowly", "x", "y"])
        counts = mem.store.term_documents(["running", "walking", "swimming"])
        total = mem.store.document_total()
        # porter: run/runs; a sibling's text counts too (it is indexed beside the node),
        # so "walking" is in its own row and in the rows next to it.
        assert counts == {"running": 3, "walking": 3, "swimming": 0}
        assert total == 6
        mem.append_child(root.id, "Walker", context_name="walker")
        names = mem.store.term_documents(["walking", "walker", "runs"], in_names=True)
        assert names == {"walking": 0, "walker": 1, "runs": 0}  # walk != walker (porter)


def test_counting_stops_at_the_cap_and_reads_one_column(tmp_path: Path) -> None:
    from mnemotree import Memory
    from mnemotree.model import NewNode

    with Memory(tmp_path / "m.db", embedder="hashing") as mem:
        root = mem.add("Log")
        mem.append_many(root.id, [NewNode(f"tea time {i}", context_name="Tea") for i in range(50)])
        counts = mem.store.term_documents(["tea", 'he said "no"'], cap=10)
        assert counts == {"tea": 10, 'he said "no"': 0}
        names = mem.store.term_documents(["tea", "time"], in_names=True)
        assert names == {"tea": 50, "time": 0}


def test_a_possessive_is_its_owner() -> None:
    assert terms_of("Caroline's dog and Jon’s cat") == ["caroline", "dog", "and", "jon", "cat"]
    assert terms_of("it's 's") == ["it", "s"]
    assert lexical_query("What is Melanie's favourite book?").terms == (
        "melanie",
        "favourite",
        "book",
    )


def test_fts_drives_every_filtered_query(db_path: Path) -> None:
    """Scope and type filters must never drive a lookup by ids or FTS rows:
    SQLite once walked every message and ran MATCH per row (240 ms at 5k)."""
    with Memory(db_path, embedder="hashing") as mem:
        chat = mem.add("Chat", scope="s")
        mem.append_many(
            chat.id,
            [
                NewNode(
                    f"turn {i} about cats",
                    context_type="message",
                    context_name="Caroline" if i % 2 else "Mel",
                )
                for i in range(300)
            ],
        )
        seen: list[str] = []
        db = mem.store._db  # type: ignore[attr-defined]
        db.set_trace_callback(seen.append)
        mem.search("What did Caroline say about cats?", scopes=["s"], record=False)
        db.set_trace_callback(None)
        queries = [q for q in seen if q.lstrip().upper().startswith("SELECT") and "nodes" in q]
        assert any("nodes_fts" in q for q in queries)
        for query in queries:
            plan = " | ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN " + query))
            assert "nodes_by_type" not in plan and "nodes_by_scope" not in plan, (query, plan)


def test_a_selective_filter_finds_the_same_words_by_either_path(db_path: Path) -> None:
    # One small scope among a big one: the index's best rows are all the big
    # scope's, so the first lexical search falls back to the joined query and
    # later ones go to it at once. Both answers must be the exact ones.
    with Memory(db_path, embedder="hashing") as mem:
        big = mem.add("Big", scope="big")
        mem.append_many(big.id, [NewNode(f"cats and more cats, note {i}") for i in range(400)])
        small = mem.add("Small", scope="small")
        mine = [mem.append_child(small.id, f"a note on cats, {i}").id for i in range(12)]
        store, match = mem.store, ["cats"]
        where = NodeFilter(scopes=("small",))
        seen: list[str] = []
        db = store._db  # type: ignore[attr-defined]
        db.set_trace_callback(seen.append)
        first = store.lexical(match, where, 10)
        second = store.lexical(match, where, 10)
        db.set_trace_callback(None)
        assert [i for i, _ in first] == [i for i, _ in second]
        assert len(first) == 10 and {i for i, _ in first} <= set(mine)
        assert sum("CROSS JOIN" in q for q in seen) == 2  # the fallback, then directly
        assert sum("FROM nodes_fts WHERE" in q for q in seen) == 1
        # A filter that keeps most rows still filters afterwards, exactly.
        wide = store.lexical(match, NodeFilter(scopes=("big", "small")), 10)
        assert len(wide) == 10


def test_named_terms_leave_a_query_s_meaning_and_nothing_else_does() -> None:
    from mnemotree.retrieval.query import without_terms

    melanie = frozenset({"melanie"})
    asked = "What does Melanie do to destress?"
    assert without_terms(asked, melanie) == "What does do to destress?"
    assert without_terms("Is MELANIE's dog ok?", melanie) == "Is dog ok?"
    assert without_terms("Melanie", melanie) == "Melanie"  # nothing else: left as asked
    assert without_terms("Melanie?!", melanie) == "Melanie?!"
    assert without_terms("Melanies plan", melanie) == "Melanies plan"  # another word
    assert without_terms("What does Melanie do?", frozenset()) == "What does Melanie do?"
