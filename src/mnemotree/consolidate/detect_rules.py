"""The contradiction rules: each looks at one kind of evidence that a later
statement (group `gb`) contradicts an earlier one (`ga`) about one subject,
and gives a `Hit` with a confidence before the subject and attribute checks.
"""

from __future__ import annotations

from .detect_lexicon import CHANGE_STEMS, FRAME_OF, NEGATIVE_STEMS, STATE_OF, TIME_WORDS, stem
from .detect_match import (
    PERSONS,
    TIME_KINDS,
    Hit,
    equal,
    fold,
    frames_meet,
    frames_of,
    in_group,
    is_subject,
    known,
    name_in,
    per_second,
    said,
    same_name,
    show,
    shown_times,
    similar,
    time_parts,
    typed,
    value_words,
    verbs,
)
from .detect_parse import Group, Statement
from .detect_tokens import Value


def negation_hit(ga: Group, gb: Group, a: Statement, reverse: bool = False) -> Hit | None:
    """`gb` denies what `ga` asserts: "I have a dog" / "I no longer have a dog"."""
    asserted = ga.words | fold(ga.frames - {"@change"})
    everything = asserted | frozenset(ga.subject)
    # the later's subject words, unless the earlier says them of its own subject
    # ("The app supports SSO" / "SSO was removed from the app")
    named = {w for v in gb.subject_names for w in str(v.key).split()}
    subject = frozenset(w for w in {*gb.subject, *named} if not known(w, asserted))
    for denied in gb.denied:
        core = fold(frozenset(w for w in denied if w not in subject and w not in PERSONS))
        core = frozenset(w for w in core - TIME_WORDS if w not in CHANGE_STEMS and w != "@change")
        if len(core) > 1 and not verbs(ga):
            core -= {"hav"}  # "has no rate limit" / "is rate limited": the limit is denied
        # a light verb says little of what is denied: "stopped putting sugar in her
        # coffee" denies the sugar "takes her coffee with sugar" says
        light = frozenset(w for w in core if w in _LIGHT and not known(w, everything))
        core = core - light if core - light else core
        # to no longer eat, drink, watch or listen to a thing denies liking it
        # ("won't eat pasta anymore" / "prefer pasta"), when the other says no such verb
        core = frozenset("@like" if w in _CONSUMING and not known(w, asserted) else w for w in core)
        unknown = [w for w in core if not known(w, everything)]
        shared = [w for w in core if w not in unknown and not w.startswith("@") and w != "hav"]
        if not core or not any(known(w, asserted) for w in core):
            continue
        # all of it denied, or all but one word with two things named the same
        # ("The app supports SSO" / "SSO isn't available in the app anymore")
        if unknown and (len(unknown) > 1 or len(shared) < 2):
            continue
        if any(_opposite(w, asserted) or _undoing(w) for w in unknown):
            continue  # to deny the opposite agrees: "don't disable it" / "keep it enabled"
        # a denial narrowed by a circumstance the other does not say denies less:
        # "nobody applies migrations by hand" / "applied by the deploy job", "never
        # deploy on Fridays" / "we deploy the API to Kubernetes"
        narrower = any(not known(w, a.vocab) for w in gb.narrowed)
        rest = [w for w in ga.words if not known(w, core | subject)]
        confidence = 0.9 if len(rest) <= 1 else 0.82 if len(rest) <= 3 else 0.65
        if unknown:
            confidence = min(confidence, 0.8)
        if narrower or _aside_elsewhere(ga, gb, denied, core) or _other_object(ga, gb, core):
            confidence = min(confidence, 0.6)
        said = " ".join(sorted(ga.shown.get(w, w) for w in core if not w.startswith("@")))
        who = "the earlier" if reverse else "the later"
        return Hit("negation", f"{who} denies {said or 'it'!r}"[:120], confidence)
    return None


_LIGHT = frozenset({"tak", "put", "get", "mak", "giv", "hav", "do"})
# Words that make a liking a choice of one among others: "prefers", "favourite", "only".
_CHOICE = frozenset(
    {stem(w) for w in "prefer favourite favorite rather go-to choice only best".split()}
)
_CONSUMING = frozenset({"eat", "drink", "listen", "watch", "read"})


