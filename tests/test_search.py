from __future__ import annotations

import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, Memory
from mnemotree.retrieval import stored
from mnemotree.retrieval.rank import Weights, combine
from mnemotree.retrieval.search import Hit
from tests.helpers import START, Clock, CountingEmbedder, assert_derived_text, mixed_scopes

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both


@pytest.fixture
def hmem(cmem: Memory) -> Memory:
    """A memory with the deterministic hashing embedder and a hand-moved clock."""
    return cmem


def ids(hits: list[Hit]) -> list[str]:
    return [h.node.id for h in hits]


def test_remembered_text_is_found_at_once_and_vectors_fill_in(hmem: Memory) -> None:
    tea = hmem.remember("Alice prefers green tea in the afternoon", scope="user:1")
    hmem.remember("The deploy pipeline runs on Fridays", scope="kb")
    assert hmem.pending_vectors() == 4  # two memories and the two spaces they created
    hits = hmem.search("green tea", record=False)
    assert ids(hits)[:1] == [tea.id]
    # The search scored what was pending by meaning too, but a read writes
    # nothing: flush (or closing) stores the vectors it made, without embedding again.
    assert hits[0].parts["semantic"] > 0 and hits[0].parts["keyword"] == 1.0
    assert hmem.pending_vectors() == 4
    assert hmem.flush() == 4 and hmem.pending_vectors() == 0
    assert hits[0].ancestry[0].context_type == "space"


def test_scopes_are_a_hard_boundary_for_hits_and_ancestry(hmem: Memory) -> None:
    with mixed_scopes(hmem, "kb"):
        shared = hmem.add("Team space about tea", scope="kb")
        private = hmem.append_child(shared.id, "Alice tea notes", scope="user:1")
        fact = hmem.append_child(private.id, "Alice drinks tea daily")
    summary = hmem.add_summary([fact.id], "Alice likes tea")
    found = hmem.search("tea", scopes=["kb"], record=False)
    assert ids(found) == [shared.id]
    mine = hmem.search("tea", scopes=["user:1"], record=False)
    assert {h.node.id for h in mine} == {private.id, summary.id}
    for hit in mine:
        assert all(a.scope == "user:1" for a in hit.ancestry)  # the kb root is not shown
    assert hmem.search("tea", scopes=["nobody"], record=False) == []
    assert hmem.search("tea", scopes=[], record=False) == []


def test_hits_under_a_returned_summary_are_folded_into_it(hmem: Memory) -> None:
    root = hmem.add("Kitchen log")
    a, b = hmem.append_many(root.id, ["bread dough rises overnight", "bread bakes at 230"])
    summary = hmem.add_summary([a.id, b.id], "bread: rise overnight, bake at 230")
    hits = hmem.search("bread", record=False)
    top = next(h for h in hits if h.node.id == summary.id)
    assert {c.node.id for c in top.covered} == {a.id, b.id}
    assert a.id not in ids(hits) and b.id not in ids(hits)
    assert [x.id for x in top.covered[0].ancestry] == [summary.id, root.id]


def test_a_summary_stands_where_its_best_covered_hit_ranked(hmem: Memory) -> None:
    root = hmem.add("Training log")
    best, other = hmem.append_many(
        root.id, ["new personal best at the 10k: 45 minutes", "stretching after easy runs"]
    )
    summary = hmem.add_summary([best.id, other.id], "10k training, runs and stretching this month")
    rival = hmem.append_child(root.id, "personal best ideas for a 10k")
    hmem.append_many(root.id, [f"a race entry note number {i}" for i in range(6)])
    hits = hmem.search("new personal best 10k", record=False, weights={"min_relevance": 0})
    mine = next(h for h in hits if h.node.id == summary.id)
    scores = {c.node.id: c.score for h in hits for c in (h, *h.covered)}
    assert scores[best.id] > scores[rival.id] > scores[summary.id]
    # The message outscored its rival: its group comes first, summary and all.
    assert [h.node.id for h in hits[:2]] == [summary.id, rival.id]
    assert best.id in {c.node.id for c in mine.covered}


