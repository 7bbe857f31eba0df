"""Contradictions and updates found as statements are written.

Each new memory is compared with the similar ones its scope holds, inside
the write (so of two contradicting writes racing in two processes the later
always finds the earlier); an update supersedes at once, and with an LLM what
the rules read in free text waits for its verdict, asked after the write.
"""

from __future__ import annotations

import dataclasses

from ..embed.protocol import knows_meaning
from ..model import Node
from ..services import Part, Services
from ..structured.supersede import supersede
from ..timeutil import to_iso
from .contradictions import (
    QUIET,
    SAME_KEY,
    UPDATE,
    Change,
    named_values,
    row,
    same_key,
    stated,
    verdict,
)
from .judge import Judge

AWAITING_JUDGE = "awaiting the LLM's verdict"


class WriteScan(Part):
    """The scan each write of a statement runs (`scan_on_write`, on by default)."""

    def __init__(self, services: Services) -> None:
        super().__init__(services)
        # New statements are compared with similar ones as they are written.
        self.scan_on_write = True
        # With an LLM configured, its verdict settles what the rules read on write.
        self.judge_on_write = True

    def prepare(self) -> None:
        """Build what the scan on write reads with (the search engine: imports,
        its settings) before the write takes the lock. The scan itself stays
        inside the write (an FTS query and a comparison with up to 20 similar
        statements: a few milliseconds at 2,000 memories): there it sees every
        committed statement, so of two contradicting writes racing in two
        processes the later always finds the earlier, and records it once."""
        if self.scan_on_write:
            self.retriever  # noqa: B018 - built for its side effect

    def contradicted(self, node: Node) -> list[tuple[str, Change]]:
        """Record what a new memory updates or contradicts (inside its write;
        call `_before_scan` before the write). An update supersedes at once.
        With an LLM, what the rules read in free text waits in review for its
        verdict, asked after the write (`judge_later`): the returned rows."""
        now = self.clock()
        found = same_key(self.store, node, now)
        if self.scan_on_write:
            alike = self._similarity if knows_meaning(self.retriever.embedder) else None
            lexical = self.retriever.lexical_ids
            found += named_values(self.store, node, found, lexical, now)
            found += stated(self.store, node, lexical, now, self.services.nli, alike)
        at = to_iso(now)
        asking = self.judge_on_write and self.llm is not None
        pending = []
        for change in found:
            if asking and change.kind != SAME_KEY:
                waiting = row(change, node, "review", at)._replace(note=AWAITING_JUDGE)
                if self.store.put_contradiction(waiting):
                    pending.append((waiting.id, change))
                continue
            status = verdict(change, node)
            if status == UPDATE:
                supersede(self._tree, node, change.earlier, at)
            self.store.put_contradiction(row(change, node, status, at))
        return pending

    def judge_later(self, node: Node, pending: list[tuple[str, Change]]) -> None:
        """The LLM's verdict on what the rules read, asked outside the write
        lock: compatible pairs are settled as both valid, contradicting ones
        become an update or an open contradiction; where the model fails the
        rules decide. Verdicts are cached in the store."""
        llm = self.llm
        if not pending or llm is None:
            return
        judge = Judge(llm, self.store)
        verdicts = [judge.contradicts(c.earlier.text, node.text) for _, c in pending]
        at = to_iso(self.clock())
        with self.store.transaction():
            for (row_id, change), said in zip(pending, verdicts, strict=True):
                current = self.store.get_contradiction(row_id)
                if current is None or current.note != AWAITING_JUDGE:
                    continue  # settled meanwhile, or gone with its memory
                if said is False:
                    self.store.set_contradiction(
                        current._replace(
                            status="resolved",
                            resolution="both_valid",
                            resolved_at=at,
                            note=f"{judge.identity} judged them compatible",
                        )
                    )
                    continue
                if said is True:
                    sure = max(change.confidence, QUIET)
                    change = dataclasses.replace(change, confidence=sure)
                status = verdict(change, node)
                if status == UPDATE:
                    supersede(self._tree, node, change.earlier, at)
                done = row(change, node, status, at)
                self.store.set_contradiction(
                    current._replace(
                        status=done.status,
                        resolution=done.resolution,
                        resolved_at=done.resolved_at,
                        note="" if said is None else f"{judge.identity} judged a contradiction",
                    )
                )

    def _similarity(self, text: str, others: list[str]) -> list[float]:
        """Cosines of `text` with each of `others` (the few statements the
        detectors flagged as a write's conflicts: embedded here, a few ms)."""
        vectors = self.retriever.embedder.embed_batch([text, *others])
        return [float(v @ vectors[0]) for v in vectors[1:]]