def _aside_elsewhere(ga: Group, gb: Group, denied: frozenset[str], core: frozenset[str]) -> bool:
    """An alternative set aside ("prefers the bus to the train") that the other
    says only as where its own choice holds ("aisle seats on the train"): the
    choice is denied, not every mention of the thing."""
    if denied not in gb.aside:
        return False
    chosen = value_words(ga) | {w for _, x in ga.objects for w in x} | set(ga.subject)
    where = {noun for _, noun in ga.scopes}
    return not any(w in chosen for w in core) and all(w in where for w in core)


def _other_object(ga: Group, gb: Group, core: frozenset[str]) -> bool:
    """Both say what one verb is done to, it differs, and the denial is of
    neither ("takes her coffee with sugar" / "takes her tea without sugar"):
    it is said of another thing."""
    return any(
        key == other and not set(x) & set(y) and core.isdisjoint(x) and core.isdisjoint(y)
        for key, x in ga.objects
        for other, y in gb.objects
        if not key.startswith("@")
    )


def _undoing(word: str) -> bool:
    """A word that itself denies or undoes ("disable", "remove", "unlock"): to
    deny it asserts what it undoes ("never disable 2FA" / "2FA is required")."""
    state = STATE_OF.get(word)
    return (state is not None and not state[1]) or word in NEGATIVE_STEMS


def _opposite(word: str, vocab: frozenset[str]) -> bool:
    """The word's opposite is said: "disable" / "enabled", "unlock" / "locked"."""
    if word.startswith("un") and len(word) >= 6 and known(word[2:], vocab, False):
        return True
    if known("un" + word, vocab, False):
        return True
    state = STATE_OF.get(word)
    return state is not None and any(
        STATE_OF.get(w, ("", True))[0] == state[0] and STATE_OF[w][1] != state[1] for w in vocab
    )


def state_hit(ga: Group, gb: Group, a: Statement, b: Statement) -> Hit | None:
    """ "married" / "divorced", "required" / "optional", "maintained" / "unmaintained"."""
    # "not unmasked" is masked: an un- word conflicts only said with one polarity
    for prefix, shortest in _DENYING_PREFIXES:
        for x, y in ((w, prefix + w) for w in a.vocab if len(w) >= shortest):
            if y in b.vocab and y not in a.vocab and x not in b.vocab:
                if (x in a.negated) != (y in b.negated):
                    continue
                slot = frozenset({x, y, stem(x), stem(y)})
                return Hit("changed_value", f"{x} then {y}", 0.88, slot)
        for y in (w for w in b.vocab if len(w) >= shortest):
            x = prefix + y
            if x in a.vocab and x not in b.vocab and y not in a.vocab:
                if (x in a.negated) != (y in b.negated):
                    continue
                slot = frozenset({y, x, stem(y), stem(x)})
                return Hit("changed_value", f"{x} then {y}", 0.88, slot)
    for state, asserts in ga.states:
        if (state, not asserts) in gb.states:
            reason = (
                f"{_state_shown(ga, state, asserts)} then {_state_shown(gb, state, not asserts)}"
            )
            slot = frozenset(w for w in ga.words | gb.words if w in STATE_OF)
            return Hit("changed_value", reason, 0.9, slot)
    return None


# Prefixes that deny the word they open, and the shortest word they are read on
# ("unmaintained", "incompatible", "non-smoker"; not "install" / "stall").
_DENYING_PREFIXES = (("un", 4), ("non-", 4), ("non", 5), ("in", 6), ("im", 6), ("dis", 6))


def _state_shown(group: Group, state: str, asserts: bool) -> str:
    """How the statement said it: "married", "divorced", "not married"."""
    words = [w for w, (s, yes) in STATE_OF.items() if s == state and yes == asserts]
    for word in words:
        if word in group.shown:
            return group.shown[word]
    return ("" if asserts else "not ") + group.shown.get(state, state)


