"""Chat retention, daily logs, notes and the memory log, on a real SQLite file
with a hand-moved clock (ages are set by moving it, never read from the wall).
No mocks: `llm="offline"`, the hashing embedder, upkeep inside add_message."""

from __future__ import annotations

import math
import tempfile
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mnemotree import InvalidInput, InvalidOperation, Memory
from mnemotree.conversation.retention import PruneReport, Retention
from mnemotree.model import Node
from mnemotree.timeutil import to_iso
from tests.helpers import START, Clock, snapshot

KEEP = 100_000.0  # days: "keep" for the rule a test does not look at


def say(memory: Memory, clock: Clock, session: str, count: int, *, days: float = 0) -> list[Node]:
    """`count` messages a minute apart (or `days` apart), numbered by their turn."""
    sent = []
    for _ in range(count):
        turn = memory.chat.session_turns(session) + 1
        sent.append(memory.chat.add_message(session, "user", f"Message for turn {turn} about tea."))
        clock.advance(**({"days": days} if days else {"minutes": 1}))
    return sent


def top(memory: Memory, session: str) -> list[Node]:
    return memory.children(session)


def summaries(memory: Memory, session: str) -> list[Node]:
    return [n for n in memory.serialize(session) if n.is_summary]


def turns(nodes: list[Node]) -> list[int]:
    return [int(n.metadata["turn"]) for n in nodes]


def gone(memory: Memory, ids: list[str]) -> bool:
    return all(memory.find(i) is None for i in ids)


def daily_session(memory: Memory, clock: Clock, scope: str = "default") -> Node:
    """Ten messages one a day (days 0-9) with max_recent 4, chunk 2: the top
    level is three summaries (turns 1-2, 3-4, 5-6) and turns 7-10."""
    session = memory.chat.start_session(scope, max_recent=4, chunk_size=2)
    say(memory, clock, session.id, 10, days=1)
    return session


# -- messages ------------------------------------------------------------------------


def test_summarised_messages_older_than_messages_days_go_unsummarised_never(
    chat: Memory, clock: Clock
) -> None:
    session = daily_session(chat, clock)
    level = top(chat, session.id)
    assert [n.context_value for n in level if n.is_summary] == [
        "turns 1-2",
        "turns 3-4",
        "turns 5-6",
    ]
    assert turns([n for n in level if not n.is_summary]) == [7, 8, 9, 10]
    by_turn = {int(n.metadata["turn"]): n for n in chat.chat.session_messages(session.id)}
    # Day 33.5: the cut is day 3.5, so of the summarised turns 1-6 (days 0-5),
    # turns 1-4 are old enough; turns 7-10 are unsummarised and always stay.
    clock.now = START + timedelta(days=33.5)
    report = chat.chat.prune(Retention(messages_days=30, summaries_days=KEEP))
    assert report.messages == [by_turn[t].id for t in (1, 2, 3, 4)]
    assert (report.summaries, report.log_sections, report.dry_run) == ([], [], False)
    assert gone(chat, report.messages)
    assert turns(chat.chat.session_messages(session.id)) == [5, 6, 7, 8, 9, 10]
    # Far later, every summarised message goes, and still no unsummarised one.
    clock.advance(days=1000)
    later = chat.chat.prune(Retention(messages_days=30, summaries_days=KEEP))
    assert later.messages == [by_turn[5].id, by_turn[6].id]
    assert turns(chat.chat.session_messages(session.id)) == [7, 8, 9, 10]
    # The summaries stay, and stand for what went: not stale.
    assert [s.context_value for s in summaries(chat, session.id)] == [
        "turns 1-2",
        "turns 3-4",
        "turns 5-6",
    ]
    assert not any(s.stale for s in summaries(chat, session.id))
    assert chat.stale_summaries() == []
    assert chat.chat.session_turns(session.id) == 10
    assert chat.chat.session(session.id).metadata["pruned_through"] == 6


