"""Finding workflows in a log of events: repeated ordered step sequences.

An event is a step (its kind and the words that lead its detail: `command:
git commit`, `test: pytest`), a time, the situation it happened in and,
if known, whether it went well. The log is cut into sessions where the
user paused (`SESSION_GAP`) and repeated steps in a row count once (a
retried command is one step).

A sequence grows one step at a time. Each occurrence of a prefix may be
continued by a step within the next `GAP + 1` events; the extension is kept
only if it happens far more often than chance: under a log whose steps come
in random order, a step `b` with share `p_b` of all events turns up in that
window with probability `1 - (1 - p_b) ** (GAP + 1)`, and the binomial tail
of the observed continuations must fall below `ALPHA` (asked for each window
from the next event to `GAP + 1`, and the other way round as well: how many
of `b`'s own occurrences fall in the prefix's windows; corrected for the
number of questions). A frequent command (`git status` between everything)
is therefore no workflow step unless it follows its prefix reliably, and a
rare one needs fewer repeats.

Of the significant sequences, longest first, one that is mostly seen
inside the occurrences of a kept one holding all its steps but at most one
is that one's part, not a workflow of its own; the step it adds (taken
only some of the times) becomes an optional step of the kept one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

SESSION_GAP = timedelta(minutes=30)
GAP = 3  # other events allowed between two steps of a workflow
ALPHA = 1e-4  # chance level a continuation must beat
MIN_SUPPORT = 3  # occurrences, in at least this many sessions
MIN_STEPS = 3
MAX_STEPS = 10
MIN_SHARE = 0.25  # of a prefix's occurrences a step must continue
PATHS = 3  # ways one occurrence may go on, when a step repeats nearby
COVERED = 0.8  # share of a sequence's occurrences inside a longer one that makes it a part

_HEAD = re.compile(r"[A-Za-z][A-Za-z0-9_:+-]*")
_SCRIPT = re.compile(r"(?:.*/)?([\w.-]+\.(?:py|js|mjs|ts|sh|rb|pl|sql|r|R))")
HEAD_WORDS = 3


def step_of(kind: str, detail: str) -> str:
    """What an event does, without its arguments: the kind and the detail's
    leading words up to the first flag, path, number or quote, or a script's
    file name (it names what runs)
    ("command", "git commit -m 'x'") -> "command: git commit";
    ("command", "python scripts/load.py data") -> "command: python load.py";
    ("command", "./deploy.sh prod") -> "command: deploy.sh"."""
    words: list[str] = []
    for token in detail.split():
        script = _SCRIPT.fullmatch(token)
        if script:  # `python scripts/load.py`, `./deploy.sh`: the script is what runs
            words.append(script.group(1))
            break
        # A word with digits is an argument (a pod, a version), short ones
        # aside (s3, ec2, k8s).
        digits = any(c.isdigit() for c in token) and len(token) > 3
        if len(words) == HEAD_WORDS or digits or not _HEAD.fullmatch(token):
            break
        words.append(token.lower())
    head = " ".join(words)
    kind = kind.strip().lower()
    return f"{kind}: {head}" if head else kind


@dataclass(frozen=True)
class Event:
    """One recorded event, as mining sees it."""

    id: str
    at: datetime
    step: str
    outcome: str = ""  # "ok", "fail" or unknown
    activity: str = ""
    branch: str = ""
    file: str = ""
    session: str = ""  # a chat session the event was said in, if any


@dataclass
class Found:
    """A workflow found in the log."""

    steps: list[str]
    occurrences: list[list[Event]]  # the events of each occurrence
    optional: list[str] = field(default_factory=list)
    sessions: int = 0

    @property
    def support(self) -> int:
        return len(self.occurrences)

    @property
    def success(self) -> float | None:
        """Share of occurrences whose last known outcome was ok (None: none known)."""
        ends = [_ending(events) for events in self.occurrences]
        known = [e for e in ends if e]
        return round(known.count("ok") / len(known), 3) if known else None

    def trigger(self) -> dict[str, str]:
        """Where the workflow starts, where most occurrences agree: the
        activity, the branch pattern (`release/*`) and the file area."""
        firsts = [events[0] for events in self.occurrences]
        found: dict[str, str] = {}
        for name, values in (
            ("activity", [e.activity for e in firsts]),
            ("branch", [_branch_pattern(e.branch) for e in firsts]),
            ("area", [_area(e.file) for e in firsts]),
        ):
            value, times = Counter(values).most_common(1)[0]
            if value and times * 2 > len(values):
                found[name] = value
        return found


def _ending(events: list[Event]) -> str:
    return next((e.outcome for e in reversed(events) if e.outcome), "")


def _branch_pattern(branch: str) -> str:
    """`release/2.3` -> `release/*`; a branch without a folder is itself."""
    head, sep, _ = branch.partition("/")
    return f"{head}/*" if sep else branch


def _area(path: str) -> str:
    """The folder a file is in, up to two levels (`src/payments/`)."""
    parts = [p for p in path.replace("\\", "/").split("/") if p][:-1][:2]
    return "/".join(parts) + "/" if parts else ""


def sessions(events: Sequence[Event], gap: timedelta = SESSION_GAP) -> list[list[Event]]:
    """The events in time order, cut where the user paused longer than `gap`
    (and between chat sessions: what was said in one chat is kept apart from
    what was done elsewhere), with a step repeated in a row kept once (its
    last outcome)."""
    out: list[list[Event]] = []
    last: Event | None = None
    for event in sorted(events, key=lambda e: (e.session, e.at, e.id)):
        if last is None or event.session != last.session or event.at - last.at > gap:
            out.append([])
        last = event
        current = out[-1]
        if current and current[-1].step == event.step:
            current[-1] = event
        else:
            current.append(event)
    return out


def _settled(events: Sequence[Event], min_support: int) -> list[Event]:
    """Each step cut after its last word that recurs: a word seen fewer than
    `min_support` times after the same words is an argument (`rg retry`
    recurs, `kubectl logs api-7f3c` does not)."""
    counts = Counter(prefix for e in events for prefix in _prefixes(e.step))
    out = []
    for event in events:
        kept = next(
            (p for p in reversed(_prefixes(event.step)) if counts[p] >= min_support),
            event.step.split(": ", 1)[0],
        )
        out.append(replace(event, step=kept) if kept != event.step else event)
    return out


def _prefixes(step: str) -> list[str]:
    kind, sep, head = step.partition(": ")
    words = head.split() if sep else []
    return [kind, *(f"{kind}: {' '.join(words[:k])}" for k in range(1, len(words) + 1))]


# An occurrence: (session, positions of its steps in that session).
_Occurrence = tuple[int, tuple[int, ...]]


def mine(
    events: Sequence[Event],
    *,
    min_support: int = MIN_SUPPORT,
    min_steps: int = MIN_STEPS,
    gap: int = GAP,
    alpha: float = ALPHA,
    session_gap: timedelta = SESSION_GAP,
) -> list[Found]:
    """Workflows in `events`, most often seen first."""
    log = sessions(_settled(events, min_support), session_gap)
    steps = [[e.step for e in s] for s in log]
    total = sum(len(s) for s in steps)
    if not total:
        return []
    counts = Counter(x for s in steps for x in s)
    found: dict[tuple[str, ...], list[_Occurrence]] = {}
    starts: dict[str, list[_Occurrence]] = {}
    for n, session in enumerate(steps):
        for i, step in enumerate(session):
            starts.setdefault(step, []).append((n, (i,)))
    frontier: list[tuple[tuple[str, ...], list[_Occurrence]]] = [
        ((step,), occ) for step, occ in starts.items() if len(occ) >= min_support
    ]
    while frontier:
        prefix, occurrences = frontier.pop()
        tried = _starts(occurrences)
        for step, longer in _continuations(steps, occurrences, gap).items():
            went_on = _starts(longer)
            if step in prefix or went_on < min_support:
                continue
            if len({n for n, _ in longer}) < min_support:
                continue
            # A first step may be an everyday command; later ones must follow reliably.
            if len(prefix) > 1 and went_on < MIN_SHARE * tried:
                continue
            if _surprise(longer, tried, counts[step], total, gap) >= alpha:
                continue
            sequence = (*prefix, step)
            found[sequence] = longer
            if len(sequence) < MAX_STEPS:
                frontier.append((sequence, longer))
    kept = _unexplained({s: o for s, o in found.items() if len(s) >= min_steps})
    return _found(_same_routine(kept), log)


def _continuations(
    steps: list[list[str]], occurrences: list[_Occurrence], gap: int
) -> dict[str, list[_Occurrence]]:
    """For each step, the occurrences it continues within `gap + 1` events.
    A step may come twice in the window (a test run, a fix, the run again):
    each way on is kept (up to `PATHS` per start), but one start counts once."""
    out: dict[str, dict[tuple[int, int], list[_Occurrence]]] = {}
    for n, positions in occurrences:
        session, end = steps[n], positions[-1]
        for j in range(end + 1, min(len(session), end + gap + 2)):
            ways = out.setdefault(session[j], {}).setdefault((n, positions[0]), [])
            if len(ways) < PATHS:
                ways.append((n, (*positions, j)))
    return {step: [o for ways in starts.values() for o in ways] for step, starts in out.items()}


def _starts(occurrences: list[_Occurrence]) -> int:
    return len({(n, p[0]) for n, p in occurrences})


def _surprise(longer: list[_Occurrence], tried: int, seen: int, total: int, gap: int) -> float:
    """How likely `longer` (the continuations of `tried` prefix occurrences
    by a step seen `seen` times in `total` events) would be if the log's
    order were random. For each window of 1 to `gap + 1` events after the
    prefix, asked both ways: forward, each prefix occurrence finds the step
    in the window with the chance the step's share gives; backward, each of
    the step's occurrences falls in one of the prefix's windows by chance (a
    rare step that always follows the prefix is as telling as a prefix
    always followed by the step). The smallest answer, times the number of
    questions asked."""
    best = 1.0
    for window in range(1, gap + 2):
        near = [(n, p) for n, p in longer if p[-1] - p[-2] <= window]
        went_on = len({(n, p[0]) for n, p in near})
        landed = len({(n, p[-1]) for n, p in near})
        forward = _tail(went_on, tried, 1 - (1 - seen / total) ** window)
        backward = _tail(landed, seen, min(1.0, tried * window / total))
        best = min(best, forward, backward)
    return min(1.0, 2 * (gap + 1) * best)


def _tail(successes: int, trials: int, p: float) -> float:
    """P(X >= successes) for X ~ Binomial(trials, p), in log space."""
    if successes <= 0:
        return 1.0
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    terms = [
        math.lgamma(trials + 1)
        - math.lgamma(k + 1)
        - math.lgamma(trials - k + 1)
        + k * log_p
        + (trials - k) * log_q
        for k in range(successes, trials + 1)
    ]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def _unexplained(
    found: dict[tuple[str, ...], list[_Occurrence]],
) -> dict[tuple[str, ...], tuple[list[_Occurrence], list[str]]]:
    """Longest first: a sequence mostly seen inside occurrences of a kept
    one that has all its steps but one is that one's part, and dropped; the
    step it adds, if any, is an optional step of the kept one."""
    kept: dict[tuple[str, ...], tuple[list[_Occurrence], list[str]]] = {}
    for sequence in sorted(found, key=lambda s: (-len(s), -_starts(found[s]), s)):
        occurrences = found[sequence]
        for other, (occ, optional) in kept.items():
            extra = [step for step in sequence if step not in other]
            if len(extra) > 1 or (not extra and not _inside(sequence, other)):
                continue
            spans = {(n, p[0], p[-1]) for n, p in occ}
            inside = {
                (n, p[0])
                for n, p in occurrences
                if any(m == n and a <= p[0] and p[-1] <= b for m, a, b in spans)
            }
            if len(inside) >= COVERED * _starts(occurrences):
                if extra and extra[0] not in optional:
                    optional.append(extra[0])
                break
        else:
            kept[sequence] = (occurrences, [])
            _absorb_variants(kept, sequence)
    return kept


def _absorb_variants(
    kept: dict[tuple[str, ...], tuple[list[_Occurrence], list[str]]], sequence: tuple[str, ...]
) -> None:
    """Kept sequences one step longer that hold all of `sequence` are its
    variants: their occurrences become its own, their step optional."""
    occurrences, optional = kept[sequence]
    for longer in [s for s in kept if len(s) == len(sequence) + 1 and _inside(sequence, s)]:
        more, also = kept.pop(longer)
        extra = next(step for step in longer if step not in sequence)
        known = set(occurrences)
        occurrences.extend(o for o in more if o not in known)
        for step in (extra, *also):
            if step not in optional and step not in sequence:
                optional.append(step)


def _inside(short: Sequence[str], long: Sequence[str]) -> bool:
    """Whether `short` is `long` with some steps left out."""
    rest = iter(long)
    return len(short) < len(long) and all(step in rest for step in short)


def _same_routine(
    kept: dict[tuple[str, ...], tuple[list[_Occurrence], list[str]]],
) -> dict[tuple[str, ...], tuple[list[_Occurrence], list[str]]]:
    """Sequences whose steps differ only by a recurring argument (`poetry
    update pydantic` where the other has `poetry update`) are one routine,
    kept under the general steps."""
    out: dict[tuple[str, ...], tuple[list[_Occurrence], list[str]]] = {}
    for sequence in sorted(kept, key=lambda s: sum(len(step) for step in s)):
        occurrences, optional = kept[sequence]
        general = next((s for s in out if _generalises(s, sequence)), None)
        if general is None:
            out[sequence] = (list(occurrences), list(optional))
            continue
        mine, also = out[general]
        known = {(n, p[0]) for n, p in mine}
        mine.extend(o for o in occurrences if (o[0], o[1][0]) not in known)
        also.extend(step for step in optional if step not in also)
    return out


def _generalises(general: Sequence[str], specific: Sequence[str]) -> bool:
    return len(general) == len(specific) and all(
        a == b or b.startswith(a + " ") for a, b in zip(general, specific, strict=True)
    )


def _found(
    kept: dict[tuple[str, ...], tuple[list[_Occurrence], list[str]]], log: list[list[Event]]
) -> list[Found]:
    """One occurrence per start (its first way on), with its events."""
    out = []
    for sequence, (occurrences, optional) in kept.items():
        first: dict[tuple[int, int], tuple[int, ...]] = {}
        for n, positions in occurrences:
            first.setdefault((n, positions[0]), positions)
        events = [[log[n][i] for i in positions] for (n, _), positions in sorted(first.items())]
        sessions = len({n for n, _ in first})
        out.append(Found(list(sequence), events, optional, sessions=sessions))
    out.sort(key=lambda f: (-f.support, f.steps))
    return out
