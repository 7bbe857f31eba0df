"""How lasting a note is, read from its wording alone (no model, no LLM).

Disuse forgetting may archive a note only when it reads like a passing event
or chatter and shows no sign of lasting knowledge. Lasting knowledge holds
beyond the moment it was written: a rule or obligation, a recurrence, a limit
or deadline, who owns or handles what, where something is kept, a how-to (an
imperative), a configuration value or an identifier (versions, paths, ports,
variables, account references), a system's setup, a taste or an allergy, a
decision, a cause, a plan, a calendar date. A passing event is anchored to the
moment of writing ("today", "this morning", "on Friday"), told in the past
tense of a diary ("Bought…", "…was descaled"), or is chatter (exclamations,
emoji, "lol", evaluations such as "great" or "terrible").

The two kinds are asymmetric on purpose: a single sign of lasting knowledge
keeps a note whatever else it says, and a note with no sign either way is
kept too. Only a note that has passing cues and no lasting ones is trivia.
Forgetting something useful costs far more than keeping a note about cake.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]
Embed = Callable[[list[str]], npt.NDArray[np.float32]]  # texts -> one row per text

# How far a note's meaning must lean to everyday life (a cosine margin) for
# a past-tense verb alone to make it trivia; a note said of the moment
# ("today", "lol") is trivia unless its meaning leans to work knowledge at all.
EVERYDAY_PAST = 0.10
EVERYDAY_MOMENT = 0.0
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTHS = (
    "January|February|March|April|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{pattern})\b", re.I)


# Signs of lasting knowledge, each named for the plan's reason.
LASTING: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "a rule",
        _words(
            r"must|mustn't|should|shouldn't|shall|needs?|have to|has to|required|requires?|"
            r"mandatory|only|never|always|may not|can't|cannot|do not|don't|doesn't|avoid|"
            r"make sure|ensure|policy|allowed|forbidden|approvals?"
        ),
    ),
    (
        "a recurrence",
        re.compile(
            rf"\b(?:every|each|daily|weekly|monthly|yearly|annually|quarterly|nightly|hourly|"
            rf"biweekly|fortnightly|weekdays|weekends|usually|whenever|per|(?:{_DAYS})s)\b",
            re.I,
        ),
    ),
    (
        "a limit or deadline",
        _words(
            r"until|till|expires?|expiry|renews?|renewal|due|deadline|valid|retention|ttl|limit|"
            r"max|maximum|min|minimum|at most|at least|sla|quota|notice|within"
        ),
    ),
    (
        "an owner or role",
        _words(
            r"owns?|owned|owner|responsible|in charge|handles?|handled|maintains?|maintainer|"
            r"lead|manager|dba|admin|administrator|approves?|approver|on-?call|contact|"
            r"go(?:es)? (?:to|through)|escalations?|forwards? to"
        ),
    ),
    (
        "an attribute",
        re.compile(
            r"\b(?:my|our|your|his|her|their)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:is|are)\b|"
            r"\w['’]s\s+[\w-]+(?:\s+[\w-]+)?\s+(?:is|are)\b",
            re.I,
        ),
    ),
    (
        "where something is",
        _words(
            r"(?:is|are) (?:kept|stored|located|hosted|with|in|on|under|behind|inside)|"
            r"lives? (?:in|on|at|under)|writes? to|reads? from"
        ),
    ),
    (
        "a system's setup",
        _words(
            r"uses?|using|runs? on|runs|depends on|written in|built (?:with|on)|hosted|"
            r"configured|deployed (?:to|on)|backed by|listens|points to|connects to|supports?|"
            r"supported|(?:moved|migrated|switched|upgraded|downgraded)(?: \S+){0,4} (?:to|from)|"
            r"decommissioned|deprecated|retired|rolled (?:back|out)|reverted|shipped|released|"
            r"deployed|enabled|disabled|installed|uninstalled|renamed|merged|removed|replaced|"
            r"provisioned|set up|tuned|patched"
        ),
    ),
    (
        "a decision or cause",
        _words(
            r"decided|decision|agreed|approved|signed off|chose|chosen|standard|convention|"
            r"takeaway|lesson|because|caused by|came from|comes from|due to|root cause|so that|"
            r"instead of|in favou?r of"
        ),
    ),
    (
        "a change of state",
        _words(
            r"started|stopped|quit|gave up|joined|left the|signed up|enrolled|registered|"
            r"subscribed|unsubscribed|cancelled (?:the|our|my)|took over|handed (?:over|to)|"
            r"switched|adopted|hired|fired"
        ),
    ),
    (
        "a plan",
        _words(
            r"will|going to|(?:is|are) moving|plans? to|planned|next (?:week|month|quarter|year|"
            r"sprint)|from now on|starting"
        ),
    ),
    (
        "a taste or health note",
        _words(
            r"prefers?|preferred|likes|(?:I|we|they|you) like|dislikes?|loves|hates?|"
            r"favou?rites?|allergic|allergy|intolerant|vegetarian|vegan|gluten|diet"
        ),
    ),
    ("a how-to", _words(r"how to|steps?|to \w+ \w+, \w+")),
)
# A calendar date names a day worth remembering (a birthday, a renewal);
# "May" is a month only where a date would use it.
_DATE = re.compile(
    rf"\b(?:{_MONTHS})\b|\b(?:in|on|of|by|until) May\b|\bMay \d|\b(?:19|20)\d\d\b|"
    r"\b\d{1,2}/\d{1,2}\b|\bQ[1-4]\b"
)
# Identifiers: the names and values of systems a note exists to remember.
_IDENTIFIERS = (
    # Versions and decimals, but not sums of money ("paid 4.50", "€4.50", "4.50 EUR").
    re.compile(
        r"(?<![$€£\w.])(?<!paid )v?\d+\.\d+(?:\.\d+)*\b"
        r"(?!\s*(?:eur|usd|gbp|euros?|dollars?|pounds?)\b)",
        re.I,
    ),
    re.compile(r"[\w.-]*\w/[\w./*-]+|://"),  # paths, URLs, branch patterns
    re.compile(r"\b\w+\.(?:ya?ml|json|toml|ini|env|py|ts|js|sh|sql|md|cfg|conf|csv|txt)\b", re.I),
    re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[a-z]+_[a-z_]+\b"),  # variables, keys
    re.compile(r"`[^`]+`|(?:^|\s)--?[a-z][\w-]+|(?:^|\s)#[a-z][\w-]+|\S+@\S+\.\w+"),
    re.compile(r"\bport \d+|\b\d{3,}[\s-]\d{3,}", re.I),  # ports, phone numbers
    re.compile(r"(?<!^)(?<![.!?] )\b[A-Z][a-zA-Z]+ \d+(?:\.\d+)*\b"),  # Postgres 15, iOS 16
    re.compile(r"\b[A-Za-z][a-z]+[A-Z]\w*"),  # CamelCase names: PagerDuty, CronJobs, GitHub
)
# Letters mixed with digits name a thing (r6g, A-48213, eu-west-1, argon2id),
# except times, ordinals and amounts with a unit (1pm, 28th, 5km).
_MIXED = re.compile(r"\b(?=[\w-]*[a-z])(?=[\w-]*\d)[a-z0-9][\w-]*\b", re.I)
_NOT_AN_ID = re.compile(r"\d+(?:st|nd|rd|th|am|pm|h|m|s|k|km|kg|min|mins|hrs?|x)", re.I)
_ACRONYM = re.compile(r"\b[A-Z]{2,}s?\b")
_CHAT_ACRONYMS = frozenset("OK TV LOL BRB OMG FYI BTW TBH IMO LMAO WTF".split())

# Signs of a passing moment.
PASSING: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "said of the moment",
        _words(
            r"today|tonight|yesterday|this (?:morning|afternoon|evening|time|week)|last night|"
            r"just now|right now|all (?:day|morning|afternoon|night)|overnight|at lunch|"
            r"after lunch|after school|on the way (?:in|home)|again|finally"
        ),
    ),
    ("one particular day", re.compile(rf"\bon (?:{_DAYS})\b(?!s)|\b(?:{_DAYS})['’]s\b", re.I)),
    (
        "chatter",
        re.compile(
            r"!|\b(?:lol|haha|hehe|brb|omg|yay|woo|ugh|meh|lmao|great|nice|nicer|fun|funny|"
            r"terrible|awful|cool|lovely|ok|okay|fine|boring|tired|delicious|yummy|amazing|"
            r"happy)\b",
            re.I,
        ),
    ),
    ("someone unnamed", _words(r"someone|somebody|everyone|everybody")),
    ("something finished", _words(r"(?:is|are) (?:done|finished|over)")),
)
PAST_EVENT = "a past event"
_PRESENT = _words(
    r"is|are|am|isn't|aren't|has|have|get|gets|does|do|can|it's|that's|there's|"
    r"he's|she's|\w+['’]re"
)
_IRREGULAR_PAST = frozenset(
    """was were had did went got came left brought bought saw ate drank wore heard forgot
    found took made met ran paid spent sent told thought felt gave kept lost sat stood fed
    won broke fell flew drove rode sang swam threw caught fought""".split()
)
_NOT_PAST = frozenset(
    """need red bed shed wed hundred sacred naked wicked beloved aged based used
    required expired owned handled supported planned decided agreed deprecated retired
    decommissioned hosted configured preferred""".split()
)
_PARTICIPLE_AFTER = frozenset("is are be been being has have get gets".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


@dataclass(frozen=True, slots=True)
class Salience:
    """What a note's wording shows: signs of lasting knowledge and of a
    passing moment (each named once, in the order found), and where its
    meaning leans (`Topics.lean`; None without a model that can tell)."""

    lasting: tuple[str, ...]
    passing: tuple[str, ...]
    present: bool = False  # a clause in the present tense
    lean: float | None = None

    @property
    def trivia(self) -> bool:
        """The only notes disuse may archive: passing cues, no lasting one,
        and a meaning that does not lean to work knowledge. A past-tense
        verb alone is a weak cue: engineers log changes in the past tense
        ("Bumped the pool to 50"), so it archives a note only when its
        meaning is clearly everyday life, and never beside a clause in the
        present tense ("the person who broke it fixes it")."""
        if self.lasting:
            return False
        if any(p != PAST_EVENT for p in self.passing):
            return self.lean is None or self.lean > EVERYDAY_MOMENT
        return bool(self.passing) and not self.present and (self.lean or 0.0) >= EVERYDAY_PAST

    def explain(self) -> str:
        if self.lasting:
            return f"it reads as lasting knowledge ({', '.join(self.lasting)})"
        lean = "" if self.lean is None else f", meaning leans {self.lean:+.2f} to everyday life"
        if self.passing:
            return f"it reads as a passing moment ({', '.join(self.passing)}{lean})"
        return f"its wording shows nothing either way{lean}"


def estimate(text: str, *, keyed: bool = False, lean: float | None = None) -> Salience:
    """The salience of a note; `keyed` is a fact stored under a key (an
    attribute with a value, lasting by construction); `lean` is where its
    meaning lies (`Topics.lean`), if known."""
    lasting = [name for name, pattern in LASTING if pattern.search(text)]
    if _DATE.search(text):
        lasting.append("a calendar date")
    if _identifier(text):
        lasting.append("an identifier or value")
    if _imperative(text):
        lasting.append("an instruction")
    if keyed:
        lasting.append("a keyed fact")
    passing = [name for name, pattern in PASSING if pattern.search(text)]
    if any(unicodedata.category(c) == "So" for c in text):
        passing.append("chatter")
    if _past_event(text):
        passing.append(PAST_EVENT)
    present = _PRESENT.search(text) is not None
    return Salience(tuple(dict.fromkeys(lasting)), tuple(dict.fromkeys(passing)), present, lean)


def _identifier(text: str) -> bool:
    if any(pattern.search(text) for pattern in _IDENTIFIERS):
        return True
    if any(not _NOT_AN_ID.fullmatch(m.group()) for m in _MIXED.finditer(text)):
        return True
    return any(m.group().rstrip("s") not in _CHAT_ACRONYMS for m in _ACRONYM.finditer(text))


_INSTRUCTIONS = frozenset(
    """use run ask send check set request call book keep make avoid remember put add
    restart deploy open tag read write update install rotate page ping email contact
    ensure follow never always do don't pick bring store schedule reply tell cc file
    submit go note prefer""".split()
)


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in re.split(r"[.;:!?\n]+|\s[-–—]\s", text) if c.strip()]


def _imperative(text: str) -> bool:
    """A clause that starts with an instruction verb ("Use the hotfix/*
    prefix", "To rebuild the index, run ..."): a how-to."""
    for clause in _clauses(text):
        clause = re.sub(r"^(?:to|if|when|before|after)\b[^,]*,\s*", "", clause, flags=re.I)
        first = _WORD.match(clause)
        if first and first.group().lower() in _INSTRUCTIONS:
            return True
    return False


def _past_event(text: str) -> bool:
    """A verb in the past tense of a diary: "Bought a phone case", "the
    machine was descaled" (not "is owned by", a participle)."""
    words = [w.lower() for w in _WORD.findall(text)]
    for i, word in enumerate(words):
        before = words[i - 1] if i else ""
        if word in _IRREGULAR_PAST:
            return True
        if (
            len(word) > 4
            and word.endswith("ed")
            and not word.endswith("eed")
            and word not in _NOT_PAST
            and before not in _PARTICIPLE_AFTER
        ):
            return True
    return False


# What a note is about, described in general words (not example notes): the
# subjects of passing chatter, and those of knowledge worth keeping.
EVERYDAY_LIFE = (
    "food, drinks, snacks, lunch and dinner",
    "the weather: rain, sun, snow, heat and cold",
    "how someone felt: tired, happy, bored, in a good mood",
    "pets and animals",
    "hobbies, sports, games, films, books and television",
    "household chores: cleaning, laundry, shopping, tidying",
    "small talk and jokes between colleagues",
    "the office kitchen, coffee machine, plants, furniture and printer",
    "commuting, traffic, trains, buses and parking",
    "a party, a celebration, cake and presents",
    "clothes, haircuts and personal errands",
    "a walk, a trip to the shop, a visit to a cafe",
)
WORK_KNOWLEDGE = (
    "software, source code, bugs and fixes",
    "servers, databases, clusters and cloud infrastructure",
    "configuration, settings, feature flags and environment variables",
    "deployments, releases, pipelines and continuous integration",
    "monitoring, dashboards, alerts and incidents",
    "security, passwords, credentials, certificates and access rights",
    "team processes, policies, rules and responsibilities",
    "who owns which system and whom to ask",
    "contracts, accounts, invoices, budgets and vendors",
    "health, allergies, medication and doctors",
    "family members, birthdays and important dates",
    "appointments, deadlines, renewals and bills",
)
# An embedder must place this share of each side's descriptions nearer
# their own side than the other to be trusted with the lean.
SELF_CHECK = 0.75


class Topics:
    """Where a note's meaning lies between everyday life and work knowledge,
    by an embedder: its cosine to the nearest everyday subject minus that to
    the nearest knowledge subject (positive: everyday)."""

    def __init__(self, everyday: npt.NDArray[np.float32], knowledge: npt.NDArray[np.float32]):
        self.everyday = everyday
        self.knowledge = knowledge

    def lean(self, vector: Vector) -> float:
        norm = float(np.linalg.norm(vector)) or 1.0
        return float((self.everyday @ vector).max() - (self.knowledge @ vector).max()) / norm

    @classmethod
    def of(cls, identity: str, embed: Embed) -> Topics | None:
        """The topics as this embedder sees them (made once per embedder), or
        None when it cannot tell the two sides apart (a hashing embedder
        matches words, not meanings)."""
        with _LOCK:
            if identity not in _MADE:
                _MADE[identity] = cls._made(embed)
            return _MADE[identity]

    @classmethod
    def _made(cls, embed: Embed) -> Topics | None:
        everyday = _unit(embed(list(EVERYDAY_LIFE)))
        knowledge = _unit(embed(list(WORK_KNOWLEDGE)))
        if min(_own_side(everyday, knowledge), _own_side(knowledge, everyday)) < SELF_CHECK:
            return None
        return cls(everyday, knowledge)


_LOCK = threading.Lock()
_MADE: dict[str, Topics | None] = {}


def _unit(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    out = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.asarray(out / np.where(norms > 0, norms, 1.0), dtype=np.float32)


def _own_side(side: npt.NDArray[np.float32], other: npt.NDArray[np.float32]) -> float:
    """Share of `side`'s descriptions nearer the mean of the rest of their
    side than to the mean of `other` (leave one out)."""
    theirs = other.mean(axis=0)
    near = 0
    for i, vector in enumerate(side):
        rest = np.delete(side, i, axis=0).mean(axis=0)
        near += float(vector @ rest) > float(vector @ theirs)
    return near / len(side)