def test_default_retention_is_30_days_for_messages_and_90_for_summaries(
    chat: Memory, clock: Clock
) -> None:
    session = daily_session(chat, clock)
    first = chat.chat.session_messages(session.id)[0]
    clock.now = START + timedelta(days=29)  # turn 1 (day 0) is 29 days old
    assert chat.chat.prune().messages == []
    clock.now = START + timedelta(days=30, hours=12)  # now it is past 30 days
    assert chat.chat.prune().messages == [first.id]
    assert turns(chat.chat.session_messages(session.id))[0] == 2
    clock.now = START + timedelta(days=89)
    assert chat.chat.prune().summaries == []  # every summary covers a message of day 1 or later
    clock.now = START + timedelta(days=200)
    report = chat.chat.prune()
    assert len(report.summaries) == 3
    assert summaries(chat, session.id) == []
    assert turns(chat.chat.session_messages(session.id)) == [7, 8, 9, 10]


def burst_then_pair(memory: Memory, clock: Clock, scope: str = "default") -> Node:
    """max_recent 2, chunk 2: turns 1-3 on day 0 (summary of 1-2 made at once),
    turns 4-5 on day 50 (summary of 3-4 made at once). Each summary is made
    minutes after the newest message it covers."""
    session = memory.chat.start_session(scope, max_recent=2, chunk_size=2)
    say(memory, clock, session.id, 3)
    clock.now = START + timedelta(days=50)
    say(memory, clock, session.id, 2)
    return session


def test_summaries_older_than_summaries_days_go_with_their_subtree(
    chat: Memory, clock: Clock
) -> None:
    session = burst_then_pair(chat, clock)
    first, second = summaries(chat, session.id)
    assert (first.context_value, second.context_value) == ("turns 1-2", "turns 3-4")
    under_first = [n.id for n in chat.serialize(first.id)]
    clock.now = START + timedelta(days=100)  # the cut (90 days) is day 10
    report = chat.chat.prune(Retention(messages_days=KEEP, summaries_days=90))
    assert report.summaries == [first.id]
    # Its messages went with it, and are counted.
    assert report.messages == [i for i in under_first if i != first.id]
    assert gone(chat, under_first)
    assert [s.id for s in summaries(chat, session.id)] == [second.id]
    assert turns(chat.chat.session_messages(session.id)) == [3, 4, 5]
    assert chat.chat.session_turns(session.id) == 5
    assert chat.chat.add_message(session.id, "user", "Next one").metadata["turn"] == 6


def test_a_summary_is_judged_by_the_newest_message_it_covers(chat: Memory, clock: Clock) -> None:
    session = chat.chat.start_session(max_recent=2, chunk_size=2)
    say(chat, clock, session.id, 2)  # turns 1-2 on day 0
    clock.now = START + timedelta(days=10)
    say(chat, clock, session.id, 1)  # turn 3 on day 10 makes the summary of 1-2
    (summary,) = summaries(chat, session.id)
    assert summary.created_at >= to_iso(START + timedelta(days=10))
    clock.now = START + timedelta(days=95)  # its newest message is 95 days old
    report = chat.chat.prune(Retention(messages_days=KEEP, summaries_days=90))
    assert report.summaries == [summary.id]


def test_a_merged_summary_loses_only_its_old_part(chat: Memory, clock: Clock) -> None:
    session = chat.chat.start_session(max_recent=2, chunk_size=2, max_chunks=2)
    say(chat, clock, session.id, 3)  # day 0: the summary of turns 1-2
    clock.now = START + timedelta(days=60)
    say(chat, clock, session.id, 4)  # day 60: turns 3-4, 5-6; then 1-2 and 3-4 merge
    merged, newest, _ = top(chat, session.id)
    assert (merged.context_value, merged.metadata["by"]) == ("turns 1-4", "merge")
    assert newest.context_value == "turns 5-6"
    old, recent = chat.children(merged.id)
    assert (old.context_value, recent.context_value) == ("turns 1-2", "turns 3-4")
    clock.now = START + timedelta(days=100)  # the cut is day 10
    report = chat.chat.prune(Retention(messages_days=KEEP, summaries_days=90))
    assert report.summaries == [old.id]
    assert [n.id for n in chat.children(merged.id)] == [recent.id]
    assert not chat.get(merged.id).stale  # it still stands for what went
    assert turns(chat.chat.session_messages(session.id)) == [3, 4, 5, 6, 7]
    assert chat.chat.session_turns(session.id) == 7


