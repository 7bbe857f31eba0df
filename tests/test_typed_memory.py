"""Typed long-term memories (the tiered- and living-memory designs): types and their importances,
fields, structured facts, validity and time travel, relations, decay,
episodes, patterns and workflows with their levels, narrative arcs, scopes
and the CLI."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, Memory, NotFound
from mnemotree.store import RelationRow
from mnemotree.timeutil import to_iso
from tests.cli_runner import run_cli
from tests.helpers import START, Clock

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both

DAY = timedelta(days=1)

TYPE_IMPORTANCE = {
    "fact": 0.5,
    "decision": 0.7,
    "preference": 0.6,
    "entity": 0.5,
    "procedure": 0.5,
    "constraint": 0.6,
    "goal": 0.8,
}


def iso(day: float) -> str:
    """The canonical ISO text of START + `day` days."""
    return to_iso(START + day * DAY)


def node_count(memory: Memory) -> int:
    return memory.stats().nodes


def listed(memory: Memory, **options: object) -> set[str]:
    return {m.id for m in memory.typed.memories(**options)}  # type: ignore[arg-type]


def hit_ids(memory: Memory, query: str, **options: object) -> set[str]:
    hits = memory.search(query, limit=50, record=False, **options)  # type: ignore[arg-type]
    return {h.node.id for h in hits}


# -- 1. types and importances -------------------------------------------------------


@pytest.mark.parametrize(("kind", "importance"), sorted(TYPE_IMPORTANCE.items()))
def test_each_type_gets_its_default_importance(
    memory: Memory, kind: str, importance: float
) -> None:
    node = memory.remember(f"a {kind} worth keeping", type=kind)
    assert node.context_type == kind
    assert node.importance == importance
    assert memory.get(node.id).importance == importance
    [shown] = memory.typed.memories(types=[kind])
    assert shown.type == kind and shown.to_dict()["importance"] == importance


def test_an_explicit_importance_wins_over_the_types(memory: Memory) -> None:
    goal = memory.remember("ship v1", type="goal", importance=0.1)
    fact = memory.remember("sky is blue", type="fact", importance=1.0)
    assert (goal.importance, fact.importance) == (0.1, 1.0)
    with pytest.raises(InvalidInput):
        memory.remember("too important", type="goal", importance=1.5)


def test_multi_level_types_default_to_half_importance(memory: Memory) -> None:
    episode = memory.typed.episode("Kickoff", summary="we started")
    pattern = memory.typed.pattern("endpoint", {"route": "GET /x"}, "route→json")
    workflow = memory.typed.workflow("deploy", ["test", "prod"])
    assert {n.importance for n in (episode, pattern, workflow)} == {0.5}


@pytest.mark.parametrize("kind", ["opinion", "Fact", "", "episode "])
def test_an_unknown_type_is_refused_and_nothing_is_written(memory: Memory, kind: str) -> None:
    assert node_count(memory) == 0
    with pytest.raises(InvalidInput):
        memory.remember("something", type=kind)
    assert node_count(memory) == 0
    memory.remember("a plain fact", type="fact")
    before = node_count(memory)
    with pytest.raises(InvalidInput):
        memory.remember("something", type=kind)
    assert node_count(memory) == before
    with pytest.raises(InvalidInput):
        memory.typed.memories(types=[kind])


def test_typed_fields_without_a_type_are_refused(memory: Memory) -> None:
    with pytest.raises(InvalidInput):
        memory.remember("untyped", tags=["x"])
    assert node_count(memory) == 0


# -- 2. fields ----------------------------------------------------------------------


def test_fields_are_kept_listed_and_tags_are_searchable(memory: Memory) -> None:
    node = memory.remember(
        "We picked PostgreSQL for storage",
        type="decision",
        tags=["DB", "@storage", "db"],
        category="architecture",
        confidence=0.9,
        source="meeting 12",
        metadata={"ticket": "ENG-7"},
    )
    other = memory.remember("PostgreSQL replicas are read only", type="fact", tags=["ops"])
    assert node.metadata["tags"] == ["db", "storage"]
    assert set(node.tags) == {"db", "storage"}
    data = memory.typed.memory(node.id).to_dict()
    assert data["tags"] == ["db", "storage"]
    assert data["category"] == "architecture"
    assert data["confidence"] == 0.9
    assert data["source"] == "meeting 12"
    assert data["fields"] == {"ticket": "ENG-7"}

    assert hit_ids(memory, "PostgreSQL", tags=["db"]) == {node.id}
    assert hit_ids(memory, "PostgreSQL", tags=["@STORAGE"]) == {node.id}
    assert hit_ids(memory, "PostgreSQL", tags=["ops"]) == {other.id}
    assert hit_ids(memory, "PostgreSQL", tags=["nothing"]) == set()


def test_listing_gives_json_objects_with_the_documented_keys(memory: Memory) -> None:
    node = memory.remember(
        "Prefer tabs", type="preference", valid_from="2026-01-01", valid_to="2026-02-01"
    )
    plain = memory.remember("Keep a changelog", type="procedure")
    assert {m.id for m in memory.typed.memories()} == {plain.id}  # the preference has ended
    found = memory.typed.memories(include_expired=True)
    by_id = {m.id: json.loads(json.dumps(m.to_dict())) for m in found}
    assert set(by_id) == {node.id, plain.id}
    data = by_id[node.id]
    assert {"id", "text", "type", "valid_from", "valid_to", "archived"} <= set(data)
    assert data["id"] == node.id and data["text"] == "Prefer tabs"
    assert data["type"] == "preference"
    assert data["valid_from"] == "2026-01-01T00:00:00.000000+00:00"
    assert data["valid_to"] == "2026-02-01T00:00:00.000000+00:00"
    assert data["archived"] is False
    # Valid from when it was written, unless it says otherwise.
    assert by_id[plain.id]["valid_from"] == plain.created_at
    assert by_id[plain.id]["valid_to"] is None


@pytest.mark.parametrize(
    "options",
    [
        {"confidence": 1.5},
        {"confidence": -0.1},
        {"tags": "db"},
        {"tags": ["ok", " "]},
        {"tags": [3]},
        {"valid_from": "someday"},
        {"valid_to": "2026-13-01"},
    ],
)
def test_bad_fields_are_refused_and_nothing_is_written(
    memory: Memory, options: dict[str, Any]
) -> None:
    with pytest.raises(InvalidInput):
        memory.remember("a fact", type="fact", **options)
    assert node_count(memory) == 0


def test_memory_of_a_plain_node_is_refused(memory: Memory) -> None:
    plain = memory.remember("not typed")
    with pytest.raises(InvalidInput):
        memory.typed.memory(plain.id)
    with pytest.raises(NotFound):
        memory.typed.memory("01NOTANODE")


# -- 3. structured facts ------------------------------------------------------------


def test_a_structured_fact_keeps_key_value_and_context(memory: Memory) -> None:
    node = memory.typed.fact(
        "error_handling", "Result<T,E> over try-catch", applies_to="typescript", confidence=0.95
    )
    assert node.context_type == "fact"
    assert node.text == "error_handling: Result<T,E> over try-catch (typescript)"
    assert node.importance == 0.5
    data = memory.typed.memory(node.id).to_dict()
    assert data["confidence"] == 0.95
    assert data["fields"] == {
        "key": "error_handling",
        "value": "Result<T,E> over try-catch",
        "applies_to": "typescript",
    }

    number = memory.typed.fact("retries", 3)
    assert number.text == "retries: 3"
    assert number.metadata["value"] == 3 and number.metadata["applies_to"] == ""


@pytest.mark.parametrize("key", ["", "   ", None, 7])
def test_a_fact_needs_a_key(memory: Memory, key: object) -> None:
    with pytest.raises(InvalidInput):
        memory.typed.fact(key, "value")  # type: ignore[arg-type]
    assert node_count(memory) == 0


# -- 4. validity, time travel and relations -----------------------------------------


def test_an_end_before_the_start_is_refused(memory: Memory) -> None:
    with pytest.raises(InvalidInput):
        memory.remember("x", type="fact", valid_from="2026-02-01", valid_to="2026-01-01")
    with pytest.raises(InvalidInput):
        memory.typed.episode("x", summary="y", valid_from="2026-02-01", valid_to="2026-01-01")
    assert node_count(memory) == 0


def test_times_are_stored_in_canonical_utc(memory: Memory) -> None:
    node = memory.remember(
        "x", type="fact", valid_from="2026-01-01T05:00:00+05:00", valid_to=START + 2 * DAY
    )
    assert node.metadata["valid_from"] == "2026-01-01T00:00:00.000000+00:00"
    assert node.metadata["valid_to"] == "2026-01-03T00:00:00.000000+00:00"


def test_time_travel_lists_and_finds_only_what_was_valid(cmem: Memory, clock: Clock) -> None:
    memory = cmem
    clock.now = START - 2 * DAY  # written before the windows below begin
    old = memory.remember(
        "database postgres chosen", type="decision", valid_from=iso(0), valid_to=iso(60)
    )
    new = memory.remember("database sqlite chosen", type="decision", valid_from=iso(60))
    always = memory.remember("database backups nightly", type="procedure")
    ended = memory.remember("database mysql trial", type="fact", valid_to=iso(10))

    assert listed(memory, valid_at=iso(-1)) == {always.id, ended.id}
    assert listed(memory, valid_at=iso(0)) == {old.id, always.id, ended.id}
    assert listed(memory, valid_at=iso(10)) == {old.id, always.id}
    assert listed(memory, valid_at=iso(59.5)) == {old.id, always.id}
    assert listed(memory, valid_at=iso(60)) == {new.id, always.id}
    assert listed(memory, valid_at=START + 365 * DAY) == {new.id, always.id}
    clock.now = START + 365 * DAY
    assert listed(memory) == {new.id, always.id}  # valid now, by default
    assert listed(memory, include_expired=True) == {old.id, new.id, always.id, ended.id}

    typed_ids = {old.id, new.id, always.id, ended.id}
    assert hit_ids(memory, "database", valid_at=iso(5)) & typed_ids == {
        old.id,
        always.id,
        ended.id,
    }
    assert hit_ids(memory, "database", valid_at=iso(70)) & typed_ids == {new.id, always.id}
    with pytest.raises(InvalidInput):
        memory.typed.memories(valid_at="not a time")
    with pytest.raises(InvalidInput):
        memory.search("database", valid_at="not a time")


def test_supersedes_ends_the_old_memory_when_the_new_one_starts(memory: Memory) -> None:
    old = memory.remember("use postgres", type="decision", valid_from=iso(0))
    new = memory.remember("use sqlite", type="decision", valid_from=iso(30))
    memory.typed.relate(new.id, old.id, "supersedes")

    assert memory.get(old.id).metadata["valid_to"] == iso(30)
    assert memory.typed.memory(old.id).valid_to == iso(30)
    assert listed(memory, valid_at=iso(29)) == {old.id}
    assert listed(memory, valid_at=iso(30)) == {new.id}
    history = memory.history(old.id)
    assert [v.version for v in history] == [1, 2]
    assert history[0].op == "update"
    assert "valid_to" not in history[0].node.metadata
    assert history[-1].node.metadata["valid_to"] == iso(30)
    [row] = memory.typed.relations(old.id)
    assert (row.source_id, row.target_id, row.type, row.strength) == (
        new.id,
        old.id,
        "supersedes",
        1.0,
    )


def test_supersedes_without_a_start_ends_the_old_memory_when_the_new_was_written(
    cmem: Memory, clock: Clock
) -> None:
    old = cmem.remember("use postgres", type="decision")
    clock.now = START + 5 * DAY
    new = cmem.remember("use sqlite", type="decision")
    clock.now = START + 6 * DAY
    cmem.typed.relate(new.id, old.id, "supersedes")
    assert cmem.get(old.id).metadata["valid_to"] == new.created_at
    assert cmem.typed.relations(new.id)[0].created_at == to_iso(clock.now)
    assert listed(cmem, valid_at=clock.now) == {new.id}
    assert listed(cmem, valid_at=START + 5 * DAY - timedelta(seconds=1)) == {old.id}


def test_an_earlier_memory_that_supersedes_a_later_one_leaves_it_never_valid(
    cmem: Memory, clock: Clock
) -> None:
    # "The earlier statement wins": the later one was a mistake, never true.
    later = cmem.remember("use sqlite", type="decision", valid_from=iso(30))
    earlier = cmem.remember("use postgres", type="decision", valid_from=iso(0))
    cmem.typed.relate(earlier.id, later.id, "supersedes")
    assert cmem.get(later.id).metadata["valid_to"] == iso(30)
    for day in (0, 29, 30, 31, 400):
        assert later.id not in listed(cmem, valid_at=iso(day))
    assert earlier.id in listed(cmem, valid_at=iso(31))


def test_relations_are_listed_from_both_ends(cmem: Memory) -> None:
    a = cmem.remember("api layer", type="entity")
    b = cmem.remember("database layer", type="entity")
    c = cmem.remember("cache layer", type="entity")
    cmem.typed.relate(a.id, b.id, "depends_on", strength=0.4)
    cmem.typed.relate(c.id, a.id, "related_to")
    cmem.typed.relate(a.id, b.id, "depends_on", strength=0.9)  # a new strength replaces the old
    ab = RelationRow(a.id, b.id, "depends_on", 0.9, iso(0))
    ca = RelationRow(c.id, a.id, "related_to", 1.0, iso(0))
    assert set(cmem.typed.relations(a.id)) == {ab, ca}
    assert cmem.typed.relations(b.id) == [ab]
    assert cmem.typed.relations(c.id) == [ca]
    # Relations other than supersedes leave validity alone.
    assert "valid_to" not in cmem.get(b.id).metadata


def test_bad_relations_are_refused_with_typed_errors(memory: Memory) -> None:
    a = memory.remember("api layer", type="entity")
    b = memory.remember("database layer", type="entity")
    with pytest.raises(InvalidInput):
        memory.typed.relate(a.id, b.id, "blocks")
    with pytest.raises(InvalidInput):
        memory.typed.relate(a.id, b.id, "related_to", strength=2.0)
    with pytest.raises(NotFound):
        memory.typed.relate(a.id, "01MISSINGNODE", "related_to")
    with pytest.raises(NotFound):
        memory.typed.relate("01MISSINGNODE", a.id, "supersedes")
    with pytest.raises(InvalidInput):
        memory.typed.relate(a.id, a.id, "related_to")
    with pytest.raises(InvalidInput):
        memory.typed.relate(a.id, a.id, "supersedes")
    with pytest.raises(NotFound):
        memory.typed.relations("01MISSINGNODE")
    assert memory.typed.relations(a.id) == [] and memory.typed.relations(b.id) == []
    assert "valid_to" not in memory.get(a.id).metadata


WINDOW = st.tuples(
    st.one_of(st.none(), st.integers(0, 20)),
    st.one_of(st.none(), st.integers(0, 10)),
    st.sampled_from([0, 5, -8]),  # hours of the offset the times are written with
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(WINDOW, min_size=1, max_size=12), st.lists(st.integers(-2, 34), max_size=6))
def test_valid_at_matches_the_windows_computed_in_python(
    windows: list[tuple[int | None, int | None, int]], times: list[int]
) -> None:
    with Memory(":memory:", embedder="hashing") as memory:
        spans: dict[str, tuple[datetime | None, datetime | None]] = {}
        for start, length, hours in windows:
            zone = timezone(timedelta(hours=hours))
            begin = None if start is None else START + start * DAY
            end = None if length is None else (begin or START) + length * DAY
            node = memory.remember(
                "window",
                type="fact",
                valid_from=None if begin is None else begin.astimezone(zone).isoformat(),
                valid_to=None if end is None else end.astimezone(zone).isoformat(),
            )
            if begin is None:  # valid since it was written, unless it ended before that
                written = datetime.fromisoformat(node.created_at)
                begin = None if end is not None and end < written else written
            spans[node.id] = (begin, end)
        for day in [*times, 0, 10, 400]:
            for moment in (START + day * DAY, START + day * DAY - timedelta(microseconds=1)):
                expected = {
                    i
                    for i, (begin, end) in spans.items()
                    if (begin is None or begin <= moment) and (end is None or moment < end)
                }
                assert listed(memory, valid_at=moment) == expected
                assert listed(memory, valid_at=to_iso(moment)) == expected


# -- 5. decay -------------------------------------------------------------------------


def test_a_memory_never_accessed_decays_from_its_creation(cmem: Memory, clock: Clock) -> None:
    node = cmem.remember("a fact", type="fact")
    assert cmem.typed.memory(node.id).decay == 1.0
    clock.now = START + 30 * DAY
    view = cmem.typed.memory(node.id)
    assert view.decay == pytest.approx(0.5)
    assert view.access_count == 0 and view.last_access is None
    clock.now = START + 60 * DAY
    assert cmem.typed.memory(node.id).decay == pytest.approx(0.25)
    assert cmem.typed.memory(node.id).to_dict()["decay"] == 0.25
    [listed_view] = cmem.typed.memories()
    assert listed_view.decay == pytest.approx(0.25)


def test_accesses_boost_decay_and_reset_its_age(cmem: Memory, clock: Clock) -> None:
    node = cmem.remember("a fact", type="fact")

    def access(day: float) -> None:
        with cmem.store.transaction():
            cmem.store.record_accesses([node.id], iso(day))

    access(60)
    clock.now = START + 60 * DAY
    view = cmem.typed.memory(node.id)
    assert view.access_count == 1 and view.last_access == iso(60)
    assert view.decay == 1.0  # 1 + 0.1, capped at 1
    clock.now = START + 90 * DAY
    assert cmem.typed.memory(node.id).decay == pytest.approx(0.5 + 0.1)
    access(61)
    access(62)
    clock.now = START + 92 * DAY
    assert cmem.typed.memory(node.id).decay == pytest.approx(0.5 + 0.3)
    for day in range(63, 70):  # ten accesses in all: the boost stops at 0.5
        access(day)
    clock.now = START + (69 + 60) * DAY
    view = cmem.typed.memory(node.id)
    assert view.access_count == 10
    assert view.decay == pytest.approx(0.25 + 0.5)
    clock.now = START + 69 * DAY
    assert cmem.typed.memory(node.id).decay == 1.0


def test_a_search_counts_as_an_access(cmem: Memory, clock: Clock) -> None:
    node = cmem.remember("zeppelin hangar location", type="fact")
    clock.now = START + 30 * DAY
    hits = cmem.search("zeppelin hangar", record=True)
    assert node.id in {h.node.id for h in hits}
    view = cmem.typed.memory(node.id)
    assert view.access_count == 1 and view.last_access == iso(30)
    clock.now = START + 60 * DAY
    assert cmem.typed.memory(node.id).decay == pytest.approx(0.5 + 0.1)
    cmem.search("zeppelin hangar", record=False)
    assert cmem.typed.memory(node.id).access_count == 1


def test_the_half_life_can_be_changed(cmem: Memory, clock: Clock) -> None:
    node = cmem.remember("a fact", type="fact")
    clock.now = START + 10 * DAY
    assert cmem.typed.memory(node.id).decay == pytest.approx(0.5 ** (10 / 30))
    cmem.typed.half_life_days = 10.0
    assert cmem.typed.memory(node.id).decay == pytest.approx(0.5)
    cmem.typed.half_life_days = 5.0
    assert cmem.typed.memory(node.id).decay == pytest.approx(0.25)
    assert cmem.typed.memories()[0].decay == pytest.approx(0.25)


# -- 6. episodes ----------------------------------------------------------------------

LEVEL_TEXT = {
    "full": "Long narrative about the kangaroo token expiry hunt",
    "summary": "Replaced wombat JWT handling with sessions",
    "compressed": "auth: platypus JWT→sessions",
    "index": "echidna_auth_refactor",
}
LEVEL_QUERY = {
    "full": "kangaroo",
    "summary": "wombat",
    "compressed": "platypus",
    "index": "echidna_auth_refactor",
}


def make_episode(memory: Memory, **options: object) -> str:
    linked = memory.remember("sessions beat JWT", type="decision")
    node = memory.typed.episode(
        "Auth refactor",
        narrative=LEVEL_TEXT["full"],
        summary=LEVEL_TEXT["summary"],
        compressed=LEVEL_TEXT["compressed"],
        index=LEVEL_TEXT["index"],
        episode_type="pivot",
        participants=["tim", "ana"],
        outcome="sessions shipped",
        valence=0.6,
        significance=0.8,
        linked=[linked.id],
        turns=(12, 40),
        artifacts=[{"type": "commit", "ref": "abc123"}, {"type": "adr", "ref": "ADR-012"}],
        **options,  # type: ignore[arg-type]
    )
    return node.id


def test_an_episode_keeps_all_its_fields(memory: Memory) -> None:
    episode_id = make_episode(memory, tags=["auth"])
    node = memory.get(episode_id)
    assert node.context_type == "episode" and node.text == "Auth refactor"
    [linked] = memory.typed.memories(types=["decision"])
    view = memory.typed.memory(episode_id)
    assert view.type == "episode"
    assert view.levels == LEVEL_TEXT
    fields = view.to_dict()["fields"]
    assert fields == {
        "episode_type": "pivot",
        "participants": ["tim", "ana"],
        "outcome": "sessions shipped",
        "valence": 0.6,
        "significance": 0.8,
        "linked": [linked.id],
        "turns": [12, 40],
        "artifacts": [{"type": "commit", "ref": "abc123"}, {"type": "adr", "ref": "ADR-012"}],
    }
    assert view.to_dict()["tags"] == ["auth"]


def test_each_episode_level_is_a_searchable_child(memory: Memory) -> None:
    episode_id = make_episode(memory)
    children = memory.children(episode_id)
    assert [(c.context_type, c.context_name, c.text) for c in children] == [
        ("level", name, text) for name, text in LEVEL_TEXT.items()
    ]
    for name, query in LEVEL_QUERY.items():
        hits = memory.search(query, limit=20, record=False)
        [hit] = [h for h in hits if h.node.context_name == name]
        assert hit.node.text == LEVEL_TEXT[name]
        assert hit.node.parent_id == episode_id
        assert hit.ancestry[0].id == episode_id
        assert episode_id in {a.id for a in hit.ancestry}
    # Levels are not typed memories of their own.
    assert listed(memory, types=["episode"]) == {episode_id}
    assert all(m.type != "level" for m in memory.typed.memories())


def test_render_gives_each_level_and_the_most_detailed_by_default(memory: Memory) -> None:
    episode_id = make_episode(memory)
    for name, text in LEVEL_TEXT.items():
        assert memory.typed.render(episode_id, name) == text
    assert memory.typed.render(episode_id) == LEVEL_TEXT["full"]
    with pytest.raises(InvalidInput):
        memory.typed.render(episode_id, "headline")
    with pytest.raises(InvalidInput):
        memory.typed.render(episode_id, "template")  # a pattern's level

    partial = memory.typed.episode("Standup", summary="short sync", index="standup").id
    assert memory.typed.render(partial) == "short sync"
    assert memory.typed.memory(partial).levels == {"summary": "short sync", "index": "standup"}
    with pytest.raises(NotFound):
        memory.typed.render(partial, "full")
    with pytest.raises(NotFound):
        memory.typed.render(partial, "compressed")

    bare = memory.typed.episode("Nothing noted").id
    assert memory.children(bare) == []
    assert memory.typed.render(bare) == "Nothing noted"

    fact = memory.remember("plain fact", type="fact")
    assert memory.typed.render(fact.id) == "plain fact"
    with pytest.raises(InvalidInput):
        memory.typed.render(fact.id, "summary")
    with pytest.raises(NotFound):
        memory.typed.render("01MISSINGNODE")


@pytest.mark.parametrize(
    "options",
    [
        {"episode_type": "meeting"},
        {"valence": 1.5},
        {"valence": -1.01},
        {"valence": "good"},
        {"significance": 1.2},
        {"artifacts": [{"type": "ticket", "ref": "X-1"}]},
        {"artifacts": ["commit:abc123"]},
        {"artifacts": [{"ref": "abc123"}]},
        {"turns": (9, 3)},
        {"turns": (4,)},
        {"tags": "auth"},
        {"valid_from": "soon"},
    ],
)
def test_bad_episodes_are_refused_and_nothing_is_written(
    memory: Memory, options: dict[str, object]
) -> None:
    memory.remember("something already there", type="fact")
    before = node_count(memory)
    with pytest.raises(InvalidInput):
        memory.typed.episode("Bad", summary="s", index="i", **options)  # type: ignore[arg-type]
    assert node_count(memory) == before
    assert memory.typed.memories(types=["episode"]) == []


def test_an_episode_linked_to_a_missing_memory_is_refused(memory: Memory) -> None:
    real = memory.remember("real one", type="fact")
    before = node_count(memory)
    with pytest.raises(NotFound):
        memory.typed.episode("Bad", summary="s", linked=[real.id, "01MISSINGNODE"])
    assert node_count(memory) == before


def test_episode_edge_values_are_accepted(memory: Memory) -> None:
    low = memory.typed.episode("Low", valence=-1, significance=0.0, turns=(5, 5))
    high = memory.typed.episode("High", valence=1.0, significance=1.0, episode_type="breakthrough")
    assert low.metadata["valence"] == -1 and low.metadata["turns"] == [5, 5]
    assert high.metadata["episode_type"] == "breakthrough"


# -- 7. patterns and workflows --------------------------------------------------------


def test_a_pattern_has_template_hint_and_index_levels(memory: Memory) -> None:
    template = {
        "route": "{method} /api/{resource}",
        "validation": "zod schema gecko",
        "response": "json envelope",
    }
    node = memory.typed.pattern(
        "api endpoint", template, "endpoint: route→zod→result→json", trigger="new_endpoint"
    )
    assert node.context_type == "pattern" and node.text == "api endpoint"
    shown = "route: {method} /api/{resource}\nvalidation: zod schema gecko\nresponse: json envelope"
    assert memory.typed.render(node.id, "template") == shown
    assert memory.typed.render(node.id) == shown
    assert memory.typed.render(node.id, "hint") == "endpoint: route→zod→result→json"
    assert memory.typed.render(node.id, "index") == "api endpoint"
    view = memory.typed.memory(node.id)
    assert view.levels == {
        "template": shown,
        "hint": "endpoint: route→zod→result→json",
        "index": "api endpoint",
    }
    assert view.to_dict()["fields"] == {"trigger": "new_endpoint", "template": template}
    with pytest.raises(InvalidInput):
        memory.typed.render(node.id, "summary")

    hits = memory.search("gecko", limit=20, record=False)
    [hit] = [h for h in hits if h.node.context_name == "template"]
    assert hit.ancestry[0].id == node.id

    named = memory.typed.pattern(
        "retry loop", "while failing: wait, retry", "retry", index="retry_idx"
    )
    assert memory.typed.render(named.id, "template") == "while failing: wait, retry"
    assert memory.typed.render(named.id, "index") == "retry_idx"


def test_a_workflow_numbers_steps_and_defaults_its_hint(memory: Memory) -> None:
    details = {"test": "pnpm test coverage", "build": "docker build quokka"}
    node = memory.typed.workflow(
        "deploy", ["test", "build", "stage"], details=details, trigger="deploy_request"
    )
    assert node.context_type == "workflow"
    assert memory.typed.render(node.id, "steps") == "1. test\n2. build\n3. stage"
    assert memory.typed.render(node.id, "hint") == "deploy: test→build→stage"
    assert memory.typed.render(node.id, "index") == "deploy"
    expected_details = "test: pnpm test coverage\nbuild: docker build quokka"
    assert memory.typed.render(node.id, "details") == expected_details
    assert memory.typed.render(node.id) == expected_details
    assert memory.typed.memory(node.id).to_dict()["fields"] == {
        "trigger": "deploy_request",
        "steps": ["test", "build", "stage"],
        "details": details,
    }
    hits = memory.search("quokka", limit=20, record=False)
    [hit] = [h for h in hits if h.node.context_name == "details"]
    assert hit.ancestry[0].id == node.id

    plain = memory.typed.workflow("release", ["tag", "publish"], hint="release: tag then publish")
    assert memory.typed.render(plain.id) == "1. tag\n2. publish"
    assert memory.typed.render(plain.id, "hint") == "release: tag then publish"
    with pytest.raises(NotFound):
        memory.typed.render(plain.id, "details")


@pytest.mark.parametrize("steps", [[], "test,build", ["test", 3]])
def test_a_workflow_needs_a_list_of_steps(memory: Memory, steps: object) -> None:
    with pytest.raises(InvalidInput):
        memory.typed.workflow("deploy", steps)  # type: ignore[arg-type]
    assert node_count(memory) == 0


# -- 8. narrative arc -----------------------------------------------------------------


def test_the_narrative_arc_splits_episodes_in_thirds_by_turn(memory: Memory) -> None:
    # Created out of turn order; significance decides the key moments.
    plan = [(50, 0.2), (10, 0.7), (30, 0.5), (0, 0.9), (40, 0.69), (20, 0.1)]
    made = {
        first: memory.typed.episode(f"turn {first}", turns=(first, first + 5), significance=sig).id
        for first, sig in plan
    }
    arc = memory.typed.narrative_arc()
    assert set(arc) == {"beginning", "middle", "end", "key_moments"}
    assert [n.id for n in arc["beginning"]] == [made[0], made[10]]
    assert [n.id for n in arc["middle"]] == [made[20], made[30]]
    assert [n.id for n in arc["end"]] == [made[40], made[50]]
    assert [n.id for n in arc["key_moments"]] == [made[0], made[10]]

    # Other typed memories are not episodes.
    memory.remember("a decision", type="decision")
    assert memory.typed.narrative_arc() == arc


def test_the_narrative_arc_of_three_and_of_none(memory: Memory) -> None:
    empty = memory.typed.narrative_arc()
    assert empty == {"beginning": [], "middle": [], "end": [], "key_moments": []}
    ids = [memory.typed.episode(f"e{t}", turns=(t, t)).id for t in (3, 1, 2)]
    arc = memory.typed.narrative_arc()
    assert [[n.id for n in arc[k]] for k in ("beginning", "middle", "end")] == [
        [ids[1]],
        [ids[2]],
        [ids[0]],
    ]
    assert arc["key_moments"] == []


# -- 9. scopes ------------------------------------------------------------------------


def test_typed_memories_stay_in_their_scope(memory: Memory) -> None:
    fact = memory.remember("narwhal fact", type="fact", scope="a", tags=["sea"])
    episode = memory.typed.episode(
        "narwhal episode", summary="narwhal summary", scope="a", significance=0.9
    )
    pattern = memory.typed.pattern("narwhal pattern", {"k": "narwhal"}, "narwhal hint", scope="a")
    workflow = memory.typed.workflow("narwhal workflow", ["narwhal"], scope="a")
    memory.typed.relate(episode.id, fact.id, "related_to")
    in_a = {fact.id, episode.id, pattern.id, workflow.id}

    assert memory.typed.memories(scopes=["b"]) == []
    assert memory.typed.memories(scopes=["b"], valid_at=START) == []
    assert listed(memory, scopes=["a"]) == in_a
    assert listed(memory, scopes=["a", "b"]) == in_a
    assert hit_ids(memory, "narwhal", scopes=["b"]) == set()
    assert hit_ids(memory, "narwhal", scopes=["b"], tags=["sea"]) == set()
    assert hit_ids(memory, "narwhal", scopes=["a"], tags=["sea"]) == {fact.id}
    found = memory.search("narwhal", scopes=["a"], limit=50, record=False)
    assert found and all(h.node.scope == "a" for h in found)
    levels = [c for n in (episode, pattern, workflow) for c in memory.children(n.id)]
    assert levels and all(c.scope == "a" for c in levels)
    empty: dict[str, list[Any]] = {"beginning": [], "middle": [], "end": [], "key_moments": []}
    assert memory.typed.narrative_arc(scopes=["b"]) == empty
    assert [n.id for n in memory.typed.narrative_arc(scopes=["a"])["key_moments"]] == [episode.id]


# -- 10. CLI --------------------------------------------------------------------------


def test_cli_round_trip(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"

    def ok(*args: str) -> str:
        proc = run_cli(db, *args, embedder="hashing")
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    tagged = ["--tag", "DB", "--tag", "storage", "--valid-from", "2026-01-01"]
    old = json.loads(ok("--json", "remember", "Use Postgres", "--type", "decision", *tagged))
    assert old["context_type"] == "decision" and old["importance"] == 0.7
    assert old["metadata"]["tags"] == ["db", "storage"]
    assert old["metadata"]["valid_from"] == "2026-01-01T00:00:00.000000+00:00"

    refused = run_cli(db, "remember", "untyped", "--tag", "x", embedder="hashing")
    assert refused.returncode == 1
    assert "--type" in refused.stderr

    new = json.loads(
        ok("--json", "remember", "Use SQLite", "--type", "decision", "--valid-from", "2026-03-01")
    )
    assert "Use Postgres" in ok("memories", "--type", "decision", "--include-expired")
    at_feb = json.loads(ok("--json", "memories", "--type", "decision", "--valid-at", "2026-02-01"))
    assert [m["id"] for m in at_feb] == [old["id"]]
    assert json.loads(ok("--json", "memories", "--type", "fact")) == []

    related = json.loads(ok("--json", "relate", new["id"], old["id"], "--type", "supersedes"))
    assert [(r["source_id"], r["target_id"], r["type"]) for r in related] == [
        (new["id"], old["id"], "supersedes")
    ]
    listing = {m["id"]: m for m in json.loads(ok("--json", "memories", "--include-expired"))}
    assert listing[old["id"]]["valid_to"] == "2026-03-01T00:00:00.000000+00:00"
    assert listing[new["id"]]["valid_to"] is None
    assert listing[old["id"]]["tags"] == ["db", "storage"]
    at_april = json.loads(ok("--json", "memories", "--valid-at", "2026-04-01"))
    assert [m["id"] for m in at_april] == [new["id"]]

    itself = run_cli(db, "relate", new["id"], new["id"], "--type", "related_to", embedder="hashing")
    assert itself.returncode == 1
    assert "itself" in itself.stderr


# -- bugs -----------------------------------------------------------------------------


def test_time_travel_search_skips_levels_of_an_episode_not_valid_then(memory: Memory) -> None:
    episode = memory.typed.episode(
        "Old auth design", summary="wombat tokens everywhere", valid_to="2026-01-01"
    )
    assert listed(memory, valid_at="2026-06-01") == set()
    hits = memory.search("wombat", valid_at="2026-06-01", limit=20, record=False)
    shown = [h for h in hits if episode.id in {h.node.id, *(a.id for a in h.ancestry)}]
    assert shown == []


def test_validity_given_in_metadata_is_validated(memory: Memory) -> None:
    with pytest.raises(InvalidInput):
        memory.remember("x", type="fact", metadata={"valid_to": "not a time"})


def test_a_failed_typed_write_leaves_nothing_behind(memory: Memory) -> None:
    with pytest.raises(InvalidInput):
        memory.typed.episode("   ", summary="a summary")
    with pytest.raises(InvalidInput):
        memory.typed.fact("key", {1, 2})  # not JSON
    assert node_count(memory) == 0


def test_supersedes_never_lengthens_a_validity(memory: Memory) -> None:
    old = memory.remember(
        "Sprint one goal", type="goal", valid_from="2026-01-01", valid_to="2026-02-01"
    )
    new = memory.remember("Sprint three goal", type="goal", valid_from="2026-03-01")
    memory.typed.relate(new.id, old.id, "supersedes")
    assert memory.get(old.id).metadata["valid_to"].startswith("2026-02-01")
    assert [m.id for m in memory.typed.memories(valid_at="2026-02-15")] == []


def test_four_episodes_fill_every_third_of_the_arc(memory: Memory) -> None:
    for turn in (1, 2, 3, 4):
        memory.typed.episode(f"Episode {turn}", turns=(turn, turn))
    arc = memory.typed.narrative_arc()
    assert [[n.text for n in arc[k]] for k in ("beginning", "middle", "end")] == [
        ["Episode 1"],
        ["Episode 2"],
        ["Episode 3", "Episode 4"],
    ]


def test_a_reopened_memory_finds_its_scope_space_among_many_roots(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing") as memory:
        first = memory.remember("the first note", scope="a")
        for i in range(60):
            memory.add(f"Document {i}", scope="a")
        memory.remember("a note elsewhere", scope="b")
    with Memory(tmp_path / "m.db", embedder="hashing") as memory:
        seen: list[str] = []
        memory.store._db.set_trace_callback(seen.append)  # type: ignore[attr-defined]
        again = memory.remember("the second note", scope="a")
        memory.store._db.set_trace_callback(None)  # type: ignore[attr-defined]
        assert again.parent_id == first.parent_id
        spaces = [r for r in memory.roots() if r.context_type == "space"]
        assert sorted(r.context_value for r in spaces) == ["a", "b"]
        reads = [q for q in seen if "parent_id IS NULL" in q]
        assert reads and all("context_type = 'space'" in q for q in reads)  # not every root
