"""An optional LLM judge of statement pairs (the living-memory design), its verdicts cached
in the store so a pair is never asked twice. Without an LLM the offline
detectors decide alone."""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime, timezone

from ..errors import MnemotreeError
from ..llm import LLM
from ..store import Store
from ..timeutil import to_iso

log = logging.getLogger(__name__)

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "contradicts": {"type": "boolean"},
        "reason": {"type": "string"},
    },
    "required": ["contradicts", "reason"],
}
_ASK = (
    "Two statements were stored in a personal memory, the first earlier. Do they "
    "contradict each other: can they not both be true of the same subject at the same "
    "time (a move, a new job, a changed preference, a corrected date or number, a "
    "denial)? Paraphrases, additions, other subjects and other attributes do not "
    "contradict. Answer with contradicts (true or false) and a short reason."
)


class Judge:
    """Asks `llm` about pairs; verdicts are cached in `store` (or in memory)."""

    def __init__(self, llm: LLM, store: Store | None = None) -> None:
        self.llm = llm
        self.store = store
        self._cache: dict[str, bool] = {}
        self.asked = 0
        self.failures = 0

    @property
    def identity(self) -> str:
        return self.llm.identity

    def _key(self, earlier: str, later: str) -> str:
        raw = "\x00".join((self.llm.identity, earlier, later)).encode("utf-8")
        return hashlib.sha256(raw).hexdigest()

    def contradicts(self, earlier: str, later: str) -> bool | None:
        """The judge's verdict, or None when the model failed (offline rules decide)."""
        key = self._key(earlier, later)
        if key in self._cache:
            return self._cache[key]
        if self.store is not None:
            cached = self.store.judgement(key)
            if cached is not None:
                return cached[0] == "contradicts"
        ask = [
            {"role": "system", "content": _ASK},
            {"role": "user", "content": f"Earlier: {earlier}\nLater: {later}"},
        ]
        try:
            self.asked += 1
            data = self.llm.complete(ask, json_schema=VERDICT_SCHEMA, temperature=0.0).data
            verdict = bool(data["contradicts"])
        except (MnemotreeError, KeyError, TypeError) as exc:
            self.failures += 1
            log.warning("contradiction judge failed, the offline rules decide: %s", exc)
            return None
        self._cache[key] = verdict
        if self.store is not None:
            now = to_iso(datetime.now(timezone.utc))
            label = "contradicts" if verdict else "compatible"
            self.store.put_judgement(key, label, str(data.get("reason", ""))[:500], now)
        return verdict
