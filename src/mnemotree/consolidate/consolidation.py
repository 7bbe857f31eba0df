"""Consolidation (`Memory.consolidation`): contradictions and updates and their
resolution, consolidation plans, runs and their undo, and the archive."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..conversation.summarize import LLMSummarizer
from ..errors import InvalidInput, InvalidOperation, NotFound
from ..ids import new_id
from ..jsonlimits import MAX_DEPTH, parse_json
from ..model import Node, clean_id, clean_scopes
from ..services import Part, Services
from ..store import ContradictionRow, RunRow
from ..structured.path_memory import PATH_UPDATE
from ..structured.path_memory import render as render_content
from ..telemetry import operation
from ..timeutil import to_iso
from ..vocabulary import RESOLUTIONS
from . import engine
from .apply import Applier
from .contradictions import (
    STATUSES,
    UPDATE,
    clean_resolution,
)
from .judge import Judge
from .plan import Action, Plan, Policy, Run
from .promote import Promoter, Promotion, Selection
from .schedule import Schedule

if TYPE_CHECKING:
    from ..structured.memories import TypedMemories
    from .on_write import WriteScan

MAX_LISTED = 10_000


class Consolidation(Part):
    """Keeps a memory consistent and lean: contradictions found as statements
    are written (`scan`) and by runs, their resolution, and the archive."""

    def __init__(self, services: Services, typed: TypedMemories, scan: WriteScan) -> None:
        super().__init__(services)
        self._typed = typed
        self.scan = scan

    @property
    def scan_on_write(self) -> bool:
        """Whether new statements are compared with similar ones as they are written."""
        return self.scan.scan_on_write

    @scan_on_write.setter
    def scan_on_write(self, value: bool) -> None:
        self.scan.scan_on_write = value

    @property
    def judge_on_write(self) -> bool:
        """With an LLM configured, whether its verdict settles what the rules read."""
        return self.scan.judge_on_write

    @judge_on_write.setter
    def judge_on_write(self, value: bool) -> None:
        self.scan.judge_on_write = value

    def contradictions(
        self,
        *,
        status: str | None = "open",
        scopes: Sequence[str] | None = None,
        limit: int = 1000,
    ) -> list[ContradictionRow]:
        """Contradictions, newest first: open ones by default, `status=None` for all."""
        if status is not None and status not in STATUSES:
            raise InvalidInput(f"unknown status {status!r}; choose one of {list(STATUSES)}", status)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LISTED:
            raise InvalidInput(f"limit must be from 1 to {MAX_LISTED}, got {limit!r}", limit)
        chosen = clean_scopes(scopes)
        return self.store.contradictions(status, chosen, limit)

    def updates(
        self, *, scopes: Sequence[str] | None = None, limit: int = 1000
    ) -> list[ContradictionRow]:
        """Automatic updates, newest first: a newer statement that superseded an
        older one as it was written (`revert_update` undoes one)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LISTED:
            raise InvalidInput(f"limit must be from 1 to {MAX_LISTED}, got {limit!r}", limit)
        return self.store.contradictions("resolved", clean_scopes(scopes), limit, UPDATE)

    def revert_update(self, update_id: str) -> ContradictionRow:
        """Undo an automatic update: the older memory is valid again (a path
        entry gets its earlier content back) and the pair is kept as both valid."""
        with self.store.transaction():
            row = self.contradiction(update_id)
            if row.resolution != UPDATE:
                raise InvalidOperation(
                    f"{row.id} is not an automatic update (status {row.status}, resolution "
                    f"{row.resolution}); `mnemotree updates` lists the updates",
                    row.id,
                )
            if row.kind == PATH_UPDATE:
                self._settle_update(row, "a_wins", "")
            else:
                self._unsupersede(row)
            done = row._replace(
                resolution="both_valid", note="update reverted", resolved_at=to_iso(self.clock())
            )
            self.store.set_contradiction(done)
        return done

    def _unsupersede(self, row: ContradictionRow) -> None:
        """The older memory of an update valid again, as it was before."""
        self.store.delete_relation(row.b_id, row.a_id, "supersedes")
        older = self._tree.require(row.a_id)
        before = [v.node for v in self.store.versions(older.id) if v.recorded_at <= row.detected_at]
        ended = before[-1].metadata.get("valid_to") if before else None
        meta = {k: v for k, v in older.metadata.items() if k != "valid_to"}
        if ended is not None:
            meta["valid_to"] = ended
        self._tree.update(older.id, metadata=meta)

    def contradiction(self, contradiction_id: str) -> ContradictionRow:
        """One contradiction by id (NotFound if there is none)."""
        row = self.store.get_contradiction(clean_id(contradiction_id, "contradiction id"))
        if row is None:
            raise NotFound(f"no contradiction {contradiction_id!r}", contradiction_id)
        return row

    def resolve(self, contradiction_id: str, resolution: str, note: str = "") -> ContradictionRow:
        """Settle a contradiction: `a_wins` or `b_wins` ends the loser's validity
        with a supersedes relation; `both_valid` keeps both; `merged` ends both
        and stores `note` as the memory that supersedes them. Nothing is deleted."""
        chosen = clean_resolution(resolution)
        if not isinstance(note, str):
            raise InvalidInput(f"note must be text, got {type(note).__name__}", note)
        if chosen == "merged" and not note.strip():
            raise InvalidInput(
                "a merged resolution needs the merged statement as its note", contradiction_id
            )
        with self.store.transaction():
            row = self.contradiction(contradiction_id)
            if row.status == "resolved":
                raise InvalidOperation(
                    f"contradiction {row.id} was already resolved ({row.resolution}) "
                    f"at {row.resolved_at}",
                    row.id,
                )
            if row.kind == PATH_UPDATE:
                self._settle_update(row, chosen, note.strip())
            elif chosen == "a_wins":
                self._typed.relate(row.a_id, row.b_id, "supersedes")
            elif chosen == "b_wins":
                self._typed.relate(row.b_id, row.a_id, "supersedes")
            elif chosen == "merged":
                merged = self._merged(row, note.strip())
                for loser in (row.a_id, row.b_id):
                    self._typed.relate(merged.id, loser, "supersedes")
            done = row._replace(
                status="resolved", resolution=chosen, note=note, resolved_at=to_iso(self.clock())
            )
            self.store.set_contradiction(done)
        return done

    def _settle_update(self, row: ContradictionRow, chosen: str, note: str) -> None:
        """A path update: `a_wins` restores the earlier version's content (as a
        new version), `merged` saves the note (JSON or text) as the content;
        `b_wins` and `both_valid` keep the entry as it is."""
        if chosen not in ("a_wins", "merged"):
            return
        if chosen == "a_wins":
            earlier = next(
                (v.node for v in self.store.versions(row.a_id) if v.version == row.a_version), None
            )
            if earlier is None:
                raise InvalidOperation(
                    f"version {row.a_version} of {row.a_id} is no longer in its history; "
                    f"resolve {row.id} with b_wins or merged",
                    row.id,
                )
            content = earlier.metadata.get("content")
        else:
            try:  # a note in JSON is the entry's content; any other is text
                content = parse_json(note, "note", max_depth=MAX_DEPTH - 1)
            except InvalidInput:
                content = note
        entry = self._tree.require(row.a_id)
        text = render_content(content).strip() or entry.text
        self._tree.update(entry.id, text, metadata={**entry.metadata, "content": content})

    def _merged(self, row: ContradictionRow, statement: str) -> Node:
        """The memory a merge leaves: a fact of the same key when A was one."""
        a = self._tree.require(row.a_id)
        key = a.metadata.get("key")
        if a.context_type == "fact" and isinstance(key, str):
            # Not `fact`: the merged value must not contradict what it replaces.
            return self._typed._fact(key, statement, scope=a.scope)
        raise InvalidOperation(
            f"only contradictions between facts can be merged for now; resolve {row.id} "
            f"with one of {[r for r in RESOLUTIONS if r != 'merged']}",
            row.id,
        )

    # -- consolidation runs --

    def promote(
        self,
        into: str,
        *,
        ids: Sequence[str] = (),
        sources: Sequence[str] = (),
        types: Sequence[str] = (),
        tags: Sequence[str] = (),
        dry_run: bool = True,
    ) -> Promotion:
        """Promote chosen memories (by `ids`, or those of the `sources` scopes,
        optionally of some `types` or `tags`) into the shared scope `into`:
        duplicates merge (authors kept), updates apply by time, and two
        people who disagree get an open contradiction naming both. One
        reversible run (`undo(run_id)`); `dry_run` (the default) reports
        without changing anything."""
        with operation("promote", {"mnemotree.dry_run": dry_run}):
            chosen = Selection(ids, sources, types, tags)
            return Promoter(self.services, self.scan).promote(into, chosen, dry_run)

    def run(
        self,
        *,
        dry_run: bool = True,
        policy: Policy | dict[str, Any] | None = None,
        steps: Sequence[str] | None = None,
        progress: Callable[[str], None] | None = None,
        judge: bool = False,
    ) -> Plan | Run:
        """Plan a consolidation (the default, `dry_run`): each action with its
        step and reason, nothing changed. `dry_run=False` applies the plan
        at once and returns the run (its `id` is what `undo` takes).
        `judge` asks the configured LLM about similar pairs of statements
        (verdicts are cached in the store, even by a dry run)."""
        with operation("consolidate", {"mnemotree.dry_run": dry_run}):
            return self._run(dry_run, policy, steps, progress, judge)

    def _run(
        self,
        dry_run: bool,
        policy: Policy | dict[str, Any] | None,
        steps: Sequence[str] | None,
        progress: Callable[[str], None] | None,
        judge: bool,
    ) -> Plan | Run:
        rules = policy if isinstance(policy, Policy) else Policy.from_dict(policy or {})
        chosen = engine.clean_steps(steps)
        snap = engine.gather(self.store, self.retriever, self.clock(), rules)
        arbiter = None
        if judge:
            llm = self.llm
            if llm is None:
                raise InvalidInput(
                    "judge=True needs an LLM: set MNEMOTREE_LLM_MODEL and MNEMOTREE_LLM_BASE_URL "
                    "(an OpenAI-compatible endpoint), or leave the judge off",
                    judge,
                )
            arbiter = Judge(llm, self.store)
        llm = self.llm
        summarise = engine.summariser(None if llm is None else LLMSummarizer(llm))
        plan = engine.build_plan(snap, rules, summarise, chosen, progress, arbiter)
        if "patterns" in chosen:  # the code's patterns, mined again
            from ..ingest.pattern_memory import CodePatterns

            mined = CodePatterns(self.services, self.apply).plan()
            plan = dataclasses.replace(plan, actions=(*plan.actions, *mined))
        return plan if dry_run else self.apply(plan)

    def apply(self, plan: Plan) -> Run:
        """Apply a plan in one transaction and record it; actions whose
        memories changed since the plan are skipped. An empty plan is a no-op
        (no run is recorded; the run's id is empty)."""
        if not isinstance(plan, Plan):
            raise InvalidInput(f"apply takes a Plan from run(), got {plan!r}", plan)
        now = to_iso(self.clock())
        if not plan.actions:
            return Run("", now, {}, ())
        applier = Applier(self.store, self._tree, self.services.space)
        undo: list[dict[str, Any]] = []
        done: list[Action] = []
        with self.store.transaction():
            for action in plan.actions:
                if applier.apply(action, now, undo):
                    done.append(action)
            run = Run(
                new_id(),
                now,
                Plan(now, tuple(done), 0).summary,
                tuple(done),
                len(plan.actions) - len(done),
            )
            if done:
                self.store.put_run(
                    RunRow(
                        run.id,
                        plan.created_at,
                        now,
                        run.summary,
                        tuple(a.to_dict() for a in done),
                        tuple(undo),
                        None,
                    )
                )
        return run if done else Run("", now, {}, (), run.skipped)

    def undo(self, run_id: str) -> Run:
        """Reverse an applied run: archived memories come back, levels, links
        and contradictions it added go, and values it changed are restored."""
        with self.store.transaction():
            row = self.store.get_run(clean_id(run_id, "run id"))
            if row is None:
                raise NotFound(
                    f"no consolidation run {run_id!r}; `mnemotree runs` lists them", run_id
                )
            if row.undone_at is not None:
                raise InvalidOperation(
                    f"run {row.id} was already undone at {row.undone_at}", row.id
                )
            now = to_iso(self.clock())
            Applier(self.store, self._tree, self.services.space).undo(list(row.undo), now)
            self.store.set_run_undone(row.id, now)
        return _run(row._replace(undone_at=now))

    def runs(self, limit: int = 20) -> list[Run]:
        """Applied consolidation runs, newest first."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LISTED:
            raise InvalidInput(f"limit must be from 1 to {MAX_LISTED}, got {limit!r}", limit)
        return [_run(r) for r in self.store.runs(limit)]

    def schedule(
        self,
        every: float,
        *,
        policy: Policy | dict[str, Any] | None = None,
        run_in: Callable[[Callable[[], Run | None]], Run | None] | None = None,
    ) -> Schedule:
        """Start applying a consolidation every `every` seconds in a daemon
        thread; `stop()` the returned schedule to end it. `run_in` runs each
        one elsewhere (the server passes its database thread). Processes
        sharing the database take turns: a period in which another one is
        consolidating is skipped."""
        rules = policy if isinstance(policy, Policy) else Policy.from_dict(policy or {})

        def once() -> Run | None:
            with self.store.alone("consolidation") as mine:
                if not mine:
                    return None
                result = self.run(dry_run=False, policy=rules)
                assert isinstance(result, Run)  # dry_run=False always applies
                return result

        schedule = Schedule(once if run_in is None else lambda: run_in(once), every)
        schedule.start()
        return schedule

    # -- the archive --

    def archive(self, node_id: str) -> int:
        """Archive a node and its subtree by hand (restorable); returns how many."""
        node = self._tree.require(clean_id(node_id))
        with self.store.transaction():
            ids = [n.id for n in self.store.subtree(node.id)]
            return len(self.store.archive(ids, to_iso(self.clock())))

    def unarchive(self, node_id: str) -> int:
        """Bring an archived node and its subtree back; returns how many."""
        node = self._tree.require(clean_id(node_id))
        with self.store.transaction():
            ids = [n.id for n in self.store.subtree(node.id)]
            count = len(self.store.unarchive(ids))
        if not count:
            raise InvalidOperation(f"{node.id} is not archived", node.id)
        return count

    def archived(
        self, *, scopes: Sequence[str] | None = None, limit: int = 1000
    ) -> list[tuple[Node, str]]:
        """Archived nodes with when they were archived, most recent first."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LISTED:
            raise InvalidInput(f"limit must be from 1 to {MAX_LISTED}, got {limit!r}", limit)
        chosen = clean_scopes(scopes)
        return self.store.archived_nodes(chosen, limit)


def _run(row: RunRow) -> Run:
    actions = tuple(Action.from_dict(a) for a in row.actions)
    return Run(row.id, row.applied_at, dict(row.summary), actions, 0, row.undone_at)