def test_admin_scope_keeps_summaries_and_log_sections_for_admin_days(
    chat: Memory, clock: Clock
) -> None:
    admin = burst_then_pair(chat, clock, "admin")
    clock.now = START
    plain = burst_then_pair(chat, clock, "default")
    clock.now = START
    admin_note = chat.chat.note("The admin password rotates monthly.", scope="admin")
    plain_note = chat.chat.note("The coffee machine is on floor two.", scope="default")
    rules = Retention(messages_days=KEEP, summaries_days=90, admin_days=365)
    clock.now = START + timedelta(days=100)
    report = chat.chat.prune(rules)
    assert len(summaries(chat, admin.id)) == 2  # 100 days < 365 in admin
    assert len(summaries(chat, plain.id)) == 1
    assert len(report.summaries) == 1 and len(report.log_sections) == 1
    assert "rotates monthly" in chat.chat.memory_log("admin")
    assert "coffee machine" not in chat.chat.memory_log("default")
    clock.now = START + timedelta(days=400)
    later = chat.chat.prune(rules)
    assert len(summaries(chat, admin.id)) == 1  # the day-0 one is past 365 days
    assert len(later.log_sections) == 1 and "rotates" not in chat.chat.memory_log("admin")
    # Notes are typed memories: long-term memory, not touched by retention.
    assert chat.get(admin_note.id).text == admin_note.text
    assert chat.get(plain_note.id).text == plain_note.text


def test_memory_log_sections_older_than_summaries_days_go(chat: Memory, clock: Clock) -> None:
    chat.chat.note("First note: the team meets on Mondays.")
    root = chat.store.roots_of_type("memory_log", ["default"])[0]
    (first,) = chat.children(root.id)
    clock.advance(days=60)
    chat.chat.note("Second note: the demo is in March.")
    clock.advance(days=40)  # the first section is 100 days old, the second 40
    report = chat.chat.prune(Retention(summaries_days=90))
    assert report.log_sections == [first.id]
    log = chat.chat.memory_log()
    assert "Second note" in log and "First note" not in log
    assert [v.op for v in chat.history(first.id)][-1] == "delete"
    assert chat.restore(first.id, chat.history(first.id)[-1].version).text == first.text
    assert "First note" in chat.chat.memory_log()


def test_scopes_limit_what_is_pruned(chat: Memory, clock: Clock) -> None:
    a = burst_then_pair(chat, clock, "team:a")
    clock.now = START
    b = burst_then_pair(chat, clock, "team:b")
    clock.now = START
    chat.chat.note("A note for team a.", scope="team:a")
    chat.chat.note("A note for team b.", scope="team:b")
    clock.now = START + timedelta(days=100)
    rules = Retention(messages_days=KEEP, summaries_days=90)
    report = chat.chat.prune(rules, scopes=["team:a"])
    removed = report.summaries + report.log_sections
    assert len(removed) == 2
    assert {chat.history(i)[-1].node.scope for i in removed} == {"team:a"}
    assert len(summaries(chat, a.id)) == 1 and len(summaries(chat, b.id)) == 2
    assert "team b" in chat.chat.memory_log("team:b")
    assert chat.chat.prune(rules, scopes=["team:c"]).to_dict()["summaries"] == 0
    assert len(chat.chat.prune(rules, scopes=["team:b", "team:a"]).summaries) == 1


def test_dry_run_reports_the_same_and_changes_nothing(chat: Memory, clock: Clock) -> None:
    chat.chat.note("Something to log.")  # day 0
    session = daily_session(chat, clock)
    clock.now = START + timedelta(days=95)
    rules = Retention(messages_days=30, summaries_days=90)
    before = snapshot(chat)
    dry = chat.chat.prune(rules, dry_run=True)
    assert snapshot(chat) == before
    assert dry.dry_run and dry.messages and dry.log_sections
    real = chat.chat.prune(rules)
    assert (real.messages, real.summaries, real.log_sections) == (
        dry.messages,
        dry.summaries,
        dry.log_sections,
    )
    assert snapshot(chat) != before
    assert chat.chat.session_turns(session.id) == 10
    data = dry.to_dict()
    assert data["dry_run"] is True and data["messages"] == len(dry.messages)
    assert data["ids"] == {
        "messages": dry.messages,
        "summaries": dry.summaries,
        "log_sections": dry.log_sections,
    }