def preference_hit(ga: Group, gb: Group, a: Statement, b: Statement) -> Hit | None:
    """ "prefers tea to coffee" / "prefers coffee over tea", or one side of it."""
    first, second = ga.preference, gb.preference
    if second is not None:
        reversed_ = first is not None and second[1] == first[0]
        unsaid = first is None and "@like" in ga.frames and second[1] in ga.words
        unsaid = unsaid and not known(second[0], a.vocab)  # both named: no reversal told
        if reversed_ or unsaid:
            liked = first[0] if first else second[1]
            reason = f"preferred {liked}, then {second[0]} over it"
            return Hit("changed_value", reason, 0.9, frozenset(second))
    elif first is not None and any(first[0] in w for w in gb.was):
        # "prefers tea over coffee" / "has a coffee now instead of tea"
        return Hit("changed_value", f"preferred {first[0]}, then not", 0.85, frozenset(first))
    elif first is not None and "@like" in gb.frames and first[1] in gb.words:
        if known(first[0], b.vocab):
            return None
        reason = f"preferred {first[0]} to {first[1]}, then the other"
        return Hit("changed_value", reason, 0.8, frozenset(first))
    return None


def number_hit(ga: Group, gb: Group) -> Hit | None:
    kinds = ("number", "version", "resolution")
    mine = [v for v in ga.values if v.kind in kinds]
    theirs = [v for v in gb.values if v.kind in kinds]
    for x in mine:
        if _listed(x, mine) and not _listed(x, theirs):
            continue  # "my kids are 4 and 7": ages, each, no count of kids
        matched = [(y, sure) for y in theirs for sure in [_same_quantity(x, y, ga, gb)] if sure]
        matched = [(y, sure) for y, sure in matched if not _listed(y, theirs) or _listed(x, mine)]
        if not matched or any(equal(x, y) for y, _ in matched):
            continue
        y, sure = matched[0]
        slot = frozenset({x.unit, y.unit, *x.mods, *y.mods} - {""})
        return Hit("changed_value", f"{x.shown} then {y.shown}", 0.9 if sure > 1 else 0.75, slot)
    return None


def _listed(value: Value, values: list[Value]) -> bool:
    """One of several numbers of one kind said together ("are 4 and 7": the
    second has no word of its own before it)."""
    return any(
        v is not value
        and v.unit == value.unit
        and (v.anchor == value.anchor or not (v.anchor and value.anchor))
        and not equal(v, value)
        for v in values
    )


def _same_quantity(x: Value, y: Value, ga: Group, gb: Group) -> int:
    """2: surely one quantity (one unit, or one anchor); 1: perhaps; 0: no."""
    if x.kind != y.kind and not (x.anchor and x.anchor == y.anchor):
        return 0
    if x.kind == "resolution":
        return 2
    if x.unit and y.unit:
        if x.unit != y.unit or (x.mods and y.mods and not x.mods & y.mods):
            return 0
        if x.rate and y.rate and x.rate != y.rate:  # "a year" / "a month" compare; "per seat" no
            return 2 if per_second(x.rate) and per_second(y.rate) else 0
        if _named_apart(x, y, ga, gb):
            return 1  # "a p99 latency of 180 ms" / "the timeout is 5 seconds"
        return 2
    alone = (
        sum(v.kind in ("number", "version") for v in ga.values)
        == 1
        == sum(v.kind in ("number", "version") for v in gb.values)
    )
    if x.unit or y.unit:
        # the unit of one must be what the other's number counts ("3 nodes" /
        # "node count: 5"), not a thing it says otherwise ("pays our invoices
        # net 30" / "1,200 invoices a month")
        unit, bare, other = (x.unit, y, gb) if x.unit else (y.unit, x, ga)
        counted = frozenset({bare.anchor, *other.subject})
        if (x.anchor and x.anchor == y.anchor) or known(unit, counted, False):
            return 2
        same_rate = bool(x.rate) == bool(y.rate)  # "30" is no "1,200 a month"
        # or the bare number is said of the subject itself ("the team is down to 9"),
        # a thing, not a person (whose bare number is an age: "Ella is 39")
        mine = gb if other is ga else ga
        own = bare.anchor in mine.subject and not mine.subject_names
        return 1 if alone and same_rate and (known(unit, said(other)) or own) else 0
    crossed = known(x.anchor, said(gb)) and known(y.anchor, said(ga))
    if x.anchor and y.anchor and (x.anchor == y.anchor or crossed):
        return 2
    if x.rate and x.rate == y.rate:
        return 2  # "950 a month" / "1,100 a month"
    return 1 if alone else 0


