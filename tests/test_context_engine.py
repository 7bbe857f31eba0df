"""The context engine's behaviour (the tiered- and living-memory designs): the four tiers and what
goes in each, activities rebalancing them, unused budget flowing on, mixed
resolution with pointers to what was left out, the topic line, input
checks, predictions from artifacts, history, routines, co-access and
errors, hard scopes, usage feedback and its effect on ranking, and working
memory for a chat turn. Real SQLite files, the hashing embedder and a
hand-moved clock; no mocks."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from mnemotree import InvalidInput, Memory, NotFound
from mnemotree.context.assemble import Context
from mnemotree.context.pack import Tier
from mnemotree.context.render import renderings
from mnemotree.context.signals import ACTIVITIES, SHARES, SIGNALS, Signals
from mnemotree.conversation.session import message_tokens
from mnemotree.model import Node
from tests.helpers import START, Clock

pytestmark = pytest.mark.both_stores  # every test using the memory fixtures runs on both

LOGIN = "src/auth/login.ts"
UNKNOWN_ID = "01ARZ3NDEKTSV4RRFFQ69G5FAV"  # well-formed, but no such memory


def tier(ctx: Context, name: str) -> Tier:
    [found] = [t for t in ctx.tiers if t.name == name]
    return found


def ids_in(ctx: Context, name: str) -> list[str]:
    return [i.node_id for i in tier(ctx, name).items]


def item(ctx: Context, node_id: str) -> tuple[str, Any]:
    """The tier and item of the first placement of `node_id` (tiers 1-3)."""
    for t in ctx.tiers[:3]:
        for i in t.items:
            if i.node_id == node_id:
                return t.name, i
    raise AssertionError(f"{node_id} is not in the context: {ctx.to_dict()}")


def memory_text(memory: Memory, node_id: str) -> str:
    return memory.get(node_id).text


def predicted(memory: Memory, signals: Any, **options: Any) -> dict[str, Any]:
    return {p.node.id: p for p in memory.predict(signals, **options)}


def exact(memory: Memory, ctx: Context, budget: int) -> None:
    assert ctx.token_count <= budget
    assert memory.tokenizer.count(ctx.text) == ctx.token_count


# -- the critical tier --------------------------------------------------------------


def test_a_decision_naming_the_open_file_lands_in_the_critical_tier(cmem: Memory) -> None:
    jwt = cmem.remember(
        "Use JWT with refresh tokens for sign-in",
        type="decision",
        artifacts=[{"type": "file", "ref": LOGIN}],
    )
    billing = cmem.remember(
        "Invoices are generated nightly",
        type="decision",
        artifacts=[{"type": "file", "ref": "lib/billing/invoice.go"}],
    )
    ctx = cmem.context(budget=8000, signals={"file": LOGIN})
    exact(cmem, ctx, 8000)
    where, placed = item(ctx, jwt.id)
    assert where == "critical"
    assert placed.reason == f"decision for {LOGIN}" and placed.level == "full"
    # A short reference leads the line; the context maps it to the node id.
    assert f"{placed.ref} Use JWT with refresh tokens for sign-in" in ctx.text
    assert ctx.refs[placed.ref] == jwt.id and jwt.id not in ctx.text
    assert billing.id not in ids_in(ctx, "critical")
    assert ctx.text.startswith("## Critical\n")


def test_a_decision_for_a_file_in_the_same_folder_is_critical_too(cmem: Memory) -> None:
    sibling = cmem.remember(
        "Sessions expire after 30 minutes",
        type="decision",
        artifacts=[{"type": "file", "ref": "src/auth/session.ts"}],
    )
    ctx = cmem.context(budget=4000, signals={"file": LOGIN})
    assert item(ctx, sibling.id)[0] == "critical"


def test_an_unresolved_contradiction_is_critical_and_names_both_memories(
    cmem: Memory,
) -> None:
    redis = cmem.remember("The cache is Redis", type="fact")
    memcached = cmem.remember("The cache is Memcached", type="fact")
    cmem.typed.relate(redis.id, memcached.id, "contradicts")
    ctx = cmem.context(budget=2000)
    [pair] = [i for i in tier(ctx, "critical").items if i.reason == "unresolved contradiction"]
    assert pair.node_id == redis.id and pair.covers == (memcached.id,)
    # Both statements, each with its reference and day, and the question.
    refs = {node_id: ref for ref, node_id in ctx.refs.items()}
    day = redis.created_at[:10]
    assert pair.text == (
        f"«The cache is Redis» [{refs[redis.id]}] ({day}) vs "
        f"«The cache is Memcached» [{refs[memcached.id]}] ({day}): which holds?"
    )
    assert pair.text in ctx.text.split("\n") and redis.id not in ctx.text


def test_a_superseded_decision_is_no_longer_used(cmem: Memory, clock: Clock) -> None:
    old = cmem.remember(
        "Sign-in uses server sessions",
        type="decision",
        artifacts=[{"type": "file", "ref": LOGIN}],
    )
    clock.advance(hours=1)
    new = cmem.remember(
        "Sign-in uses JWT", type="decision", artifacts=[{"type": "file", "ref": LOGIN}]
    )
    cmem.typed.relate(new.id, old.id, "supersedes")
    clock.advance(hours=1)
    ctx = cmem.context(budget=4000, signals={"file": LOGIN})
    assert new.id in ids_in(ctx, "critical")
    assert old.id not in ctx.node_ids() and old.id not in ctx.text
    assert old.id not in predicted(cmem, {"file": LOGIN})
    # Time travel: before the new decision, the old one was the decision.
    then = cmem.context(budget=4000, signals={"file": LOGIN, "time": START})
    assert old.id in ids_in(then, "critical")


def test_a_memory_like_the_current_error_is_critical(cmem: Memory) -> None:
    fix = cmem.remember(
        "TypeError cannot read properties of undefined reading token: check the session first",
        type="procedure",
    )
    cmem.remember("Deploys happen on Fridays", type="fact")
    error = "TypeError: Cannot read properties of undefined (reading 'token')"
    ctx = cmem.context(budget=4000, signals={"error": error})
    where, placed = item(ctx, fix.id)
    assert where == "critical" and placed.reason == "like this error"


def test_a_recent_fix_is_critical_and_an_old_one_is_history(cmem: Memory, clock: Clock) -> None:
    fix = cmem.typed.episode(
        "Fixed the login crash",
        summary="A null token crashed login; we guard it now",
        episode_type="problem_solved",
    )
    ctx = cmem.context(budget=4000)
    assert item(ctx, fix.id) == ("critical", item(ctx, fix.id)[1])
    assert item(ctx, fix.id)[1].reason == "recent fix"
    clock.advance(days=2)
    later = cmem.context(budget=4000)
    where, placed = item(later, fix.id)
    assert where == "background" and placed.reason == "history"


# -- shares, activities and flow --------------------------------------------------


def test_debugging_rebalances_the_tiers_as_in_seed_004_scenario_2(cmem: Memory) -> None:
    assert tuple(int(8000 * s) for s in SHARES["debugging"]) == (3000, 2500, 1500, 1000)
    assert tuple(int(8000 * s) for s in SHARES["default"]) == (2000, 3000, 2000, 1000)
    for share in SHARES.values():
        assert sum(share) == pytest.approx(1.0)
    cmem.remember("Always run lint before commit", type="constraint", tags=["lint"])
    default = cmem.context(budget=8000)
    debugging = cmem.context(budget=8000, activity="debugging")
    assert debugging.activity == "debugging" and default.activity == "default"
    assert tier(debugging, "critical").budget == 3000 > tier(default, "critical").budget == 2000

    def own(ctx: Context, name: str) -> int:
        """A tier's own share: its budget less what the tier before left unused."""
        names = [t.name for t in ctx.tiers]
        before = ctx.tiers[names.index(name) - 1]
        return tier(ctx, name).budget - (before.budget - before.tokens)

    assert own(debugging, "relevant") == 2500 < own(default, "relevant") == 3000
    assert own(debugging, "background") == 1500 < own(default, "background") == 2000
    # The same activity given as a signal does the same.
    assert cmem.context(budget=8000, signals={"activity": "debugging"}).to_dict() == (
        debugging.to_dict()
    )


