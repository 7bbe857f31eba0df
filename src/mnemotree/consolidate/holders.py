"""A new holder of something one person held: "Kim owns the deploy pipeline
now" after "Sam owns the deploy pipeline", "Omar took over as DBA" after
"Priya is the team's DBA". One thing, one holder: the later statement names
another person for the same object or role, so the earlier one is outdated.

Only a named holder counts (a capitalised name opening its clause), the
object must be the same words (articles aside), and "also", "too", "with" or
"and" beside the holder mean sharing, not a handover.
"""

from __future__ import annotations

import functools
import re

from .detect import Finding
from .detect_lexicon import OCCUPATION

CONFIDENCE = 0.85  # one object, two holders, the later named outright
_HOLDER = r"(?P<holder>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)"
_HOLDER_2 = _HOLDER.replace("<holder>", "<holder_2>")
_HOLDER_3 = _HOLDER.replace("<holder>", "<holder_3>")
_OBJECT = r"(?P<object>[\w'’.-]+(?:\s+[\w'’.-]+){0,6}?)"
_END = r"(?=\s*(?:[,;:.!?(]|\s+(?:and|now|since|from|as\s+of|again)\b|$))"
_VERBS = (
    r"owns|leads|runs|maintains|manages|heads|looks\s+after|is\s+responsible\s+for"
    r"|is\s+in\s+charge\s+of"
)
_OWNS = re.compile(rf"{_HOLDER}\s+(?:now\s+)?(?:{_VERBS})\s+{_OBJECT}{_END}")
_IS_ROLE = re.compile(
    rf"{_HOLDER}\s+is\s+(?:now\s+)?(?:the\s+team's|the|our|their|its)\s+(?:new\s+)?{_OBJECT}{_END}"
)
_TOOK_OVER = re.compile(
    rf"{_HOLDER}\s+(?:has\s+)?(?:took|taken|takes)\s+over\s+(?:as\s+(?:the\s+)?)?{_OBJECT}{_END}"
)
_JOINED = re.compile(
    rf"{_HOLDER}\s+(?:has\s+)?(?:joined|started|came\s+on)\s+as\s+(?:the|our)\s+(?:new\s+)?"
    rf"{_OBJECT}{_END}"
)
_SHARED = re.compile(r"\b(?:also|too|with|together|co-?owns?|jointly|both)\b", re.I)
_ARTICLES = frozenset("the a an our their its".split())
# Capitalised because they open a sentence: never a holder.
_NOT_NAMES = frozenset("The Our This That It We They Decision Note Goal Everyone Nobody".split())


def holdings(text: str) -> dict[str, str]:
    """What a statement says each named holder holds: {object: holder}."""
    return dict(_holdings(text))


@functools.lru_cache(maxsize=4096)
def _holdings(text: str) -> tuple[tuple[str, str], ...]:
    # Cached: a consolidation scan reads each statement against many neighbours.
    found: dict[str, str] = {}
    for pattern in (_OWNS, _IS_ROLE, _TOOK_OVER, _JOINED):
        for match in pattern.finditer(text):
            holder = match.group("holder")
            if holder.split()[0] in _NOT_NAMES:
                continue
            clause = text[match.start() : match.end() + 40]
            if _SHARED.search(clause):
                continue
            thing = _object(match.group("object"))
            if thing:
                found.setdefault(thing, _person(holder))
    return tuple(found.items())


def handed_over(earlier: str, later: str) -> Finding | None:
    """`later` names another holder for something `earlier` says one held."""
    before, after = holdings(earlier), holdings(later)
    for thing, holder in after.items():
        was = next((who for what, who in before.items() if _same(what, thing)), None)
        if was is not None and was != holder:
            return Finding.announced(f"{thing}: {was.title()} then {holder.title()}", CONFIDENCE)
    return None


def _same(one: str, other: str) -> bool:
    """One object: the same words, or one is the other's head before what
    it adds ("product manager" / "product manager for ledgerline"); two
    different complements ("QA for web" / "QA for mobile") are two objects."""
    if one == other:
        return True
    short, long = sorted((one, other), key=len)
    head = _PREPOSITION.split(long, maxsplit=1)[0].strip()
    return head == short and len(short.split()) >= 1 and short != long


_PREPOSITION = re.compile(r"\s(?:for|of|on|in|at|across|within)\s")


def _object(words: str) -> str:
    kept = [w for w in words.casefold().replace("’", "'").split() if w not in _ARTICLES]
    return " ".join(kept).rstrip(".")