def _named_apart(x: Value, y: Value, ga: Group, gb: Group) -> bool:
    """Each number is named by a word the other statement does not say."""
    if not (x.anchor and y.anchor) or x.anchor == y.anchor:
        return False
    return not known(x.anchor, said(gb)) and not known(y.anchor, said(ga))


def time_hit(ga: Group, gb: Group) -> Hit | None:
    if _dated_change(ga) or _dated_change(gb):
        return None
    mine, theirs = time_parts(ga.values), time_parts(gb.values)
    for kind in TIME_KINDS:
        if mine[kind] and theirs[kind] and mine[kind].isdisjoint(theirs[kind]):
            before = shown_times(ga.values, kind)
            after = shown_times(gb.values, kind)
            return Hit("changed_value", f"{before} then {after}", 0.9)
    return None


def _dated_change(group: Group) -> bool:
    """A change to another kind of value, dated: "grew to 60 seats by June",
    "moved to Lisbon in 2022". Its time says when it changed, no time of
    the attribute."""
    return bool(group.changed_to & {"number", "name", "version"})


def name_hit(ga: Group, gb: Group, a: Statement, b: Statement) -> Hit | None:
    mine = [v for v in ga.values if v.kind == "name"]
    theirs = [v for v in gb.values if v.kind == "name"]
    about = [w for w in gb.subject if w not in PERSONS]
    if about and ga.subject_names and all(known(w, ga.words, False) for w in about):
        # the later is about the earlier's object: "Priya owns the billing
        # service" / "The billing service is owned by Tom now"
        mine += list(ga.subject_names)
    if not mine or not (theirs or gb.old or gb.subject_names):
        return None
    # the later about the earlier's value ("Sam reports to Lee") keeps it, unless
    # it hands it on ("Arjun handed the lead over to Becky")
    handed = "@change" in gb.frames
    kept = [v for v in mine if in_group(str(v.key), gb) or (is_subject(v, gb) and not handed)]
    left = [v for v in mine if any(same_name(str(v.key), str(o.key)) for o in gb.old)]
    if kept and not left:
        return None  # both name it: they agree on it
    new = [v for v in theirs if not name_in(str(v.key), a)]
    holder = False
    if not new and (left or _takes_role(ga, gb)):
        # "Tomás has replaced Sara as team lead", "Ines took over as on-call lead"
        new = [v for v in gb.subject_names if not name_in(str(v.key), a)]
        holder = True
    if not new:
        return None
    was = left or [v for v in mine if v not in kept]
    slot = frozenset(w for v in (*was, *new) for w in str(v.key).split())
    reason = f"{was[0].shown} then {new[0].shown}"
    if left or holder:
        return Hit("changed_value", reason, 0.9, slot, holder=holder)
    confidence = 0.6 if similar(was[0], new[0]) else 0.88
    # one purpose said of both ("Google Maps for directions" / "uses Apple Maps for
    # directions") is one attribute, whatever the verbs
    purpose = any(prep == "for" for prep, _ in ga.scopes & gb.scopes)
    if frames_meet(ga, gb) or purpose:
        # the old value's kind unsaid counts only against a new value of a kind of
        # its own ("Android phones" / "an iPhone" is one kind; "to the eu-west-1 cluster" not);
        # one purpose said of both makes kinds moot ("a Mac for work" / "a Linux laptop for work")
        unsaid = _other_kind(was[0], b, gb.frames) and bool(new[0].noun)
        kinds = not purpose and (unsaid or _other_kind(new[0], a, ga.frames))
        if kinds or _coded(was[0]) != _coded(new[0]):
            confidence = min(confidence, 0.65)  # "in Kotlin" / "to the eu-west-1 cluster"
        return Hit("changed_value", reason, confidence, slot)
    # no frame in common, but none apart either, one name each, and the later
    # says it changed: "Kai's dentist is Dr Lee" / "Kai sees Dr Park now"
    mine_typed, theirs_typed = typed(ga.frames), typed(gb.frames)
    apart = bool(mine_typed and theirs_typed and mine_typed.isdisjoint(theirs_typed))
    if b.update and not apart and len(mine) == len(theirs) == 1:
        return Hit("changed_value", reason, min(confidence, 0.65), slot)
    return None


