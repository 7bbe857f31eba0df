"""Forgetting keeps what matters (issue 20): knowledge a person keeps on
purpose, and anything cited, linked, pinned or marked important, is never
archived for disuse; trivia long unused is; superseded and expired memories
leave after their grace period; every archive is explained and undone with
its run.

Real SQLite files through the Memory facade on a hand-moved clock; the
hashing embedder (no meaning: only notes said of the moment count as
trivia) except where the MiniLM embedder's lean is the point.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mnemotree import InvalidInput, Memory
from mnemotree.bench import forgetting
from mnemotree.consolidate.plan import Plan, Policy, Run
from mnemotree.consolidate.salience import estimate
from tests.helpers import Clock

DECISIONS = [
    "Decided to use Postgres for the billing service.",
    "We chose Kafka over RabbitMQ for the event bus.",
    "Adopted trunk-based development for the web app.",
    "The mobile app drops support for Android 9.",
    "Feature flags are managed in LaunchDarkly.",
    "Use OpenTelemetry for all new tracing.",
    "The public API is versioned in the URL path.",
    "We keep one repository per service.",
    "Infrastructure changes go through Terraform only.",
    "Customer exports are generated nightly as CSV.",
    "Staging mirrors production's instance types.",
    "Incidents get a written postmortem within a week.",
    "Design docs are reviewed by two senior engineers.",
    "The search service moves to OpenSearch.",
    "Errors are reported to Sentry, not to email.",
    "Secrets live in Vault, never in the repository.",
    "The data warehouse is BigQuery.",
    "Releases are tagged with semantic versions.",
    "Frontend code is written in TypeScript.",
    "Load tests run before every major release.",
]
CONSTRAINTS = [
    "Passwords must be hashed with argon2id.",
    "Customer data may not leave the EU region.",
    "No deploys on Fridays after 15:00.",
]
PROCEDURES = [
    "To rotate the API keys: create new ones in the vault, deploy, revoke the old ones.",
    "Restoring a backup: pick the snapshot, restore to a new instance, switch the DNS.",
]
PREFERENCES = ["Ana prefers written updates to meetings.", "Leo likes reviews before noon."]
GOALS = ["Cut the p95 checkout latency below 300 ms this year."]
USEFUL_NOTES = [
    "Staging DB credentials rotate every 90 days.",
    "Priya is the DBA for the billing cluster.",
    "The payments service listens on port 8443.",
    "Jonas is on parental leave until September.",
]
# Said of the moment: trivia even by the wording alone.
TRIVIA = [
    "Pizza for lunch on Friday.",
    "lol the standup went long today",
    "It rained all morning.",
    "Cake in the kitchen for Ravi's birthday!",
    "Mo is out sick today.",
    "Happy Friday everyone!",
]
TRIVIAL = "Pizza for lunch on Friday."


def archived_ids(mem: Memory) -> set[str]:
    return {n.id for n, _ in mem.consolidation.archived(limit=10_000)}


def forgotten(plan: Plan | Run) -> dict[str, str]:
    """Memory id -> reason of each forget action."""
    return {a.nodes[0]: a.reason for a in plan.actions if a.step == "forget"}


def write_year(mem: Memory, clock: Clock) -> tuple[set[str], set[str]]:
    """A year of project memory, one write every few days; (useful, trivia) ids."""
    useful: list[str] = []
    trivia: list[str] = []
    writers: list[Callable[[], str]] = [
        *(lambda t=t: mem.remember(t, type="decision").id for t in DECISIONS),
        *(lambda t=t: mem.remember(t, type="constraint").id for t in CONSTRAINTS),
        *(lambda t=t: mem.remember(t, type="procedure").id for t in PROCEDURES),
        *(lambda t=t: mem.remember(t, type="preference").id for t in PREFERENCES),
        *(lambda t=t: mem.remember(t, type="goal").id for t in GOALS),
        *(lambda t=t: mem.remember(t).id for t in USEFUL_NOTES),
        lambda: mem.typed.fact("deploy_tool", "Argo CD").id,
        lambda: mem.remember("Priya", type="entity").id,
        lambda: (
            mem.typed.pattern("Repository", "class XRepository: ...", "data access goes here").id
        ),
        lambda: mem.typed.workflow("Release", ["freeze", "tag", "deploy", "announce"]).id,
        lambda: mem.typed.workflow("Hotfix", ["branch from the tag", "fix", "deploy"]).id,
    ]
    for i, write in enumerate(writers):
        useful.append(write())
        if i < len(TRIVIA):
            trivia.append(mem.remember(TRIVIA[i]).id)
        clock.advance(days=9)
    return set(useful), set(trivia)


def test_a_year_of_project_memory_keeps_what_matters(cmem: Memory, clock: Clock) -> None:
    # Once, 30 days after the last write, most of such a store was archived:
    # 13 of 20 decisions, every procedure, the pattern and both workflows.
    useful, trivia = write_year(cmem, clock)
    runs = []
    for months in (1, 2, 9):  # 1, 3 and 12 months after the last write
        clock.advance(days=30 * months)
        run = cmem.consolidation.run(dry_run=False)
        assert isinstance(run, Run)
        runs.append(run)
        assert not useful & archived_ids(cmem), months
    # The trivia was written early in the year: long unused by the first run.
    assert archived_ids(cmem) == trivia
    reasons = forgotten(runs[0])
    assert set(reasons) == trivia
    assert all(
        r.startswith("trivia unused for") and "passing moment" in r for r in reasons.values()
    )
    for run in reversed(runs):
        cmem.consolidation.undo(run.id)
    assert archived_ids(cmem) == set()


def test_trivia_goes_only_after_its_disuse_age(cmem: Memory, clock: Clock) -> None:
    note = cmem.remember(TRIVIAL)
    clock.advance(days=89)
    assert forgotten(cmem.consolidation.run(steps=["decay", "forget"])) == {}
    clock.advance(days=2)
    (reason,) = forgotten(cmem.consolidation.run(steps=["decay", "forget"])).values()
    assert "one particular day" in reason and "never accessed" in reason
    assert (
        forgotten(cmem.consolidation.run(steps=["forget"], policy={"disuse_days.memory": 120}))
        == {}
    )
    assert forgotten(cmem.consolidation.run(steps=["forget"], policy={"protected.memory": 1})) == {}
    later = cmem.consolidation.run(steps=["forget"], policy={"forget_after_days": 180})
    assert forgotten(later) == {}
    assert note.id in forgotten(cmem.consolidation.run(steps=["forget"]))


def _pinned(mem: Memory, node_id: str) -> None:
    mem.update(node_id, metadata={"pinned": True})


def _cited(mem: Memory, node_id: str) -> None:
    mem.record_usage([node_id], cited=[node_id])
    # A run since: the citation is no longer "since the last run", and still counts.
    mem.consolidation.run(dry_run=False, steps=["decay"])


def _depends(mem: Memory, node_id: str) -> None:
    mem.typed.relate(
        node_id, mem.remember("The lunch budget is 15 EUR per person.").id, "depends_on"
    )


def _related(mem: Memory, node_id: str) -> None:
    other = mem.remember("Team lunches are paid from the team budget.")
    mem.typed.relate(node_id, other.id, "related_to", strength=0.4)


KEEPERS: dict[str, tuple[dict[str, Any], Callable[[Memory, str], None] | None]] = {
    "pinned": ({}, _pinned),
    "cited once, long ago": ({}, _cited),
    "depends on another": ({}, _depends),
    "related by a person": ({}, _related),
    "marked important": ({"importance": 0.6}, None),
    "a preference": ({"type": "preference"}, None),
    "a decision": ({"type": "decision"}, None),
}


@pytest.mark.parametrize("why", sorted(KEEPERS))
def test_what_keeps_an_old_trivial_note(cmem: Memory, clock: Clock, why: str) -> None:
    options, make = KEEPERS[why]
    kept = cmem.remember(TRIVIAL, **options)
    control = cmem.remember("It rained all morning.")
    if make is not None:
        make(cmem, kept.id)
    clock.advance(days=400)
    plan = cmem.consolidation.run(steps=["decay", "forget"])
    assert set(forgotten(plan)) == {control.id}


def test_links_consolidation_found_itself_protect_nothing(cmem: Memory, clock: Clock) -> None:
    a = cmem.remember("Pizza for lunch on Friday @snacks")
    b = cmem.remember("Donuts in the kitchen today @snacks")
    linked = cmem.consolidation.run(dry_run=False, steps=["link"])
    assert [x.nodes for x in linked.actions] == [(a.id, b.id)]
    clock.advance(days=400)
    assert set(forgotten(cmem.consolidation.run(steps=["decay", "forget"]))) == {a.id, b.id}


def test_a_merged_note_keeps_the_use_of_those_merged_into_it(cmem: Memory, clock: Clock) -> None:
    older = cmem.remember(TRIVIAL)
    cmem.record_usage([older.id], cited=[older.id])
    clock.advance(hours=1)
    newer = cmem.remember(TRIVIAL)
    run = cmem.consolidation.run(dry_run=False, steps=["dedupe"])
    assert [a.nodes for a in run.actions] == [(newer.id, older.id)]
    clock.advance(days=400)
    assert forgotten(cmem.consolidation.run(steps=["decay", "forget"])) == {}


def test_kept_types_leave_when_superseded_or_expired(cmem: Memory, clock: Clock) -> None:
    old = cmem.remember("Deploys go out through the Jenkins pipeline.", type="decision")
    ends = "2026-01-02T00:00:00+00:00"  # a day after the start of the clock
    rule = cmem.remember("Code freeze for the audit.", type="constraint", valid_to=ends)
    clock.advance(days=1)
    new = cmem.remember("Releases ship with GitHub Actions workflows.", type="decision")
    cmem.typed.relate(new.id, old.id, "supersedes")  # the old one ends now, with the freeze
    clock.advance(days=29)  # the grace period is 30 days
    assert forgotten(cmem.consolidation.run(steps=["forget"])) == {}
    clock.advance(days=2)
    plan = cmem.consolidation.run(steps=["forget"])
    assert isinstance(plan, Plan)
    assert {a.nodes[0]: a.data["why"] for a in plan.actions} == {
        old.id: "superseded",
        rule.id: "expired",
    }
    assert forgotten(plan)[rule.id] == "expired: valid until 2026-01-02"
    clock.advance(days=400)
    assert forgotten(cmem.consolidation.run(steps=["forget"])).keys() == {old.id, rule.id}


def test_per_type_policies(cmem: Memory, clock: Clock) -> None:
    liked = cmem.remember(TRIVIAL, type="preference")
    fact = cmem.remember("Lunch was pizza again today.", type="fact")
    clock.advance(days=200)
    assert set(forgotten(cmem.consolidation.run(steps=["forget"]))) == {fact.id}
    unprotected = cmem.consolidation.run(steps=["forget"], policy={"protected.preference": 0})
    assert set(forgotten(unprotected)) == {liked.id, fact.id}
    only = cmem.consolidation.run(steps=["forget"], policy=Policy(protected_types=()))
    assert set(forgotten(only)) == {liked.id, fact.id}
    slower = {"protected_types": [], "disuse_days": {"preference": 365, "fact": 100}}
    assert set(forgotten(cmem.consolidation.run(steps=["forget"], policy=slower))) == {fact.id}


@pytest.mark.parametrize(
    ("policy", "named"),
    [
        ({"protected_types": "decision"}, "protected_types"),
        ({"protected_types": ["decision", "memo"]}, "memo"),
        ({"disuse_days": {"fact": -1}}, "disuse_days.fact"),
        ({"disuse_days": [1, 2]}, "disuse_days"),
        ({"disuse_days.note": 30}, "note"),
        ({"protected.fact": 2}, "protected.fact"),
        ({"protected.fact": True}, "protected.fact"),
    ],
)
def test_bad_per_type_settings_are_refused(
    cmem: Memory, clock: Clock, policy: dict[str, Any], named: str
) -> None:
    cmem.remember(TRIVIAL)
    clock.advance(days=400)
    with pytest.raises(InvalidInput, match=named):
        cmem.consolidation.run(dry_run=False, policy=policy)
    assert archived_ids(cmem) == set() and cmem.consolidation.runs() == []


def test_with_a_model_past_tense_trivia_goes_and_knowledge_stays(
    db_path: Path, clock: Clock
) -> None:
    with Memory(db_path, embedder="minilm", clock=clock) as mem:
        mem.consolidation.scan_on_write = False
        trivia = mem.remember("The coffee machine on floor 2 was descaled.")
        kept = [
            mem.remember(text).id
            for text in (
                "Passwords must be hashed with argon2id.",
                "Staging DB credentials rotate every 90 days.",
                "Priya is the DBA for the billing cluster.",
                "Rotated the Stripe keys after the contractor left.",
                "Merged the auth service into the gateway.",
            )
        ]
        clock.advance(days=365)
        reasons = forgotten(mem.consolidation.run(steps=["decay", "forget"]))
        assert set(reasons) == {trivia.id}, reasons
        assert "a past event" in reasons[trivia.id] and "everyday life" in reasons[trivia.id]
        assert kept


def test_the_wording_alone_never_archives_a_past_event() -> None:
    # Without a model that can tell everyday life from work, a past tense is
    # too weak a cue: engineers log changes in it.
    assert not estimate("The coffee machine on floor 2 was descaled.").trivia
    assert estimate("The coffee machine on floor 2 was descaled.", lean=0.3).trivia
    assert not estimate("Bumped the connection pool to 50.", lean=-0.1).trivia
    assert estimate("Pizza for lunch on Friday.").trivia
    assert not estimate("Pizza for lunch on Friday.", lean=-0.05).trivia
    assert not estimate("office_city: Berlin", keyed=True).trivia


def test_the_salience_benchmark_archives_no_useful_note() -> None:
    figures = forgetting.salience()
    assert figures["lean_used"]
    assert {"round_7", "round_8"} <= set(figures["with_lean"])
    for reading in ("with_lean", "with_lean_long_unused"):
        overall = figures[reading]["all"]
        assert overall["useful_archived"] == 0, (reading, overall["useful_archived_texts"])
        assert overall["recall"] >= 0.5
    # Long disuse archives more, never less.
    eased = figures["with_lean_long_unused"]["all"]["trivia_archived"]
    assert eased > figures["with_lean"]["all"]["trivia_archived"]
    assert figures["wording_only"]["all"]["false_forgetting"] < 0.01