def test_recency_importance_and_weights_with_a_frozen_clock(hmem: Memory, clock: Clock) -> None:
    old = hmem.remember("standup notes for the payments team")
    clock.now = START + timedelta(days=60)
    new = hmem.remember("standup notes for the payments team")
    hits = hmem.search("standup payments", record=False)
    assert ids(hits) == [new.id, old.id]
    assert hits[0].parts["recency"] == pytest.approx(1.0)
    assert hits[1].parts["recency"] == pytest.approx(2.718281828**-2, rel=1e-6)
    vip = hmem.remember("standup notes for the payments team", importance=1.0)
    clock.now += timedelta(days=90)
    ranked = hmem.search("standup payments", record=False, weights={"recency": 0.0})
    assert ids(ranked)[0] == vip.id
    with pytest.raises(InvalidInput, match="unknown weight 'magic'"):
        hmem.search("standup", weights={"magic": 1.0})
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(InvalidInput, match="must be a finite number >= 0"):
            hmem.search("standup", weights={"semantic": bad})


def test_accesses_feed_activation(hmem: Memory, clock: Clock) -> None:
    note = hmem.remember("quarterly planning notes")
    first = hmem.search("quarterly planning", weights={"access": 1.0})[0]
    assert first.node.id == note.id and first.parts["access"] == 0.0
    clock.now += timedelta(seconds=100)
    again = hmem.search("quarterly planning", weights={"access": 1.0}, record=False)[0]
    assert again.parts["access"] == pytest.approx(1 - 1 / (1 + 100**-0.5))
    clock.now += timedelta(seconds=100)  # the one access fades with time
    later = hmem.search("quarterly planning", record=False)[0].parts["access"]
    assert later == pytest.approx(1 - 1 / (1 + 200**-0.5)) and later < again.parts["access"]


def test_filters(hmem: Memory, clock: Clock) -> None:
    one = hmem.add("Project one")
    two = hmem.add("Project two")
    a = hmem.append_child(one.id, "budget review @finance", context_type="note")
    clock.now += timedelta(days=2)
    b = hmem.append_child(two.id, "budget review", context_type="decision")
    hmem.update(b.id, "budget review approved")
    assert ids(hmem.search("budget", roots=[one.id], record=False)) == [a.id]
    assert ids(hmem.search("budget", context_types=["decision"], record=False)) == [b.id]
    assert ids(hmem.search("budget", tags=["@Finance"], record=False)) == [a.id]
    assert ids(hmem.search("budget", since="2026-01-02", record=False)) == [b.id]
    assert ids(hmem.search("budget", until="2026-01-02", record=False)) == [a.id]
    with pytest.raises(InvalidInput, match="since must be an ISO-8601 time"):
        hmem.search("budget", since="yesterday")
    hmem.update(a.id, "budget review @finance, final")
    with pytest.raises(InvalidInput, match="importance must be a number from 0 to 1"):
        hmem.search("budget", min_importance=2)


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "*",
        "NEAR(a b)",
        "a AND b",
        "-x",
        "col:val",
        "^start",
        "' OR 1=1 --",
        "(((",
        "word " * 20_000,
        b"caf\xe9".decode("utf-8", "surrogateescape"),
        "💾",
    ],
)
def test_hostile_queries_never_break_search(hmem: Memory, query: str) -> None:
    hmem.remember("a word about NEAR and col:val with ^carets and 💾")
    hits = hmem.search(query, record=False)
    assert all(isinstance(h, Hit) for h in hits)


@pytest.mark.parametrize(("query", "limit"), [("", 10), ("   \n", 10), ("ok", 0)])
def test_empty_queries_and_bad_limits_are_user_errors(hmem: Memory, query: str, limit: int) -> None:
    with pytest.raises(InvalidInput):
        hmem.search(query, limit=limit)