def test_unused_budget_flows_to_the_later_tiers(cmem: Memory) -> None:
    lint = cmem.remember("Always run lint before commit", type="constraint", tags=["lint"])
    ctx = cmem.context(budget=1000)
    critical, relevant, background, index = ctx.tiers
    assert (critical.tokens, relevant.tokens) == (0, 0)  # nothing critical or relevant
    assert critical.budget == 250
    assert relevant.budget == 375 + 250
    assert background.budget == 250 + 625
    assert ids_in(ctx, "background") == [lint.id]
    assert index.budget == 1000 - background.tokens
    assert ctx.tiers[3].items[0].text == "Ask me about: lint"
    exact(cmem, ctx, 1000)


def test_a_workflow_triggered_by_the_activity_comes_first_in_the_background(
    cmem: Memory,
) -> None:
    deploy = cmem.typed.workflow("Release", ["run tests", "tag", "push"], trigger="deploying")
    review = cmem.typed.workflow("Review", ["read diff", "comment"], trigger="reviewing")
    ctx = cmem.context(budget=2000, activity="deploying")
    assert ctx.activity == "deploying"
    background = tier(ctx, "background").items
    relevant = tier(ctx, "relevant").items
    assert [i.node_id for i in relevant] == [deploy.id]  # predicted from the activity
    assert relevant[0].reason == "predicted: workflow for deploying"
    assert review.id in [i.node_id for i in background]
    assert predicted(cmem, {"activity": "deploying"})[deploy.id].reasons == [
        "workflow for deploying"
    ]


# -- mixed resolution, pointers and topics ------------------------------------------


def make_episode(memory: Memory) -> Node:
    return memory.typed.episode(
        "Login crash",
        narrative=" ".join(
            f"Step {i}: we traced the null session token through the handler." for i in range(40)
        ),
        summary="A null session token crashed login; the handler now checks it first.",
        compressed="null token crash fixed",
        index="login crash",
        episode_type="problem_solved",
    )


def test_a_large_budget_renders_an_episode_in_full(cmem: Memory) -> None:
    episode = make_episode(cmem)
    ctx = cmem.context(budget=8000)
    where, placed = item(ctx, episode.id)
    assert where == "critical" and placed.level == "full" and placed.full
    assert "Step 39: we traced" in ctx.text
    assert not any(i.text.startswith("more:") for i in tier(ctx, "index").items)


def test_a_small_budget_shortens_an_episode_and_points_to_the_rest(cmem: Memory) -> None:
    episode = make_episode(cmem)
    ctx = cmem.context(budget=300)
    exact(cmem, ctx, 300)
    where, placed = item(ctx, episode.id)
    assert where == "critical" and placed.level == "summary" and not placed.full
    assert "the handler now checks it first" in ctx.text and "Step 39" not in ctx.text
    pointers = [i for i in tier(ctx, "index").items if i.reason == "expand"]
    assert [(p.node_id, p.text) for p in pointers] == [(episode.id, "login crash")]
    # The pointer reuses the episode's reference, under the pointers' heading.
    assert pointers[0].ref == placed.ref and ctx.refs[placed.ref] == episode.id
    assert f"### More, by reference\n{placed.ref} login crash" in ctx.text


def test_an_episode_given_only_in_full_is_shortened_to_what_it_carries(cmem: Memory) -> None:
    steps = " ".join(f"Step {i}: we looked at another dashboard." for i in range(30))
    episode = cmem.typed.episode(
        "Checkout outage",
        narrative=f"{steps} The root cause was a staging override that cut the pool to 5. "
        "We decided to add a CI check on pool sizes. Then everyone went home.",
        episode_type="problem_solved",
    )
    ctx = cmem.context(budget=300)
    exact(cmem, ctx, 300)
    _, placed = item(ctx, episode.id)
    # Not only its title, nor its first sentences: the cause and the decision.
    assert placed.level in ("summary", "compressed") and not placed.full
    assert "CI check on pool sizes" in placed.text and "Step 1:" not in placed.text