def test_pruned_nodes_stay_in_history_and_can_be_restored(chat: Memory, clock: Clock) -> None:
    session = daily_session(chat, clock)
    clock.now = START + timedelta(days=31.5)  # turns 1-2 (days 0-1) go
    report = chat.chat.prune(Retention(messages_days=30, summaries_days=KEEP))
    first = report.messages[0]
    history = chat.history(first)
    assert [v.op for v in history][-1] == "delete"
    assert history[-1].node.text == "Message for turn 1 about tea."
    back = chat.restore(first, history[-1].version)
    assert back.text == "Message for turn 1 about tea." and back.metadata["turn"] == 1
    assert chat.get(back.parent_id or "").context_value == "turns 1-2"
    assert turns(chat.chat.session_messages(session.id))[:2] == [1, 3]
    # A whole summary pruned with its messages comes back with them.
    clock.now = START + timedelta(days=1000)
    whole = chat.chat.prune(Retention(messages_days=KEEP, summaries_days=90))
    assert len(whole.summaries) == 3
    summary = whole.summaries[0]
    with pytest.raises(InvalidOperation, match=f"restore {summary} first"):
        chat.restore(first, chat.history(first)[-1].version)  # its parent is gone
    chat.restore(summary, chat.history(summary)[-1].version)
    assert turns(chat.chat.session_messages(session.id)) == [1, 7, 8, 9, 10]


def test_restoring_a_pruned_message_keeps_the_turn_count(chat: Memory, clock: Clock) -> None:
    session = daily_session(chat, clock)
    clock.now = START + timedelta(days=31.5)
    report = chat.chat.prune(Retention(messages_days=30, summaries_days=KEEP))
    first = report.messages[0]
    chat.restore(first, chat.history(first)[-1].version)
    assert chat.chat.session_turns(session.id) == 10
    assert chat.chat.add_message(session.id, "user", "And one more").metadata["turn"] == 11


def test_turns_continue_after_a_prune_and_capture_still_comes_every_max_recent_turns(
    chat: Memory, clock: Clock
) -> None:
    session = chat.chat.start_session(max_recent=4, chunk_size=2)
    say(chat, clock, session.id, 8, days=1)
    assert chat.chat.session(session.id).metadata["captured_turn"] == 8
    clock.advance(days=60)
    report = chat.chat.prune(Retention(messages_days=30, summaries_days=KEEP))
    assert report.messages  # summarised turns went
    assert chat.chat.session_turns(session.id) == 8
    ninth = chat.chat.add_message(session.id, "user", "Hello again after a long break.")
    tenth = chat.chat.add_message(session.id, "user", "We decided to use PostgreSQL for billing.")
    chat.chat.add_message(session.id, "user", "That is settled then.")
    assert (ninth.metadata["turn"], tenth.metadata["turn"]) == (9, 10)
    assert chat.chat.session(session.id).metadata["captured_turn"] == 8  # three turns: not yet
    assert chat.chat.captured(status=None) == []
    twelfth = chat.chat.add_message(session.id, "user", "Good night.")
    assert twelfth.metadata["turn"] == 12
    assert chat.chat.session(session.id).metadata["captured_turn"] == 12
    rows = chat.chat.captured(status=None)
    assert [r.text for r in rows] == ["We decided to use PostgreSQL for billing."]
    assert rows[0].status == "promoted"
    assert chat.chat.session_turns(session.id) == 12
    assert turns(chat.chat.session_messages(session.id)) == sorted(
        turns(chat.chat.session_messages(session.id))
    )


# -- the property --------------------------------------------------------------------


