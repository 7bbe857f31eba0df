"""Contradictions and updates found as statements are written.

Each new memory is compared with the similar ones its scope holds, inside
the write (so of two contradicting writes racing in two processes the later
always finds the earlier); an update supersedes at once, and with an LLM what
the rules read in free text waits for its verdict, asked after the write.

The model work of that comparison (the embedder's cosines, an NLI model's
scores) is done before the write takes the lock: `prepare` runs the same scan
on the statement as it will be written and keeps the model's answers, so the
scan inside the write asks the model only about a statement committed in
between. What it finds is what it found before; the lock is held for the
index queries and the writes alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..embed.protocol import knows_meaning
from ..errors import InvalidInput
from ..model import (
    DEFAULT_SCOPE,
    NewNode,
    Node,
    clean_label,
    clean_metadata,
    clean_scope,
    clean_text,
)
from ..nli import NLI, NLIScores
from ..services import Part, Services
from ..structured.supersede import supersede
from ..timeutil import to_iso
from .contradictions import (
    QUIET,
    SAME_KEY,
    UPDATE,
    Change,
    Similarity,
    named_values,
    read,
    row,
    same_key,
    stated,
    verdict,
)
from .detect import Finding
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

    def prepare(self, new: NewNode | None = None) -> Answers:
        """Before the write takes the lock: build what the scan reads with (the
        search engine) and, given the statement about to be written, run the
        scan on it now and keep the model's answers for the scan in the write.
        The scan proper stays inside the write: there it sees every committed
        statement, so of two contradicting writes racing in two processes the
        later always finds the earlier, and records it once."""
        answers = Answers(self.services.nli, self._cosines)
        if not self.scan_on_write:
            return answers
        self.retriever  # noqa: B018 - built for its side effect
        node = _as_written(new, self.services.now()) if new is not None else None
        if node is not None:
            self.changes(node, answers)  # read-only: nothing is recorded here
        return answers

    def changes(self, node: Node, answers: Answers) -> list[Change]:
        """What a statement updates or contradicts among its scope's memories
        (found, not recorded)."""
        now = self.clock()
        found = same_key(self.store, node, now)
        if self.scan_on_write:
            alike = answers.similarity if knows_meaning(self.retriever.embedder) else None
            lexical = self.retriever.lexical_ids
            found += named_values(self.store, node, found, lexical, now)
            found += stated(self.store, node, lexical, now, answers.nli, alike, answers.read)
        return found

    def contradicted(self, node: Node, answers: Answers | None = None) -> list[tuple[str, Change]]:
        """Record what a new memory updates or contradicts (inside its write,
        with the `answers` its `prepare` kept). An update supersedes at once.
        With an LLM, what the rules read in free text waits in review for its
        verdict, asked after the write (`judge_later`): the returned rows."""
        now = self.clock()
        found = self.changes(node, answers or Answers(self.services.nli, self._cosines))
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

    def _cosines(self, text: str, others: list[str]) -> list[float]:
        """Cosines of `text` with each of `others` (the few statements the
        detectors flagged as a write's conflicts: embedded here, a few ms)."""
        vectors = self.retriever.embedder.embed_batch([text, *others])
        return [float(v @ vectors[0]) for v in vectors[1:]]


class Answers:
    """The model's answers during one write's scan, kept so the scan in the
    write asks again only about what it had not seen (its results are the
    same as asking afresh: the same texts give the same answers)."""

    def __init__(self, nli: NLI | None, cosines: Similarity) -> None:
        self._cosines = cosines
        self._similar: dict[tuple[str, str], float] = {}
        self._read: dict[tuple[str, str], Finding | None] = {}
        self.nli = None if nli is None else _KeptNLI(nli)

    def read(self, earlier: str, later: str) -> Finding | None:
        """What the rules read in a pair (the detectors are the costly part)."""
        pair = (earlier, later)
        if pair not in self._read:
            self._read[pair] = read(earlier, later)
        return self._read[pair]

    def similarity(self, text: str, others: list[str]) -> list[float]:
        missing = list(dict.fromkeys(o for o in others if (text, o) not in self._similar))
        if missing:
            cosines = self._cosines(text, missing)
            self._similar.update(zip(((text, o) for o in missing), cosines, strict=True))
        return [self._similar[(text, o)] for o in others]


class _KeptNLI:
    """An NLI model whose scores for a pair are kept once asked."""

    def __init__(self, model: NLI) -> None:
        self._model = model
        self._scores: dict[tuple[str, str], NLIScores] = {}

    @property
    def identity(self) -> str:
        return self._model.identity

    def scores(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        missing = list(dict.fromkeys(p for p in pairs if p not in self._scores))
        if missing:
            self._scores.update(zip(missing, self._model.scores(missing), strict=True))
        return [self._scores[p] for p in pairs]


def _as_written(new: NewNode, now: str) -> Node | None:
    """The statement as the write will store it (no id yet), or None if it
    would be refused: the write then says why."""
    try:
        return Node(
            "",
            "",
            None,
            0.0,
            clean_text(new.text),
            0,
            now,
            now,
            clean_label(new.context_type, "context_type"),
            clean_label(new.context_name, "context_name"),
            clean_label(new.context_value, "context_value"),
            clean_scope(new.scope or DEFAULT_SCOPE),
            1,
            False,
            False,
            clean_metadata(new.metadata),
        )
    except InvalidInput:
        return None
