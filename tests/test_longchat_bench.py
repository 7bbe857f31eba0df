"""The long-chat benchmark: its generator (deterministic, disjoint splits,
sound evidence, paraphrased questions) and a tiny run through the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mnemotree import Memory
from mnemotree.bench.longchat import evaluate, load
from mnemotree.bench.longchat_gen import ABILITIES, ASSISTANT, MONTHS, USER, generate, to_json
from mnemotree.bench.longchat_text import SPLITS, pools
from mnemotree.errors import InvalidInput
from tests.helpers import CountingEmbedder

PLACEHOLDER = re.compile(r"^\{\w+\}$")


def _leaves(value: Any) -> set[str]:
    """Every text of a pool item (a bare placeholder such as "{new}" is no text)."""
    if isinstance(value, str):
        return set() if PLACEHOLDER.match(value) else {value.lower()}
    if isinstance(value, dict):
        return set().union(*(_leaves(v) for k, v in value.items() if k != "pool"))
    if isinstance(value, list):
        return set().union(*(_leaves(v) for v in value))
    return set()


def test_the_splits_share_no_text_and_no_name() -> None:
    dev, held = pools("dev"), pools("heldout")
    for pool in dev:
        assert dev[pool] and len(dev[pool]) == len(held[pool]), pool
        assert not _leaves(dev[pool]) & _leaves(held[pool]), pool
    names = [
        {
            str(item.get("key", item.get("kind", item.get("name"))))
            for items in split.values()
            for item in items
        }
        for split in (dev, held)
    ]
    assert not names[0] & names[1]


def test_an_unknown_split_is_refused() -> None:
    with pytest.raises(InvalidInput):
        generate("test", 1)


def test_the_generator_is_deterministic() -> None:
    assert to_json(generate("dev", 2, seed=3), "dev", 3) == to_json(generate("dev", 2, 3), "dev", 3)
    assert generate("dev", 2, seed=3) != generate("dev", 2, seed=4)
    # --chats N is the first N chats of a longer run.
    assert generate("heldout", 3)[:2] == generate("heldout", 2)


@pytest.mark.parametrize("split", SPLITS)
def test_every_question_points_at_messages_of_its_chat(split: str) -> None:
    abilities: Counter[str] = Counter()
    for chat in generate(split, 4):
        messages = {m.id: m for m in chat.messages}
        times = [m.time for m in chat.messages]
        assert times == sorted(times) and chat.asked_at > times[-1]
        assert len(messages) == len(chat.messages) > 150  # ids are unique; chats are long
        for q in chat.questions:
            abilities[q.ability] += 1
            assert q.evidence and len(set(q.evidence)) == len(q.evidence), q
            said = [messages[e] for e in q.evidence]  # KeyError: not a message of the chat
            role = ASSISTANT if q.ability == "assistant_recall" else USER
            assert all(m.role == role for m in said), q
            if q.ability == "temporal_range":
                assert MONTHS[said[0].time.month - 1] in q.text
            if q.ability == "multi_session":
                assert len({e.split(":m")[0] for e in q.evidence}) == 3  # three sessions
    assert set(abilities) == set(ABILITIES)


@pytest.mark.parametrize("split", SPLITS)
def test_questions_are_paraphrases_not_copies(split: str) -> None:
    def grams(text: str) -> set[tuple[str, ...]]:
        words = re.findall(r"[a-z0-9']+", text.lower())
        return {tuple(words[i : i + 4]) for i in range(len(words) - 3)}

    for chat in generate(split, 6):
        messages = {m.id: m for m in chat.messages}
        for q in chat.questions:
            for evidence in q.evidence:
                assert not grams(q.text) & grams(messages[evidence].text), (q.text, evidence)


@pytest.mark.parametrize("split", SPLITS)
def test_a_value_question_points_at_the_latest_statement(split: str) -> None:
    for chat in generate(split, 6):
        messages = {m.id: m for m in chat.messages}
        for q in (q for q in chat.questions if q.ability == "knowledge_update"):
            (latest,) = q.evidence
            value = re.compile(rf"\b{re.escape(q.answer)}\b")
            # The current value is first said by the user in the latest statement.
            assert value.search(messages[latest].text)
            earlier = [
                m for m in chat.messages if m.time < messages[latest].time and m.role == USER
            ]
            assert not any(value.search(m.text) for m in earlier), q.answer


def test_long_answers_drown_short_statements() -> None:
    chat = generate("dev", 1)[0]
    answers = [len(m.text.split()) for m in chat.messages if m.role == ASSISTANT]
    asks = [len(m.text.split()) for m in chat.messages if m.role == USER]
    assert sum(n > 250 for n in answers) >= 30
    assert sorted(asks)[len(asks) // 2] < 25


def test_bench_longchat_through_the_cli(tmp_path: Path) -> None:
    out, data = tmp_path / "result.json", tmp_path / "chats.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mnemotree",
            "--db",
            str(tmp_path / "unused.db"),
            "bench",
            "longchat",
            "--chats",
            "1",
            "--embedder",
            "hashing",
            "--split",
            "heldout",
            "--json",
            str(out),
            "--write-data",
            str(data),
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    chats = json.loads(data.read_text())
    assert result["split"] == chats["split"] == "heldout" and result["chats"] == 1
    assert (
        result["questions"]
        == len(chats["chats"][0]["questions"])
        == result["default"]["overall"]["n"]
    )
    assert set(result["baselines"]) == {"fts5", "dense", "rrf"}
    assert set(result["default"]["by_ability"]) <= set(ABILITIES)
    for figures in (result["default"], *result["baselines"].values()):
        assert 0 <= figures["overall"]["recall@10"] <= figures["overall"]["recall@20"] <= 1
        assert figures["latency_ms"]["p50"] > 0
    assert isinstance(result["default_beats_every_baseline"], bool)
    assert "R@10" in proc.stdout and "default_beats_every_baseline" in proc.stdout
    ratio = result["comparison"]["latency_p50_vs_dense"]
    assert f"latency: default p50 {ratio:.2f}x plain cosine's" in proc.stdout


def test_a_question_asked_in_two_chats_is_embedded_for_each(tmp_path: Path) -> None:
    """The baselines embed every question; the engine's timing must include
    its embedding too, even for a question it searched in an earlier chat."""
    chats = generate("dev", 2)
    asked = Counter(q.text for chat in chats for q in chat.questions)
    assert any(times > 1 for times in asked.values())
    embedder = CountingEmbedder()
    clock = [chats[0].sessions[0].messages[0].time]
    with Memory(
        tmp_path / "m.db",
        clock=lambda: clock[0],
        embedder=embedder,
        llm="offline",
        chat_background=False,
    ) as memory:
        loaded = {chat.id: load(memory, clock, chat) for chat in chats}
        memory.flush()
        embedder.texts.clear()
        evaluate(memory, clock, chats, loaded)
    # Per ask, the default search and the dense baseline embed the question
    # once each (FTS5 and RRF never); a reused cached vector would make a
    # repeated question's count one short.
    assert all(embedder.texts[text] == 2 * times for text, times in asked.items())