step = st.tuples(st.integers(0, 6), st.floats(0, 40), st.booleans())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(step, min_size=1, max_size=6),
    scope=st.sampled_from(["default", "admin"]),
    messages_days=st.sampled_from([0.0, 2.5, 30.0]),
    summaries_days=st.sampled_from([0.0, 10.0, 90.0]),
    window=st.sampled_from([(2, 1, 2), (3, 2, 3), (4, 2, 5)]),
)
def test_prune_loses_no_unsummarised_message_and_turns_keep_counting(
    steps: list[tuple[int, float, bool]],
    scope: str,
    messages_days: float,
    summaries_days: float,
    window: tuple[int, int, int],
) -> None:
    clock = Clock()
    rules = Retention(messages_days, summaries_days, admin_days=summaries_days / 2)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(
            Path(tmp) / "chat.db",
            embedder="hashing",
            llm="offline",
            chat_background=False,
            clock=clock,
        ) as memory,
    ):
        max_recent, chunk, chunks = window
        session = memory.chat.start_session(
            scope, max_recent=max_recent, chunk_size=chunk, max_chunks=chunks
        )
        added = 0
        for count, days, prune in [*steps, (0, 0.0, True)]:
            say(memory, clock, session.id, count)
            added += count
            clock.advance(days=days)
            if not prune:
                continue
            unsummarised = [n.id for n in top(memory, session.id) if not n.is_summary]
            everything = {n.id: n for n in memory.serialize(session.id)}
            stale = [n.id for n in memory.stale_summaries()]
            before = snapshot(memory)
            dry = memory.chat.prune(rules, dry_run=True)
            assert snapshot(memory) == before  # dry_run changes nothing
            report = memory.chat.prune(rules)
            assert (report.messages, report.summaries) == (dry.messages, dry.summaries)
            event(f"pruned messages: {bool(report.messages)}, summaries: {bool(report.summaries)}")
            kept = memory.chat.session_messages(session.id)
            assert set(unsummarised) <= {n.id for n in kept}  # never an unsummarised one
            reading = [n.id for n in memory.serialize(session.id) if n.context_type == "message"]
            assert reading == [n.id for n in kept]  # reachable, in turn order
            assert turns(kept) == sorted(set(turns(kept)))
            assert memory.chat.session_turns(session.id) == added
            assert [n.id for n in memory.stale_summaries()] == stale  # none made stale
            days_kept = rules.summary_days(scope)
            for node_id, node in everything.items():
                if memory.find(node_id) is not None or node.context_type != "message":
                    continue
                parent = everything[node.parent_id or ""]
                assert parent.is_summary  # only summarised messages ever go
                old = to_iso(clock.now - timedelta(days=messages_days))
                summary_old = to_iso(clock.now - timedelta(days=days_kept))
                assert node.created_at < old or node.created_at < summary_old
        last = memory.chat.add_message(session.id, "user", "The last word.")
        assert last.metadata["turn"] == added + 1


# -- daily logs ----------------------------------------------------------------------


def test_the_daily_log_has_that_utc_days_messages_grouped_by_session(
    chat: Memory, clock: Clock
) -> None:
    clock.now = START + timedelta(hours=9)
    morning = chat.chat.start_session("team", "Standup")
    chat.chat.add_message(morning.id, "user", "Yesterday I fixed the login bug.")
    clock.advance(minutes=5)
    chat.chat.add_message(morning.id, "assistant", "Noted.\nAnything blocking you?", name="Bot")
    other = chat.chat.start_session("elsewhere", "Private")
    chat.chat.add_message(other.id, "user", "This is in another scope.")
    clock.now = START + timedelta(hours=14, minutes=30)
    afternoon = chat.chat.start_session("team", "Review")
    chat.chat.add_message(afternoon.id, "user", "The review is done.")
    clock.now = START + timedelta(hours=23, minutes=59, seconds=59)
    chat.chat.add_message(morning.id, "user", "Last words of the day.")
    clock.now = START + timedelta(days=1)  # midnight: the next day
    chat.chat.add_message(morning.id, "user", "A new day begins.")
    chat.chat.start_session("team", "Empty")  # no messages: not listed
    log = chat.chat.daily_log("team", "2026-01-01")
    assert log == (
        "# 2026-01-01 (team)\n\n"
        f"## Standup ({morning.id})\n\n"
        "- 09:00 **user**: Yesterday I fixed the login bug.\n"
        "- 09:05 **Bot**: Noted.\n  Anything blocking you?\n"
        "- 23:59 **user**: Last words of the day.\n\n"
        f"## Review ({afternoon.id})\n\n"
        "- 14:30 **user**: The review is done.\n"
    )
    assert chat.chat.daily_log("team", date(2026, 1, 2)) == (
        f"# 2026-01-02 (team)\n\n## Standup ({morning.id})\n\n- 00:00 **user**: A new day begins.\n"
    )
    assert chat.chat.daily_log("team") == chat.chat.daily_log(
        "team", "2026-01-02"
    )  # today, by the clock
    assert chat.chat.daily_log("team", "2025-12-31") == "# 2025-12-31 (team)\n"
    assert "another scope" in chat.chat.daily_log("elsewhere", " 2026-01-01 ")


