"""Chat memory (`Memory.chat`): sessions, messages, rolling summaries, capture.

`add_message` only appends. Summarising and capture run afterwards, on one
background thread (or inline with `chat_background=False`), so a slow LLM
never delays a message; a failure is logged and kept in `chat_errors`, and
the same work is tried again after the next message: nothing is lost.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from ..errors import InvalidInput, MnemotreeError, NotFound
from ..ids import new_id
from ..model import DEFAULT_SCOPE, NewNode, Node, NodeFilter, clean_scope, clean_scopes
from ..retrieval.query import lexical_query
from ..retrieval.search import CONTAINER
from ..services import Part, Services
from ..store import CapturedRow
from ..structured import typed
from ..timeutil import to_iso
from ..vocabulary import INSTRUCTION_TAG, SESSION_TYPE
from . import numbered, referents
from .capture import PROMOTE_AT, Extractor, LLMExtractor, PatternExtractor
from .cues import Candidate, novel
from .retention import (
    PruneReport,
    Retention,
    daily_log,
    day_of,
    prune_log,
    prune_session,
)
from .session import Sessions, WindowSettings, said_of
from .summarize import ExtractiveSummarizer, LLMSummarizer, Summarizer

log = logging.getLogger(__name__)

LOG_TYPE = "memory_log"
LOG_SECTION_TYPE = "log_section"
LOG_SECTIONS = 5  # the documents-and-chat design: memory.md keeps its last five sections
MAX_LISTED = 10_000
# Captured messages read again before new ones, as what they answer: as far
# back as a reply looks for its referent or a list it claims from.
CONTEXT_MESSAGES = max(numbered.LOOK_BACK, 2 * referents.LOOK_BACK)


@dataclass(frozen=True, slots=True)
class CaptureReport:
    """One capture: what was found, what was new, what was promoted."""

    session_id: str
    found: int
    new: int
    promoted: list[str]  # memory node ids
    pending: list[str]  # captured row ids


class Remember(Protocol):
    """How capture stores what it promotes: `Memory.remember`."""

    def __call__(self, text: str, **options: Any) -> Node: ...


class Chat(Part):
    """Sessions of messages with rolling summaries, and what is captured from them.

    `add_message` only appends. Summarising and capture run afterwards, on one
    background thread (or inline with `background=False`), so a slow LLM never
    delays a message; a failure is logged and kept in `errors`, and the same
    work is tried again after the next message: nothing is lost.
    """

    def __init__(self, services: Services, remember: Remember, *, background: bool) -> None:
        super().__init__(services)
        self.remember = remember
        self._chat_background = background
        self.chat_errors = services.chat_errors
        self._chat_pool: ThreadPoolExecutor | None = None
        self._chat_queued: dict[str, Future[None]] = {}
        self._chat_dirty: set[str] = set()
        self._chat_lock = threading.Lock()
        self._capture_lock = threading.Lock()
        self._engine: tuple[Sessions, Extractor] | None = None

    @property
    def errors(self) -> list[MnemotreeError]:
        """Background upkeep that failed (it is tried again after the next message)."""
        return self.chat_errors

    def _sessions(self) -> Sessions:
        return self._built()[0]

    @property
    def _extractor(self) -> Extractor:
        return self._built()[1]

    def _built(self) -> tuple[Sessions, Extractor]:
        """The session engine and extractor, made on first use (they ask for the LLM)."""
        if self._engine is None:
            with self.services.making:
                if self._engine is None:
                    llm = self.llm
                    summarizer: Summarizer = (
                        ExtractiveSummarizer() if llm is None else LLMSummarizer(llm)
                    )
                    extractor: Extractor = PatternExtractor() if llm is None else LLMExtractor(llm)
                    self._engine = (Sessions(self._tree, summarizer), extractor)
        return self._engine

    # -- sessions ----------------------------------------------------------------

    def start_session(
        self,
        scope: str = DEFAULT_SCOPE,
        title: str | None = None,
        *,
        max_recent: int = 20,
        chunk_size: int = 10,
        max_chunks: int = 5,
    ) -> Node:
        """A new chat session (a root of type `chat_session`) in `scope`."""
        window = WindowSettings(max_recent, chunk_size, max_chunks)
        return self._sessions().start(scope, title, window)

    def sessions(
        self, scopes: Sequence[str] | None = None, status: str | None = None
    ) -> list[Node]:
        """Sessions in these scopes (None: all), optionally with one status."""
        chosen = clean_scopes(scopes)
        return self._sessions().find(chosen, status)

    def session(self, session: str) -> Node:
        """The session's root node (NotFound if `session` is not one)."""
        return self._sessions().require(session)

    def session_turns(self, session: str) -> int:
        """The session's last turn number: how many messages it has had,
        pruned ones included."""
        sessions = self._sessions()
        return sessions.turns(sessions.require(session))

    def set_session_status(self, session: str, status: str) -> Node:
        """active, paused or ended. An ended session takes no more messages,
        and what it said since the last capture is captured now."""
        node = self._sessions().set_status(session, status)
        if status == "ended":
            if self._chat_background:
                self._schedule(node.id)
            else:
                self._care(node.id)
        return node

    def add_milestone(self, session: str, text: str) -> Node:
        """Mark a moment of the session (kept in its metadata with the turn)."""
        return self._sessions().add_milestone(session, text)

    def add_message(
        self, session: str, role: str, content: str, *, name: str | None = None
    ) -> Node:
        """Append a message; summaries and capture follow without delaying it."""
        node = self._sessions().add(session, role, content, name)
        if self._chat_background:
            self._schedule(node.root_id)
        else:
            self._care(node.root_id)
        return node

    def session_messages(self, session: str) -> list[Node]:
        """Every message of a session in order, summarised or not."""
        return self._sessions().messages(session)

    def build_message_list(self, session: str, budget: int | None = None) -> list[dict[str, Any]]:
        """OpenAI chat messages for the session (summaries as tool call pairs);
        with `budget`, the newest part that fits it exactly."""
        return self._sessions().message_list(session, self.tokenizer, budget)

    # -- background care -----------------------------------------------------------

    def _schedule(self, session_id: str) -> None:
        # A run already going may have read the session before this message:
        # the session is marked, and the run goes round again until unmarked.
        with self._chat_lock:
            self._chat_dirty.add(session_id)
            queued = self._chat_queued.get(session_id)
            if queued is not None and not queued.done():
                return
            if self._chat_pool is None:
                self._chat_pool = ThreadPoolExecutor(1, thread_name_prefix="mnemotree-chat")
            self._chat_queued[session_id] = self._chat_pool.submit(self._drain, session_id)

    def _drain(self, session_id: str) -> None:
        while True:
            with self._chat_lock:
                if session_id not in self._chat_dirty:
                    # Unlisted under the lock: a message marked after this
                    # sees no run going and starts one.
                    self._chat_queued.pop(session_id, None)
                    return
                self._chat_dirty.discard(session_id)
            self._care(session_id)

    def _care(self, session_id: str) -> None:
        """Summarise and capture as needed; failures are kept, not raised (the
        message is stored; the next message tries again). A failing summary
        does not stop capture, nor the reverse."""
        sessions = self._sessions()
        for step in (self._summarise_due, self._capture_due):
            try:
                step(sessions.require(session_id))
            except NotFound:
                return  # the session was deleted: nothing left to look after
            except MnemotreeError as exc:
                log.warning("chat upkeep of %s failed, will retry: %s", session_id, exc)
                self.chat_errors.append(exc)

    def _summarise_due(self, session: Node) -> None:
        sessions = self._sessions()
        if sessions.needs_care(session):
            sessions.maintain(session.id)

    def upkeep_pending(self) -> int:
        """Sessions whose summaries and captures are queued or running."""
        with self._chat_lock:
            return sum(1 for f in self._chat_queued.values() if not f.done())

    def wait_for_chat(self, timeout: float | None = None) -> bool:
        """Block until queued summaries and captures are done (False on timeout)."""
        self._sessions()
        while True:
            with self._chat_lock:
                pending = [f for f in self._chat_queued.values() if not f.done()]
            if not pending:
                return True
            for future in pending:
                try:
                    future.result(timeout)
                except TimeoutError:
                    return False

    def stop(self) -> None:
        """Finish queued upkeep and stop its thread (its writes land first)."""
        pool = self._chat_pool
        if pool is not None:
            pool.shutdown(wait=True)
            self._chat_pool = None

    # -- capture -------------------------------------------------------------------

    def _capture_due(self, session: Node) -> CaptureReport | None:
        every = WindowSettings.of(session).max_recent
        done = int(session.metadata.get("captured_turn", 0))
        turns = self._sessions().turns(session)
        ended = session.metadata.get("status") == "ended"
        if turns - done < every and not (ended and turns > done):
            return None
        return self.capture(session.id)

    def capture(self, session: str) -> CaptureReport:
        """Capture the messages not captured yet: new candidates are stored as
        pending facts, and those at or above 0.7 confidence become typed
        memories at once (an assistant's words always wait for `promote`).
        A durable log section records what was found."""
        self._sessions()
        with self._capture_lock:  # one capture at a time in this process
            return self._capture(session)

    def _capture(self, session: str) -> CaptureReport:
        sessions = self._sessions()
        node = sessions.require(session)
        done = int(node.metadata.get("captured_turn", 0))
        every = sessions.messages(node.id)
        first = next((i for i, m in enumerate(every) if m.metadata.get("turn", 0) > done), None)
        if first is None:
            return CaptureReport(node.id, 0, 0, [], [])
        # The messages just before, captured already, are read again as what
        # the new ones answer ("deal", "2 and 3 are me"); only new ones are kept.
        messages = every[max(0, first - CONTEXT_MESSAGES) :]
        # The model (if any) runs before any write: nothing is locked meanwhile.
        found = self._extractor.extract([said_of(m) for m in messages])
        now = self._tree.now()
        rows, promoted, pending = [], [], []
        with self.store.transaction():
            # Read again in the write: another process may have captured meanwhile.
            node = sessions.require(session)
            since = int(node.metadata.get("captured_turn", 0))
            last = int(messages[-1].metadata.get("turn", 0))
            found = [c for c in found if _source(messages, c).metadata.get("turn", 0) > since]
            if since >= last:
                return CaptureReport(node.id, len(found), 0, [], [])
            fresh = self._unknown(found, node.scope)
            for candidate in fresh:
                row_id = new_id()
                said = _source(messages, candidate)
                row = CapturedRow(
                    row_id,
                    node.id,
                    node.scope,
                    candidate.text,
                    candidate.type,
                    candidate.confidence,
                    (said.id,),
                    "pending",
                    None,
                    now,
                    _carried(candidate),
                )
                if candidate.confidence >= PROMOTE_AT and said.context_value != "assistant":
                    memory = self._promote_row(row)
                    row = row._replace(status="promoted", memory_id=memory.id)
                    promoted.append(memory.id)
                else:
                    pending.append(row_id)
                rows.append(row)
            self.store.put_captured(rows)
            if fresh:
                self._log_section(node.scope, fresh, now)
            sessions.patch(node.id, lambda _: {"captured_turn": last})
        return CaptureReport(node.id, len(found), len(fresh), promoted, pending)

    def _unknown(self, found: list[Candidate], scope: str) -> list[Candidate]:
        """Candidates that neither long-term memory nor pending captures of the
        scope already hold (lexical lookups: no model on this path)."""
        fresh = novel(found, [])  # nothing yet: drop repeats within the window below
        out: list[Candidate] = []
        # Pending and dismissed facts are known too: a dismissed one stays dismissed.
        pending = [
            r.text for r in self.store.captured([scope], None, MAX_LISTED) if r.status != "promoted"
        ]
        # What was superseded is not known any more: saying it again is news.
        valid = to_iso(self.clock())
        kinds = NodeFilter(scopes=(scope,), context_types=typed.TYPES, valid_at=valid)
        for candidate in fresh:
            query = lexical_query(candidate.text)
            ids = [i for i, _ in self.store.lexical(query.terms, kinds, 5)] if query else []
            known = [n.text for n in self.store.get_many(ids)] + pending
            known += [c.text for c in out]
            if novel([candidate], known):
                out.append(candidate)
        return out

    def _promote_row(self, row: CapturedRow) -> Node:
        """The captured row as a typed memory, with what it carries (an
        action item's owner and due date, a standing instruction's tag)."""
        kind = row.type if row.type in typed.TYPES else "fact"
        carried = dict(row.fields)
        tags = [INSTRUCTION_TAG] if carried.pop(INSTRUCTION_TAG, "") else []
        return self.remember(
            row.text,
            type=kind,
            scope=row.scope,
            confidence=row.confidence,
            source=f"chat:{row.session_id}",
            tags=["captured", *tags],
            metadata={"source_messages": list(row.sources), "captured_id": row.id, **carried},
        )

    def captured(
        self, scopes: Sequence[str] | None = None, status: str | None = "pending"
    ) -> list[CapturedRow]:
        """Captured facts (by default the pending ones), newest first."""
        if status not in (None, "pending", "promoted", "dismissed"):
            raise InvalidInput(
                f"unknown status {status!r}; use pending, promoted or dismissed", status
            )
        chosen = clean_scopes(scopes)
        return self.store.captured(chosen, status, MAX_LISTED)

    def promote(self, captured_id: str) -> Node:
        """Make a pending captured fact a typed memory; returns the memory."""
        with self.store.transaction():
            row = self._pending_row(captured_id)
            memory = self._promote_row(row)
            self.store.put_captured([row._replace(status="promoted", memory_id=memory.id)])
        return memory

    def dismiss(self, captured_id: str) -> None:
        """Drop a pending captured fact (kept, marked dismissed)."""
        with self.store.transaction():
            row = self._pending_row(captured_id)
            self.store.put_captured([row._replace(status="dismissed")])

    def _pending_row(self, captured_id: str) -> CapturedRow:
        row = self.store.get_captured(captured_id) if isinstance(captured_id, str) else None
        if row is None:
            raise NotFound(f"no captured fact with id {captured_id!r}", captured_id)
        if row.status != "pending":
            raise InvalidInput(f"captured fact {captured_id} is already {row.status}", row.status)
        return row

    # -- the memory log (memory.md of the documents-and-chat design) --------------

    def _log_root(self, scope: str) -> Node:
        found = self.store.roots_of_type(LOG_TYPE, [scope])
        if found:
            return found[0]
        new = NewNode(
            f"Memory log ({scope})", LOG_TYPE, scope, scope=scope, metadata={CONTAINER: True}
        )
        return self._tree.create_root(new)

    def _log_section(self, scope: str, found: list[Candidate], now: str) -> None:
        self._log_lines(scope, [f"{c.text} ({c.type}, {c.confidence:.2f})" for c in found], now)

    def _log_lines(self, scope: str, items: list[str], now: str) -> None:
        lines = "\n".join(f"- {item}" for item in items)
        root = self._log_root(scope)
        # Sections are a record, not memories: search finds the typed memories.
        new = NewNode(lines, LOG_SECTION_TYPE, now, metadata={CONTAINER: True})
        self._tree.append_child(root.id, new)
        sections = self.store.children(root.id)
        for old in sections[: max(0, len(sections) - self.log_sections)]:
            self._tree.delete(old.id)

    log_sections: int = LOG_SECTIONS

    def note(self, text: str, scope: str = DEFAULT_SCOPE) -> Node:
        """Remember a note (/remember of the documents-and-chat design): a typed
        memory, and a line in the scope's memory log."""
        memory = self.remember(text, type="fact", scope=scope, tags=["note"])
        with self.store.transaction():
            self._log_lines(memory.scope, [memory.text], self._tree.now())
        return memory

    def clear_memory_log(self, scope: str = DEFAULT_SCOPE) -> int:
        """Empty the scope's memory log (the documents-and-chat design's /forget); sections stay in
        history. Returns how many sections went."""
        scope = clean_scope(scope)
        gone = 0
        with self.store.transaction():
            for root in self.store.roots_of_type(LOG_TYPE, [scope]):
                for section in self.store.children(root.id):
                    gone += self._tree.delete(section.id)
        return gone

    # -- retention and daily logs (the documents-and-chat design) ---------------

    retention: Retention = Retention()

    def prune(
        self,
        retention: Retention | None = None,
        *,
        scopes: Sequence[str] | None = None,
        dry_run: bool = False,
    ) -> PruneReport:
        """Apply retention: summarised messages past `messages_days`, summaries
        and memory-log sections past `summaries_days` (`admin_days` in admin)
        are deleted (kept in history). Unsummarised messages are never pruned."""
        rules = retention or self.retention
        now = self.clock()
        chosen = clean_scopes(scopes)
        report = PruneReport(dry_run=bool(dry_run))
        self.wait_for_chat()  # upkeep must not summarise what is being pruned
        for session in self.store.roots_of_type(SESSION_TYPE, chosen):
            prune_session(self._tree, session, now, rules, report)
        for root in self.store.roots_of_type(LOG_TYPE, chosen):
            prune_log(self._tree, root, now, rules, report)
        return report

    def daily_log(self, scope: str = DEFAULT_SCOPE, day: str | date | None = None) -> str:
        """The day's messages in `scope` as Markdown (log/YYYY-MM-DD.md of the
        documents-and-chat design); `day` is YYYY-MM-DD, default today (UTC)."""
        scope = clean_scope(scope)
        when = day_of(day, self.clock())
        sessions = self._sessions()
        found = [(s, sessions.messages(s.id)) for s in sessions.find([scope], None)]
        found.sort(key=lambda pair: pair[0].created_at)
        return daily_log(found, when, scope)

    def memory_log(self, scope: str = DEFAULT_SCOPE) -> str:
        """The scope's memory log as Markdown, oldest section first."""
        scope = clean_scope(scope)
        roots = self.store.roots_of_type(LOG_TYPE, [scope])
        parts = [f"# Memory log ({scope})"]
        for section in self.store.children(roots[0].id) if roots else []:
            when = section.context_name[:16].replace("T", " ")
            parts.append(f"## {when} UTC\n\n{section.text}")
        return "\n\n".join(parts) + "\n"


def _carried(candidate: Candidate) -> tuple[tuple[str, str], ...]:
    """What a captured row keeps beyond its text for its memory: an action
    item's owner, due date and status; a standing instruction's mark."""
    fields = {INSTRUCTION_TAG: "yes"} if candidate.instruction else {}
    if candidate.type == "action":
        fields |= {"owner": candidate.owner, "status": "open"}
        fields |= {"due": candidate.due} if candidate.due else {}
    return tuple(sorted(fields.items()))


def _source(messages: list[Node], candidate: Candidate) -> Node:
    """The message a candidate came from (a model may name one past the end)."""
    return messages[min(candidate.message, len(messages) - 1)]
