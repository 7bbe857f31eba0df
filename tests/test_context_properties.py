"""Property tests for the context engine (the tiered- and living-memory designs): over random trees
of typed memories, episodes with levels, workflows, contradictions, grouped
hits, usage feedback and chat sessions, and random budgets, signals,
activities and scopes, a context never overruns its budget by a single
token, counts itself exactly, is deterministic, keeps every tier within its
budget and only names memories that exist, are valid now and are in the
requested scopes; working memory never overruns its sections or its total.
Real SQLite files, the hashing embedder and a hand-moved clock; no mocks."""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, InvalidOperation, Memory
from mnemotree.context.signals import ACTIVITIES, TIERS, Signals
from mnemotree.conversation.session import message_tokens
from mnemotree.timeutil import from_iso, to_iso
from tests.helpers import START, Clock

# Trees are built once per example; every example asks several (budget,
# signals) questions of its tree: 300 trees x 5-8 asks, about 2,000 combinations,
# and 200 more trees with one budget each.
TREES = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
WORKING = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

WORDS = [
    "login",
    "auth",
    "token",
    "session",
    "cache",
    "redis",
    "deploy",
    "database",
    "postgres",
    "timeout",
    "retry",
    "queue",
    "error",
    "null",
    "pointer",
    "crash",
    "review",
    "build",
    "lint",
    "ana",
]
FILES = [
    "src/auth/login.ts",
    "src/auth/session.ts",
    "src/cache/redis.py",
    "lib/db/postgres.go",
    "docs/login.ts",
    "README.md",
]
BRANCHES = ["feature/login-auth", "fix/cache-timeout", "main"]
SCOPES = ["a", "b", "default"]
# Decisions thrice: the critical tier looks for decisions naming the open file.
KINDS = [
    "fact",
    "decision",
    "decision",
    "decision",
    "preference",
    "entity",
    "procedure",
    "constraint",
    "goal",
]
EPISODE_TYPES = ["", "problem_solved", "issue_identified", "decision_made", "breakthrough"]

words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=10).map(" ".join)
# Long texts (several sentences) so that compressed renderings differ from full ones.
long_words = st.tuples(words, st.integers(2, 8)).map(lambda t: ". ".join([t[0]] * t[1]) + ".")
text = st.one_of(words, words, long_words)
scope = st.sampled_from(SCOPES)
artifact = st.one_of(
    st.builds(lambda r: {"type": "file", "ref": r}, st.sampled_from(FILES)),
    st.builds(lambda r: {"type": "branch", "ref": r}, st.sampled_from(BRANCHES)),
)
artifacts = st.lists(artifact, max_size=2)
tags = st.lists(st.sampled_from(WORDS), max_size=3)
hours = st.integers(0, 30)

