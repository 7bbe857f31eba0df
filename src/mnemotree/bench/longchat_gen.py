"""Generator of the long-chat benchmark: long user-assistant chats over
simulated months, with questions about what the user said long before.

Shape. A chat is one user talking to an assistant in 12-16 dated sessions,
6-18 days apart. Most of it is help threads: the user asks for help
(sleep, a CV, mould in the bathroom...) and the assistant answers in
several paragraphs of a few hundred words that restate the user's words,
explain, and list numbered steps; follow-ups and thanks follow. Into these,
the user says things worth remembering, usually in passing before a request
that the assistant then answers at length (so a short statement sits inside
long text about something else):

- instructions ("always answer with bullet points", "call me Sam",
  "TypeScript, not JavaScript"), early in the chat;
- preferences ("I've been vegetarian for three years"), early;
- values that later change ("my manager is Priya" ... "Priya moved to
  Singapore, I now report to Olu"), sometimes twice;
- facts in passing ("my beagle Biscuit kept me up");
- dated events of a few kinds (trips, classes, home jobs...), three of each
  kind, in different sessions;
- repeated happenings over several sessions (hikes done, dishes cooked);
- assistant answers holding a specific piece of advice (the 50/30/20 rule),
  sometimes after the numbered steps, far into a long message.

Distractors are built in: the assistant acknowledges each instruction in
its words; each asked instruction, preference and value has a help thread
whose long answer repeats its topic words (bullet points in Google Docs,
storing vegetables, a micromanaging boss); old values stay in the chat.

Questions (asked a day after the last session; paraphrased, never the
evidence's wording), each labelled with one of ten abilities; the evidence
is the message(s) holding the answer:

  instruction_recall     "How did I ask you to lay out your replies?" -> the user's instruction
  instruction_following  a task the instruction applies to ("What should I pack for camping?")
  preference_recall      "Do I have any dietary restrictions?" -> the user's statement
  preference_following   a request the preference applies to ("Plan a barbecue menu")
  knowledge_update       "Who do I report to these days?" -> the latest statement only
  extraction             "What's the name of my pet?" -> the message mentioning it
  temporal_order         "Which class came before my salsa lesson?" -> both events' messages
  temporal_range         "Where did I travel to in May?" -> that month's event (dates only
                         in the messages' times, never in their text)
  multi_session          "Which walks have I told you I did?" -> all three messages
  assistant_recall       "What was the rule of thumb you gave me?" -> the assistant's answer

Per chat: 4 instruction, 4 preference, 2 update, 1 extraction, 2 order,
2 range (when a month identifies one event of its kind), 2 multi-session
and 1 assistant question; ~250 messages. The default 20 chats hold about
5,000 messages and 350 questions.

Splits. Every topic, persona, instruction, preference, value, event and
series comes from hand-written pools in bench/data/longchat_<split>.jsonl
(see longchat_text); `dev` and `heldout` share none of them, so a held-out
collection is about other things in other words. The assistant's
topic-free phrases (openers, list bridges, closers) are shared.

Determinism. Chat i of a split is drawn from random.Random seeded with
"longchat/<split>/<seed>/<i>": the same split, seed and index give the same
chat on any machine, and --chats N gives the first N chats of the full run.

Data format (`to_json`): {"split", "seed", "chats": [{"id", "user",
"asked_at", "sessions": [{"id", "started", "messages": [{"id", "role"
("user" or "assistant"), "time" (ISO 8601 UTC), "text"}]}], "questions":
[{"id", "ability", "question", "evidence": [message ids], "answer"}]}]}.
Message ids are "<chat>:s<session>:m<turn>", e.g. "dev-03:s05:m012".
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from .longchat_text import Exchange, Writer, cap

ABILITIES = (
    "instruction_recall",
    "instruction_following",
    "preference_recall",
    "preference_following",
    "knowledge_update",
    "extraction",
    "temporal_order",
    "temporal_range",
    "multi_session",
    "assistant_recall",
)
USER, ASSISTANT = "user", "assistant"
# The first chat may start on this day, the last about a year and a half later.
EPOCH = datetime(2023, 1, 2, tzinfo=timezone.utc)
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    role: str
    time: datetime
    text: str


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    ability: str
    text: str
    evidence: tuple[str, ...]
    answer: str


@dataclass(frozen=True, slots=True)
class Chat:
    id: str
    user: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]
    asked_at: datetime

    @property
    def messages(self) -> list[Message]:
        return [m for s in self.sessions for m in s.messages]


@dataclass(frozen=True, slots=True)
class _Ask:
    ability: str
    text: str
    tags: tuple[tuple[str, str], ...]  # (exchange tag, role)
    answer: str


@dataclass(frozen=True, slots=True)
class _Said:
    ids: dict[str, str]  # role -> message id
    time: datetime


class _Plan:
    """Planted exchanges per session, each a block of its own, tagged."""

    def __init__(self, sessions: int) -> None:
        self.blocks: list[list[list[Exchange]]] = [[] for _ in range(sessions)]
        self.count = 0

    @property
    def sessions(self) -> int:
        return len(self.blocks)

    def put(self, session: int, exchange: Exchange) -> str:
        self.count += 1
        exchange.tag = f"t{self.count}"
        self.blocks[session].append([exchange])
        return exchange.tag


def generate(split: str = "dev", chats: int = 20, seed: int = 0) -> list[Chat]:
    """The first `chats` chats of a split, for a seed."""
    return [_chat(split, seed, index) for index in range(chats)]


def _chat(split: str, seed: int, index: int) -> Chat:
    rng = random.Random(f"longchat/{split}/{seed}/{index}")
    writer = Writer(rng, split)
    persona = rng.choice(writer.pool["persona"])
    plan = _Plan(rng.randint(12, 16))
    starts = _timeline(rng, plan.sessions)
    asks = _instructions(writer, plan, persona) + _preferences(writer, plan)
    asks += _updates(writer, plan) + _facts(writer, plan) + _series(writer, plan)
    asks += _recalls(writer, plan)
    events = _events(writer, plan)
    chat_id = f"{split}-{index:02d}"
    sessions, found = _render(writer, plan, starts, chat_id)
    asks += _temporal(rng, events, found)
    questions = tuple(
        Question(
            f"{chat_id}:q{n:02d}",
            a.ability,
            a.text,
            tuple(found[tag].ids[role] for tag, role in a.tags),
            a.answer,
        )
        for n, a in enumerate(asks, 1)
    )
    last = sessions[-1].messages[-1].time
    return Chat(chat_id, persona["name"], sessions, questions, last + timedelta(days=1))


def _timeline(rng: random.Random, sessions: int) -> list[datetime]:
    day = EPOCH + timedelta(days=rng.randint(0, 540))
    out = []
    for _ in range(sessions):
        out.append(day.replace(hour=rng.randint(7, 21), minute=rng.randint(0, 59)))
        day += timedelta(days=rng.randint(6, 18))
    return out


def _instructions(writer: Writer, plan: _Plan, persona: dict[str, str]) -> list[_Ask]:
    """Four instructions early on: two asked about, two applied to a task."""
    rng, asks = writer.rng, []
    early = max(1, plan.sessions // 4)
    names = {"name": persona["name"], "nickname": persona["nickname"]}
    for n, item in enumerate(rng.sample(writer.pool["instruction"], 4)):
        said = rng.choice(item["say"]).format(**names)
        tag = plan.put(
            rng.randrange(early), writer.with_request(said, item["ack"].format(**names), 0.5)
        )
        plan.put(rng.randrange(plan.sessions), writer.distractor(item))
        ability, wording = (
            ("instruction_recall", item["ask"])
            if n < 2
            else ("instruction_following", item["task"])
        )
        answer = item["answer"].format(**names)
        asks.append(_Ask(ability, rng.choice(wording).format(**names), ((tag, USER),), answer))
    return asks


def _preferences(writer: Writer, plan: _Plan) -> list[_Ask]:
    """Five preferences in the first third: two asked about, two applied, one never asked."""
    rng, asks = writer.rng, []
    early = max(1, plan.sessions // 3)
    for n, item in enumerate(rng.sample(writer.pool["preference"], 5)):
        said = rng.choice(item["say"])
        tag = plan.put(
            rng.randrange(early), writer.with_request(said, writer.say("preference_ack"), 0.6)
        )
        if n == 4:
            continue
        plan.put(rng.randrange(plan.sessions), writer.distractor(item))
        ability, wording = (
            ("preference_recall", item["ask"]) if n < 2 else ("preference_following", item["task"])
        )
        asks.append(_Ask(ability, rng.choice(wording), ((tag, USER),), item["answer"]))
    return asks


def _updates(writer: Writer, plan: _Plan) -> list[_Ask]:
    """Two values, each stated early and changed later (sometimes twice);
    the question asks the current one."""
    rng, asks, n = writer.rng, [], plan.sessions
    for item in rng.sample(writer.pool["update"], 2):
        chain = _values(rng, item)
        first, last = rng.randrange(max(1, n // 3)), rng.randrange(n // 2 + 1, n)
        middle = [rng.randrange(first + 1, last)] if len(chain) == 3 and last - first > 1 else []
        chain = chain if middle else [chain[0], chain[-1]]
        said = rng.choice(item["first"]).format(old=chain[0])
        plan.put(first, writer.with_request(said, "", 0.7, alone=writer.say("update_reply")))
        tag = ""
        for session, old, new in zip([*middle, last], chain[:-1], chain[1:], strict=True):
            change = rng.choice(item["change"]).format(old=old, new=new)
            tag = plan.put(session, Exchange(change, writer.say("update_reply")))
        plan.put(rng.randrange(n), writer.distractor(item))
        answer = item["answer"].format(new=chain[-1])
        asks.append(_Ask("knowledge_update", rng.choice(item["ask"]), ((tag, USER),), answer))
    return asks


def _values(rng: random.Random, item: dict[str, Any]) -> list[str]:
    """Two or three successive values; an ordered pool (a best time, a rent)
    only moves one way."""
    values: list[str] = item["values"]
    count = 3 if rng.random() < 0.3 and len(values) >= 3 else 2
    if item["ordered"]:
        start = rng.randrange(len(values) - count + 1)
        return values[start : start + count]
    return rng.sample(values, count)


def _facts(writer: Writer, plan: _Plan) -> list[_Ask]:
    """Three facts said in passing; the first is asked about."""
    rng, asks = writer.rng, []
    for n, item in enumerate(rng.sample(writer.pool["fact"], 3)):
        value = rng.choice(item["values"])
        said = rng.choice(item["say"]).format(value=value)
        exchange = writer.with_request(said, "", 0.85, alone=writer.say("preference_ack"))
        tag = plan.put(rng.randrange(max(1, plan.sessions - 1)), exchange)
        if n == 0:
            answer = item["answer"].format(value=value)
            asks.append(_Ask("extraction", rng.choice(item["ask"]), ((tag, USER),), answer))
    return asks


def _series(writer: Writer, plan: _Plan) -> list[_Ask]:
    """Two kinds of happening, each mentioned in three sessions."""
    rng, asks = writer.rng, []
    for item in rng.sample(writer.pool["series"], 2):
        values = rng.sample(item["values"], 3)
        tags = []
        for session, value in zip(rng.sample(range(plan.sessions), 3), values, strict=True):
            said = rng.choice(item["say"]).format(value=value)
            reply = writer.say("series_reply").format(value=value, value_cap=cap(value))
            tags.append((plan.put(session, Exchange(said, reply)), USER))
        asks.append(_Ask("multi_session", rng.choice(item["ask"]), tuple(tags), ", ".join(values)))
    return asks


def _recalls(writer: Writer, plan: _Plan) -> list[_Ask]:
    """Two answers holding a specific piece of advice; one is asked about."""
    rng, asks = writer.rng, []
    for n, item in enumerate(rng.sample(writer.pool["recall"], 2)):
        tag = plan.put(rng.randrange(plan.sessions), writer.recall(item))
        if n == 0:
            ask = rng.choice(item["ask"])
            asks.append(_Ask("assistant_recall", ask, ((tag, ASSISTANT),), item["detail"]))
    return asks


def _events(writer: Writer, plan: _Plan) -> list[tuple[dict[str, Any], dict[str, str], str]]:
    """Two kinds of event, three of each, in six different sessions."""
    rng, out = writer.rng, []
    sessions = iter(rng.sample(range(plan.sessions), 6))
    for kind in rng.sample(writer.pool["event"], 2):
        for instance in rng.sample(kind["instances"], 3):
            ref = instance["ref"]
            reply = writer.say("event_reply").format(ref=f"your {ref}", ref_cap=f"Your {ref}")
            tag = plan.put(next(sessions), Exchange(instance["say"], reply))
            out.append((kind, instance, tag))
    return out


def _temporal(
    rng: random.Random,
    events: list[tuple[dict[str, Any], dict[str, str], str]],
    found: dict[str, _Said],
) -> list[_Ask]:
    """Per kind of event: one question on the order of two of its events, and
    one on the event of a month (when that month holds only one of them)."""
    asks = []
    kinds = {k["kind"]: k for k, _, _ in events}
    for name, item in kinds.items():
        same = sorted(
            ((found[t].time, i, t) for k, i, t in events if k["kind"] == name), key=lambda e: e[0]
        )
        at = rng.randrange(1, len(same))  # same[at - 1] comes right before same[at]
        (_, before, early), (_, after, late) = same[at - 1], same[at]
        if rng.random() < 0.5:
            text = rng.choice(item["ask_before"]).format(ref=after["ref"])
            asks.append(_Ask("temporal_order", text, ((late, USER), (early, USER)), before["ref"]))
        else:
            text = rng.choice(item["ask_after"]).format(ref=before["ref"])
            asks.append(_Ask("temporal_order", text, ((early, USER), (late, USER)), after["ref"]))
        months = [when.month for when, _, _ in same]
        alone = [e for e, month in zip(same, months, strict=True) if months.count(month) == 1]
        if alone:
            when, instance, tag = rng.choice(alone)
            text = rng.choice(item["ask_range"]).format(month=MONTHS[when.month - 1])
            asks.append(_Ask("temporal_range", text, ((tag, USER),), instance["ref"]))
    return asks


def _render(
    writer: Writer, plan: _Plan, starts: list[datetime], chat_id: str
) -> tuple[tuple[Session, ...], dict[str, _Said]]:
    """Help threads around the planted exchanges, then ids and times."""
    sessions: list[Session] = []
    found: dict[str, _Said] = {}
    last = ""
    for number, (blocks, start) in enumerate(zip(plan.blocks, starts, strict=True), 1):
        exchanges, last = _session(writer, blocks, last)
        session_id = f"{chat_id}:s{number:02d}"
        sessions.append(
            Session(session_id, _timed(writer.rng, exchanges, start, session_id, found))
        )
    return tuple(sessions), found


def _session(writer: Writer, blocks: list[list[Exchange]], last: str) -> tuple[list[Exchange], str]:
    """A session's exchanges: its planted ones among help threads, in random
    order (a topic never twice in a row); returns the last topic too."""
    rng = writer.rng
    blocks = list(blocks)
    target = rng.randint(7, 11)
    while sum(len(b) for b in blocks) < target:
        topic = rng.choice([t for t in writer.pool["topic"] if t["key"] != last])
        last = topic["key"]
        blocks.append(writer.thread(topic))
    rng.shuffle(blocks)
    exchanges = [e for block in blocks for e in block]
    if rng.random() < 0.5:
        first = exchanges[0]
        greeted = f"{writer.say('greeting')} {first.user}"
        exchanges[0] = Exchange(greeted, first.assistant, first.tag)
    return exchanges, last


def _timed(
    rng: random.Random,
    exchanges: list[Exchange],
    start: datetime,
    session_id: str,
    found: dict[str, _Said],
) -> tuple[Message, ...]:
    """Messages with ids and times: the answer within a minute or so, the
    next question a few minutes later. Tagged exchanges go into `found`."""
    messages: list[Message] = []
    when = start
    for exchange in exchanges:
        ids = {}
        said = ((USER, exchange.user, 0), (ASSISTANT, exchange.assistant, rng.randint(15, 90)))
        for role, text, delay in said:
            ids[role] = f"{session_id}:m{len(messages) + 1:03d}"
            messages.append(Message(ids[role], role, when + timedelta(seconds=delay), text))
        if exchange.tag:
            found[exchange.tag] = _Said(ids, when)
        when += timedelta(minutes=rng.randint(2, 9))
    return tuple(messages)


def to_json(chats: list[Chat], split: str, seed: int) -> dict[str, Any]:
    """The collection in the documented data format."""
    return {"split": split, "seed": seed, "chats": [_chat_json(chat) for chat in chats]}


def _chat_json(chat: Chat) -> dict[str, Any]:
    sessions = [
        {
            "id": s.id,
            "started": s.messages[0].time.isoformat(),
            "messages": [
                {"id": m.id, "role": m.role, "time": m.time.isoformat(), "text": m.text}
                for m in s.messages
            ],
        }
        for s in chat.sessions
    ]
    questions = [
        {
            "id": q.id,
            "ability": q.ability,
            "question": q.text,
            "evidence": list(q.evidence),
            "answer": q.answer,
        }
        for q in chat.questions
    ]
    return {
        "id": chat.id,
        "user": chat.user,
        "asked_at": chat.asked_at.isoformat(),
        "sessions": sessions,
        "questions": questions,
    }