def _other_kind(value: Value, other: Statement, frames: frozenset[str]) -> bool:
    """The name is said to be a kind of thing ("the eu-west-1 cluster") that
    the other statement does not speak of, nor its frame ("the Dublin region"
    after "stored in Frankfurt": a place): a value of another attribute."""
    if not value.noun or known(value.noun, other.vocab):
        return False
    return FRAME_OF.get(value.noun, "") not in frames


def _coded(value: Value) -> bool:
    """An identifier ("docs.acme.io", "eu-west-1"), which is another kind of
    value than a word name ("Sphinx", "Frankfurt")."""
    return any(not (c.isalpha() or c in " '") for c in str(value.key))


def _takes_role(ga: Group, gb: Group) -> bool:
    """The later's subject takes the role the earlier is about: "The on-call
    lead is Greg" / "Ines took over as on-call lead", "Lee is the new product owner"."""
    said = frozenset(ga.subject)
    return bool(gb.subject_names) and any(all(known(w, said) for w in r) for r in gb.roles)


def holder_hit(ga: Group, gb: Group, a: Statement, b: Statement) -> Hit | None:
    """One role that one person holds, said of two people: "Sam is the
    release manager" / "Kim is the release manager now"."""
    shared = ga.sole_roles & gb.sole_roles
    if not shared or len(ga.subject_names) != 1 or len(gb.subject_names) != 1:
        return None
    x, y = ga.subject_names[0], gb.subject_names[0]
    if same_name(str(x.key), str(y.key)) or name_in(str(y.key), a) or name_in(str(x.key), b):
        return None
    # nothing else said apart: "... for the mobile app" is another role, "in 2023" another time
    if any(not known(w, b.vocab) for w in ga.words) or any(not known(w, a.vocab) for w in gb.words):
        return None
    mine, theirs = time_parts(ga.values), time_parts(gb.values)
    if any(mine[k] and theirs[k] and mine[k].isdisjoint(theirs[k]) for k in TIME_KINDS):
        return None
    role = max(shared, key=len)
    slot = frozenset(str(x.key).split()) | frozenset(str(y.key).split())
    return Hit(
        "changed_value", f"{x.shown} then {y.shown} as {show(gb, role)}", 0.88, slot, holder=True
    )


def role_hit(ga: Group, gb: Group) -> Hit | None:
    if not ga.roles or not gb.roles:
        return None
    for x in ga.roles:
        for y in gb.roles:
            if x[-1] == y[-1] and (set(x) <= set(y) or set(y) <= set(x)):
                return None  # one role, maybe said in more detail
    x, y = ga.roles[0], gb.roles[0]
    slot = frozenset(x) | frozenset(y)
    return Hit("changed_value", f"{show(ga, x)} then {show(gb, y)}", 0.88, slot)


def phrase_hit(ga: Group, gb: Group, a: Statement, b: Statement) -> Hit | None:
    """A plain value said after a copula or a change ("the branch is master" /
    "renamed to main"), or one head with another modifier ("dark mode" / "light mode")."""
    for x in ga.complements:
        for y in (*gb.new, *gb.complements):
            if set(x) & set(y) or known(y[-1], a.vocab):
                continue
            if x in gb.was and y in gb.new:
                reason = f"{show(ga, x)} then {show(gb, y)}"
                return Hit("changed_value", reason, 0.9, frozenset(x) | frozenset(y))
            if known(x[-1], b.vocab):
                continue
            framed = bool(frames_of(ga.subject)) or a.keyed or b.keyed
            sure = y in gb.new or (framed and ga.subject == gb.subject)
            confidence = 0.85 if sure else 0.7
            reason = f"{show(ga, x)} then {show(gb, y)}"
            return Hit("changed_value", reason, confidence, frozenset(x) | frozenset(y))
    for modifier, head in ga.pairs:
        for other, head_b in gb.pairs:
            if head != head_b or modifier == other:
                continue
            if known(modifier, b.vocab) or known(other, a.vocab):
                continue
            meet = frames_meet(ga, gb) or b.update
            reason = f"{ga.shown.get(modifier, modifier)} then {gb.shown.get(other, other)}"
            reason += f" {gb.shown.get(head, head)}"
            return Hit("changed_value", reason, 0.85 if meet else 0.6, frozenset({modifier, other}))
    return None


