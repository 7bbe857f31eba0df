"""Wording for the long-chat benchmark: the hand-written pools, and the
messages composed from them (see longchat_gen for the data format).

Pools live in `bench/data/longchat_<split>.jsonl` (one item a line, its kind
in `pool`); `longchat_common.jsonl` holds the assistant's topic-free voice
(openers, list bridges, closers, replies to news) shared by both splits.
The dev and held-out files share no persona, topic, instruction,
preference, value, event or series: a held-out collection is about other
things, said in other words.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

DATA = Path(__file__).parent / "data"
SPLITS = ("dev", "heldout")
POOLS = (
    "persona",
    "instruction",
    "preference",
    "update",
    "fact",
    "event",
    "series",
    "recall",
    "topic",
)


def _read(name: str) -> list[dict[str, Any]]:
    path = DATA / f"longchat_{name}.jsonl"
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


@cache
def pools(split: str) -> dict[str, list[dict[str, Any]]]:
    """The split's hand-written items by pool."""
    if split not in SPLITS:
        raise InvalidInput(f"unknown split {split!r}; use one of {list(SPLITS)}", split)
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in POOLS}
    for item in _read(split):
        out[item["pool"]].append(item)
    return out


@cache
def voice() -> dict[str, Any]:
    """The assistant's topic-free wording, by pool: texts, or (question,
    answer lead) pairs for follow-ups."""
    return {item["pool"]: item.get("texts", item.get("pairs")) for item in _read("common")}


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _low(sentence: str) -> str:
    """A step as the middle of a sentence ("Keep..." -> "keep...")."""
    return sentence[:1].lower() + sentence[1:] if sentence[1:2].islower() else sentence


@dataclass
class Exchange:
    """A user message and the assistant's answer; `tag` marks what a
    question may point at."""

    user: str
    assistant: str
    tag: str = ""


class Writer:
    """Composes messages in the assistant's voice from one chat's random stream."""

    def __init__(self, rng: random.Random, split: str) -> None:
        self.rng = rng
        self.pool = pools(split)
        self.voice = voice()
        self.followups: list[tuple[str, str]] = [tuple(p) for p in self.voice["followup"]]

    def say(self, pool: str) -> str:
        text: str = self.rng.choice(self.voice[pool])
        return text

    def answer(
        self,
        restate: str,
        steps: Sequence[str],
        explain: Sequence[str] = (),
        caveat: Sequence[str] = (),
        detail: str = "",
    ) -> str:
        """A long answer: the user's words restated, why, numbered steps (some
        elaborated), a caveat, a recap of two steps and a closing line;
        `detail`, if any, is one of the steps or a paragraph after them."""
        rng = self.rng
        opener = self.say("opener").format(restate=restate)
        count = min(len(steps), rng.randint(5, 7))
        picked = [steps[i] for i in sorted(rng.sample(range(len(steps)), count))]
        late = bool(detail) and rng.random() < 0.5
        if detail and not late:
            picked.insert(rng.randint(0, len(picked)), detail)
        parts = [" ".join([opener, *explain]), self.say("bridge") + "\n" + self._numbered(picked)]
        if late:
            parts.append(f"One more thing that tends to work well here: {detail}")
        if caveat:
            parts.append(rng.choice(caveat))
        a, b = rng.sample(picked, 2)
        recap = self.say("recap").format(restate=restate, a=_low(a), b=_low(b), a_cap=a, b_cap=b)
        parts += [recap, self.say("closer")]
        return "\n\n".join(parts)

    def _numbered(self, steps: Sequence[str]) -> str:
        """Numbered steps, about half followed by a (never repeated) remark."""
        remarks = self.rng.sample(self.voice["elaboration"], len(self.voice["elaboration"]))
        lines = []
        for number, step in enumerate(steps, 1):
            extra = f" {remarks.pop()}" if remarks and self.rng.random() < 0.5 else ""
            lines.append(f"{number}. {step}{extra}")
        return "\n".join(lines)

    def topic_answer(self, topic: dict[str, Any]) -> tuple[str, str]:
        """A request about `topic` and the assistant's long answer."""
        request, restate = self.rng.choice(topic["requests"])
        reply = self.answer(restate, topic["steps"], topic["explain"], topic["caveat"])
        return request, reply

    def thread(self, topic: dict[str, Any]) -> list[Exchange]:
        """A help thread: the request, follow-ups answered from the topic's
        other steps, sometimes thanks."""
        rng = self.rng
        request, reply = self.topic_answer(topic)
        out = [Exchange(request, reply)]
        for asked, lead in rng.sample(self.followups, rng.choice((0, 1, 1, 2))):
            extra = " ".join(rng.sample(topic["steps"], 3))
            why = rng.choice(topic["explain"])
            out.append(Exchange(asked, f"{lead} {extra}\n\n{why} {self.say('closer')}"))
        if rng.random() < 0.4:
            out.append(Exchange(self.say("thanks_user"), self.say("thanks_reply")))
        return out

    def with_request(self, statement: str, ack: str, chance: float, alone: str = "") -> Exchange:
        """`statement` said in passing before a request (at `chance`), the
        assistant acknowledging it and answering at length; else on its own,
        answered with `alone` (default: the acknowledgement and a question)."""
        if self.rng.random() < chance:
            request, reply = self.topic_answer(self.rng.choice(self.pool["topic"]))
            return Exchange(f"{statement} {request}", f"{ack}\n\n{reply}".strip())
        return Exchange(statement, alone or f"{ack} {self.say('ack_tail')}".strip())

    def distractor(self, item: dict[str, Any]) -> Exchange:
        """A request on the item's topic whose long answer repeats its words."""
        spec = item["distractor"]
        return Exchange(spec["request"], self.answer(spec["restate"], spec["steps"]))

    def recall(self, item: dict[str, Any]) -> Exchange:
        """A request whose long answer holds the detail a question asks for."""
        reply = self.answer(item["restate"], item["steps"], detail=item["detail"])
        return Exchange(item["request"], reply)
