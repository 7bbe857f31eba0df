"""The LoCoMo measure of `bench capture`: the share of each development
conversation's generated `observation` facts that a captured memory says
(cosine >= OBSERVED with the default embedder). The observations are used
as labels for this measurement only; the engine never reads them. LoCoMo is
CC BY-NC 4.0: read from the file given, never shipped."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..embed import get_embedder
from ..memory import Memory

OBSERVED = 0.8


def observation_share(
    data: Path, embedder: str, say: Callable[[str], None] = lambda _: None
) -> dict[str, Any]:
    """Capture each conversation offline, session by session, and count the
    observations a captured memory says."""
    judge = get_embedder(embedder)
    samples = json.loads(data.read_text(encoding="utf-8"))
    found = total = captured = 0
    with tempfile.TemporaryDirectory(prefix="mnemotree-locomo-capture-") as tmp:
        for number, sample in enumerate(samples, 1):
            texts = _captured(Path(tmp) / f"{number}.db", sample["conversation"])
            facts = [o[0] for v in sample["observation"].values() for os in v.values() for o in os]
            captured += len(texts)
            total += len(facts)
            if texts and facts:
                cosines = judge.embed_batch(facts) @ judge.embed_batch(texts).T
                found += int(np.sum(np.max(cosines, axis=1) >= OBSERVED))
            say(f"{number}/{len(samples)}: {len(texts)} captured, {len(facts)} observations")
    return {
        "conversations": len(samples),
        "observations": total,
        "captured": captured,
        "observations_said": found,
        "share": round(found / total, 3) if total else None,
        "cosine": OBSERVED,
    }


def _captured(db: Path, talk: dict[str, Any]) -> list[str]:
    keys = [k for k in talk if k.startswith("session_") and not k.endswith("date_time")]
    keys.sort(key=lambda k: int(k.split("_")[1]))
    with Memory(db, embedder="hashing", llm="offline", chat_background=False) as memory:
        for key in keys:
            session = memory.chat.start_session("locomo", key)
            for turn in talk[key]:
                if turn.get("text"):
                    memory.chat.add_message(session.id, "user", turn["text"], name=turn["speaker"])
            memory.chat.set_session_status(session.id, "ended")
        return [r.text for r in memory.chat.captured(["locomo"], status=None)]