def _valued(group: Group) -> bool:
    return any(v.kind != "daypart" for v in group.values)


def residual_hit(ga: Group, gb: Group, a: Statement, b: Statement) -> Hit | None:
    """What is left once all both say is set aside, when the later says it
    changed: "I take the bus to work" / "I cycle to work now", "Raj works
    nights" / "Raj works days now". One or two words each side: a slot."""
    if not b.update or _valued(ga) or _valued(gb):
        return None
    if not all(known(w, frozenset(ga.subject), False) for w in gb.subject):
        return None  # the later's subject must be the earlier's, or said shorter
    mine = (ga.words | typed(ga.frames) | frozenset(ga.subject)) - frozenset(gb.subject)
    theirs = (gb.words | typed(gb.frames)) - frozenset(ga.subject)
    if not (ga.adjuncts and gb.adjuncts):  # circumstances told on one side only
        mine, theirs = mine - ga.adjuncts, theirs - gb.adjuncts
    shared = [w for w in mine if known(w, theirs)]
    left = [w for w in mine if not known(w, theirs) and not known(w, b.vocab)]
    new = [w for w in theirs if not known(w, mine) and not known(w, a.vocab)]
    if not shared or not 1 <= len(left) <= 2 or not 1 <= len(new) <= 2:
        return None
    reason = f"{show(ga, tuple(left))} then {show(gb, tuple(new))}"
    return Hit("changed_value", reason, 0.75, frozenset(left) | frozenset(new))


def _said(word: str, vocab: frozenset[str], other: tuple[str, ...]) -> bool:
    """The object word is said by the other statement; a word of its frame
    counts unless the other's object is one too: "from home" / "from the
    office" are two places, "lives" / "based" one attribute."""
    if known(word, vocab, False):
        return True
    frame = FRAME_OF.get(word)
    return known(word, vocab) and (frame is None or frame not in frames_of(other))


def object_hit(ga: Group, gb: Group, a: Statement, b: Statement) -> Hit | None:
    """One verb, another object: "listens to jazz" / "listens to hip hop";
    what one said left for another ("drinking coffee instead of tea"), or
    changed into another ("works in sales" / "moved into marketing")."""
    mine = [x for _, x in ga.objects] + list(ga.complements) + list(ga.roles)
    theirs = [y for _, y in gb.objects] + list(gb.new)
    for x in mine:
        if x in gb.was and theirs:
            slot = frozenset(x) | frozenset(theirs[0])
            return Hit("changed_value", f"{show(ga, x)} then {show(gb, theirs[0])}", 0.9, slot)
    for key, x in ga.objects:
        for y in gb.new:
            if not key.startswith("@") or set(x) & set(y) or any(known(w, a.vocab) for w in y):
                continue
            if any(known(w, b.vocab) for w in x):
                continue
            slot = frozenset(x) | frozenset(y)
            return Hit("changed_value", f"{show(ga, x)} then {show(gb, y)}", 0.85, slot)
    for key, x in ga.objects:
        for other, y in gb.objects:
            if key != other or set(x) & set(y):
                continue
            if any(_said(w, b.vocab, y) for w in x) or any(_said(w, a.vocab, x) for w in y):
                continue
            if key.startswith("@like") and not b.update and not (a.vocab | b.vocab) & _CHOICE:
                continue  # to like one thing and another: "loves hiking" / "loves cooking"
            reason = f"{show(ga, x)} then {show(gb, y)}"
            slot = frozenset(x) | frozenset(y)
            return Hit("changed_value", reason, 0.85 if b.update else 0.75, slot)
    return None