def test_memories_left_out_entirely_get_pointers_in_the_index(cmem: Memory) -> None:
    pairs = []
    cmem.consolidation.scan_on_write = (
        False  # the pairs are the relations below, nothing found on write
    )
    for i in range(4):
        a = cmem.remember(f"Cache {i} is Redis, as agreed in the spring review.", type="fact")
        b = cmem.remember(f"Cache {i} is Memcached, as agreed in the autumn review.", type="fact")
        cmem.typed.relate(a.id, b.id, "contradicts")
        pairs.append((a.id, b.id))
    ctx = cmem.context(budget=200)  # room in the critical tier for about one pair
    exact(cmem, ctx, 200)
    shown = set(ids_in(ctx, "critical"))
    assert shown and len(shown) < len(pairs)
    pointers = [i for i in tier(ctx, "index").items if i.reason == "expand"]
    pointed = {p.node_id for p in pointers}
    assert pointed - shown  # a pair left out entirely is still named, for expansion
    assert pointed <= {a for a, _ in pairs}
    for p in pointers:
        partner = dict(pairs)[p.node_id]
        a_ref, b_ref = (
            next(r for r, i in ctx.refs.items() if i == n) for n in (p.node_id, partner)
        )
        number = memory_text(cmem, p.node_id).split()[1]
        assert p.text == (
            f"«Cache {number} is Redis, as…» [{a_ref}] vs «Cache {number} is Memcached, as…» "
            f"[{b_ref}]"
        )
        assert p.level == "index" and p.text in ctx.text.split("\n")
    # Shown in full, a memory gets no pointer.
    roomy = cmem.context(budget=4000)
    assert set(ids_in(roomy, "critical")) == {a for a, _ in pairs}
    assert not [i for i in tier(roomy, "index").items if i.reason == "expand"]


def test_tags_give_an_ask_me_about_line_most_common_first(cmem: Memory) -> None:
    cmem.remember("Use bcrypt for passwords", type="constraint", tags=["auth", "security"])
    cmem.remember("Tokens expire in an hour", type="constraint", tags=["auth"])
    cmem.remember("Prefer small pull requests", type="preference", tags=["Review"])
    ctx = cmem.context(budget=2000)
    [topics] = [i for i in tier(ctx, "index").items if i.reason == "topics"]
    assert topics.node_id == "" and topics.text == "Ask me about: auth, review, security"
    assert ctx.text.endswith("## Index\nAsk me about: auth, review, security")


def test_the_ask_me_about_line_names_the_subjects_memories_name(cmem: Memory) -> None:
    cmem.remember("The billing migration is owned by Priya", type="constraint", tags=["billing"])
    cmem.remember("Contract renewals go through Priya and Greta", type="constraint")
    cmem.remember("The team party is at Casa Olmedo on Sunday", type="constraint")
    ctx = cmem.context(budget=2000)
    [topics] = [i for i in tier(ctx, "index").items if i.reason == "topics"]
    # Named twice first; a tag and each other name once, in order; no weekday.
    assert topics.text == "Ask me about: Priya, billing, Casa Olmedo, Greta"


def test_the_query_finds_relevant_memories(cmem: Memory) -> None:
    postgres = cmem.remember("Billing runs on PostgreSQL 16", type="fact")
    cmem.remember("The office plant needs water", type="fact")
    # The hashing embedder's "meaning" is words: the query shares two of them.
    ctx = cmem.context("which database does billing run on", budget=2000)
    where, placed = item(ctx, postgres.id)
    assert where == "relevant" and placed.reason == "matches the query"


def test_hits_under_one_summary_are_grouped_under_it(cmem: Memory) -> None:
    root = cmem.add("Meeting notes")
    members = [
        "Billing invoices are sent on the first working day of every month by the finance team",
        "Billing refunds take five working days and need a second approval from the finance lead",
    ]
    first, second = cmem.append_many(root.id, members)
    summary = cmem.add_summary([first.id, second.id], "What we agreed in March")
    ctx = cmem.context("billing invoices refunds", budget=4000)
    where, placed = item(ctx, summary.id)
    assert where == "relevant" and placed.reason == "matches the query (grouped)"
    assert set(placed.covers) == {first.id, second.id} and placed.level == "full"
    # Each member has its own reference, so an answer citing it can be traced.
    refs = {node_id: ref for ref, node_id in ctx.refs.items()}
    expected = [f"{members[0]} [{refs[first.id]}]", f"{members[1]} [{refs[second.id]}]"]
    assert sorted(placed.text.split(" / ")) == sorted(expected)
    assert first.id not in ctx.node_ids() and second.id not in ctx.node_ids()
    # With room for the summary but not for both members, the summary stands in.
    small = cmem.context("billing invoices refunds", budget=40)  # 10 + 15 for relevant
    exact(cmem, small, 40)
    where, placed = item(small, summary.id)
    assert (where, placed.level, placed.text) == ("relevant", "summary", "What we agreed in March")
    assert set(placed.covers) == {first.id, second.id} and not placed.full


# -- empty memories and bad input ---------------------------------------------------


def test_an_empty_memory_gives_a_well_formed_empty_context(cmem: Memory) -> None:
    ctx = cmem.context("anything at all", budget=500, signals={"file": LOGIN})
    assert (ctx.text, ctx.token_count, ctx.budget) == ("", 0, 500)
    assert [t.name for t in ctx.tiers] == ["critical", "relevant", "background", "index"]
    assert all(t.items == [] and t.tokens == 0 for t in ctx.tiers)
    assert ctx.node_ids() == [] and ctx.warnings
    assert "no memories" in ctx.warnings[0]
    assert ctx.to_dict()["tiers"][0] == {
        "name": "critical",
        "budget": 125,
        "tokens": 0,
        "items": [],
    }
    assert cmem.predict({"file": LOGIN}) == []


@pytest.mark.parametrize("budget", [0, -1, True, False, "8000", 1.5, None, 1_000_001])
def test_a_budget_that_is_not_a_positive_whole_number_is_refused(cmem: Memory, budget: Any) -> None:
    with pytest.raises(InvalidInput, match="budget"):
        cmem.context(budget=budget)


