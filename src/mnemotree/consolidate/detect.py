"""Offline contradiction detectors for two statements (seed 004).

Statements are compared by what they are about, not by the words they
share: each is parsed (`detect_parse`) into subjects, the frame of what is
said of each (where someone lives or works, who leads something, what they
like or use), typed values (names, numbers with units, dates, times,
versions, roles) and what it denies. Two statements conflict when their
subjects match and either one denies what the other asserts ("Ana likes long
meetings" / "Ana does not like long meetings") or a value of one frame or
unit differs ("port 8080" / "port 9090", "lives in Berlin" / "moved to
Lisbon", "nurse at St Mary's" / "software engineer at Finch Labs"). Another
subject ("Lena's sister"), another attribute ("the report" / "the slides"),
an addition ("also") or a value both share is no conflict.

`compare` gives a `Finding` with a confidence: 0.8 and more only when the
subjects and the attribute clearly match and the values clearly differ
(the write path acts on those); from 0.5 a candidate to review. `update`
says the later statement itself speaks of a change ("now", "moved to", "no
longer", "was migrated from A to B"). `conflicting_values` tells dedupe that
two near-paraphrases differ in a value or polarity. No model is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from .detect_lexicon import (
    CHANGE_STEMS,
    FIXED,
    FRAME_OF,
    STATE_OF,
    TIME_WORDS,
    UNITS,
    root,
    stem,
    stems,
)
from .detect_parse import Group, Statement, parse
from .detect_values import Value

__all__ = ["ACT", "REVIEW", "Finding", "compare", "conflicting_values", "parse"]

ACT = 0.8  # from this confidence a finding is acted on
REVIEW = 0.5  # below this no finding is given
_PERSONS = frozenset({"user", "we", "you"})
# Words that name an attribute of a subject ("User's preferred theme", "current city").
_ATTRIBUTE_WORDS = stems(
    "favourite favorite preferred default go-to choice preference city address home "
    "hometown employer job role position owner lead manager current deadline date time "
    "schedule price cost rate size limit version port budget salary rent fee amount "
    "capacity timeout".split()
)


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # "negation" or "changed_value"
    reason: str
    confidence: float = 1.0
    update: bool = False  # the later statement says it is a newer state


@dataclass(frozen=True, slots=True)
class _Hit:
    kind: str
    reason: str
    confidence: float
    slot: frozenset[str] = frozenset()  # the words the values are; no attribute words
    holder: bool = False  # the later's subject is the new value: no other subject


def compare(earlier: str, later: str, parsed: dict[str, Statement] | None = None) -> Finding | None:
    """How `later` contradicts `earlier`, or None when they can both be true.
    A scan passes one `parsed` dict for all its pairs, so each text is parsed once."""
    if " ".join(earlier.casefold().split()) == " ".join(later.casefold().split()):
        return None
    a, b = _parsed(earlier, parsed), _parsed(later, parsed)
    best: _Hit | None = None
    for ga in a.groups:
        for gb in b.groups:
            hit = _compare_groups(ga, gb, a, b)
            if hit is not None and (best is None or hit.confidence > best.confidence):
                best = hit
    if best is None or best.confidence < REVIEW:
        return None
    return Finding(best.kind, best.reason, round(best.confidence, 2), b.update)


def _parsed(text: str, cache: dict[str, Statement] | None) -> Statement:
    if cache is None:
        return parse(text)
    found = cache.get(text)
    if found is None:
        found = cache[text] = parse(text)
    return found


def _compare_groups(ga: Group, gb: Group, a: Statement, b: Statement) -> _Hit | None:
    penalty = _subjects(ga, gb, a, b)
    if penalty is None:
        return None
    hits = [_negation(ga, gb, a), _negation(gb, ga, b, reverse=True), _states(ga, gb, a, b)]
    if not (b.addition and not b.update):
        hits += [_preference(ga, gb, a, b), _numbers(ga, gb), _times(ga, gb),
                 _names(ga, gb, a, b), _roles(ga, gb), _phrases(ga, gb, a, b),
                 _objects(ga, gb, a, b), _residual(ga, gb, a, b)]  # fmt: skip
    best: _Hit | None = None
    for hit in hits:
        if hit is None:
            continue
        confidence = hit.confidence - (0.0 if hit.holder else penalty)
        if hit.kind == "changed_value":
            confidence -= _attribute_gap(ga, gb, a, b, hit.slot)
            if b.update and confidence >= 0.65:
                confidence = min(0.95, confidence + 0.1)  # it says it changed, and a value did
        if best is None or confidence > best.confidence:
            best = _Hit(hit.kind, hit.reason, confidence, hit.slot)
    return best


def _known(word: str, vocab: frozenset[str], framed: bool = True) -> bool:
    """The word, a form of it or a word it starts ("consult", "consultant"),
    or one of its derivation ("manager", "management"); `framed`: or another
    word of its frame ("lives", "based")."""
    if word in vocab or (framed and FRAME_OF.get(word, "") in vocab):
        return True
    if "-" in word:  # "per-seat": "seat"
        parts = [p for p in word.split("-") if p != word and len(p) >= 3]
        return any(_known(p, vocab, framed) for p in parts)
    if len(word) < 5:
        return False
    base = root(word)
    return any(
        len(v) >= 5 and (v.startswith(word) or word.startswith(v) or root(v) == base) for v in vocab
    )


def _subjects(ga: Group, gb: Group, a: Statement, b: Statement) -> float | None:
    """None when the statements are about different subjects; else how much
    to take off for a subject that may be narrower ("the design team's standup")."""
    if ga.periods and gb.periods and ga.periods.isdisjoint(gb.periods):
        return None  # "monthly active users" / "daily active users"
    if any(not _known(r, b.vocab) for r in ga.relations - gb.relations):
        return None
    if any(not _known(r, a.vocab) for r in gb.relations - ga.relations):
        return None
    # subjects are told apart by their words: "office rent" is no "flat rent"
    extra_a = [w for w in ga.subject if w not in _PERSONS and not _known(w, b.vocab, False)]
    extra_b = [w for w in gb.subject if w not in _PERSONS and not _known(w, a.vocab, False)]
    if extra_a and extra_b:
        return None
    # A later subject with more words may be another, narrower one ("the
    # launch party" after "the launch"); a later one with fewer is shorthand.
    if extra_b:
        if any(w in _ATTRIBUTE_WORDS for w in gb.subject):
            return 0.1  # "User's preferred theme": an attribute of the subject, named
        return 0.35 if gb.head in extra_b else 0.25
    return 0.0


def _attribute_gap(ga: Group, gb: Group, a: Statement, b: Statement, slot: frozenset[str]) -> float:
    """Words of the attribute on both sides that the other lacks ("upload
    size" / "request body"): the values are likely of different things."""
    values = _value_words(ga) | _value_words(gb) | slot
    # the later's own subject words are weighed by the subject check already
    subject_b = frozenset(w for w in gb.subject if _known(w, a.vocab, False))
    words_a = (ga.words | frozenset(ga.subject)) - _PERSONS - values - ga.adjuncts
    words_b = (gb.words | subject_b) - _PERSONS - values - gb.adjuncts
    verbs_a, verbs_b = _verbs(ga), _verbs(gb)
    if not verbs_a or not verbs_b:  # "is 1920x1080" / "runs at 2560x1440": one attribute
        words_a, words_b = words_a - verbs_a, words_b - verbs_b
    only_a = [w for w in words_a - TIME_WORDS if not _known(w, b.vocab) and w not in UNITS]
    only_b = [w for w in words_b - TIME_WORDS if not _known(w, a.vocab) and w not in UNITS]
    if not (only_a and only_b):
        return 0.0
    gap = 0.3 if min(len(only_a), len(only_b)) == 1 else 0.45
    # The later saying it is a change makes another wording of the attribute likelier.
    return gap / 2 if b.update else gap


def _verbs(group: Group) -> frozenset[str]:
    return frozenset(f[3:].partition(":")[0] for f in group.frames if f.startswith("@v:"))


def _value_words(group: Group) -> frozenset[str]:
    """Words that are values (names, roles, "master"): not the attribute."""
    names = {w for v in group.values if v.kind == "name" for w in str(v.key).split()}
    phrases = {w for p in (*group.roles, *group.complements, *group.new) for w in p}
    return frozenset(names | phrases)


def _frames(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(FRAME_OF[w] for w in words if w in FRAME_OF)


# Frames near enough for a denial: to stop using something denies liking it.
_NEAR_FRAMES = {"@use": "@like"}


def _fold(words: frozenset[str]) -> frozenset[str]:
    folded = (FRAME_OF.get(w, w) for w in words)
    return frozenset(_NEAR_FRAMES.get(w, w) for w in folded)


def _negation(ga: Group, gb: Group, a: Statement, reverse: bool = False) -> _Hit | None:
    """`gb` denies what `ga` asserts: "I have a dog" / "I no longer have a dog"."""
    asserted = ga.words | _fold(ga.frames - {"@change"})
    everything = asserted | frozenset(ga.subject)
    # the later's subject words, unless the earlier says them of its own subject
    # ("The app supports SSO" / "SSO was removed from the app")
    subject = frozenset(w for w in gb.subject if not _known(w, asserted))
    for denied in gb.denied:
        core = _fold(frozenset(w for w in denied if w not in subject and w not in _PERSONS))
        core = frozenset(w for w in core - TIME_WORDS if w not in CHANGE_STEMS and w != "@change")
        if len(core) > 1 and not _verbs(ga):
            core -= {"hav"}  # "has no rate limit" / "is rate limited": the limit is denied
        unknown = [w for w in core if not _known(w, everything)]
        shared = [w for w in core if w not in unknown and not w.startswith("@") and w != "hav"]
        if not core or not any(_known(w, asserted) for w in core):
            continue
        # all of it denied, or all but one word with two things named the same
        # ("The app supports SSO" / "SSO isn't available in the app anymore")
        if unknown and (len(unknown) > 1 or len(shared) < 2):
            continue
        rest = [w for w in ga.words if not _known(w, core | subject)]
        confidence = 0.9 if len(rest) <= 1 else 0.82 if len(rest) <= 3 else 0.65
        if unknown:
            confidence = min(confidence, 0.8)
        said = " ".join(sorted(ga.shown.get(w, w) for w in core if not w.startswith("@")))
        who = "the earlier" if reverse else "the later"
        return _Hit("negation", f"{who} denies {said or 'it'!r}"[:120], confidence)
    return None


def _states(ga: Group, gb: Group, a: Statement, b: Statement) -> _Hit | None:
    """ "married" / "divorced", "required" / "optional", "maintained" / "unmaintained"."""
    for x, y, whole in ((w, "un" + w, b.vocab) for w in a.vocab if len(w) >= 4):
        if y in whole and y not in a.vocab and x not in b.vocab:
            return _Hit("changed_value", f"{x} then {y}", 0.88, frozenset({x, y}))
    for y, whole in ((w, a.vocab) for w in b.vocab if len(w) >= 4):
        if "un" + y in whole and "un" + y not in b.vocab and y not in a.vocab:
            return _Hit("changed_value", f"un{y} then {y}", 0.88, frozenset({y, "un" + y}))
    for state, asserts in ga.states:
        if (state, not asserts) in gb.states:
            reason = (
                f"{_state_shown(ga, state, asserts)} then {_state_shown(gb, state, not asserts)}"
            )
            slot = frozenset(w for w in ga.words | gb.words if w in STATE_OF)
            return _Hit("changed_value", reason, 0.9, slot)
    return None


def _state_shown(group: Group, state: str, asserts: bool) -> str:
    """How the statement said it: "married", "divorced", "not married"."""
    words = [w for w, (s, yes) in STATE_OF.items() if s == state and yes == asserts]
    for word in words:
        if word in group.shown:
            return group.shown[word]
    return ("" if asserts else "not ") + group.shown.get(state, state)


def _preference(ga: Group, gb: Group, a: Statement, b: Statement) -> _Hit | None:
    """ "prefers tea to coffee" / "prefers coffee over tea", or one side of it."""
    first, second = ga.preference, gb.preference
    if second is not None:
        reversed_ = first is not None and second[1] == first[0]
        unsaid = first is None and "@like" in ga.frames and second[1] in ga.words
        if reversed_ or unsaid:
            liked = first[0] if first else second[1]
            reason = f"preferred {liked}, then {second[0]} over it"
            return _Hit("changed_value", reason, 0.9, frozenset(second))
    elif first is not None and "@like" in gb.frames and first[1] in gb.words:
        if first[0] in gb.words:
            return None
        reason = f"preferred {first[0]} to {first[1]}, then the other"
        return _Hit("changed_value", reason, 0.8, frozenset(first))
    return None


def _numbers(ga: Group, gb: Group) -> _Hit | None:
    kinds = ("number", "version", "resolution")
    mine = [v for v in ga.values if v.kind in kinds]
    theirs = [v for v in gb.values if v.kind in kinds]
    for x in mine:
        matched = [(y, sure) for y in theirs for sure in [_same_quantity(x, y, ga, gb)] if sure]
        if not matched or any(_equal(x, y) for y, _ in matched):
            continue
        y, sure = matched[0]
        slot = frozenset({x.unit, y.unit, *x.mods, *y.mods} - {""})
        return _Hit("changed_value", f"{x.shown} then {y.shown}", 0.9 if sure > 1 else 0.75, slot)
    return None


def _same_quantity(x: Value, y: Value, ga: Group, gb: Group) -> int:
    """2: surely one quantity (one unit, or one anchor); 1: perhaps; 0: no."""
    if x.kind != y.kind and not (x.anchor and x.anchor == y.anchor):
        return 0
    if x.kind == "resolution":
        return 2
    if x.unit and y.unit:
        if x.unit != y.unit or (x.mods and y.mods and not x.mods & y.mods):
            return 0
        return 0 if x.rate and y.rate and x.rate != y.rate else 2
    if x.unit or y.unit:
        unit, other = (x.unit, gb) if x.unit else (y.unit, ga)
        return 2 if _known(unit, _said(other)) or (x.anchor and x.anchor == y.anchor) else 0
    crossed = _known(x.anchor, _said(gb)) and _known(y.anchor, _said(ga))
    if x.anchor and y.anchor and (x.anchor == y.anchor or crossed):
        return 2
    alone = (
        sum(v.kind in ("number", "version") for v in ga.values)
        == 1
        == sum(v.kind in ("number", "version") for v in gb.values)
    )
    return 1 if alone else 0


def _said(group: Group) -> frozenset[str]:
    return group.words | frozenset(group.subject)


def _equal(x: Value, y: Value) -> bool:
    if isinstance(x.key, float) and isinstance(y.key, float):
        return abs(x.key - y.key) <= 1e-9 * max(1.0, abs(x.key))
    return str(x.key) == str(y.key)


_TIME_KINDS = ("day", "month", "weekday", "time", "year", "period", "quarter")


def _time_parts(values: tuple[Value, ...]) -> dict[str, set[object]]:
    """Days, months, weekdays, times, years and periods said, each apart: "May
    3rd, 2024" and "2024-05-03" say one day."""
    parts: dict[str, set[object]] = {k: set() for k in _TIME_KINDS}
    for v in values:
        if v.kind == "date" and isinstance(v.key, tuple):
            month, day, year = v.key
            parts["day"].add(day)
            if month:
                parts["month"].add(month)
            if year:
                parts["year"].add(year)
        elif v.kind in parts:
            parts[v.kind].add(v.key)
    return parts


def _times(ga: Group, gb: Group) -> _Hit | None:
    mine, theirs = _time_parts(ga.values), _time_parts(gb.values)
    for kind in _TIME_KINDS:
        if mine[kind] and theirs[kind] and mine[kind].isdisjoint(theirs[kind]):
            before = _shown_times(ga.values, kind)
            after = _shown_times(gb.values, kind)
            return _Hit("changed_value", f"{before} then {after}", 0.9)
    return None


def _shown_times(values: tuple[Value, ...], kind: str) -> str:
    kinds = {"day": ("date",), "month": ("date", "month"), "year": ("date", "year")}
    shown = [v.shown for v in values if v.kind in kinds.get(kind, (kind,))]
    return ", ".join(shown) or kind


def _names(ga: Group, gb: Group, a: Statement, b: Statement) -> _Hit | None:
    mine = [v for v in ga.values if v.kind == "name"]
    theirs = [v for v in gb.values if v.kind == "name"]
    if not mine or not (theirs or gb.old or gb.subject_names):
        return None
    # the later about the earlier's value ("Sam reports to Lee") keeps it, unless
    # it hands it on ("Arjun handed the lead over to Becky")
    handed = "@change" in gb.frames
    kept = [v for v in mine if _in_group(str(v.key), gb) or (_is_subject(v, gb) and not handed)]
    left = [v for v in mine if any(_same_name(str(v.key), str(o.key)) for o in gb.old)]
    if kept and not left:
        return None  # both name it: they agree on it
    new = [v for v in theirs if not _name_in(str(v.key), a)]
    holder = False
    if not new and (left or _takes_role(ga, gb)):
        # "Tomás has replaced Sara as team lead", "Ines took over as on-call lead"
        new = [v for v in gb.subject_names if not _name_in(str(v.key), a)]
        holder = True
    if not new:
        return None
    was = left or [v for v in mine if v not in kept]
    slot = frozenset(w for v in (*was, *new) for w in str(v.key).split())
    reason = f"{was[0].shown} then {new[0].shown}"
    if left or holder:
        return _Hit("changed_value", reason, 0.9, slot, holder=holder)
    if not _frames_meet(ga, gb):
        return None
    return _Hit("changed_value", reason, 0.6 if _similar(was[0], new[0]) else 0.88, slot)


def _is_subject(value: Value, group: Group) -> bool:
    return any(_same_name(str(value.key), str(v.key)) for v in group.subject_names)


def _takes_role(ga: Group, gb: Group) -> bool:
    """The later's subject takes the role the earlier is about: "The on-call
    lead is Greg" / "Ines took over as on-call lead", "Lee is the new product owner"."""
    said = frozenset(ga.subject)
    return bool(gb.subject_names) and any(all(_known(w, said) for w in r) for r in gb.roles)


def _similar(x: Value, y: Value) -> bool:
    """Two spellings of one name, perhaps ("Bangalore", "Bengaluru")."""
    x_key, y_key = str(x.key), str(y.key)
    if x_key[:1] != y_key[:1] or abs(len(x_key) - len(y_key)) > 2:
        return False
    return SequenceMatcher(None, x_key, y_key).ratio() >= 0.6


def _in_group(name: str, group: Group) -> bool:
    if any(v.kind == "name" and _same_name(name, str(v.key)) for v in group.values):
        return True
    return _words_of(name, group.words)


def _frames_meet(ga: Group, gb: Group) -> bool:
    """Do the two speak of one attribute: one frame, or a change of any."""
    mine, theirs = ga.frames - {"@change"}, gb.frames - {"@change"}
    if mine & theirs:
        return True
    if "@change" in gb.frames:
        return bool(mine - FIXED) or not mine
    # "User's editor is Vim" / "User uses Helix as their editor now"
    return "@is-name" in mine and bool(ga.head) and ga.head in gb.words


def _name_in(name: str, statement: Statement) -> bool:
    if any(_same_name(name, other) for other in statement.names):
        return True
    return _words_of(name, statement.vocab)


def _words_of(name: str, vocab: frozenset[str]) -> bool:
    """The name said in plain words ("billing" for "Billing"): all of its words."""
    words = [w for w in name.split() if len(w) >= 3]
    return bool(words) and all(w in vocab or stem(w) in vocab for w in words)


def _same_name(x: str, y: str) -> bool:
    """One name, perhaps said shorter: "Postgres" / "PostgreSQL", "Nike
    Pegasus" / "Pegasus"; not "Oak School" / "Elm School"."""
    if x == y or (min(len(x), len(y)) >= 4 and (x.startswith(y) or y.startswith(x))):
        return True
    words_x, words_y = x.split(), y.split()
    shorter, longer = sorted((words_x, words_y), key=len)
    return len(longer) > len(shorter) and all(w in longer for w in shorter)


def _roles(ga: Group, gb: Group) -> _Hit | None:
    if not ga.roles or not gb.roles:
        return None
    for x in ga.roles:
        for y in gb.roles:
            if x[-1] == y[-1] and (set(x) <= set(y) or set(y) <= set(x)):
                return None  # one role, maybe said in more detail
    x, y = ga.roles[0], gb.roles[0]
    slot = frozenset(x) | frozenset(y)
    return _Hit("changed_value", f"{_show(ga, x)} then {_show(gb, y)}", 0.88, slot)


def _show(group: Group, words: tuple[str, ...]) -> str:
    return " ".join(group.shown.get(w, w) for w in words)


def _phrases(ga: Group, gb: Group, a: Statement, b: Statement) -> _Hit | None:
    """A plain value said after a copula or a change ("the branch is master" /
    "renamed to main"), or one head with another modifier ("dark mode" / "light mode")."""
    for x in ga.complements:
        for y in (*gb.new, *gb.complements):
            if set(x) & set(y) or _known(y[-1], a.vocab):
                continue
            if x in gb.was and y in gb.new:
                reason = f"{_show(ga, x)} then {_show(gb, y)}"
                return _Hit("changed_value", reason, 0.9, frozenset(x) | frozenset(y))
            if _known(x[-1], b.vocab):
                continue
            framed = bool(_frames(ga.subject)) or a.keyed or b.keyed
            sure = y in gb.new or (framed and ga.subject == gb.subject)
            confidence = 0.85 if sure else 0.7
            reason = f"{_show(ga, x)} then {_show(gb, y)}"
            return _Hit("changed_value", reason, confidence, frozenset(x) | frozenset(y))
    for modifier, head in ga.pairs:
        for other, head_b in gb.pairs:
            if head != head_b or modifier == other:
                continue
            if _known(modifier, b.vocab) or _known(other, a.vocab):
                continue
            meet = _frames_meet(ga, gb) or b.update
            reason = f"{ga.shown.get(modifier, modifier)} then {gb.shown.get(other, other)}"
            reason += f" {gb.shown.get(head, head)}"
            return _Hit("changed_value", reason, 0.82 if meet else 0.6,
                        frozenset({modifier, other}))  # fmt: skip
    return None


def _residual(ga: Group, gb: Group, a: Statement, b: Statement) -> _Hit | None:
    """What is left once all both say is set aside, when the later says it
    changed: "I take the bus to work" / "I cycle to work now", "Raj works
    nights" / "Raj works days now". One or two words each side: a slot."""
    if not b.update or ga.values or gb.values:
        return None
    if not all(_known(w, frozenset(ga.subject), False) for w in gb.subject):
        return None  # the later's subject must be the earlier's, or said shorter
    mine = (ga.words | _typed(ga.frames) | frozenset(ga.subject)) - frozenset(gb.subject)
    theirs = (gb.words | _typed(gb.frames)) - frozenset(ga.subject)
    shared = [w for w in mine if _known(w, theirs)]
    left = [w for w in mine if not _known(w, theirs) and not _known(w, b.vocab)]
    new = [w for w in theirs if not _known(w, mine) and not _known(w, a.vocab)]
    if not shared or not 1 <= len(left) <= 2 or not 1 <= len(new) <= 2:
        return None
    reason = f"{_show(ga, tuple(left))} then {_show(gb, tuple(new))}"
    return _Hit("changed_value", reason, 0.75, frozenset(left) | frozenset(new))


def _typed(frames: frozenset[str]) -> frozenset[str]:
    return frozenset(f for f in frames if not f.startswith("@v:")) - {"@change", "@is-name"}


def _objects(ga: Group, gb: Group, a: Statement, b: Statement) -> _Hit | None:
    """One verb, another object: "listens to jazz" / "listens to hip hop";
    what one said left for another ("drinking coffee instead of tea"), or
    changed into another ("works in sales" / "moved into marketing")."""
    mine = [x for _, x in ga.objects] + list(ga.complements) + list(ga.roles)
    theirs = [y for _, y in gb.objects] + list(gb.new)
    for x in mine:
        if x in gb.was and theirs:
            slot = frozenset(x) | frozenset(theirs[0])
            return _Hit("changed_value", f"{_show(ga, x)} then {_show(gb, theirs[0])}", 0.9, slot)
    for key, x in ga.objects:
        for y in gb.new:
            if not key.startswith("@") or set(x) & set(y) or any(_known(w, a.vocab) for w in y):
                continue
            if any(_known(w, b.vocab) for w in x):
                continue
            slot = frozenset(x) | frozenset(y)
            return _Hit("changed_value", f"{_show(ga, x)} then {_show(gb, y)}", 0.85, slot)
    for key, x in ga.objects:
        for other, y in gb.objects:
            if key != other or set(x) & set(y):
                continue
            if any(_known(w, b.vocab) for w in x) or any(_known(w, a.vocab) for w in y):
                continue
            reason = f"{_show(ga, x)} then {_show(gb, y)}"
            slot = frozenset(x) | frozenset(y)
            return _Hit("changed_value", reason, 0.85 if b.update else 0.75, slot)
    return None


def conflicting_values(a_text: str, b_text: str) -> str | None:
    """Why two near-paraphrases are different facts (a number, date, version,
    name or polarity differs), or None when they may say the same."""
    if " ".join(a_text.casefold().split()) == " ".join(b_text.casefold().split()):
        return None
    a, b = parse(a_text), parse(b_text)
    kinds = ("number", "version", "resolution")
    only_a = [v for v in a.values if v.kind in kinds and not _has_value(b, v)]
    only_b = [v for v in b.values if v.kind in kinds and not _has_value(a, v)]
    if only_a and only_b:
        return f"{only_a[0].shown} vs {only_b[0].shown}"
    parts_a, parts_b = _time_parts(a.values), _time_parts(b.values)
    for kind in _TIME_KINDS:
        if parts_a[kind] and parts_b[kind] and parts_a[kind].isdisjoint(parts_b[kind]):
            return f"{_shown_times(a.values, kind)} vs {_shown_times(b.values, kind)}"
    names_a = [n for n in a.names if not _name_in(n, b)]
    names_b = [n for n in b.names if not _name_in(n, a)]
    if names_a and names_b:
        return f"{names_a[0]} vs {names_b[0]}"
    if _polarity(a) != _polarity(b) and _overlap(a, b) >= 0.5:
        return "one denies what the other says"
    for ga in a.groups:
        for gb in b.groups:
            hit = _phrases(ga, gb, a, b) or _roles(ga, gb) or _states(ga, gb, a, b)
            if hit is not None:
                return hit.reason
    return None


def _has_value(statement: Statement, value: Value) -> bool:
    return any(v.kind == value.kind and _equal(v, value) for v in statement.values) or any(
        _equal(v, value) for v in statement.values
    )


def _polarity(statement: Statement) -> int:
    return statement.negations % 2


def _overlap(a: Statement, b: Statement) -> float:
    words_a = frozenset(w for w in a.vocab if w[:1].isalpha())
    words_b = frozenset(w for w in b.vocab if w[:1].isalpha())
    return len(words_a & words_b) / max(1, min(len(words_a), len(words_b)))
