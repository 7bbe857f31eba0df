"""The labelled chats of `mnemotree bench capture`, and their checks.

`data/capture_chats_*.jsonl` hold one chat a line, written by hand for this
benchmark (fictional people; not derived from any other data set) by
writers who had not seen the extractor: team chats about work, a user with
an assistant (planning, travel, health), customer support and tutoring,
friends' small talk. Each lists every item worth keeping (`keep`: the clean
sentence a memory should read, its type, an action's owner and due date, a
decision's or cause's `summary_key`) and what a naive extractor would keep
but must not (`skip`: hedges, hypotheticals, questions, rumours, quoted or
pasted material, jokes, small talk, an assistant's generic advice). Chats
marked `"split": "test"` are held out: the extractor is developed looking
at the `dev` chats only, and the two are reported apart.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

KEEP_TYPES = ("decision", "action", "preference", "constraint", "goal", "fact")
SKIP_KINDS = (
    "hedge",
    "hypothetical",
    "question",
    "reported",
    "quoted",
    "joke",
    "small_talk",
    "assistant_generic",
    "negated",
)
ROLES = ("user", "assistant")


@dataclass(frozen=True)
class Message:
    speaker: str
    role: str
    text: str


@dataclass(frozen=True)
class Keep:
    message: int
    type: str
    text: str
    owner: str = ""
    due: str = ""
    summary_key: bool = False
    superseded: bool = False


@dataclass(frozen=True)
class Skip:
    message: int
    kind: str
    text: str


@dataclass(frozen=True)
class Chat:
    id: str
    split: str
    domain: str
    date: str
    team: str
    messages: tuple[Message, ...]
    keep: tuple[Keep, ...]
    skip: tuple[Skip, ...]


def load(folder: Path | None = None) -> list[Chat]:
    """Every labelled chat, from `folder` or the shipped data; a malformed
    chat is a ValueError naming it and what is wrong."""
    chats = [_chat(row) for row in _rows(folder)]
    problems = [p for chat in chats for p in check(chat)]
    if problems:
        raise ValueError("bad labelled chats:\n" + "\n".join(problems))
    seen: set[str] = set()
    for chat in chats:
        if chat.id in seen:
            raise ValueError(f"two chats are named {chat.id!r}")
        seen.add(chat.id)
    return chats


def _rows(folder: Path | None) -> list[dict[str, Any]]:
    if folder is not None:
        files = sorted(folder.glob("capture_chats_*.jsonl"))
        texts = [f.read_text("utf-8") for f in files]
    else:
        data = resources.files("mnemotree.bench").joinpath("data")
        shipped = sorted(
            (e for e in data.iterdir() if e.name.startswith("capture_chats_")),
            key=lambda e: e.name,
        )
        texts = [e.read_text("utf-8") for e in shipped]
    return [json.loads(line) for text in texts for line in text.splitlines() if line.strip()]


def _chat(row: dict[str, Any]) -> Chat:
    roles = row["speakers"]
    return Chat(
        id=row["id"],
        split=row["split"],
        domain=row["domain"],
        date=row["date"],
        team=row.get("team", ""),
        messages=tuple(
            Message(m["speaker"], roles.get(m["speaker"], ""), m["text"]) for m in row["messages"]
        ),
        keep=tuple(
            Keep(
                k["message"],
                k["type"],
                k["text"],
                k.get("owner", ""),
                k.get("due", ""),
                bool(k.get("summary_key", False)),
                bool(k.get("superseded", False)),
            )
            for k in row["keep"]
        ),
        skip=tuple(Skip(s["message"], s["kind"], s["text"]) for s in row["skip"]),
    )


def check(chat: Chat) -> list[str]:
    """What is wrong with a chat's labels (nothing: an empty list)."""
    problems = []
    if chat.split not in ("dev", "test"):
        problems.append(f"{chat.id}: split {chat.split!r} is neither dev nor test")
    for i, message in enumerate(chat.messages):
        if message.role not in ROLES:
            problems.append(f"{chat.id} message {i}: speaker {message.speaker!r} has no role")
    for item in chat.keep:
        where = f"{chat.id} keep at message {item.message}"
        if not 0 <= item.message < len(chat.messages):
            problems.append(f"{where}: no such message")
        if item.type not in KEEP_TYPES:
            problems.append(f"{where}: type {item.type!r} is not one of {KEEP_TYPES}")
        if item.type == "action" and not item.owner:
            problems.append(f"{where}: an action without an owner")
        if not item.text.strip():
            problems.append(f"{where}: no text")
    for skip in chat.skip:
        if not 0 <= skip.message < len(chat.messages):
            problems.append(f"{chat.id} skip at message {skip.message}: no such message")
        if skip.kind not in SKIP_KINDS:
            problems.append(f"{chat.id} skip at message {skip.message}: kind {skip.kind!r}")
    return problems