operation = st.one_of(
    st.tuples(
        st.just("typed"),
        st.sampled_from(KINDS),
        text,
        tags,
        artifacts,
        scope,
        st.sampled_from([None, None, None, 1, 2, 5]),
    ),
    st.tuples(
        st.just("typed"), st.sampled_from(KINDS), text, tags, artifacts, scope, st.just(None)
    ),
    st.tuples(st.just("fact"), st.sampled_from(WORDS), words, scope),
    st.tuples(
        st.just("episode"),
        words,
        st.lists(st.one_of(st.none(), text), min_size=4, max_size=4),
        st.sampled_from(EPISODE_TYPES),
        artifacts,
        scope,
    ),
    st.tuples(
        st.just("workflow"),
        words,
        st.lists(words, min_size=1, max_size=4),
        st.sampled_from(["", *ACTIVITIES]),
        scope,
    ),
    st.tuples(st.just("pattern"), words, text, words, scope),
    st.tuples(st.just("plain"), text, scope),
    st.tuples(st.just("group"), st.lists(text, min_size=2, max_size=4), words, scope),
    st.tuples(st.just("contradict"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("supersede"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(
        st.just("usage"),
        st.lists(st.integers(0, 10**6), min_size=1, max_size=4),
        st.integers(0, 4),
        st.sampled_from(["", *FILES]),
        hours,
    ),
    st.tuples(st.just("later"), hours),
)
chat = st.one_of(
    st.none(),
    st.tuples(
        scope, st.lists(st.tuples(st.sampled_from(["user", "assistant"]), words), max_size=14)
    ),
)
tree = st.tuples(st.lists(operation, min_size=3, max_size=20), chat)

signal_values = st.fixed_dictionaries(
    {},
    optional={
        "file": st.sampled_from(FILES[:3]),
        "branch": st.sampled_from(BRANCHES),
        "error": words,
        "collaborator": st.sampled_from(["ana", "bob"]),
        "time": st.integers(0, 24 * 10).map(lambda h: START + timedelta(hours=h)),
    },
)
signals = st.tuples(signal_values, st.sampled_from(["mapping", "list", "object"]))
activity = st.one_of(st.none(), st.sampled_from(ACTIVITIES))
scopes = st.one_of(st.none(), st.lists(scope, min_size=1, max_size=2, unique=True))
query = st.one_of(st.just(""), words)
ask = st.tuples(query, st.integers(1, 3000), signals, activity, scopes)


@contextlib.contextmanager
def fresh() -> Iterator[Memory]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(
            Path(tmp) / "m.db",
            embedder="hashing",
            clock=Clock(),
            llm="offline",
            chat_background=False,
        ) as memory,
    ):
        yield memory


def build(memory: Memory, ops: list[tuple[Any, ...]], talk: Any) -> None:
    """Apply the operations; the clock moves only where an operation says."""
    clock = memory.clock
    assert isinstance(clock, Clock)
    made: list[str] = []
    for op in ops:
        kind = op[0]
        if kind == "typed":
            _, type_, body, tag_list, links, where, ends = op
            valid: dict[str, Any] = (
                {} if ends is None else {"valid_to": clock.now + timedelta(hours=ends)}
            )
            node = memory.remember(
                body, type=type_, tags=tag_list, artifacts=links, scope=where, **valid
            )
            made.append(node.id)
        elif kind == "fact":
            made.append(memory.typed.fact(op[1], op[2], scope=op[3]).id)
        elif kind == "episode":
            _, title, (full, summary, compressed, index), episode_type, links, where = op
            node = memory.typed.episode(
                title,
                narrative=full,
                summary=summary,
                compressed=compressed,
                index=index,
                episode_type=episode_type,
                artifacts=links,
                scope=where,
            )
            made.append(node.id)
        elif kind == "workflow":
            made.append(memory.typed.workflow(op[1], op[2], trigger=op[3], scope=op[4]).id)
        elif kind == "pattern":
            made.append(memory.typed.pattern(op[1], op[2], op[3], scope=op[4]).id)
        elif kind == "plain":
            made.append(memory.remember(op[1], scope=op[2]).id)
        elif kind == "group":  # a summary over plain memories: hits under it group
            _, bodies, summary, where = op
            root = memory.add(f"notes {summary}", scope=where)
            children = memory.append_many(root.id, bodies)
            memory.add_summary([c.id for c in children], summary)
            made += [c.id for c in children]
        elif kind == "contradict" and len(made) >= 2:
            a, b = made[op[1] % len(made)], made[op[2] % len(made)]
            if a != b:
                memory.typed.relate(a, b, "contradicts")
        elif kind == "supersede" and len(made) >= 2:  # ends the older one's validity now
            a, b = made[op[1] % len(made)], made[op[2] % len(made)]
            if a != b:
                # Refused: superseding a later memory, or one that supersedes it.
                with contextlib.suppress(InvalidInput, InvalidOperation):
                    memory.typed.relate(a, b, "supersedes")
        elif kind == "usage" and made:
            _, picks, cited, file, later = op
            shown = list(dict.fromkeys(made[p % len(made)] for p in picks))
            clock.advance(hours=later)
            memory.record_usage(shown, cited=shown[:cited], signals={"file": file} if file else {})
        elif kind == "later":
            clock.advance(hours=op[1])
    if talk is not None:
        where, turns = talk
        session = memory.chat.start_session(where, "chat", max_recent=6, chunk_size=3)
        for role, said in turns:
            memory.chat.add_message(session.id, role, said)


def signal_form(values: dict[str, Any], form: str) -> Any:
    if form == "object":
        return Signals(**values)
    if form == "list":
        return [f"{k}={to_iso(v) if k == 'time' else v}" for k, v in values.items()]
    return values


def check_context(
    memory: Memory, ctx: Any, budget: int, chosen: list[str] | None, at: Any = None
) -> None:
    """(a) and (c) for one context; `at` is the time signal, if one was given."""
    count = memory.tokenizer.count
    # (a) zero overruns, exact count
    assert ctx.budget == budget
    assert 0 <= ctx.token_count <= budget
    assert count(ctx.text) == ctx.token_count
    assert (ctx.text == "") == (ctx.token_count == 0)
    # (c) every tier within its budget, items traceable to live memories
    assert [t.name for t in ctx.tiers] == list(TIERS)
    now = at or memory.clock()  # only memories valid then
    primary: list[str] = []
    for tier in ctx.tiers:
        assert 0 <= tier.tokens <= tier.budget, tier.to_dict()
        assert tier.tokens == (count(tier.text) if tier.items else 0)
        for item in tier.items:
            assert item.text and item.text in ctx.text
            if tier.name != "index":
                primary.append(item.node_id)
            # Every item is traceable: its reference (or, for one naming several
            # memories, each reference in its text) maps to its node ids.
            if item.ref:
                assert ctx.refs[item.ref] == item.node_id
            named = {ctx.refs[r] for r in re.findall(r"\[(m\d+)\]", item.text)}
            assert named <= {item.node_id, *item.covers}
            assert item.ref or named or not item.node_id
            assert not any(i in ctx.text for i in (item.node_id, *item.covers) if i)
            for node_id in (item.node_id, *item.covers):
                if not node_id:
                    continue
                node = memory.store.get(node_id)
                assert node is not None, node_id
                if chosen is not None:
                    assert node.scope in chosen, (node.scope, chosen)
                ends = node.metadata.get("valid_to")
                assert ends is None or from_iso(ends) > now, (node.text, ends)
    assert len(primary) == len(set(primary))  # no memory placed twice in tiers 1-3
    json.dumps(ctx.to_dict())


@pytest.mark.slow
@TREES
@given(tree, st.lists(ask, min_size=5, max_size=8))
def test_contexts_never_overrun_and_name_only_visible_memories(
    built: tuple[list[tuple[Any, ...]], Any],
    asks: list[tuple[str, int, tuple[dict[str, Any], str], str | None, list[str] | None]],
) -> None:
    ops, talk = built
    with fresh() as memory:
        build(memory, ops, talk)
        for i, (text, budget, (values, form), act, chosen) in enumerate(asks):
            given_signals = signal_form(values, form)
            ctx = memory.context(
                text, budget=budget, signals=given_signals, activity=act, scopes=chosen
            )
            check_context(memory, ctx, budget, chosen, values.get("time"))
            if i < 2:  # (b) deterministic: the clock stands still between calls
                again = memory.context(
                    text, budget=budget, signals=given_signals, activity=act, scopes=chosen
                )
                assert again.to_dict() == ctx.to_dict()
            if values and i < 3:
                found = memory.predict(given_signals, scopes=chosen, limit=50)
                assert [p.to_dict() for p in found] == [
                    p.to_dict() for p in memory.predict(given_signals, scopes=chosen, limit=50)
                ]
                ranked = [(-p.confidence, p.node.id) for p in found]
                assert ranked == sorted(ranked)
                for p in found:
                    assert 0 <= p.confidence < 1 and p.reasons
                    assert memory.store.get(p.node.id) is not None
                    assert chosen is None or p.node.scope in chosen


@settings(TREES, max_examples=200)
@given(tree, st.integers(1, 3000), activity)
def test_tier_budgets_follow_the_shares_and_unused_budget_flows_on(
    built: tuple[list[tuple[Any, ...]], Any], budget: int, act: str | None
) -> None:
    ops, talk = built
    with fresh() as memory:
        build(memory, ops, talk)
        ctx = memory.context("login auth", budget=budget, activity=act)
        check_context(memory, ctx, budget, None)
        shares = Signals(activity=act or "").shares()
        critical, relevant, background, index = ctx.tiers
        assert critical.budget == int(budget * shares[0])
        # What a tier leaves flows on (the final join may only shrink a tier).
        assert relevant.budget <= int(budget * shares[1]) + critical.budget - critical.tokens
        assert background.budget <= int(budget * shares[2]) + relevant.budget - relevant.tokens
        # The index gets what the other three used not (the join may shrink them).
        assert 0 <= index.budget <= budget - critical.tokens - relevant.tokens - background.tokens


# -- working memory -----------------------------------------------------------------


@WORKING
@given(
    st.lists(st.tuples(st.sampled_from(["user", "assistant"]), text), min_size=0, max_size=30),
    st.lists(text, max_size=6),
    st.integers(1, 3000),
    st.integers(0, 300),
    st.integers(0, 300),
    st.floats(0, 1),
    st.one_of(st.just(""), words),
    st.one_of(st.just(""), words),
)
def test_working_memory_sections_never_exceed_their_budgets(
    turns: list[tuple[str, str]],
    kept: list[str],
    total: int,
    system_reserve: int,
    working_reserve: int,
    share: float,
    system_prompt: str,
    ask_for: str,
) -> None:
    with fresh() as memory:
        for body in kept:
            memory.remember(body, scope="u")
        session = memory.chat.start_session("u", "chat", max_recent=8, chunk_size=3, max_chunks=3)
        for role, said in turns:
            memory.chat.add_message(session.id, role, said)
        options: dict[str, Any] = {
            "total": total,
            "system_prompt": system_prompt,
            "query": ask_for,
            "system_reserve": system_reserve,
            "working_reserve": working_reserve,
            "recent_share": share,
        }
        prompt_cost = (
            message_tokens({"role": "system", "content": system_prompt}, memory.tokenizer)
            if system_prompt
            else 0
        )
        if total - system_reserve - working_reserve <= 0 or prompt_cost > system_reserve:
            try:
                memory.working_memory(session.id, **options)
            except InvalidInput:
                return
            raise AssertionError("a budget the reserves leave nothing of was accepted")
        built = memory.working_memory(session.id, **options)
        assert built.available == total - system_reserve - working_reserve
        names = [s.name for s in built.sections]
        assert names == ["system", "recent", "retrieved", "summaries"]
        for section in built.sections:
            assert 0 <= section.tokens <= section.budget, section.to_dict()
            if section.name != "system":  # the memories' header counts with their first line
                assert sum(i["tokens"] for i in section.items) == section.tokens
        system, recent, retrieved, summaries = built.sections
        assert system.tokens == prompt_cost
        assert recent.tokens + retrieved.tokens + summaries.tokens <= built.available
        assert built.tokens <= total - working_reserve <= total
        # The message list costs exactly what the sections say.
        assert sum(message_tokens(m, memory.tokenizer) for m in built.messages) == built.tokens
        assert memory.working_memory(session.id, **options).to_dict() == built.to_dict()


def test_the_property_strategies_build_what_they_claim() -> None:
    """A fixed tree through `build`: every operation kind is accepted."""
    ops: list[tuple[Any, ...]] = [
        (
            "typed",
            "decision",
            "use redis",
            ["cache"],
            [{"type": "file", "ref": FILES[2]}],
            "a",
            None,
        ),
        ("typed", "fact", "old", [], [], "a", 1),
        ("fact", "timeout", "30s", "b"),
        (
            "episode",
            "crash",
            ["full story. " * 5, "summary", "short", "idx"],
            "problem_solved",
            [],
            "a",
        ),
        ("workflow", "deploy", ["test", "ship"], "deploying", "default"),
        ("pattern", "endpoint", "GET /x", "route", "a"),
        ("plain", "plain words", "b"),
        ("group", ["cache one", "cache two"], "cache notes", "a"),
        ("contradict", 0, 1),
        ("supersede", 2, 0),
        ("usage", [0, 1], 1, FILES[2], 2),
        ("later", 3),
    ]
    with fresh() as memory:
        build(memory, ops, ("a", [("user", "hello cache"), ("assistant", "redis")]))
        # Superseded and expired ones too (by default only what is valid now).
        assert len(memory.typed.memories(include_expired=True)) >= 6
        assert memory.typed.relations(memory.typed.memories(types=["decision"])[0].id)
        ctx = memory.context("cache", budget=500, signals={"file": FILES[2]})
        check_context(memory, ctx, 500, None)
