"""Consolidation (issue 8): plans, applied runs and their undo, the archive,
each step's rules, the text contradiction detectors and the CLI.

Real temporary SQLite files, the hashing embedder (identical texts have
cosine 1), a hand-moved clock, and the CLI in a real subprocess.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, InvalidOperation, Memory, NotFound
from mnemotree.consolidate.detect import compare
from mnemotree.consolidate.plan import STEPS, Plan, Policy, Run
from tests.cli_runner import run_cli
from tests.helpers import Clock, snapshot

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both

NARRATIVE = (
    "The deploy failed at noon because the migration locked the orders table. "
    "Alice rolled back the release and paged the database team. "
    "Bob found a missing index on the orders table. "
    "The team added the index and redeployed in the evening. "
    "Everyone agreed to run migrations in a maintenance window from now on."
)
DUPLICATE = "The staging database is refreshed every Sunday night"


# -- helpers -------------------------------------------------------------------


def archived_ids(mem: Memory) -> set[str]:
    return {n.id for n, _ in mem.consolidation.archived(limit=10_000)}


def live_ids(mem: Memory) -> set[str]:
    return {n.id for n in mem.store.iter_nodes()} - archived_ids(mem)


def relation_set(mem: Memory) -> set[tuple[str, str, str, float]]:
    ids = [n.id for n in mem.store.iter_nodes()]
    return {(r.source_id, r.target_id, r.type, r.strength) for r in mem.store.relations(ids)}


def open_contradictions(mem: Memory) -> set[tuple[str, str, str]]:
    return {(c.a_id, c.b_id, c.kind) for c in mem.consolidation.contradictions()}


def found(mem: Memory, query: str, **options: Any) -> set[str]:
    """Ids a search finds, without recording accesses."""
    return {h.node.id for h in mem.search(query, limit=50, record=False, **options)}


def listed(mem: Memory) -> set[str]:
    return {m.node.id for m in mem.typed.memories(limit=10_000)}


def live_levels(mem: Memory, node_id: str) -> dict[str, str]:
    gone = archived_ids(mem)
    return {
        c.context_name: c.id
        for c in mem.children(node_id)
        if c.context_type == "level" and c.id not in gone
    }


def state(mem: Memory) -> dict[str, Any]:
    """Everything a consolidation may change, for before/after comparisons."""
    stats = dataclasses.replace(mem.stats(), size_bytes=0)  # the file size is not ours
    nodes = [n.id for n in mem.store.iter_nodes()]
    return {
        "stats": stats,
        "nodes": snapshot(mem),
        "archived": mem.consolidation.archived(limit=10_000),
        "relations": relation_set(mem),
        "contradictions": mem.consolidation.contradictions(status=None),
        "decays": mem.store.decays(nodes),
        "runs": mem.consolidation.runs(),
    }


def actions_of(plan: Plan | Run, step: str) -> list[tuple[str, ...]]:
    return [a.nodes for a in plan.actions if a.step == step]


def populate(mem: Memory, clock: Clock) -> dict[str, str]:
    """A memory with something for most steps: an unused memory 100 days old,
    the rest 40 days old."""
    ids: dict[str, str] = {}
    mem.consolidation.scan_on_write = (
        False  # the consolidation scan is what finds the Postgres pair
    )
    ids["old"] = mem.remember("The gardener watered the tomato plants this morning").id
    clock.advance(days=60)
    for i in range(3):
        ids[f"dup{i}"] = mem.remember(DUPLICATE).id
    ids["tag_a"] = mem.remember("Renewal of the TLS certificate is due @zephyr").id
    ids["tag_b"] = mem.remember("Grafana dashboards need new owners @zephyr").id
    ids["pg"] = mem.remember("We use Postgres for billing").id
    ids["no_pg"] = mem.remember("We no longer use Postgres for billing").id
    ids["episode"] = mem.typed.episode(
        "Deploy incident of the orders service", narrative=NARRATIVE
    ).id
    doc = mem.add("Runbook")
    kids = [
        mem.append_child(doc.id, t).id
        for t in (
            "Restart the web tier with the deploy script.",
            "Check the queue depth on the dashboard.",
            "Page the on-call engineer if errors persist.",
        )
    ]
    ids["summary"] = mem.add_summary(kids, "Restart, check queues, page on-call.").id
    mem.update(kids[1], "Check the queue depth and the error rate on the dashboard.")
    clock.advance(days=40)
    return ids


# -- 1. a dry run --------------------------------------------------------------


def test_a_dry_run_changes_nothing(cmem: Memory, clock: Clock) -> None:
    populate(cmem, clock)
    cmem.flush()  # vectors are an index, not the memory: computed before the snapshot
    before = state(cmem)
    plan = cmem.consolidation.run(dry_run=True)
    assert isinstance(plan, Plan)
    assert {"decay", "dedupe", "contradiction", "forget", "summarise", "compress"} <= set(
        plan.summary
    ), plan.summary
    assert {"refresh", "link"} <= set(plan.summary)
    assert sum(plan.summary.values()) >= len(plan.actions) > 0
    assert json.loads(json.dumps(plan.to_dict()))["summary"] == plan.summary
    assert state(cmem) == before
    # Planning again gives the same plan: the first one left no trace.
    again = cmem.consolidation.run()
    assert isinstance(again, Plan)
    assert [a.to_dict() for a in again.actions] == [a.to_dict() for a in plan.actions]


# -- 2. forgetting ---------------------------------------------------------------


def test_unused_memories_are_archived_and_undo_brings_them_back(cmem: Memory, clock: Clock) -> None:
    plain = cmem.remember("The gardener watered the tomato plants this morning")
    # Notes said of the moment: trivia once unused (a typed fact without a key too).
    typed = cmem.remember("Pizza dough was left in the fridge today", type="fact")
    liked = cmem.remember("Pizza dough should rest overnight", type="preference")
    used = cmem.remember("Quarterly invoices are archived in the blue cabinet")
    important = cmem.remember("The vault combination changes monthly", importance=0.85)
    lisbon = cmem.typed.fact("office_city", "Lisbon")
    berlin = cmem.typed.fact("office_city", "Berlin")
    assert {(c.a_id, c.b_id) for c in cmem.consolidation.contradictions()} == {
        (lisbon.id, berlin.id)
    }
    (hit,) = cmem.search("quarterly invoices blue cabinet", limit=1, record=True)
    assert hit.node.id == used.id  # this search is the one access
    clock.advance(days=120)

    plan = cmem.consolidation.run()
    assert isinstance(plan, Plan)
    assert sorted(actions_of(plan, "forget")) == sorted([(plain.id,), (typed.id,)])
    assert all("unused" in a.reason for a in plan.actions if a.step == "forget")

    run = cmem.consolidation.apply(plan)
    assert run.id and run.skipped == 0 and run.summary["forget"] == 2
    assert archived_ids(cmem) == {plain.id, typed.id}
    assert plain.id not in found(cmem, "gardener watered tomato plants")
    assert typed.id not in found(cmem, "pizza dough left fridge today")
    assert plain.id in found(cmem, "gardener watered tomato plants", include_archived=True)
    assert typed.id not in listed(cmem)
    ctx = cmem.context("gardener tomato pizza dough", budget=4000)
    assert not {plain.id, typed.id} & set(ctx.node_ids())
    kept = {used.id, important.id, lisbon.id, berlin.id, liked.id}
    assert kept <= live_ids(cmem)
    assert used.id in found(cmem, "quarterly invoices blue cabinet")
    assert {lisbon.id, berlin.id} <= listed(cmem)

    undone = cmem.consolidation.undo(run.id)
    assert undone.id == run.id and undone.undone_at is not None
    assert archived_ids(cmem) == set()
    assert plain.id in found(cmem, "gardener watered tomato plants")
    assert typed.id in listed(cmem)
    assert [r.undone_at for r in cmem.consolidation.runs()] == [undone.undone_at]


def test_nothing_is_forgotten_before_its_time_or_with_a_lenient_policy(
    cmem: Memory, clock: Clock
) -> None:
    note = cmem.remember("The gardener watered the tomato plants this morning")
    clock.advance(days=89)
    assert actions_of(cmem.consolidation.run(steps=["decay", "forget"]), "forget") == []
    clock.advance(days=2)
    assert actions_of(cmem.consolidation.run(steps=["decay", "forget"]), "forget") == [(note.id,)]
    later = cmem.consolidation.run(steps=["decay", "forget"], policy={"forget_after_days": 180})
    assert actions_of(later, "forget") == []
    lenient = cmem.consolidation.run(steps=["decay", "forget"], policy=Policy(forget_below=0.01))
    assert actions_of(lenient, "forget") == []


# -- 3. superseded memories -----------------------------------------------------


def test_a_superseded_memory_is_archived_only_after_the_grace_period(
    cmem: Memory, clock: Clock
) -> None:
    old = cmem.remember("Deploys go out through the Jenkins pipeline")
    clock.advance(days=1)
    new = cmem.remember("Releases are shipped with GitHub Actions workflows")
    cmem.typed.relate(new.id, old.id, "supersedes")
    clock.advance(days=29)  # 29 days after its end
    assert actions_of(cmem.consolidation.run(), "forget") == []
    short = cmem.consolidation.run(policy={"superseded_grace_days": 10})
    assert actions_of(short, "forget") == [(old.id,)]
    clock.advance(days=2)
    plan = cmem.consolidation.run()
    assert isinstance(plan, Plan)
    (forget,) = [a for a in plan.actions if a.step == "forget"]
    assert forget.nodes == (old.id,) and forget.data == {"why": "superseded"}
    run = cmem.consolidation.apply(plan)
    assert archived_ids(cmem) == {old.id}
    assert new.id in found(cmem, "releases shipped GitHub Actions workflows")
    cmem.consolidation.undo(run.id)
    assert archived_ids(cmem) == set()


def test_a_memory_whose_decay_reached_zero_is_still_forgotten(cmem: Memory, clock: Clock) -> None:
    # Kept (pinned) while its decay is computed and stored; once unpinned it
    # is as unused as ever and should go.
    note = cmem.remember("It rained all morning.", metadata={"pinned": True})
    clock.advance(days=450)
    first = cmem.consolidation.run(dry_run=False)
    assert isinstance(first, Run) and actions_of(first, "forget") == []
    assert cmem.store.decays([note.id]) == {note.id: 0.0}
    cmem.update(note.id, metadata={})
    clock.advance(days=1)
    assert actions_of(cmem.consolidation.run(), "forget") == [(note.id,)]


# -- 4. duplicates ---------------------------------------------------------------


def test_two_identical_memories_merge(cmem: Memory, clock: Clock) -> None:
    first = cmem.remember(DUPLICATE)
    clock.advance(hours=1)
    second = cmem.remember(DUPLICATE)
    plan = cmem.consolidation.run(steps=["dedupe"])
    assert isinstance(plan, Plan)
    assert actions_of(plan, "dedupe") == [(second.id, first.id)]  # the newer wording stays
    cmem.consolidation.apply(plan)
    assert cmem.get(second.id).metadata["merged_from"] == [first.id]
    assert archived_ids(cmem) == {first.id}


def test_identical_memories_merge_into_one_and_undo_splits_them(cmem: Memory, clock: Clock) -> None:
    a = cmem.remember(DUPLICATE)
    b = cmem.remember(DUPLICATE, metadata={"note": "kept"})
    keeper = cmem.remember(DUPLICATE, importance=0.7)  # the most important one stays
    other_scope = cmem.remember(DUPLICATE, scope="team:x")
    clock.advance(hours=1)

    plan = cmem.consolidation.run()
    assert isinstance(plan, Plan)
    (dedupe,) = [x for x in plan.actions if x.step == "dedupe"]
    assert dedupe.nodes[0] == keeper.id and set(dedupe.nodes[1:]) == {a.id, b.id}
    assert other_scope.id not in dedupe.nodes  # another scope is another memory
    run = cmem.consolidation.apply(plan)

    kept = cmem.get(keeper.id)
    assert kept.metadata["merged_from"] == sorted([a.id, b.id])
    assert kept.importance == 0.7
    assert {(keeper.id, a.id, "derived_from"), (keeper.id, b.id, "derived_from")} <= {
        r[:3] for r in relation_set(cmem)
    }
    assert archived_ids(cmem) == {a.id, b.id}
    assert found(cmem, "staging database refreshed Sunday") == {keeper.id, other_scope.id}

    cmem.consolidation.undo(run.id)
    assert archived_ids(cmem) == set()
    assert "merged_from" not in cmem.get(keeper.id).metadata
    assert cmem.get(b.id).metadata == {"note": "kept"}
    assert not [r for r in relation_set(cmem) if r[2] == "derived_from"]
    assert found(cmem, "staging database refreshed Sunday") == {
        a.id,
        b.id,
        keeper.id,
        other_scope.id,
    }


def test_facts_of_one_key_merge_only_with_the_same_value(cmem: Memory) -> None:
    def office(value: str) -> str:
        # One text for all, so the hashing embedder sees them as identical.
        fields = {"key": "office", "value": value}
        return cmem.remember("office location", type="fact", metadata=fields).id

    same = [office("Lisbon"), office("Lisbon"), office(" lisbon ")]
    other = office("Berlin")
    plan = cmem.consolidation.run()
    dedupes = actions_of(plan, "dedupe")
    assert [set(nodes) for nodes in dedupes] == [set(same)]
    assert other not in {i for nodes in dedupes for i in nodes}
    # Found on write (same key, another value), so not planned again.
    assert {frozenset((c.a_id, c.b_id)) for c in cmem.consolidation.contradictions()} == {
        frozenset((i, other)) for i in same
    }
    assert actions_of(plan, "contradiction") == []


# -- 5. episodes -----------------------------------------------------------------


def test_episodes_gain_levels_with_age_and_undo_takes_them_away(cmem: Memory, clock: Clock) -> None:
    episode = cmem.typed.episode("Deploy incident of the orders service", narrative=NARRATIVE)
    full = live_levels(cmem, episode.id)["full"]
    clock.advance(days=6)
    assert actions_of(cmem.consolidation.run(), "summarise") == []
    clock.advance(days=2)
    plan = cmem.consolidation.run()
    assert isinstance(plan, Plan)
    assert actions_of(plan, "summarise") == [(episode.id,)]
    assert actions_of(plan, "compress") == []
    first = cmem.consolidation.apply(plan)
    assert set(live_levels(cmem, episode.id)) == {"full", "summary"}
    summary_text = cmem.typed.render(episode.id, "summary")
    assert summary_text.strip() and summary_text != NARRATIVE

    clock.advance(days=25)  # 33 days old
    plan = cmem.consolidation.run()
    assert isinstance(plan, Plan)
    assert actions_of(plan, "compress") == [(episode.id,)]
    second = cmem.consolidation.apply(plan)
    assert set(live_levels(cmem, episode.id)) == {"summary", "compressed", "index"}
    assert full in archived_ids(cmem)
    assert episode.id in live_ids(cmem)
    assert actions_of(cmem.consolidation.run(), "compress") == []  # done once

    cmem.consolidation.undo(second.id)
    assert live_levels(cmem, episode.id) == {
        "full": full,
        "summary": live_levels(cmem, episode.id)["summary"],
    }
    assert full not in archived_ids(cmem)
    cmem.consolidation.undo(first.id)
    assert live_levels(cmem, episode.id) == {"full": full}
    assert [c.id for c in cmem.children(episode.id)] == [full]  # created levels are gone


def test_a_compressed_episode_no_longer_shows_its_archived_narrative(
    cmem: Memory, clock: Clock
) -> None:
    episode = cmem.typed.episode("Deploy incident of the orders service", narrative=NARRATIVE)
    clock.advance(days=40)
    cmem.consolidation.run(dry_run=False)
    assert "full" not in live_levels(cmem, episode.id)
    assert "full" not in cmem.typed.memory(episode.id).levels
    assert cmem.typed.render(episode.id) != NARRATIVE


def test_a_very_old_episode_is_summarised_and_compressed_in_one_run(
    cmem: Memory, clock: Clock
) -> None:
    episode = cmem.typed.episode("Deploy incident of the orders service", narrative=NARRATIVE)
    clock.advance(days=40)
    run = cmem.consolidation.run(dry_run=False)
    assert isinstance(run, Run) and run.id
    assert set(live_levels(cmem, episode.id)) == {"summary", "compressed", "index"}
    cmem.consolidation.undo(run.id)
    assert set(live_levels(cmem, episode.id)) == {"full"} and archived_ids(cmem) == set()


def test_overlapping_episodes_merge_and_others_do_not(cmem: Memory, clock: Clock) -> None:
    first = cmem.typed.episode("Pairing on the parser", turns=(1, 5), participants=["alice", "bob"])
    clock.advance(minutes=1)
    second = cmem.typed.episode("Fixing the lexer", turns=(4, 8), participants=["alice"])
    clock.advance(minutes=1)
    strangers = cmem.typed.episode("Reviewing the budget", turns=(2, 3), participants=["dave"])
    later = cmem.typed.episode("Writing the docs", turns=(10, 12), participants=["alice"])
    plan = cmem.consolidation.run()
    assert isinstance(plan, Plan)
    assert actions_of(plan, "merge") == [(first.id, second.id)]
    run = cmem.consolidation.apply(plan)
    kept = cmem.get(first.id).metadata
    assert kept["turns"] == [1, 8] and kept["participants"] == ["alice", "bob"]
    assert kept["merged_from"] == [second.id]
    assert archived_ids(cmem) == {second.id}
    assert {strangers.id, later.id} <= live_ids(cmem)
    assert (first.id, second.id, "derived_from") in {r[:3] for r in relation_set(cmem)}
    cmem.consolidation.undo(run.id)
    assert cmem.get(first.id).metadata["turns"] == [1, 5]
    assert archived_ids(cmem) == set() and relation_set(cmem) == set()


# -- 6. stale summaries ------------------------------------------------------------


def test_a_stale_summary_is_rewritten_and_undo_restores_it(cmem: Memory) -> None:
    doc = cmem.add("Runbook")
    kids = [
        cmem.append_child(doc.id, t).id
        for t in (
            "Restart the web tier with the deploy script.",
            "Check the queue depth on the dashboard.",
            "Page the on-call engineer if errors persist.",
        )
    ]
    summary = cmem.add_summary(kids, "Restart, check queues, page on-call.")
    cmem.update(kids[1], "Check the queue depth and the error rate on the dashboard.")
    assert [s.id for s in cmem.stale_summaries()] == [summary.id]

    plan = cmem.consolidation.run()
    assert isinstance(plan, Plan)
    assert actions_of(plan, "refresh") == [(summary.id,)]
    run = cmem.consolidation.apply(plan)
    rewritten = cmem.get(summary.id)
    assert rewritten.text != summary.text and "error rate" in rewritten.text
    assert not rewritten.stale and cmem.stale_summaries() == []
    assert actions_of(cmem.consolidation.run(), "refresh") == []
    assert all(cmem.get(k).parent_id == summary.id for k in kids)  # children untouched

    cmem.consolidation.undo(run.id)
    assert cmem.get(summary.id).text == "Restart, check queues, page on-call."
    assert [s.id for s in cmem.stale_summaries()] == [summary.id]


# -- 7. links --------------------------------------------------------------------------


def test_a_shared_rare_tag_links_two_memories_once(cmem: Memory) -> None:
    a = cmem.remember("Renewal of the TLS certificate is due @zephyr")
    b = cmem.remember("Grafana dashboards need new owners @zephyr")
    cmem.remember("Lunch orders close at eleven @zephyr", scope="team:x")  # another scope
    crowded = cmem.consolidation.run(policy={"tag_group_max": 1})
    assert actions_of(crowded, "link") == []  # a common tag says nothing
    plan = cmem.consolidation.run()
    assert isinstance(plan, Plan)
    (link,) = [x for x in plan.actions if x.step == "link"]
    assert set(link.nodes) == {a.id, b.id} and "@zephyr" in link.reason
    run = cmem.consolidation.apply(plan)
    assert relation_set(cmem) == {(a.id, b.id, "related_to", 0.5)}
    assert actions_of(cmem.consolidation.run(), "link") == []
    cmem.consolidation.undo(run.id)
    assert relation_set(cmem) == set()
    assert actions_of(cmem.consolidation.run(), "link") == [link.nodes]


# -- 8. undo errors ----------------------------------------------------------------------


def test_undo_of_an_unknown_or_undone_run_changes_nothing(cmem: Memory, clock: Clock) -> None:
    cmem.remember("The gardener watered the tomato plants this morning")
    clock.advance(days=120)
    run = cmem.consolidation.run(dry_run=False)
    assert isinstance(run, Run) and run.id
    before = state(cmem)
    with pytest.raises(NotFound, match="nope"):
        cmem.consolidation.undo("nope")
    assert state(cmem) == before
    undone = cmem.consolidation.undo(run.id)
    after = state(cmem)
    clock.advance(hours=1)
    with pytest.raises(InvalidOperation, match=run.id):
        cmem.consolidation.undo(run.id)
    assert state(cmem) == after
    (listed_run,) = cmem.consolidation.runs()
    assert listed_run.id == run.id and listed_run.undone_at == undone.undone_at


# -- 9. apply then undo restores everything -----------------------------------------------

POOL = [
    DUPLICATE,
    DUPLICATE,
    "We use Postgres for billing",
    "We no longer use Postgres for billing",
    "The API listens on port 8080",
    "The API listens on port 9090",
    "Renewal of the TLS certificate is due @zephyr",
    "Grafana dashboards need new owners @zephyr",
    "The gardener watered the tomato plants this morning",
    "Pizza dough needs overnight rest in the fridge",
]
entry = st.tuples(
    st.sampled_from(["memory", "fact", "episode", "supersede", "access", "cite", "ignore"]),
    st.integers(min_value=0, max_value=len(POOL) - 1),
    st.integers(min_value=0, max_value=60),  # days before the next one
    st.sampled_from([0.2, 0.5, 0.9]),
)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(entry, min_size=1, max_size=14), st.integers(min_value=0, max_value=150))
def test_apply_then_undo_restores_the_memory(
    entries: list[tuple[str, int, int, float]], final_days: int
) -> None:
    clock = Clock()
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "m.db", embedder="hashing", clock=clock) as mem,
    ):
        made: list[str] = []
        for kind, pick, days, importance in entries:
            text = POOL[pick]
            if kind == "fact":
                made.append(mem.typed.fact("setting", text[:20], importance=importance).id)
            elif kind == "episode":
                turns = (pick, pick + 3)
                made.append(
                    mem.typed.episode(
                        text, narrative=NARRATIVE, turns=turns, participants=["al"]
                    ).id
                )
            elif kind == "supersede" and len(made) >= 1:
                new = mem.remember(text, importance=importance)
                mem.typed.relate(new.id, made[-1], "supersedes")
                made.append(new.id)
            elif kind == "access":
                mem.search(text, limit=1, record=True)
            elif kind == "cite" and made:  # cited three times: promoted
                for _ in range(3):
                    mem.record_usage(made[-2:], cited=made[-1:])
            elif kind == "ignore" and made:  # retrieved five times, never cited: demoted
                for _ in range(5):
                    mem.record_usage(made[-1:])
            else:
                made.append(mem.remember(text, importance=importance).id)
            clock.advance(days=days)
        clock.advance(days=final_days)

        def observed() -> dict[str, Any]:
            nodes = list(mem.store.iter_nodes())
            return {
                "live": live_ids(mem),
                "relations": relation_set(mem),
                "open": open_contradictions(mem),
                "importance": {n.id: n.importance for n in nodes},
                "metadata": {n.id: n.metadata for n in nodes},
                "text": {n.id: n.text for n in nodes},
                "decays": mem.store.decays([n.id for n in nodes]),
            }

        before = observed()
        run = mem.consolidation.run(dry_run=False)
        assert isinstance(run, Run)
        for step in run.summary:
            event(f"applied {step}")
        if not run.id:
            assert observed() == before and mem.consolidation.runs() == []
            return
        mem.consolidation.undo(run.id)
        assert observed() == before


# -- 10. nothing to do, bad requests ------------------------------------------------------------


def test_an_empty_memory_has_nothing_to_consolidate(cmem: Memory) -> None:
    plan = cmem.consolidation.run()
    assert isinstance(plan, Plan)
    assert plan.actions == () and plan.summary == {} and plan.memories == 0
    run = cmem.consolidation.apply(plan)
    assert (run.id, run.summary, run.actions, run.skipped) == ("", {}, (), 0)
    applied = cmem.consolidation.run(dry_run=False)
    assert isinstance(applied, Run) and applied.id == ""
    assert cmem.consolidation.runs() == []


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"steps": ["decay", "tidy"]}, "tidy"),
        ({"steps": "decay"}, "unknown consolidation step"),
        ({"policy": {"foo": 1}}, "foo"),
        ({"policy": {"forget_after_days": -1}}, "forget_after_days"),
        ({"policy": {"keep_importance": "high"}}, "keep_importance"),
    ],
)
def test_unknown_steps_and_bad_settings_are_refused(
    cmem: Memory, clock: Clock, options: dict[str, Any], named: str
) -> None:
    cmem.remember("The gardener watered the tomato plants this morning")
    clock.advance(days=120)
    before = state(cmem)
    with pytest.raises(InvalidInput, match=named):
        cmem.consolidation.run(dry_run=False, **options)
    assert state(cmem) == before
    with pytest.raises(InvalidInput):
        cmem.consolidation.apply({"actions": []})  # type: ignore[arg-type]


def test_every_step_runs_alone(cmem: Memory, clock: Clock) -> None:
    populate(cmem, clock)
    for step in STEPS:
        plan = cmem.consolidation.run(steps=[step])
        assert {a.step for a in plan.actions} <= {step}


# -- 11. a plan made stale ------------------------------------------------------------------


def test_actions_on_memories_changed_since_the_plan_are_skipped(cmem: Memory, clock: Clock) -> None:
    first = cmem.remember("The gardener watered the tomato plants this morning")
    second = cmem.remember("Pizza dough was left in the fridge today")
    clock.advance(days=120)
    plan = cmem.consolidation.run()
    assert isinstance(plan, Plan)
    assert sorted(actions_of(plan, "forget")) == sorted([(first.id,), (second.id,)])
    assert cmem.consolidation.archive(first.id) == 1
    clock.advance(minutes=1)
    run = cmem.consolidation.apply(plan)
    assert run.skipped >= 1 and run.id
    assert actions_of(run, "forget") == [(second.id,)]
    assert archived_ids(cmem) == {first.id, second.id}
    cmem.consolidation.undo(run.id)
    assert archived_ids(cmem) == {first.id}  # archived by hand: not the run's to undo
    cmem.consolidation.unarchive(first.id)
    assert archived_ids(cmem) == set()
    with pytest.raises(InvalidOperation, match="not archived"):
        cmem.consolidation.unarchive(first.id)


def test_a_plan_whose_every_action_is_stale_records_no_run(cmem: Memory, clock: Clock) -> None:
    note = cmem.remember("The gardener watered the tomato plants this morning")
    clock.advance(days=120)
    decayed = cmem.consolidation.run(dry_run=False, steps=["decay"])  # stores the decay factor
    assert isinstance(decayed, Run) and decayed.id
    plan = cmem.consolidation.run(steps=["forget"])
    assert isinstance(plan, Plan) and actions_of(plan, "forget") == [(note.id,)]
    cmem.consolidation.archive(note.id)
    run = cmem.consolidation.apply(plan)
    assert (run.id, run.actions, run.skipped) == ("", (), 1)
    assert [r.id for r in cmem.consolidation.runs()] == [decayed.id]


# -- 12. text contradictions -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "later", "kind"),
    [
        ("We use Postgres", "We no longer use Postgres", "negation"),
        ("I like tea", "I dislike tea", "negation"),
        ("The API listens on port 8080", "The API listens on port 9090", "changed_value"),
        ("Alice lives in Paris", "Alice moved to Lisbon", "changed_value"),
        ("Alice lives in Paris", "Carol lives in Rome", None),
        ("I have two cats", "I have 2 cats", None),
        ("We use Postgres", "We use Postgres", None),
        ("I have a cat", "I also have a dog", None),
        # A weekday and a time both change: one new time, not another entity.
        (
            "The standup is on Monday at 9am",
            "The standup moved to Wednesday at 10am",
            "changed_value",
        ),
        ("The standup is on Monday at 9am", "The retro is on Wednesday at 10am", None),
        # A capitalised first word from the detector's own lists is no name.
        ("Monthly rent is 900 euros", "Rent is now 950 euros", "changed_value"),
        ("The API is hosted in Frankfurt", "The API was migrated to Dublin", "changed_value"),
    ],
)
def test_the_text_detectors(earlier: str, later: str, kind: str | None) -> None:
    finding = compare(earlier, later)
    assert (finding.kind if finding else None) == kind
    if finding is not None:
        assert finding.reason


@pytest.mark.parametrize(
    ("earlier", "later", "kind"),
    [
        ("We use Postgres for billing", "We no longer use Postgres for billing", "negation"),
        ("The API listens on port 8080", "The API listens on port 9090", "changed_value"),
    ],
)
def test_a_scan_records_contradicting_statements(
    cmem: Memory, earlier: str, later: str, kind: str
) -> None:
    cmem.consolidation.scan_on_write = False  # the scan on write would record them first
    a = cmem.remember(earlier)
    b = cmem.remember(later)
    cmem.flush()
    near = dict(cmem.retriever.neighbours([a.id], 5)[a.id])
    assert near[b.id] >= Policy().contradiction_cosine  # the pair is looked at
    assert cmem.consolidation.contradictions() == []

    plan = cmem.consolidation.run()
    assert isinstance(plan, Plan)
    (action,) = [x for x in plan.actions if x.step == "contradiction"]
    # Written at the same moment: neither is newer, so a person settles it.
    assert action.nodes == (a.id, b.id) and action.data == {"kind": kind, "status": "open"}
    strict = cmem.consolidation.run(policy={"contradiction_cosine": 0.99})
    assert actions_of(strict, "contradiction") == []

    run = cmem.consolidation.apply(plan)
    (row,) = cmem.consolidation.contradictions()
    assert (row.a_id, row.b_id, row.kind, row.status) == (a.id, b.id, kind, "open")
    assert actions_of(cmem.consolidation.run(), "contradiction") == []  # recorded once
    cmem.consolidation.undo(run.id)
    assert cmem.consolidation.contradictions(status=None) == []


def test_a_scan_applies_a_newer_statement_as_an_update_and_undo_reverts_it(
    cmem: Memory, clock: Clock
) -> None:
    cmem.consolidation.scan_on_write = False
    a = cmem.remember("We use Postgres for billing")
    clock.advance(days=3)
    b = cmem.remember("We no longer use Postgres for billing")
    cmem.flush()
    plan = cmem.consolidation.run(steps=["contradiction"])
    assert isinstance(plan, Plan)
    (action,) = plan.actions
    assert action.data == {"kind": "negation", "status": "update"}
    run = cmem.consolidation.apply(plan)
    (update,) = cmem.consolidation.updates()
    assert (update.a_id, update.b_id) == (a.id, b.id)
    assert cmem.get(a.id).metadata["valid_to"] == b.created_at
    assert [h.node.id for h in cmem.search("Postgres billing", record=False)] == [b.id]
    cmem.consolidation.undo(run.id)
    assert cmem.consolidation.updates() == [] and "valid_to" not in cmem.get(a.id).metadata
    assert cmem.typed.relations(a.id) == []


# -- 13. the CLI -------------------------------------------------------------------------------


def test_cli_consolidate_undo_and_archive(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="hashing") as memory:
        memory.consolidation.scan_on_write = False  # so consolidation finds the Postgres pair
        a = memory.remember("Renewal of the TLS certificate is due @zephyr")
        b = memory.remember("Grafana dashboards need new owners @zephyr")
        memory.remember("We use Postgres for billing")
        memory.remember("We no longer use Postgres for billing")
        memory.flush()

    def cli(*args: str) -> Any:
        return run_cli(db, *args, embedder="hashing")

    def unchanged() -> tuple[Any, ...]:
        with Memory(db, embedder="hashing") as memory:
            return (
                relation_set(memory),
                memory.consolidation.contradictions(),
                memory.consolidation.archived(),
                snapshot(memory),
            )

    before = unchanged()
    dry = cli("consolidate")
    assert dry.returncode == 0, dry.stderr
    assert "link" in dry.stdout and a.id in dry.stdout and "contradiction" in dry.stdout
    assert "nothing changed" in dry.stderr
    planned = cli("consolidate", "--dry-run", "--step", "link", "--json")
    assert planned.returncode == 0, planned.stderr
    steps = [x["step"] for x in json.loads(planned.stdout)["actions"]]
    assert steps and set(steps) == {"link"}
    assert unchanged() == before

    applied = cli("consolidate", "--apply", "--json")
    assert applied.returncode == 0, applied.stderr
    result = json.loads(applied.stdout)
    run_id = result["run_id"]
    assert run_id and result["summary"]["link"] >= 1 and result["summary"]["contradiction"] == 1
    with Memory(db, embedder="hashing") as memory:
        assert (a.id, b.id, "related_to", 0.5) in relation_set(memory)
    runs = cli("runs", "--json")
    assert [r["run_id"] for r in json.loads(runs.stdout)] == [run_id]

    undone = cli("undo", run_id)
    assert undone.returncode == 0 and run_id in undone.stdout, undone.stderr
    assert unchanged()[:3] == before[:3]
    again = cli("undo", run_id)
    assert again.returncode == 1 and run_id in again.stderr and "already undone" in again.stderr
    unknown = cli("undo", "01NOSUCHRUN")
    assert unknown.returncode == 1 and "01NOSUCHRUN" in unknown.stderr

    bad = cli("consolidate", "--apply", "--set", "foo=1")
    assert bad.returncode != 0 and "foo" in bad.stderr
    assert cli("consolidate", "--set", "forget_after_days").returncode != 0
    assert unchanged()[:3] == before[:3]
    assert len(json.loads(cli("runs", "--json").stdout)) == 1

    archived = cli("archive", a.id)
    assert archived.returncode == 0 and "archived 1 node" in archived.stdout, archived.stderr
    (row,) = json.loads(cli("archived", "--json").stdout)
    assert row["id"] == a.id and row["archived_at"]
    hits = json.loads(cli("search", "TLS certificate renewal", "--json").stdout)
    assert a.id not in json.dumps(hits)
    restored = cli("unarchive", a.id)
    assert restored.returncode == 0 and "restored 1 node" in restored.stdout
    assert json.loads(cli("archived", "--json").stdout) == []
    twice = cli("unarchive", a.id)
    assert twice.returncode == 1 and "not archived" in twice.stderr
    assert json.loads(cli("archive", a.id, "--json").stdout) == {"archived": 1}
    assert json.loads(cli("unarchive", a.id, "--json").stdout) == {"restored": 1}


def test_a_compressed_episode_keeps_its_cause_and_its_outcome(cmem: Memory, clock: Clock) -> None:
    episode = cmem.typed.episode(
        "Deploy incident of the orders service",
        narrative=NARRATIVE,
        outcome="Migrations now run in a maintenance window",
    )
    clock.advance(days=40)
    cmem.consolidation.run(dry_run=False)
    compressed = cmem.typed.render(episode.id, "compressed")
    assert "because the migration locked the orders table" in compressed
    assert compressed.endswith("→ Migrations now run in a maintenance window")
