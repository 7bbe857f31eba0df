"""Duplicates (the tiered- and living-memory designs): memories that say the same thing merge;
memories that say different things never merge.

Two statements are duplicates when their vectors are near (cosine at least
`Policy.duplicate_cosine`), they are of one scope and one type (or a plain
note and a standing typed memory), both valid (or both ended together: one
newer statement replaced both), and neither differs from the other
(`values_differ`): not in a number, date, version, name or polarity
(`detect.conflicting_values`: "...Kubernetes 1.27" and "...Kubernetes 1.29"
are a change of value, however near; "Ana likes long meetings" and "Ana
does not like long meetings" a contradiction), not by one word swapped
(`swapped`), and not by what their words relate (`dedupe_meaning`: roles
exchanged, a direction or action reversed, a narrower subject, a value
only one names, the newer saying less). Two plain notes of which one reports
another occurrence ("...broke down again") are two events.

A little below the duplicate cosine (`REWORDED_MARGIN`) a pair merges only
when its words show a rewording: most content words said by both, and what
differs reworded on both sides. The embedder finds a sentence turned around
less near; a sentence with one word changed stays near, and the checks
above keep it apart.

Groups are closed under these rules (every member agrees with every
other), so a vague statement cannot chain two different values together.
The kept member is a typed one if the group has one (it carries a type and
fields; a note saying the same merges into it), else the newest: the latest
wording of the knowledge. The others are archived, related to it by
derived_from and listed in its `merged_from`; it takes the highest
importance of the group and the earliest start of validity, and their use
counts as its own (`engine.gather`).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from ..model import Node, valid_since
from ..structured import typed
from . import detect
from .contradictions import agree
from .dedupe_meaning import agreement, differs, occurrence, read, stated
from .detect_lexicon import FRAME_OF, VERB_STEMS, stem
from .plan import Action, Policy
from .steps import Snapshot

# How far below `Policy.duplicate_cosine` a pair may be and still merge when
# its words show a rewording: the syntax turned around lowers the cosine of
# a short statement by about this much (MiniLM: "We manage all AWS
# infrastructure with Terraform" / "All AWS infrastructure is managed with
# Terraform", 0.81), while a single word changed keeps it high.
REWORDED_MARGIN = 0.07
# ... and the share of either statement's content words the other may leave
# unsaid then: a rewording keeps most words, another statement does not.
REWORDED_UNSAID = 1 / 3
PLAIN = "memory"  # the context type of a plain remembered note
# Typed memories that state what holds (not events): a plain note saying
# the same merges into one of them.
STANDING = frozenset(
    {"fact", "decision", "preference", "entity", "procedure", "constraint", "goal"}
)


def dedupe(snap: Snapshot, policy: Policy) -> list[Action]:
    """Near-duplicates merged into their newest member; see the module."""
    group_of: dict[str, list[Node]] = {}
    best: dict[str, float] = {}
    differ: dict[frozenset[str], bool] = {}

    def agrees(a: Node, b: Node) -> bool:
        pair = frozenset((a.id, b.id))
        if pair not in differ:
            gone, kept = sorted((a, b), key=_rank)
            differ[pair] = not _comparable(snap, a, b) or _apart(gone, kept) is not None
        return not differ[pair]

    def one_occurrence(a: Node, b: Node, group: list[Node]) -> bool:
        """Two notes of one group, one reporting another occurrence: apart,
        unless the group holds a standing typed memory both repeat."""
        if a.context_type != b.context_type or not occurrence(read(a.text), read(b.text)):
            return True
        return a.context_type == PLAIN and any(n.context_type in STANDING for n in group)

    # The nearest pairs join first, so a group grows from its closest core.
    floor = policy.duplicate_cosine - REWORDED_MARGIN
    for a, b, cosine in sorted(snap.similar(floor), key=lambda t: -t[2]):
        if not agrees(a, b):
            continue
        if cosine < policy.duplicate_cosine and not reworded(a, b):
            continue
        left, right = group_of.get(a.id, [a]), group_of.get(b.id, [b])
        joined = left + right
        if left is right or not all(
            agrees(x, y) and one_occurrence(x, y, joined) for x in left for y in right
        ):
            continue
        for member in joined:
            group_of[member.id] = joined
            best[member.id] = max(best.get(member.id, 0.0), cosine)
    actions = []
    seen: set[int] = set()
    for group in group_of.values():
        if id(group) in seen:
            continue
        seen.add(id(group))
        action = _merge(snap, group, best)
        if action is not None:
            actions.append(action)
    return sorted(actions, key=lambda a: a.nodes)


def _rank(node: Node) -> tuple[bool, str, str]:
    """Which memory of a group is kept: a typed one, since it carries fields
    (a key and value, artifacts) a plain note has not; then the newest, the
    latest wording of the knowledge."""
    return (node.context_type != PLAIN, node.created_at, node.id)


def _apart(gone: Node, kept: Node) -> str | None:
    """Why two comparable memories are not one fact by their words, or None
    (`gone` would be merged into `kept`). Repetition is asked of the group
    (`one_occurrence` in `dedupe`): a note that says again what a standing typed memory
    holds ("Lena asked again for small pull requests" / her preference for
    them) repeats it, its "again" about the saying, not another occurrence
    of the fact; two plain notes, one saying "again", are two events."""
    return values_differ(gone.text, kept.text)


def reworded(a: Node, b: Node) -> bool:
    """Below the duplicate cosine, the words must show one statement said
    again: most content words shared, and what differs reworded on both
    sides (not one word for one, not a phrase added or dropped)."""
    found = agreement(read(a.text), read(b.text))
    return found.reworded and found.unsaid <= REWORDED_UNSAID


def values_differ(a: str, b: str) -> str | None:
    """Why two statements are not one fact, if they are not (a is the older):
    they differ in a number, date, version, name or polarity, or one changes
    or denies the other (the detector's readings); both state numbers and
    not the same ones ("kept for 2 days" / "kept for 1900 days": one
    statement's numbers cannot be another's paraphrase); one word is
    swapped (`swapped`); or their words relate things otherwise
    (`dedupe_meaning.differs`: roles exchanged, a direction reversed, a
    value or modifier only one names, the newer saying less)."""
    found = detect.conflicting_values(a, b)
    if found is not None:
        return found
    # A pair the detector reads as a change or a denial is an update or a
    # contradiction to settle, never one fact ("create it in LaunchDarkly" /
    # "create it in Unleash; LaunchDarkly is gone": both name both values).
    changed = detect.compare(a, b) or detect.compare(b, a)
    if changed is not None and changed.confidence >= detect.REVIEW:
        return changed.reason
    left, right = read(a), read(b)
    numerals = stated(left, right), stated(right, left)
    if all(numerals) and numerals[0] != numerals[1]:
        return f"{' '.join(numerals[0])} vs {' '.join(numerals[1])}"
    return swapped(a, b) or differs(left, right)


def swapped(a: str, b: str) -> str | None:
    """The word two statements swap in one frame: they are one sentence but
    for one word ("The iOS app supports dark mode" / "The Android app ..."),
    or a noun phrase they share has another modifier ("the production EKS
    cluster was upgraded" / "the staging EKS cluster ...").
    Another word there is another subject, attribute or value, however near
    the vectors (a long sentence with one word swapped is 0.95 alike). A word
    in another form (deploy/deploys, prod/production, two/2), a function word
    or a word the other statement has elsewhere is no swap. Paraphrases that
    swap one synonym ("written"/"implemented") are left apart too: a missed
    merge costs little, a wrong one loses a fact."""
    left, right = _content(a), _content(b)
    matcher = SequenceMatcher(None, left, right, autojunk=False)
    changed = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if changed and all(t == "replace" and i2 - i1 == j2 - j1 for t, i1, i2, j1, j2 in changed):
        pairs = [
            (left[i], right[j1 + i - i1]) for _, i1, i2, j1, _ in changed for i in range(i1, i2)
        ]
        differ = [f"{x} vs {y}" for x, y in pairs if not _same_word(x, y)]
        # Two or more words reworded is more often a paraphrase ("depends on"
        # / "still needs") than a single slot changed.
        return differ[0] if len(differ) == 1 else None
    # A word before a shared noun phrase is its modifier: "production" and
    # "staging" before "EKS cluster" name two clusters. (Before a shared run
    # that opens with a function word or a number, the word is more often a
    # verb said two ways: "starts"/"begins" two days before.)
    for i, j, size in matcher.get_matching_blocks():
        head = left[i] if size >= 2 and i and j else ""
        opens = bool(head) and head not in _CLOSED and not head[:1].isdigit()
        if opens and _slot(left[i - 1], right[j - 1], left, right):
            return f"{left[i - 1]} vs {right[j - 1]}"
    return None


def _slot(x: str, y: str, left: list[str], right: list[str]) -> bool:
    """Are x and y two fillers of one slot (not one word, not function
    words, neither found elsewhere in the other statement)?"""
    return (
        x not in _CLOSED
        and y not in _CLOSED
        and _bare(x) not in map(_bare, right)
        and _bare(y) not in map(_bare, left)
        and not _same_word(x, y)
    )


def _bare(word: str) -> str:
    return word.removesuffix("'s").removesuffix("’s")


_WORD = re.compile(r"[\w'’-]+")
# Lower-case words that frame a statement without being what it is about.
_FRAME = frozenset("the a an our my your their its his her this that these those".split())
# Function words: they hold a sentence together and fill no slot.
_CLOSED = _FRAME | frozenset(
    """to of in on at for from by with about into over under after before since until
    till during between through and or but so as than then also too not no is are was
    were be been being am has have had do does did get gets got will would can could
    should must may might shall we i you he she they it them us me him who which what
    when where how there here all each every some any""".split()
)
_NUMBERS = {
    word: str(i)
    for i, words in enumerate(
        (
            "zero",
            "one first",
            "two second",
            "three third",
            "four fourth",
            "five fifth",
            "six sixth",
            "seven seventh",
            "eight eighth",
            "nine ninth",
            "ten tenth",
        )
    )
    for word in words.split()
}


_SPELLINGS = {
    frozenset(p.split())
    for p in ("each every", "until till", "til till", "til until", "is gets", "are get")
}


def _content(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text) if w not in _FRAME]


def _same_word(x: str, y: str) -> bool:
    """One word in two forms: an inflection, an abbreviation (a prefix of
    three letters or more), a number in words or digits, one of the few
    function words English says two ways ("is serviced" / "gets serviced"),
    a synonym the detector folds ("begins" / "starts", "needs" /
    "requires"), or two verbs of one attitude or relation in its lexicon
    ("prefers" / "wants", "lives" / "resides"): said of one thing, they
    state one fact."""
    if _base(x) == _base(y) or stem(x) == stem(y) or frozenset((x, y)) in _SPELLINGS:
        return True
    if _one_frame(x, y):
        return True
    short, long = sorted((x, y), key=len)
    return len(short) >= 3 and long.startswith(short)


def _one_frame(x: str, y: str) -> bool:
    left, right = stem(x), stem(y)
    return (
        left in VERB_STEMS
        and right in VERB_STEMS
        and FRAME_OF.get(left) is not None
        and FRAME_OF.get(left) == FRAME_OF.get(right)
    )


def _base(word: str) -> str:
    word = _NUMBERS.get(word, word)
    if word[:1].isdigit():
        return word.rstrip("stndrh") or word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _comparable(snap: Snapshot, a: Node, b: Node) -> bool:
    """Could these two be one memory at all (before comparing their values)?
    Of one type, or a plain note and a standing typed memory; both valid
    now, or both ended together (superseded by one newer statement: one
    statement in the history too)."""
    kinds = {a.context_type, b.context_type}
    return (
        (len(kinds) == 1 or (PLAIN in kinds and kinds - {PLAIN} <= STANDING))
        and not kinds & typed.LEVELS.keys()
        and _valid_alike(snap, a, b)
        and (kinds != {"fact"} or _same_fact(a, b))
        and _uncontested(snap, frozenset((a.id, b.id)))
    )


def _valid_alike(snap: Snapshot, a: Node, b: Node) -> bool:
    if snap.valid(a) and snap.valid(b):
        return True
    end = a.metadata.get("valid_to")
    return end is not None and end == b.metadata.get("valid_to")


def _uncontested(snap: Snapshot, pair: frozenset[str]) -> bool:
    """No contradiction recorded for the pair, or only a candidate waiting in
    review: the value checks here are what decides that one (they are
    stricter than the detector's confidence, and merged, the pair is moot)."""
    return pair not in snap.contradicted or pair in snap.under_review


def _same_fact(a: Node, b: Node) -> bool:
    return a.metadata.get("key") == b.metadata.get("key") and agree(a.metadata, b.metadata)


def _merge(snap: Snapshot, group: list[Node], best: dict[str, float]) -> Action | None:
    """The action merging a group into its kept member (`_rank`). A pinned
    memory, or one a person linked to others, is not archived: it stays
    beside it."""
    keeper = max(group, key=_rank)
    others = sorted(
        (n for n in group if n.id != keeper.id and not _stays(snap, n)),
        key=lambda n: (n.created_at, n.id),
    )
    if not others:
        return None
    top = max(best.get(n.id, 0.0) for n in (keeper, *others))
    into = "the newest wording"
    if any(n.context_type != keeper.context_type for n in others):
        into = f"the {keeper.context_type} they repeat"
    plural = "s" if len(others) > 1 else ""
    reason = (
        f"{len(others)} near-duplicate{plural} merged into {into}, {keeper.id} "
        f"({keeper.context_type}, scope {keeper.scope}, cosine up to {top:.3f}; no number, "
        "date, version, name or polarity differs)"
    )
    data: dict[str, object] = {"importance": max(n.importance for n in (keeper, *others))}
    earliest = min(valid_since(n) for n in others)
    if earliest and earliest < valid_since(keeper):
        data["valid_from"] = earliest
    return Action("dedupe", (keeper.id, *(n.id for n in others)), reason, data)


def _stays(snap: Snapshot, node: Node) -> bool:
    return node.metadata.get("pinned") is True or node.id in snap.linked