@pytest.mark.parametrize("day", ["2026-13-01", "yesterday", "", "2026-02-30"])
def test_a_bad_day_is_refused_naming_it(chat: Memory, day: str) -> None:
    with pytest.raises(InvalidInput, match="day must be YYYY-MM-DD") as raised:
        chat.chat.daily_log("default", day)
    assert repr(day) in str(raised.value) and raised.value.value == day


# -- notes and the memory log --------------------------------------------------------


def test_a_note_is_a_fact_and_a_line_in_the_memory_log(chat: Memory, clock: Clock) -> None:
    assert chat.chat.memory_log("work") == "# Memory log (work)\n"
    note = chat.chat.note("The build server is called Zeus.", scope="work")
    assert (note.context_type, note.scope) == ("fact", "work")
    assert "note" in note.tags
    clock.advance(hours=1, minutes=5)
    chat.chat.note("Deploys happen on Thursdays.", scope="work")
    assert chat.chat.memory_log("work") == (
        "# Memory log (work)\n\n"
        "## 2026-01-01 00:00 UTC\n\n- The build server is called Zeus.\n\n"
        "## 2026-01-01 01:05 UTC\n\n- Deploys happen on Thursdays.\n"
    )
    assert chat.chat.memory_log("default") == "# Memory log (default)\n"
    hits = chat.search("build server Zeus", scopes=["work"])
    assert hits[0].node.id == note.id  # the memory is found, not the log section
    with pytest.raises(InvalidInput):
        chat.chat.note("   ", scope="work")


def test_clearing_the_memory_log_keeps_sections_in_history_and_the_notes(
    chat: Memory,
) -> None:
    notes = [chat.chat.note(f"Note number {i} about the garden.", scope="home") for i in range(3)]
    chat.chat.note("Work stays.", scope="work")
    root = chat.store.roots_of_type("memory_log", ["home"])[0]
    sections = chat.children(root.id)
    assert chat.chat.clear_memory_log("home") == 3
    assert chat.chat.memory_log("home") == "# Memory log (home)\n"
    assert "Work stays." in chat.chat.memory_log("work")
    assert all([v.op for v in chat.history(s.id)][-1] == "delete" for s in sections)
    assert all(chat.get(n.id).text == n.text for n in notes)  # the memories stay
    assert chat.chat.clear_memory_log("home") == 0
    assert chat.chat.clear_memory_log("nobody") == 0
    chat.chat.note("A fresh start.", scope="home")
    assert chat.chat.memory_log("home").count("\n## ") == 1


def test_the_memory_log_keeps_its_last_sections_of_notes(chat: Memory) -> None:
    for i in range(7):
        chat.chat.note(f"Note {i} for the log.")
    log = chat.chat.memory_log()
    assert log.count("\n## ") == 5
    assert "Note 1 " not in log and "Note 2 " in log and "Note 6 " in log


# -- rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"messages_days": -1}, "messages_days"),
        ({"summaries_days": -0.5}, "summaries_days"),
        ({"admin_days": True}, "admin_days"),
        ({"messages_days": False}, "messages_days"),
        ({"summaries_days": math.nan}, "summaries_days"),
        ({"admin_days": "30"}, "admin_days"),
        ({"messages_days": None}, "messages_days"),
    ],
)
def test_bad_retention_is_refused_naming_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInput, match=f"{field} must be a number of days >= 0"):
        Retention(**kwargs)  # type: ignore[arg-type]


def test_retention_defaults_and_zero_days() -> None:
    rules = Retention()
    assert (rules.messages_days, rules.summaries_days, rules.admin_days) == (30, 90, 365)
    assert rules.summary_days("admin") == 365 and rules.summary_days("user:1") == 90
    assert Retention(0, 0, 0).summary_days("admin") == 0
    assert PruneReport().to_dict()["dry_run"] is False


@pytest.mark.parametrize("days", [math.inf, 1e6])
def test_keeping_forever_prunes_nothing(chat: Memory, clock: Clock, days: float) -> None:
    session = daily_session(chat, clock)
    clock.advance(days=10_000)
    report = chat.chat.prune(Retention(messages_days=days, summaries_days=days, admin_days=days))
    assert (report.messages, report.summaries) == ([], [])
    assert len(chat.chat.session_messages(session.id)) == 10
