"""A simulated development workflow, replayed to measure prediction (the living-memory design).

How the log is made (seeded, so every run is the same):
- A project of 10 modules, each with 5 files (`src/<module>/<file>.ts`), 6
  collaborators and 48 working days from 2026-03-02, 9h to 18h.
- At the start: per module 4 decisions (half of them name one or two of the
  module's files as artifacts, the rest only mention the module in their
  text), 2 conventions, one pattern; 4 workflows with triggers (deploying,
  reviewing, planning, debugging); 2 preferences per collaborator.
- Each file has a hidden need: 1-3 of its module's decisions (artifact-linked
  or not), fixed at the start; the predictor never sees it.
- Each module has 3 error kinds, each with 3 wordings of its message. The
  first time a kind occurs there is nothing to cite; the fix is stored as a
  problem_solved episode naming the file, branch and commit. Later
  occurrences, in any wording, cite that fix.
- A day: at 9h the standup (activity planning, on the day's branch) cites
  the planning workflow and the goal of the branch's module. Then 3-6 file
  events on the branch (a branch lasts 2-5 days and covers one module; 20%
  of events open a file of another module). A file event cites a random
  non-empty part of that file's need, 15% of the time another decision of
  that module (outside the need), and 30% of the time a convention. With
  probability 0.25 an error event follows (a random kind of that module, a
  random wording). Pairing (30% of days) adds a collaborator: their
  preferences are cited once that day. Every Friday at 16h the deploy
  (activity deploying) cites the deploy workflow and the release rules.
- New decisions appear: on 20% of days, one new decision for the branch's
  module, naming a file; it joins that file's need.

Replay: at every event, `predict(signals)` is called first (its top `k`
are the prefetched memories). Then the developer looks up what they would
type (the file's and branch's words, the activity, the error) with a plain
search, top 10: that is also the baseline. Only memories that surfaced in
either can be cited, so `record_usage(shown, cited=truth ∩ shown)` never
teaches the log a memory nobody saw. Accuracy is the share of cited
memories that were prefetched, overall, for the first citation of each
memory (cold) and for later ones (warm); recall at 5/10/20, precision and
the baseline's recall are reported too.

Caveat: half of the decisions name exactly the files whose need they are in,
so artifact links are strong evidence by construction, as they are in a
project that records them; the other half are reachable only through words,
usage history and co-access.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ..context.signals import topic_words
from ..memory import Memory
from .stats import percentiles
from .workflow_code import write_project

RECALL_AT = (5, 10, 20)
LOOKUP = 10  # the developer's own search: its top 10

MODULES = (
    "auth",
    "payments",
    "search",
    "billing",
    "notifications",
    "profile",
    "uploads",
    "reports",
    "admin",
    "chat",
)
FILES = ("service", "routes", "model", "client", "utils")
PEOPLE = ("tim", "ana", "ravi", "chen", "lena", "omar")
TOPICS = {
    "auth": ("sessions", "tokens", "login", "passwords"),
    "payments": ("stripe", "refunds", "webhooks", "idempotency"),
    "search": ("indexing", "ranking", "queries", "synonyms"),
    "billing": ("invoices", "plans", "proration", "taxes"),
    "notifications": ("email", "push", "templates", "digests"),
    "profile": ("avatars", "settings", "privacy", "usernames"),
    "uploads": ("storage", "thumbnails", "virus scanning", "quotas"),
    "reports": ("exports", "charts", "schedules", "csv"),
    "admin": ("roles", "audit log", "impersonation", "feature flags"),
    "chat": ("presence", "typing indicators", "threads", "moderation"),
}
ERRORS = (
    (
        "TypeError: Cannot read properties of undefined (reading '{thing}') in {file}",
        "TypeError: undefined has no property '{thing}' at {file}",
        "{file} crashed: cannot read '{thing}' of undefined",
    ),
    (
        "Timeout: {module} request exceeded 30000 ms while calling {thing}",
        "{module} call to {thing} timed out after 30 s",
        "Request to {thing} hung and was aborted (30000 ms) in {module}",
    ),
    (
        'IntegrityError: duplicate key value violates unique constraint "{thing}_pkey"',
        "duplicate key on {thing}_pkey: insert failed in {file}",
        "unique constraint {thing}_pkey violated while saving",
    ),
)


@dataclass
class _World:
    rng: random.Random
    memory: Memory
    clock: list[datetime]
    need: dict[str, list[str]] = field(default_factory=dict)  # file -> decision ids
    conventions: list[str] = field(default_factory=list)
    release: list[str] = field(default_factory=list)
    workflows: dict[str, str] = field(default_factory=dict)
    preferences: dict[str, list[str]] = field(default_factory=dict)
    fixes: dict[tuple[str, int], str] = field(default_factory=dict)
    goals: dict[str, str] = field(default_factory=dict)
    k: int = 20  # predictions fetched per event
    decisions: dict[str, list[str]] = field(default_factory=dict)  # module -> ids


def _files(module: str) -> list[str]:
    return [f"src/{module}/{name}.ts" for name in FILES]


def _seed(world: _World) -> None:
    m, rng = world.memory, world.rng
    made: dict[str, list[str]] = {}  # file -> its module's decisions
    for module in MODULES:
        files = _files(module)
        for i in range(4):
            topic = TOPICS[module][i]
            text = f"{module.capitalize()}: handle {topic} in the {module} module with {_how(rng)}"
            named = rng.sample(files, rng.randint(1, 2)) if i % 2 == 0 else []
            node = m.remember(
                text,
                type="decision",
                tags=[module],
                artifacts=[{"type": "file", "ref": f} for f in named],
            )
            for f in named or rng.sample(files, 2):
                world.need.setdefault(f, []).append(node.id)
            for f in files:
                made.setdefault(f, []).append(node.id)
            world.decisions.setdefault(module, []).append(node.id)
        for i in range(2):
            world.conventions.append(
                m.remember(
                    f"Convention for {module}: {_how(rng)} in every {TOPICS[module][i]} change",
                    type="constraint",
                    tags=[module, "conventions"],
                ).id
            )
        m.typed.pattern(
            f"{module} endpoint",
            {"route": f"/api/{module}", "validation": "zod"},
            hint=f"{module}: route→zod→result→json",
        )
        world.goals[module] = m.remember(
            f"Goal: ship the {module} rework this quarter", type="goal", tags=[module]
        ).id
    for f in [f for module in MODULES for f in _files(module)]:
        # Every file needs one to three decisions.
        world.need[f] = world.need.get(f, [])[: rng.randint(1, 3)] or [rng.choice(made[f])]
    for trigger, steps in _WORKFLOWS:
        world.workflows[trigger] = m.typed.workflow(trigger, steps, trigger=trigger).id
    world.release = [
        m.remember(
            f"Release rule {i}: {_how(rng)} before every production deploy",
            type="constraint",
            tags=["release"],
        ).id
        for i in range(2)
    ]
    for person in PEOPLE:
        world.preferences[person] = [
            m.remember(
                f"{person.capitalize()} prefers {_how(rng)} in code reviews",
                type="preference",
                tags=[person],
            ).id
            for _ in range(2)
        ]


_WORKFLOWS = (
    ("deploying", ["test", "build", "stage", "verify", "prod"]),
    ("reviewing", ["read diff", "run tests", "check conventions"]),
    ("planning", ["standup", "pick tickets", "update board"]),
    ("debugging", ["reproduce", "bisect", "fix", "regression test"]),
)
_HOW = (
    "explicit Result types",
    "small pure functions",
    "structured logging",
    "feature flags",
    "optimistic locking",
    "retries with backoff",
    "typed DTOs",
    "idempotent handlers",
    "property tests",
    "short transactions",
)


def _how(rng: random.Random) -> str:
    return rng.choice(_HOW)


@dataclass
class _Score:
    cited: int = 0
    hit: int = 0
    shown: int = 0  # predictions made
    cold: int = 0
    cold_hit: int = 0
    baseline: int = 0  # cited memories a plain search of the signals found
    logged_cited: int = 0
    at_k: dict[int, int] = field(default_factory=dict)
    by_kind: dict[str, list[int]] = field(default_factory=dict)
    latency: list[float] = field(default_factory=list)


def run(
    days: int = 48,
    k: int = 20,
    seed: int = 5,
    embedder: str = "minilm",
    progress: Callable[[str], None] = lambda _: None,
    code: bool = False,
) -> dict[str, Any]:
    """`code`: the project's source is ingested too, so predictions can read
    which files each file imports and is imported by."""
    rng = random.Random(seed)
    clock = [datetime(2026, 3, 2, 8, 0, tzinfo=timezone.utc)]
    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory(Path(tmp) / "workflow.db", embedder=embedder, clock=lambda: clock[0])
        with memory:
            world = _World(rng, memory, clock, k=k)
            _seed(world)
            if code:
                project = write_project(Path(tmp), MODULES, TOPICS, seed + 1)
                memory.ingest(project / "src", scope="default")
            memory.flush()
            score = _Score()
            seen: set[str] = set()
            day = clock[0].replace(hour=0)
            branch, module, branch_days = "", MODULES[0], 0
            for n in range(days):
                day += timedelta(days=3 if day.weekday() == 4 else 1) if n else timedelta()
                if branch_days <= 0:
                    module = rng.choice(MODULES)
                    branch = f"feature/{module}-{rng.choice(TOPICS[module]).replace(' ', '-')}-{n}"
                    branch_days = rng.randint(2, 5)
                branch_days -= 1
                _day(world, score, seen, day, module, branch)
                if n % 10 == 9:
                    progress(
                        f"day {n + 1}/{days}: accuracy so far {score.hit / max(1, score.cited):.3f}"
                    )
            warm = score.cited - score.cold
            return {
                "days": days,
                "k": k,
                "seed": seed,
                "embedder": embedder,
                "code": code,
                "memories": memory.stats().nodes,
                "cited": score.cited,
                "accuracy": _share(score.hit, score.cited),
                "cold_accuracy": _share(score.cold_hit, score.cold),
                "warm_accuracy": _share(score.hit - score.cold_hit, warm),
                "cold_citations": score.cold,
                "recall_at": {str(n): _share(score.at_k.get(n, 0), score.cited) for n in RECALL_AT},
                "precision": _share(score.hit, score.shown),
                "baseline_search_recall_at_10": _share(score.baseline, score.cited),
                "citations_logged": _share(score.logged_cited, score.cited),
                "by_event": {
                    kind: {"cited": c, "accuracy": _share(h, c)}
                    for kind, (c, h) in sorted(score.by_kind.items())
                },
                "predict_ms": percentiles(score.latency),
            }


def _share(part: int, whole: int) -> float:
    return round(part / max(1, whole), 4)


def _event(
    world: _World,
    score: _Score,
    seen: set[str],
    kind: str,
    at: datetime,
    signals: dict[str, str],
    truth: list[str],
) -> None:
    world.clock[0] = at
    started = time.perf_counter()
    predicted = [p.node.id for p in world.memory.predict(signals, limit=max(world.k, *RECALL_AT))]
    score.latency.append((time.perf_counter() - started) * 1000)
    # The baseline, and the developer's own lookup: a search for what they
    # would type (the file's and branch's words, the activity, the error).
    words = [*topic_words(signals.get("file", "")), *topic_words(signals.get("branch", ""))]
    typed = " ".join([*words, signals.get("activity", ""), signals.get("error", "")]).strip()
    hits = world.memory.search(typed, limit=LOOKUP, record=False) if typed else []
    lookup = [h.node.id for h in hits]
    truth = list(dict.fromkeys(truth))
    got = set(predicted[: world.k])
    counts = score.by_kind.setdefault(kind, [0, 0])
    score.shown += len(got)
    for node_id in truth:
        score.cited += 1
        counts[0] += 1
        score.hit += node_id in got
        counts[1] += node_id in got
        for k in RECALL_AT:
            score.at_k[k] = score.at_k.get(k, 0) + (node_id in predicted[:k])
        score.baseline += node_id in lookup
        if node_id not in seen:
            score.cold += 1
            score.cold_hit += node_id in got
            seen.add(node_id)
    # Only what the developer saw (predicted or looked up) can be cited: the
    # log never learns of a memory that neither surfaced.
    shown = list(dict.fromkeys([*predicted[: world.k], *lookup]))
    cited = [i for i in truth if i in shown]
    score.logged_cited += len(cited)
    world.memory.record_usage(shown, cited=cited, signals=signals)


def _day(
    world: _World, score: _Score, seen: set[str], day: datetime, module: str, branch: str
) -> None:
    rng, m = world.rng, world.memory
    at = day.replace(hour=9, minute=rng.randint(0, 20))
    standup = {"activity": "planning", "time": at.isoformat(), "branch": branch}
    _event(
        world,
        score,
        seen,
        "standup",
        at,
        standup,
        [world.workflows["planning"], world.goals[module]],
    )
    partner = rng.choice(PEOPLE) if rng.random() < 0.3 else ""
    if rng.random() < 0.2:  # a new decision for this module, naming a file
        target = rng.choice(_files(module))
        new = m.remember(
            f"{module.capitalize()}: from now on use {_how(rng)} for {rng.choice(TOPICS[module])}",
            type="decision",
            tags=[module],
            artifacts=[{"type": "file", "ref": target}],
        )
        world.need[target].append(new.id)
        world.decisions[module].append(new.id)
    minute = 10 * 60
    for _ in range(rng.randint(3, 6)):
        minute += rng.randint(20, 70)
        at = day + timedelta(minutes=minute)
        where = module if rng.random() < 0.8 else rng.choice(MODULES)
        file = rng.choice(_files(where))
        need = world.need[file]
        truth = rng.sample(need, rng.randint(1, len(need)))
        if rng.random() < 0.15:  # a decision outside the file's usual need
            truth.append(rng.choice(world.decisions[where]))
        if rng.random() < 0.3:
            truth.append(rng.choice([c for c in world.conventions if module in m.get(c).text]))
        signals = {"file": file, "branch": branch, "time": at.isoformat()}
        if partner:
            signals["collaborator"] = partner
            truth += world.preferences[partner]
            partner = ""  # once a day
        _event(world, score, seen, "file", at, signals, truth)
        if rng.random() < 0.25:
            _error(world, score, seen, at + timedelta(minutes=5), where, file, branch)
    if day.weekday() == 4:
        at = day.replace(hour=16)
        _event(
            world,
            score,
            seen,
            "deploy",
            at,
            {"activity": "deploying", "time": at.isoformat(), "branch": branch},
            [world.workflows["deploying"], *world.release],
        )
    world.memory.flush()


def _error(
    world: _World,
    score: _Score,
    seen: set[str],
    at: datetime,
    module: str,
    file: str,
    branch: str,
) -> None:
    rng, m = world.rng, world.memory
    kind = rng.randrange(len(ERRORS))
    thing = TOPICS[module][kind].split()[0]
    text = rng.choice(ERRORS[kind]).format(thing=thing, file=file, module=module)
    signals = {
        "file": file,
        "branch": branch,
        "error": text,
        "activity": "debugging",
        "time": at.isoformat(),
    }
    fix = world.fixes.get((module, kind))
    _event(world, score, seen, "error", at, signals, [fix] if fix else [])
    if fix is None:  # fixed now, and remembered
        commit = f"{rng.getrandbits(28):07x}"
        world.fixes[(module, kind)] = m.typed.episode(
            f"Fixed {ERRORS[kind][0].split(':')[0]} in {module}",
            narrative=f"{text}. Root cause in {file}: {thing} was not loaded before use. "
            f"Fixed with {_how(rng)} and a regression test.",
            summary=f"{text.split(':')[0]} in {module} ({thing}) fixed in {file}",
            compressed=f"{module}_{thing}_fix",
            index=f"{module}_{thing}_fix",
            episode_type="problem_solved",
            artifacts=[
                {"type": "file", "ref": file},
                {"type": "branch", "ref": branch},
                {"type": "commit", "ref": commit},
            ],
        ).id