def _person(holder: str) -> str:
    """A holder by first name, so "Omar Haddad" and "Omar" are one person."""
    return holder.split()[0].casefold().replace("’", "'").removesuffix("'s")


# A person's new place: "Tomás moved to the new payouts project", "Priya
# transferred to the data team", "Yuki left Kestrel", "Priya now leads the
# data platform team". A move needs a place of work (a team, a project) so
# that "Ana moved to Lisbon" (a home) is not read as a new job.
_UNIT = r"(?:team|project|squad|group|department|org|organi[sz]ation|unit|division|company|crew)s?"
_MOVED = re.compile(
    rf"{_HOLDER}\s+(?:has\s+)?(?:was\s+)?(?:moved|transferred|switched|went|rotated|joined)"
    rf"\s+(?:over\s+)?(?:to\s+)?(?:the\s+|a\s+|an\s+)?(?P<place>(?:[\w'’-]+\s+){{0,4}}?{_UNIT})\b"
    rf"|{_HOLDER_2}\s+(?:has\s+)?left\s+(?:the\s+)?(?P<left>[A-Z][\w'’&.-]*(?:\s+[A-Z][\w'’&.-]*)*"
    rf"|(?:[\w'’-]+\s+){{0,3}}?{_UNIT}\b)"
    rf"|{_HOLDER_3}\s+now\s+(?:leads|heads|runs|manages|works\s+(?:on|at|for|in)|is\s+on)"
    rf"\s+(?:the\s+)?(?P<now>[\w'’-]+(?:\s+[\w'’-]+){{0,4}})"
)
_ASSIGNED = re.compile(
    r"\s+(?:is|was)\s+(?:now\s+)?(?:a|an|the|our|the\s+team's|their)\s+(?P<role>[\w'’-]+"
    r"(?:\s+[\w'’-]+){0,3})|\s+(?:works|worked)\s+(?:on|at|for|in)\b|\s+(?:is|was)\s+(?:on|in)\s+the\s+"
    rf"(?:[\w'’-]+\s+){{0,3}}?{_UNIT}\b|\s+(?:{_VERBS})\s"
)


def moved_on(earlier: str, later: str) -> Finding | None:
    """`later` says a person moved to another team, project or company (or
    now works elsewhere); `earlier` says where that person works or what
    role they hold there, and does not already name the new place."""
    said = earlier.casefold()
    for name, place, left in _moves(later):
        # Naming the new place, the earlier statement already knows of the
        # move; naming the place left is what the move outdates.
        if _assigned(earlier, name) and (left or place not in said):
            return Finding.announced(
                f"{name.title()}: {'left' if left else 'now'} {place}", CONFIDENCE
            )
    return None


@functools.lru_cache(maxsize=4096)
def _moves(text: str) -> tuple[tuple[str, str, bool], ...]:
    """(person, place, whether it was left) for each move a statement tells.
    Cached: a consolidation scan reads each statement against many neighbours."""
    found = []
    for match in _MOVED.finditer(text):
        holder = match.group("holder") or match.group("holder_2") or match.group("holder_3")
        if holder.split()[0] not in _NOT_NAMES:
            left = match.group("left")
            place = _object(match.group("place") or left or match.group("now"))
            found.append((_person(holder), place, left is not None))
    return tuple(found)


def _assigned(text: str, person: str) -> bool:
    """Does the statement say where `person` works or what role they hold?
    Only of the person as the subject of a clause, and only a job: a role
    word ("engineer", "DBA", "lead"), a team or project, or a holder verb;
    what they like or where they live is not moved by a new job."""
    name = rf"(?<![\w'’-])(?i:{re.escape(person)})(?:\s+[A-Z][\w'’-]+)?"
    for found in re.finditer(name, text):
        if not text[found.start()].isupper():
            continue
        tail = _ASSIGNED.match(text, found.end())
        if tail is None:
            continue
        role = tail.group("role")
        if role is None or any(_job(w.casefold().rstrip(".,;:")) for w in role.split()):
            return True
    return False


def _job(word: str) -> bool:
    """A word naming a job or a place of work, not a membership or a bond."""
    return word not in _NOT_JOBS and (
        OCCUPATION.search(word) is not None or _UNIT_WORD.fullmatch(word) is not None
    )


_UNIT_WORD = re.compile(_UNIT)
_NOT_JOBS = frozenset(
    "member user customer fan friend neighbour neighbor partner supporter follower visitor "
    "player lover reader speaker owner other".split()
)