def test_a_budget_of_one_token_is_kept(cmem: Memory) -> None:
    cmem.remember("Always run lint before commit", type="constraint", tags=["lint"])
    ctx = cmem.context(budget=1)
    assert ctx.token_count <= 1 and ctx.text == ""


@pytest.mark.parametrize("signals", [{"colour": "red"}, ["colour=red"], ["file=a.ts", "mood=ok"]])
def test_an_unknown_signal_is_refused_naming_the_known_ones(cmem: Memory, signals: Any) -> None:
    with pytest.raises(InvalidInput) as refused:
        cmem.context(budget=100, signals=signals)
    assert all(name in str(refused.value) for name in SIGNALS)
    with pytest.raises(InvalidInput):
        cmem.predict(signals)


def test_a_signal_without_a_value_a_bad_time_or_a_huge_text_is_refused(cmem: Memory) -> None:
    with pytest.raises(InvalidInput, match="limit is 2000"):
        cmem.context(budget=100, signals={"error": "x" * 2001})
    with pytest.raises(InvalidInput, match="name=value"):
        cmem.context(budget=100, signals=["src/auth/login.ts"])
    with pytest.raises(InvalidInput, match="ISO-8601"):
        cmem.context(budget=100, signals={"time": "tomorrow-ish"})
    with pytest.raises(InvalidInput, match="text"):
        cmem.context(budget=100, signals={"file": 42})


