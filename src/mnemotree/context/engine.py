"""The context engine behind `Memory.context`: tiered context assembly,
working memory for a chat turn, predictions from signals, and usage feedback."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from ..errors import InvalidInput, NotFound
from ..model import Node, NodeFilter, clean_scopes
from ..retrieval.search import Hit
from ..services import Part, Services
from ..telemetry import operation
from ..timeutil import to_iso
from .assemble import Assembler, Context
from .predict import Prediction, Predictor
from .signals import Signals
from .usage import UsageReport, record_usage
from .working import (
    RECENT_SHARE,
    SYSTEM_RESERVE,
    WORKING_RESERVE,
    WorkingMemory,
    working_memory,
)

SignalsLike = Signals | Mapping[str, object] | Sequence[str] | None
MAX_PREDICTIONS = 1000


class ContextEngine(Part):
    """Contexts within a token budget, predictions, and what was used."""

    def __init__(self, services: Services, session: Callable[[str], Node]) -> None:
        super().__init__(services)
        self.session = session
        self._context_counts: dict[str, int] = {}  # line -> tokens, shared by its contexts

    def _search_for_context(self, text: str, where: NodeFilter, limit: int) -> list[Hit]:
        # Reading for a context is not an access: usage feedback says what was used.
        return self.retriever.search(text, where, limit, self.services.weights, False)

    def _predictor(self) -> Predictor:
        return Predictor(self.store, self._search_for_context, self.clock)

    def context(
        self,
        query: str = "",
        *,
        budget: int = 8000,
        signals: SignalsLike = None,
        activity: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> Context:
        """The living-memory design's four tiers (critical, relevant, background, index) within
        `budget` tokens, exactly; each item at the most detailed level that
        fits. The text is content: each line is led by a short reference
        (`m3`) that `Context.refs` maps to its node id. Only memories valid at
        the situation's time (now, or the `time` signal) and not archived are
        used. `signals` (file, branch, error, activity, time, collaborator)
        steer it; `activity` rebalances the tiers."""
        given = _signals(signals, activity)
        assembler = Assembler(
            self.store, self._search_for_context, self.tokenizer, self.clock, self._context_counts
        )
        with operation("context", {"mnemotree.budget": budget}):
            return assembler.assemble(budget, query, given, _where(scopes))

    def predict(
        self, signals: SignalsLike, *, scopes: Sequence[str] | None = None, limit: int = 20
    ) -> list[Prediction]:
        """Memories likely to be needed in this situation, with confidence and reasons."""
        if (
            isinstance(limit, bool)
            or not isinstance(limit, int)
            or not 1 <= limit <= MAX_PREDICTIONS
        ):
            raise InvalidInput(f"limit must be from 1 to {MAX_PREDICTIONS}, got {limit!r}", limit)
        given = _signals(signals, None)
        if not given:
            raise InvalidInput(
                "give at least one signal (file, branch, error, activity, time, collaborator)",
                None,
            )
        now = given.time or self.clock()
        valid = replace(_where(scopes), valid_at=to_iso(now))
        return self._predictor().predict(given, valid, limit)

    def record_usage(
        self,
        retrieved: Sequence[str],
        *,
        cited: Sequence[str] = (),
        answer: str | None = None,
        signals: SignalsLike = None,
        refs: Mapping[str, str] | None = None,
    ) -> UsageReport:
        """Say what a context held (`retrieved`) and what the answer used: ids in
        `cited`, ids named in `answer` (or its short references, `m3`, given
        the context's `refs`), or memories whose words the answer repeats.
        Citations boost a memory; repeated ignores demote it."""
        return record_usage(
            self.store, self.clock, retrieved, cited, answer, _signals(signals, None), refs
        )

    def working_memory(
        self,
        session: str,
        *,
        total: int,
        system_prompt: str = "",
        query: str = "",
        system_reserve: int = SYSTEM_RESERVE,
        working_reserve: int = WORKING_RESERVE,
        recent_share: float = RECENT_SHARE,
        scopes: Sequence[str] | None = None,
    ) -> WorkingMemory:
        """The tiered-memory design's context for the next turn of a chat session: recent
        messages, retrieved memories and chunk summaries within the budget."""
        node = self.session(session)
        # The session's own scope comes from the database: not checked as input.
        where = _where(scopes) if scopes is not None else NodeFilter(scopes=(node.scope,))
        if where.scopes is not None and node.scope not in where.scopes:
            raise NotFound(f"no session {session!r} in scopes {list(where.scopes)}", session)
        # Superseded and expired memories are not brought back into a turn.
        where = replace(where, valid_at=to_iso(self.clock()))
        return working_memory(
            self.store,
            self.tokenizer,
            self._search_for_context,
            node,
            total=total,
            system_prompt=system_prompt,
            query=query,
            where=where,
            system_reserve=system_reserve,
            working_reserve=working_reserve,
            recent_share=recent_share,
        )


def _signals(signals: SignalsLike, activity: str | None) -> Signals:
    given = signals if isinstance(signals, Signals) else Signals.parse(signals)
    if activity is not None:
        given = replace(given, activity=activity)  # checked like the rest
    return given


def _where(scopes: Sequence[str] | None) -> NodeFilter:
    return NodeFilter(scopes=clean_scopes(scopes))