WORDS = ["tea", "coffee", "budget", "deploy", "garden", "piano", "river", "atlas"]
SCOPES = ["kb", "user:1", "user:2", "admin"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.integers(0, 50),
            st.sampled_from(SCOPES),
            st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
            st.booleans(),
        ),
        min_size=1,
        max_size=25,
    ),
    st.lists(st.sampled_from(SCOPES), max_size=3),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
)
def test_no_search_returns_a_node_outside_the_callers_scopes(
    plan: list[tuple[int, str, list[str], bool]], allowed: list[str], query: list[str]
) -> None:
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "m.db", embedder="hashing", tokenizer="chars4") as mem,
    ):
        nodes = [mem.add("root " + " ".join(WORDS), scope="admin")]
        with mixed_scopes(mem, *SCOPES):
            for pick, scope, words, summarise in plan:
                parent = nodes[pick % len(nodes)]
                node = mem.append_child(parent.id, " ".join(words), scope=scope)
                nodes.append(node)
                if summarise:
                    nodes.append(mem.add_summary([node.id], "summary of " + " ".join(words)))
        for hit in mem.search(" ".join(query), scopes=allowed, limit=50, record=False):
            for shown in (hit, *hit.covered):
                assert shown.node.scope in allowed
                assert all(a.scope in allowed for a in shown.ancestry)


def test_the_default_embedder_finds_meaning_without_shared_words(db_path: Path) -> None:
    with Memory(db_path) as mem:
        pet = mem.remember("Our dog loves long walks in the park")
        mem.remember("The invoice is due at the end of the month")
        hits = mem.search("puppy exercise outdoors", record=False)
        assert ids(hits)[:1] == [pet.id]
        assert hits[0].parts["keyword"] == 0.0 and hits[0].parts["semantic"] > 0.2


def test_the_tree_lifts_neighbours_and_siblings_of_strong_matches(hmem: Memory) -> None:
    chat = hmem.add("Chat")
    session = hmem.append_child(chat.id, "Session 1")
    question, answer, _ = hmem.append_many(
        session.id,
        ["Where did you hike last weekend?", "Up the ridge trail, seven miles.", "Nice weather."],
    )
    hits = {h.node.id: h for h in hmem.search("hike last weekend", limit=10, record=False)}
    asked = hits[question.id].parts
    own = (0.4 + 0.3) * asked["match"] + 0.3 * asked["name"]
    assert own > 0
    # The answer shares no word with the query, but it follows the question: the
    # question's words are indexed beside it (at a lower weight) and its score
    # takes a part of the question's.
    assert answer.id in hits
    assert 0 < hits[answer.id].parts["keyword"] < asked["keyword"]
    assert hits[answer.id].parts["neighbours"] == pytest.approx(own)
    assert hits[answer.id].parts["parent"] == pytest.approx(own)  # best match under Session 1


def test_neighbour_words_follow_edits_moves_and_deletes(hmem: Memory) -> None:
    chat = hmem.add("Chat")
    question, answer = hmem.append_many(chat.id, ["Where did you hike?", "Up the ridge."])

    def keyword(node_id: str) -> float:
        hits = {h.node.id: h for h in hmem.search("hike", limit=10, record=False)}
        return hits[node_id].parts["keyword"] if node_id in hits else 0.0

    assert keyword(answer.id) > 0
    hmem.update(question.id, "Where did you swim?")
    assert keyword(answer.id) == 0.0
    hiking = hmem.insert_between(question.id, answer.id, "Did you hike?")
    assert keyword(answer.id) > 0
    other = hmem.add("Elsewhere")
    hmem.move(hiking.id, parent=other.id)
    assert keyword(answer.id) == 0.0
    back = hmem.append_child(chat.id, "Hike again soon?")
    assert keyword(answer.id) > 0
    hmem.delete(back.id)
    assert keyword(answer.id) == 0.0