@pytest.mark.parametrize("how", ["activity", "signal", "object"])
def test_an_unknown_activity_is_refused_naming_the_choices(cmem: Memory, how: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        if how == "activity":
            cmem.context(budget=100, activity="dancing")
        elif how == "signal":
            cmem.context(budget=100, signals={"activity": "dancing"})
        else:
            Signals(activity="dancing")
    assert "dancing" in str(refused.value)
    assert all(name in str(refused.value) for name in ACTIVITIES)


@pytest.mark.parametrize("signals", [None, {}, [], Signals()])
def test_predict_needs_at_least_one_signal(cmem: Memory, signals: Any) -> None:
    with pytest.raises(InvalidInput, match="at least one signal"):
        cmem.predict(signals)


@pytest.mark.parametrize("limit", [0, -3, True, 1001, "5"])
def test_predict_refuses_a_bad_limit(cmem: Memory, limit: Any) -> None:
    with pytest.raises(InvalidInput, match="limit"):
        cmem.predict({"file": LOGIN}, limit=limit)


def test_scopes_must_be_a_list(cmem: Memory) -> None:
    with pytest.raises(InvalidInput, match="list"):
        cmem.context(budget=100, scopes="a")


# -- predictions --------------------------------------------------------------------


def test_an_artifact_link_to_the_open_file_is_the_top_prediction(cmem: Memory) -> None:
    cmem.remember("Unrelated: the office plant needs water", type="fact")
    same_name = cmem.remember(
        "The docs sample has its own login page",
        type="fact",
        artifacts=[{"type": "file", "ref": "docs/login.ts"}],
    )
    folder = cmem.remember(
        "Auth helpers live together",
        type="fact",
        artifacts=[{"type": "file", "ref": "src/auth/hash.ts"}],
    )
    linked = cmem.remember(
        "Use JWT with refresh tokens", type="decision", artifacts=[{"type": "file", "ref": LOGIN}]
    )
    found = cmem.predict({"file": LOGIN})
    assert found[0].node.id == linked.id
    assert found[0].confidence >= 0.9 and LOGIN in found[0].reasons[0]
    by_id = {p.node.id: p for p in found}
    assert "names a file called login.ts" in by_id[same_name.id].reasons
    assert "names a file in src/auth" in by_id[folder.id].reasons
    assert by_id[linked.id].confidence > by_id[same_name.id].confidence
    assert by_id[same_name.id].confidence > by_id[folder.id].confidence
    assert all(0 < p.confidence < 1 for p in found)
    assert found[0].to_dict()["id"] == linked.id


def test_a_branch_artifact_predicts_for_the_branch(cmem: Memory) -> None:
    linked = cmem.remember(
        "The login rewrite lands behind a flag",
        type="decision",
        artifacts=[{"type": "branch", "ref": "feature/login-rewrite"}],
    )
    found = predicted(cmem, {"branch": "feature/login-rewrite"})
    assert "names branch feature/login-rewrite" in found[linked.id].reasons


def test_memories_cited_while_a_file_was_open_are_predicted_for_it(cmem: Memory) -> None:
    used = cmem.remember("Retry the flaky integration suite twice", type="procedure")
    shown = cmem.remember("Coffee is in the second drawer", type="fact")
    assert used.id not in predicted(cmem, {"file": LOGIN})
    for _ in range(3):
        report = cmem.record_usage([used.id, shown.id], cited=[used.id], signals={"file": LOGIN})
        assert report.ignored == [shown.id]
    found = predicted(cmem, {"file": LOGIN})
    assert used.id in found and shown.id not in found
    assert "cited in 3 of 3 contexts with this file" in found[used.id].reasons
    assert used.id not in predicted(cmem, {"file": "src/other/thing.ts"})


def test_a_memory_used_at_the_same_hour_on_several_days_is_a_routine(
    cmem: Memory, clock: Clock
) -> None:
    standup = cmem.remember("Standup notes go in the team channel", type="procedure")
    clock.advance(hours=9)  # 09:00
    for _ in range(3):
        cmem.record_usage([standup.id], cited=[standup.id])
        clock.advance(days=1)
    nine = START + timedelta(days=10, hours=9, minutes=20)
    found = predicted(cmem, {"time": nine})
    assert standup.id in found
    assert found[standup.id].reasons == ["used around 9h UTC on 3 of 3 days"]
    assert found[standup.id].confidence == pytest.approx(0.9)
    # As a name=value string too, and not at another time of day.
    assert standup.id in predicted(cmem, ["time=2026-01-20T10:05:00+00:00"])
    assert standup.id not in predicted(cmem, {"time": nine + timedelta(hours=6)})


def test_one_day_is_not_a_routine(cmem: Memory, clock: Clock) -> None:
    once = cmem.remember("Standup notes go in the team channel", type="procedure")
    clock.advance(hours=9)
    cmem.record_usage([once.id], cited=[once.id])
    cmem.record_usage([once.id], cited=[once.id])
    assert once.id not in predicted(cmem, {"time": START + timedelta(days=3, hours=9)})


def test_memories_cited_together_with_a_strong_prediction_are_predicted(
    cmem: Memory,
) -> None:
    anchor = cmem.remember(
        "Use JWT with refresh tokens", type="decision", artifacts=[{"type": "file", "ref": LOGIN}]
    )
    partner = cmem.remember("Rotate the signing keys every quarter", type="procedure")
    loner = cmem.remember("Coffee is in the second drawer", type="fact")
    assert partner.id not in predicted(cmem, {"file": LOGIN})
    cmem.record_usage([anchor.id, partner.id, loner.id], cited=[anchor.id, partner.id])
    cmem.record_usage([anchor.id, partner.id, loner.id], cited=[anchor.id, partner.id])
    found = predicted(cmem, {"file": LOGIN})
    assert partner.id in found and loner.id not in found
    assert "used with these in 2 contexts" in found[partner.id].reasons
    assert found[anchor.id].confidence > found[partner.id].confidence


def test_an_error_predicts_memories_like_it(cmem: Memory) -> None:
    fix = cmem.remember(
        "ECONNREFUSED connecting to postgres on port 5432: start the database container",
        type="procedure",
    )
    cmem.remember("Tabs are preferred over spaces", type="preference")
    found = predicted(cmem, {"error": "Error: connect ECONNREFUSED 127.0.0.1:5432 postgres"})
    assert fix.id in found
    assert found[fix.id].reasons[0].startswith("like this error (")
    assert next(iter(found)) == fix.id  # the most confident first


def test_a_collaborators_preferences_are_predicted(cmem: Memory) -> None:
    pref = cmem.remember("Ana prefers squash merges", type="preference")
    cmem.remember("Bob likes long reviews", type="fact")
    found = predicted(cmem, {"collaborator": "Ana"})
    assert pref.id in found and "Ana's preference" in found[pref.id].reasons


def test_agreeing_evidence_raises_confidence_without_passing_one(cmem: Memory) -> None:
    both = cmem.remember(
        "Use JWT with refresh tokens", type="decision", artifacts=[{"type": "file", "ref": LOGIN}]
    )
    before = predicted(cmem, {"file": LOGIN})[both.id].confidence
    for _ in range(4):
        cmem.record_usage([both.id], cited=[both.id], signals={"file": LOGIN})
    after = predicted(cmem, {"file": LOGIN})[both.id]
    assert before < after.confidence < 1
    assert len(after.reasons) >= 2


def test_predict_limit_keeps_the_most_confident(cmem: Memory) -> None:
    for i in range(5):
        cmem.remember(
            f"Decision {i} about sign-in",
            type="decision",
            artifacts=[{"type": "file", "ref": LOGIN if i % 2 else "src/auth/x.ts"}],
        )
    everything = cmem.predict({"file": LOGIN})
    two = cmem.predict({"file": LOGIN}, limit=2)
    assert [p.node.id for p in two] == [p.node.id for p in everything[:2]]
    confidences = [p.confidence for p in everything]
    assert confidences == sorted(confidences, reverse=True)


# -- scopes -------------------------------------------------------------------------


def test_scopes_are_hard_for_predictions_and_contexts(cmem: Memory) -> None:
    mine = cmem.remember(
        "Use JWT with refresh tokens",
        type="decision",
        scope="a",
        artifacts=[{"type": "file", "ref": LOGIN}],
        tags=["auth"],
    )
    theirs = cmem.remember(
        "Use opaque session ids",
        type="decision",
        scope="b",
        artifacts=[{"type": "file", "ref": LOGIN}],
        tags=["secret-topic"],
    )
    also_theirs = cmem.remember("Opaque ids are stored in redis", type="constraint", scope="b")
    cmem.typed.relate(theirs.id, also_theirs.id, "contradicts")
    cmem.typed.relate(mine.id, theirs.id, "contradicts")  # across scopes: shown to neither
    flow = cmem.typed.workflow("Deploy b", ["ship"], trigger="deploying", scope="b")
    for _ in range(3):
        cmem.record_usage(
            [theirs.id, also_theirs.id],
            cited=[theirs.id, also_theirs.id],
            signals={"file": LOGIN},
        )
    hidden = {theirs.id, also_theirs.id, flow.id}
    signals = {"file": LOGIN, "error": "opaque session ids redis", "activity": "deploying"}
    found = predicted(cmem, signals, scopes=["a"])
    assert mine.id in found and not hidden & set(found)
    ctx = cmem.context("opaque session ids redis", budget=8000, signals=signals, scopes=["a"])
    assert mine.id in ctx.node_ids()
    assert not hidden & set(ctx.node_ids())
    assert all(i not in ctx.text for i in hidden)
    assert "secret-topic" not in ctx.text and "Opaque" not in ctx.text
    assert not [i for i in tier(ctx, "critical").items if i.reason == "unresolved contradiction"]
    # The other scope sees its own, and both together see everything.
    theirs_ctx = cmem.context("opaque", budget=8000, signals=signals, scopes=["b"])
    assert {theirs.id, also_theirs.id} <= set(theirs_ctx.node_ids())
    assert mine.id not in theirs_ctx.node_ids()
    assert hidden <= set(predicted(cmem, signals, scopes=["a", "b"]))


# -- usage feedback -----------------------------------------------------------------


@pytest.fixture
def three(cmem: Memory) -> list[Node]:
    return [
        cmem.remember("Use JWT with refresh tokens for sign-in", type="decision"),
        cmem.remember("Billing runs on PostgreSQL sixteen", type="fact"),
        cmem.remember("Deploys happen on Friday mornings", type="fact"),
    ]


def test_an_id_named_in_the_answer_is_cited(cmem: Memory, three: list[Node]) -> None:
    jwt, billing, deploys = three
    retrieved = [jwt.id, billing.id, deploys.id]
    report = cmem.record_usage(retrieved, answer=f"We went with that [{billing.id}].")
    assert report.retrieved == retrieved
    assert report.cited == [billing.id]
    assert report.ignored == [jwt.id, deploys.id]
    assert report.batch and report.to_dict()["cited"] == [billing.id]


def test_an_explicit_citation_list_is_used(cmem: Memory, three: list[Node]) -> None:
    jwt, billing, deploys = three
    report = cmem.record_usage([jwt.id, billing.id, deploys.id], cited=[deploys.id, jwt.id])
    assert report.cited == sorted([deploys.id, jwt.id])
    assert report.ignored == [billing.id]


def test_an_answer_repeating_a_memorys_words_cites_it(cmem: Memory, three: list[Node]) -> None:
    jwt, billing, deploys = three
    answer = "Sign-in uses JWT, with refresh tokens."
    report = cmem.record_usage([jwt.id, billing.id, deploys.id], answer=answer)
    assert report.cited == [jwt.id]
    assert report.ignored == [billing.id, deploys.id]
    # One shared word is not a citation.
    vague = cmem.record_usage([billing.id], answer="Sixteen is a number.")
    assert vague.cited == [] and vague.ignored == [billing.id]


def test_ignored_is_retrieved_less_cited_in_order_without_repeats(
    cmem: Memory, three: list[Node]
) -> None:
    jwt, billing, deploys = three
    report = cmem.record_usage([deploys.id, jwt.id, deploys.id, billing.id], cited=[jwt.id])
    assert report.retrieved == [deploys.id, jwt.id, billing.id]
    assert report.ignored == [deploys.id, billing.id]
    assert set(report.ignored) == set(report.retrieved) - set(report.cited)
    nothing = cmem.record_usage([jwt.id])
    assert (nothing.cited, nothing.ignored) == ([], [jwt.id])


def test_usage_of_an_unknown_memory_is_not_found(cmem: Memory, three: list[Node]) -> None:
    with pytest.raises(NotFound, match=UNKNOWN_ID):
        cmem.record_usage([three[0].id, UNKNOWN_ID])
    with pytest.raises(NotFound, match=UNKNOWN_ID):
        cmem.record_usage([three[0].id], cited=[UNKNOWN_ID])
    with pytest.raises(InvalidInput, match="list"):
        cmem.record_usage(three[0].id)
    with pytest.raises(InvalidInput, match="answer"):
        cmem.record_usage([three[0].id], answer=42)  # type: ignore[arg-type]
    # Nothing was logged by the refused calls.
    assert cmem.store.usage_counts([three[0].id]) == {}


def test_citations_raise_and_ignores_lower_the_usage_part_of_search(
    cmem: Memory, three: list[Node]
) -> None:
    jwt, billing, _ = three

    def usage_of(node: Node, query: str) -> float:
        [hit] = [h for h in cmem.search(query, record=False) if h.node.id == node.id]
        return float(hit.parts["usage"])

    assert usage_of(jwt, "JWT refresh tokens") == 0.0
    assert usage_of(billing, "billing PostgreSQL") == 0.0
    for _ in range(2):
        cmem.record_usage([jwt.id, billing.id], cited=[jwt.id])
    cited = usage_of(jwt, "JWT refresh tokens")
    assert 0 < cited < 1
    assert usage_of(billing, "billing PostgreSQL") < 0  # ignored twice, never cited
    cmem.record_usage([jwt.id], cited=[jwt.id])
    assert usage_of(jwt, "JWT refresh tokens") > cited  # more citations, more boost


def test_a_cited_twin_outranks_its_ignored_twin(cmem: Memory, clock: Clock) -> None:
    first = cmem.remember("The staging database is reset every night", type="fact")
    second = cmem.remember("The staging database is reset every night", type="fact")
    ranked = [h.node.id for h in cmem.search("staging database reset", record=False)]
    loser = ranked[1]
    winner = ranked[0]
    assert {winner, loser} == {first.id, second.id}
    for _ in range(3):
        clock.advance(minutes=5)
        cmem.record_usage([winner, loser], cited=[loser])
    assert [h.node.id for h in cmem.search("staging database reset", record=False)][:2] == [
        loser,
        winner,
    ]


# -- working memory -----------------------------------------------------------------


def talk(memory: Memory, session: str, count: int) -> list[Node]:
    return [
        memory.chat.add_message(
            session, ("user", "assistant")[i % 2], f"Message {i} about the billing migration"
        )
        for i in range(count)
    ]


def cost(memory: Memory, node: Node) -> int:
    return message_tokens({"role": node.context_value, "content": node.text}, memory.tokenizer)


def test_working_memory_keeps_the_newest_messages_and_names_the_dropped(chat: Memory) -> None:
    session = chat.chat.start_session("u", "Billing", max_recent=20, chunk_size=10)
    sent = talk(chat, session.id, 10)
    fits = sum(cost(chat, n) for n in sent[-3:])
    built = chat.working_memory(
        session.id, total=fits + 1, system_reserve=0, working_reserve=0, recent_share=1.0
    )
    recent = built.sections[1]
    assert recent.name == "recent" and recent.budget == fits + 1
    assert [i["node_id"] for i in recent.items] == [n.id for n in reversed(sent[-3:])]
    assert recent.tokens == fits and recent.dropped == 7
    assert [m["content"] for m in built.messages] == [n.text for n in sent[-3:]]
    assert any("dropped 7 older messages" in w for w in built.warnings)
    priorities = [i["priority"] for i in recent.items]
    assert priorities == sorted(priorities, reverse=True) and priorities[0] == 0.9


def test_working_memory_retrieves_memories_of_the_sessions_scope(chat: Memory) -> None:
    here = chat.remember("The billing migration moves invoices to PostgreSQL", scope="u")
    elsewhere = chat.remember("The billing migration moves invoices elsewhere", scope="other")
    session = chat.chat.start_session("u", "Billing")
    chat.chat.add_message(session.id, "user", "How does the billing migration move invoices?")
    built = chat.working_memory(session.id, total=12_000, system_prompt="Be brief.")
    retrieved = built.sections[2]
    assert here.id in [i["node_id"] for i in retrieved.items]
    assert elsewhere.id not in str(built.to_dict())
    assert built.messages[0] == {"role": "system", "content": "Be brief."}
    memories = [m for m in built.messages if str(m.get("content", "")).startswith("Relevant")]
    [placed] = [i for i in retrieved.items if i["node_id"] == here.id]
    assert built.refs[placed["ref"]] == here.id
    assert len(memories) == 1 and f"{placed['ref']} {here.text}" in memories[0]["content"]
    assert here.id not in memories[0]["content"]  # ids are in the structured result only
    assert built.messages[-1]["content"] == "How does the billing migration move invoices?"
    assert built.tokens <= built.total and built.available == 2000
    # Other scopes only when asked for.
    wider = chat.working_memory(session.id, total=12_000, scopes=["u", "other"])
    assert elsewhere.id in [i["node_id"] for i in wider.sections[2].items]


def test_working_memory_includes_chunk_summaries(chat: Memory) -> None:
    session = chat.chat.start_session("u", "Billing", max_recent=4, chunk_size=2)
    talk(chat, session.id, 8)
    built = chat.working_memory(session.id, total=20_000)
    summaries = built.sections[3]
    assert summaries.name == "summaries" and summaries.items
    tools = [m for m in built.messages if m["role"] == "tool"]
    assert len(tools) == len(summaries.items)


def test_a_total_smaller_than_the_reserves_is_refused(chat: Memory) -> None:
    session = chat.chat.start_session("u", "Billing")
    with pytest.raises(InvalidInput, match="reserve"):
        chat.working_memory(session.id, total=9_000)  # 2,000 + 8,000 reserved
    with pytest.raises(InvalidInput, match="reserve"):
        chat.working_memory(session.id, total=100, system_reserve=50, working_reserve=50)
    for bad in (0, -5, True, "4000"):
        with pytest.raises(InvalidInput):
            chat.working_memory(session.id, total=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="recent_share"):
        chat.working_memory(session.id, total=20_000, recent_share=1.5)


def test_a_system_prompt_larger_than_its_reserve_is_refused(chat: Memory) -> None:
    session = chat.chat.start_session("u", "Billing")
    with pytest.raises(InvalidInput, match="system prompt"):
        chat.working_memory(
            session.id, total=20_000, system_prompt="Be helpful. " * 50, system_reserve=20
        )
    fits = chat.working_memory(session.id, total=20_000, system_prompt="Be helpful.")
    assert fits.sections[0].tokens == message_tokens(
        {"role": "system", "content": "Be helpful."}, chat.tokenizer
    )


def test_working_memory_for_an_unknown_session_is_not_found(chat: Memory) -> None:
    with pytest.raises(NotFound):
        chat.working_memory(UNKNOWN_ID, total=20_000)


# -- the context as a whole ---------------------------------------------------------


def test_a_context_is_deterministic_and_serialisable(cmem: Memory) -> None:
    cmem.remember(
        "Use JWT with refresh tokens",
        type="decision",
        artifacts=[{"type": "file", "ref": LOGIN}],
        tags=["auth"],
    )
    make_episode(cmem)
    cmem.remember("Always run lint before commit", type="constraint", tags=["lint"])
    options: dict[str, Any] = {"budget": 700, "activity": "debugging"}
    first = cmem.context("login crash", signals={"file": LOGIN}, **options)
    second = cmem.context("login crash", signals=[f"file={LOGIN}"], **options)
    assert first.to_dict() == second.to_dict()
    data = first.to_dict()
    assert set(data) == {"budget", "token_count", "text", "activity", "tiers", "refs", "warnings"}
    assert data["refs"] == first.refs and set(first.refs.values()) <= set(first.node_ids())
    assert [t["name"] for t in data["tiers"]] == ["critical", "relevant", "background", "index"]
    assert first.node_ids() == [
        i["node_id"] for t in data["tiers"] for i in t["items"] if i["node_id"]
    ]
    exact(cmem, first, 700)


# -- bugs found while writing these tests (fixed) -----------------------------------


def test_working_memory_never_sends_a_summary_twice(chat: Memory) -> None:
    session = chat.chat.start_session("u", "Billing", max_recent=4, chunk_size=2)
    talk(chat, session.id, 8)
    built = chat.working_memory(session.id, total=20_000, query="billing migration")
    retrieved = {i["node_id"] for i in built.sections[2].items}
    summaries = {i["node_id"] for i in built.sections[3].items}
    assert summaries  # the session has chunk summaries
    assert not retrieved & summaries


@pytest.mark.parametrize("query", [42, None])
def test_working_memory_refuses_a_query_that_is_not_text(chat: Memory, query: Any) -> None:
    session = chat.chat.start_session("u", "Billing")
    chat.chat.add_message(session.id, "user", "hello")
    with pytest.raises(InvalidInput):
        chat.working_memory(session.id, total=20_000, query=query)


def test_a_contradiction_related_both_ways_is_shown_once(cmem: Memory) -> None:
    redis = cmem.remember("The cache is Redis", type="fact")
    memcached = cmem.remember("The cache is Memcached", type="fact")
    cmem.typed.relate(redis.id, memcached.id, "contradicts")
    cmem.typed.relate(memcached.id, redis.id, "contradicts")
    ctx = cmem.context(budget=2000)
    pairs = [i for i in tier(ctx, "critical").items if i.reason == "unresolved contradiction"]
    assert len(pairs) == 1


def test_a_tags_string_in_plain_metadata_is_not_split_into_letters(cmem: Memory) -> None:
    cmem.remember("The auth service signs tokens", metadata={"tags": "auth"})
    ctx = cmem.context("auth service", budget=500)
    topics = [i.text for i in tier(ctx, "index").items if i.reason == "topics"]
    assert topics in ([], ["Ask me about: auth"])


# -- found in review (fixed) -------------------------------------------------------


def test_working_memory_keeps_to_the_callers_scopes(chat: Memory) -> None:
    session = chat.chat.start_session("team:a", "Billing")
    chat.chat.add_message(session.id, "user", "hello")
    with pytest.raises(NotFound, match=session.id):
        chat.working_memory(session.id, total=20_000, scopes=["team:b"])
    assert chat.working_memory(session.id, total=20_000, scopes=["team:a"]).messages


def test_working_memory_brings_back_no_superseded_memory(chat: Memory, clock: Clock) -> None:
    old = chat.remember("The billing cutoff is the 25th", type="fact", scope="u")
    clock.advance(days=1)
    new = chat.remember("The billing cutoff is the 28th", type="fact", scope="u")
    chat.typed.relate(new.id, old.id, "supersedes")
    clock.advance(days=1)
    session = chat.chat.start_session("u", "Billing")
    chat.chat.add_message(session.id, "user", "when is the billing cutoff?")
    built = chat.working_memory(session.id, total=20_000)
    retrieved = {i["node_id"] for i in built.sections[2].items}
    assert new.id in retrieved and old.id not in retrieved


def test_working_memory_warnings_name_what_was_dropped(chat: Memory) -> None:
    session = chat.chat.start_session("u", "Billing", max_recent=50)
    sent = talk(chat, session.id, 12)
    built = chat.working_memory(
        session.id, total=10_060, system_reserve=0, working_reserve=10_000, recent_share=1.0
    )
    recent = built.sections[1]
    assert recent.dropped and recent.dropped_ids == [n.id for n in sent[: recent.dropped]][::-1]
    assert recent.dropped_ids[0] in built.warnings[0]


def test_another_scopes_artifacts_do_not_crowd_out_the_callers(cmem: Memory) -> None:
    for i in range(60):
        cmem.remember(
            f"Other team decision {i}",
            type="decision",
            scope="b",
            artifacts=[{"type": "file", "ref": LOGIN}],
        )
    mine = cmem.remember(
        "Our login decision", type="decision", scope="a", artifacts=[{"type": "file", "ref": LOGIN}]
    )
    found = predicted(cmem, {"file": LOGIN}, scopes=["a"])
    assert list(found) == [mine.id]
    ctx = cmem.context(budget=2000, signals={"file": LOGIN}, scopes=["a"])
    assert ids_in(ctx, "critical") == [mine.id]


def test_another_scopes_usage_is_not_this_scopes_history(cmem: Memory) -> None:
    theirs = cmem.remember("Their runbook", type="procedure", scope="b")
    for _ in range(3):
        cmem.record_usage([theirs.id], cited=[theirs.id], signals={"file": LOGIN})
    mine = cmem.remember("Our runbook", type="procedure", scope="a")
    cmem.record_usage([mine.id], cited=[mine.id], signals={"file": LOGIN})
    found = predicted(cmem, {"file": LOGIN}, scopes=["a"])
    assert list(found) == [mine.id]
    assert found[mine.id].reasons == ["cited in 1 of 1 contexts with this file"]


def test_routines_are_kept_by_the_utc_hour_whatever_the_offset(cmem: Memory, clock: Clock) -> None:
    standup = cmem.remember("Standup notes go in the team channel", type="procedure")
    for day in range(3):  # 11:00 at +02:00 is 09:00 UTC
        at = f"2026-01-0{day + 2}T11:00:00+02:00"
        cmem.record_usage([standup.id], cited=[standup.id], signals={"time": at})
    assert standup.id in predicted(cmem, {"time": "2026-01-09T09:10:00+00:00"})
    assert standup.id not in predicted(cmem, {"time": "2026-01-09T11:10:00+00:00"})


def test_a_valid_memory_is_found_among_many_superseded_look_alikes(
    cmem: Memory, clock: Clock
) -> None:
    old = [
        cmem.remember(
            f"The cache server is cache{i}.internal",
            type="fact",
            valid_to="2026-01-01T00:00:00+00:00",
        )
        for i in range(150)
    ]
    current = cmem.remember("The cache server is cache-final.internal", type="fact")
    clock.advance(days=2)
    hits = cmem.search("cache server internal", valid_at=clock().isoformat(), limit=5)
    assert [h.node.id for h in hits] == [current.id]
    assert all(h.node.id not in {o.id for o in old} for h in hits)


def test_the_vector_side_looks_deeper_when_validity_empties_its_pool(
    cmem: Memory, clock: Clock
) -> None:
    # Stopwords only: no lexical side, so only the vector pool can find it.
    for i in range(150):
        cmem.remember(f"it is what it is {i}", type="fact", valid_to="2026-01-01T00:00:00+00:00")
    current = cmem.remember("it is what it is and it will be so until it is not", type="fact")
    cmem.flush()  # a search leaves a queue of 151 to flush (or the worker)
    clock.advance(days=2)
    hits = cmem.search("it is what it is", valid_at=clock().isoformat(), limit=5)
    assert [h.node.id for h in hits] == [current.id]


def test_memories_used_during_an_activity_are_predicted_for_it(cmem: Memory) -> None:
    rule = cmem.remember("Tag the release before deploying", type="constraint")
    other = cmem.remember("Coffee is in the second drawer", type="fact")
    for _ in range(2):
        cmem.record_usage([rule.id, other.id], cited=[rule.id], signals={"activity": "deploying"})
    found = predicted(cmem, {"activity": "deploying"})
    assert rule.id in found and other.id not in found
    assert "cited in 2 of 2 contexts with this activity" in found[rule.id].reasons
    assert rule.id not in predicted(cmem, {"activity": "planning"})


def test_a_memory_in_a_line_keeps_its_decision_not_its_first_sentence(mem: Memory) -> None:
    note = mem.add(
        "We met the three vendors on Tuesday and the demos ran long. The trial lasted "
        "three weeks with nine developers. We decided to go with Tracewell for one year "
        "because Beaconly keeps traces for only 15 days."
    )
    short = mem.add("Lunch is at noon on Fridays.")
    line = dict(renderings(note))["compressed"]
    assert line.startswith("We decided to go with Tracewell") and line.endswith("…")
    assert dict(renderings(short)).get("compressed", short.text) == short.text