def test_a_name_in_the_query_counts_for_nodes_with_that_name(hmem: Memory) -> None:
    root = hmem.add("Chat")
    alice = hmem.append_child(root.id, "I moved to Lisbon", context_name="Alice")
    bob = hmem.append_child(root.id, "I moved to Porto", context_name="Bob")
    hits = {h.node.id: h for h in hmem.search("where did Alice move", record=False)}
    assert hits[alice.id].parts["name"] == 1.0 and hits[bob.id].parts["name"] == 0.0
    assert hits[alice.id].score > hits[bob.id].score


def test_vectors_follow_updates_moves_deletes_and_a_new_model(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        root = mem.add("Notes")
        other = mem.add("Archive")
        a = mem.append_child(root.id, "sailing on the lake")
        b = mem.append_child(root.id, "baking sourdough bread")
        assert mem.flush() == 4 and mem.pending_vectors() == 0
        assert ids(mem.search("sailing lake", record=False))[:1] == [a.id]
        mem.update(a.id, "climbing granite walls")  # its vector is outdated now
        assert mem.pending_vectors() == 1
        assert ids(mem.search("climbing granite", record=False))[:1] == [a.id]
        assert ids(mem.search("sailing lake", record=False)) == []  # the old vector is gone
        mem.move(b.id, parent=other.id)  # a new root: the vector row must follow
        assert mem.pending_vectors() == 2  # a's new vector waits in memory for a flush
        assert ids(mem.search("sourdough", roots=[other.id], record=False)) == [b.id]
        assert mem.search("sourdough", roots=[root.id], record=False) == []
        mem.delete(b.id)
        assert mem.search("sourdough bread", record=False) == []
    with Memory(db_path, embedder="minilm") as mem:  # another model: everything re-queued
        assert mem.pending_vectors() == 3
        assert ids(mem.search("rock climbing", record=False))[:1] == [a.id]
        assert mem.pending_vectors() == 3  # made in the search, stored at close
    with Memory(db_path, embedder="minilm") as mem:
        assert mem.pending_vectors() == 0


def test_the_live_index_matches_a_fresh_one_after_changes(db_path: Path) -> None:
    with Memory(db_path, embedder="hashing") as live:
        a = live.remember("apple banana cherry")
        b = live.remember("kiwi lemon mango")
        live.search("apple", record=False)  # loads the index
        live.update(b.id, "kiwi mango papaya")  # replaces the newest vector
        live.delete(a.id)
        c = live.remember("what is it you were there")  # stopwords only: vectors alone
        # The root space, made in the first search; b (its text changed) and c.
        assert live.flush() == 3
        live.update(c.id, "what is it you were there", metadata={"k": 1})  # text unchanged
        assert live.pending_vectors() == 0  # metadata does not outdate a vector
        queries = ["kiwi mango papaya", "what is it you were there", "apple banana"]
        seen = [
            [(h.node.id, round(h.score, 6)) for h in live.search(q, record=False)] for q in queries
        ]
    with Memory(db_path, embedder="hashing") as fresh:
        again = [
            [(h.node.id, round(h.score, 6)) for h in fresh.search(q, record=False)] for q in queries
        ]
    assert seen == again
    assert seen[0][0][0] == b.id and seen[1][0][0] == c.id and seen[2] == []


def test_filters_keep_ancestry_and_selective_filters_still_find_vectors(hmem: Memory) -> None:
    doc = hmem.add("Travel plans")
    section = hmem.append_child(doc.id, "Flights")
    note = hmem.append_child(section.id, "Lisbon flight on Monday", context_type="note")
    hits = hmem.search("Lisbon flight", context_types=["note"], record=False)
    assert [a.id for a in hits[0].ancestry] == [section.id, doc.id]
    hmem.append_many(doc.id, [f"note {i} about Lisbon flight" for i in range(100)])
    only = hmem.append_child(doc.id, "what is it you were there", context_type="memory")
    # Common words only: it is found by meaning, once its vector is made (a
    # search leaves a queue of 100 to flush or the worker).
    hmem.flush()
    found = hmem.search("what is it you were there", context_types=["memory"], record=False)
    assert ids(found) == [only.id]
    assert note.id in ids(hmem.search("Lisbon flight Monday", record=False, limit=3))


def test_remember_recreates_a_deleted_space(hmem: Memory) -> None:
    first = hmem.remember("x marks the spot")
    hmem.delete(first.root_id)
    second = hmem.remember("y marks the spot")
    assert second.root_id != first.root_id and hmem.get(second.root_id).context_type == "space"


def test_default_spaces_are_containers_not_hits(hmem: Memory) -> None:
    tea = hmem.remember("Alice prefers green tea", scope="user:alice")
    hits = hmem.search("alice", record=False)
    assert ids(hits) == [tea.id]  # "Memories (user:alice)" matches the word, yet is no hit
    assert hits[0].ancestry[0].text == "Memories (user:alice)"
    root_hit = hmem.search("alice green tea", record=False)[0]
    assert root_hit.parts["parent"] > 0
    lone = hmem.add("alice in a root of her own")
    assert (
        next(
            h for h in hmem.search("alice", record=False, min_relevance=0) if h.node.id == lone.id
        ).parts["parent"]
        == 0.0
    )


def test_a_time_named_in_the_query_lifts_what_was_made_then(hmem: Memory, clock: Clock) -> None:
    clock.now = datetime(2023, 5, 3, 12, tzinfo=timezone.utc)
    may = hmem.remember("went hiking with the team")
    clock.now = datetime(2023, 8, 9, 12, tzinfo=timezone.utc)
    august = hmem.remember("went hiking with the team again")
    clock.now = datetime(2023, 9, 1, tzinfo=timezone.utc)
    hits = {h.node.id: h for h in hmem.search("hiking in May 2023", record=False)}
    assert hits[may.id].parts["time"] == 1.0 and hits[august.id].parts["time"] == 0.0
    assert hits[may.id].score > hits[august.id].score
    plain = {h.node.id: h for h in hmem.search("hiking with the team", record=False)}
    assert plain[may.id].parts["time"] == 0.0


def test_every_score_is_its_own_match_scaled_by_the_tree_and_the_priors(hmem: Memory) -> None:
    chat = hmem.add("Chat")
    hmem.append_many(chat.id, ["Where did you hike?", "Up the ridge.", "Nice weather."])
    hmem.remember("hiking boots need new laces", importance=0.9)
    w = Weights(neighbours=0.7, time=0.2, access=0.4)
    hits = hmem.search("hike ridge", weights={"neighbours": 0.7, "time": 0.2, "access": 0.4})
    assert hits
    for hit in hits:
        # Meaning and words count once, fused per query ("match"); the raw
        # cosine and scaled BM25 are shown beside it. A name and a role named
        # by pronoun are one piece of evidence. The tree's evidence scales
        # that own match; a named time adds to it; the priors scale the sum.
        p = hit.parts
        own = (w.semantic + w.keyword) * p["match"] + w.name * max(p["name"], p["speaker"])
        supported = own * (1 + w.neighbours * p["neighbours"] + w.parent * p["parent"])
        prior = (
            w.recency * p["recency"]
            + w.importance * p["importance"]
            + w.access * p["access"]
            + w.usage * p["usage"]
        )
        assert hit.score == pytest.approx((supported + w.time * p["time"]) * (1 + prior))


@settings(max_examples=200, deadline=None)
@given(
    own=st.floats(0.0, 1.0),
    neighbours=st.floats(0.0, 1.0),
    parent=st.floats(0.0, 1.0),
    recency=st.floats(0.0, 1.0),
    importance=st.floats(0.0, 1.0),
    usage=st.floats(-1.0, 1.0),
)
def test_no_prior_or_neighbour_makes_a_node_without_a_match_score(
    own: float,
    neighbours: float,
    parent: float,
    recency: float,
    importance: float,
    usage: float,
) -> None:
    parts = {
        "neighbours": neighbours,
        "parent": parent,
        "recency": recency,
        "importance": importance,
        "usage": usage,
    }
    score = combine(own, parts, Weights())
    assert score >= 0.0
    if own == 0.0:
        assert score == 0.0  # the tree and the priors scale a match, never make one
    # More of the node's own match never lowers its score.
    assert combine(min(1.0, own + 0.1), parts, Weights()) >= score


def test_a_session_mate_of_a_strong_match_stays_below_a_weaker_own_match(hmem: Memory) -> None:
    """The tree's evidence supports a match; it does not replace one. Added,
    the parent's part lifted a session's small talk above an answer elsewhere."""
    loud = hmem.add("Session 1")
    hmem.append_many(
        loud.id,
        [
            "Sourdough starter feeding schedule, flour and water ratios",
            "Thanks, talk tomorrow",
            "ok bye",
        ],
    )
    quiet = hmem.add("Session 2")
    hmem.append_many(quiet.id, ["I keep my sourdough in the fridge between bakes", "Cool"])
    hits = hmem.search("sourdough starter feeding", record=False, min_relevance=0)
    order = [h.node.text for h in hits]
    assert order.index("I keep my sourdough in the fridge between bakes") < order.index("ok bye")


def test_a_node_is_found_by_its_ancestors_words(hmem: Memory) -> None:
    doc = hmem.add("Employee handbook")
    section = hmem.append_child(doc.id, "Maternity leave policy")
    chunk = hmem.append_child(section.id, "Sixteen weeks, paid in full, for either parent.")
    other = hmem.append_child(doc.id, "Sixteen desks on the third floor.")
    hits = {h.node.id: h for h in hmem.search("maternity leave weeks", limit=10, record=False)}
    assert hits[chunk.id].parts["keyword"] > 0
    assert other.id not in hits or hits[other.id].score < hits[chunk.id].score
    # Renaming the section or moving the chunk away changes what it is found by.
    hmem.update(section.id, "Holidays")
    hits = {h.node.id: h for h in hmem.search("maternity", limit=10, record=False)}
    assert chunk.id not in hits or hits[chunk.id].parts["keyword"] == 0.0
    hmem.update(section.id, "Maternity leave policy")
    hmem.move(chunk.id, parent=doc.id)
    hits = {h.node.id: h for h in hmem.search("maternity", limit=10, record=False)}
    heading = hits[section.id].parts["keyword"]
    assert heading > 0
    assert chunk.id not in hits or hits[chunk.id].parts["keyword"] < heading


@pytest.mark.parametrize("limit", [0, -3, 10_001, 2**62])
def test_a_limit_out_of_range_names_the_range(hmem: Memory, limit: int) -> None:
    hmem.remember("tea")
    with pytest.raises(InvalidInput, match="between 1 and 10000"):
        hmem.search("tea", limit=limit)


def test_indexed_neighbour_and_ancestor_text_stays_inside_its_scope(hmem: Memory) -> None:
    with mixed_scopes(hmem, "pub", "secret"):
        team = hmem.add("Team notes", scope="pub")
        hmem.append_child(team.id, "The acquisition target is Zorblax Corp", scope="secret")
        lunch = hmem.append_child(team.id, "lunch was fine", scope="pub")
        plan = hmem.add("Project Quuxfire layoffs plan", scope="secret")
        agenda = hmem.append_child(plan.id, "agenda item one", scope="pub")
    for word in ("Zorblax", "Quuxfire"):
        hits = hmem.search(word, scopes=["pub"], record=False)
        assert all(h.parts["keyword"] == 0.0 for h in hits), word
    assert_derived_text(hmem)
    # Moving text into the scope makes it count again.
    hmem.update(plan.id, "Project Quuxfire layoffs plan", scope="pub")
    by_id = {h.node.id: h for h in hmem.search("Quuxfire", scopes=["pub"], record=False)}
    assert by_id[agenda.id].parts["keyword"] > 0
    assert lunch.id not in by_id or by_id[lunch.id].parts["keyword"] == 0.0
    assert_derived_text(hmem)


def test_neighbour_text_survives_renumbering_during_moves(hmem: Memory) -> None:
    root = hmem.add("root")
    for text in "aa bb cc dd ee ff".split():
        hmem.append_child(root.id, text)
    for i in range(80):  # moves to one spot exhaust the gap and force renumbering
        children = hmem.children(root.id)
        hmem.move(children[i % 3 + 3].id, after=children[0].id)
        assert_derived_text(hmem)


def test_a_possessive_names_the_speaker(hmem: Memory) -> None:
    root = hmem.add("Chat")
    alice = hmem.append_child(root.id, "I work as a nurse", context_name="Alice")
    bob = hmem.append_child(root.id, "I work as a pilot", context_name="Bob")
    hits = {h.node.id: h for h in hmem.search("What is Alice's job?", record=False)}
    assert hits[alice.id].parts["name"] == 1.0 and hits[bob.id].parts["name"] == 0.0


def test_a_speaker_name_is_not_a_topic_but_a_repeated_heading_is(hmem: Memory) -> None:
    chat = hmem.add("Chat")
    for text in ("I paint on weekends", "I like lakes", "I ran today"):
        hmem.append_child(chat.id, text, context_type="message", context_name="Caroline")
    thanks = hmem.append_child(
        chat.id, "Thanks, Caroline", context_type="message", context_name="Mel"
    )
    hits = {h.node.id: h for h in hmem.search("What did Caroline paint?", record=False)}
    assert thanks.id not in hits or hits[thanks.id].parts["keyword"] == 0.0
    guide = hmem.add("Guide")
    chunks = [
        hmem.append_child(guide.id, text, context_type="chunk", context_name="Install")
        for text in ("Run the installer", "Install with pip", "Install from source")
    ]
    found = {h.node.id: h for h in hmem.search("install steps", record=False)}
    assert found[chunks[1].id].parts["keyword"] > 0.0


def test_a_few_pending_nodes_ride_in_the_query_batch(db_path: Path) -> None:
    embedder = CountingEmbedder()
    with Memory(db_path, embedder=embedder) as mem:
        mem.remember("Backups run nightly")
        mem.remember("Deploys on Fridays")
        pending = mem.pending_vectors()  # the two memories and their scope's space
        assert 2 <= pending <= 16
        embedder.batches.clear()
        hits = mem.search("when do backups run", record=False)
        # The pending nodes and the query in one call; what was pending is found.
        assert embedder.batches == [pending + 1]
        assert hits[0].node.text == "Backups run nightly"
        assert mem.pending_vectors() == pending  # a search writes nothing
        mem.search("when do backups run", record=False)
        assert embedder.batches == [pending + 1]  # their vectors and the query's are kept
        assert mem.flush() == pending and embedder.batches == [pending + 1]
        assert mem.pending_vectors() == 0


def test_forgetting_query_vectors_keeps_the_background_samples(
    db_path: Path, store_kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A benchmark drops the cached query vectors to time each question as a
    new one; a purge drops the kept samples of stored vectors too."""
    monkeypatch.setattr(stored, "SAMPLE_SECONDS", 3600.0)  # a slow run keeps its sample
    embedder = CountingEmbedder()
    query = "when do backups run"
    with Memory(db_path, embedder=embedder) as mem:
        mem.add("Backups run nightly")
        mem.flush()
        mem.search(query, record=False)
        embedder.texts.clear()
        mem.search(query, record=False)
        assert embedder.texts[query] == 0  # the cached vector

        def samples() -> dict[object, object]:  # Postgres keeps them (a private cache)
            return dict(getattr(mem.retriever.index, "_samples", {}))

        kept = samples()
        assert bool(kept) == (store_kind == "postgres")
        mem.retriever.forget_query_vectors()
        mem.search(query, record=False)
        assert embedder.texts[query] == 1
        now = samples()  # the very sample objects: none was taken again
        assert now.keys() == kept.keys() and all(now[k] is kept[k] for k in kept)
        mem.retriever.forget_queries()
        assert not samples()
        mem.search(query, record=False)
        assert embedder.texts[query] == 2
