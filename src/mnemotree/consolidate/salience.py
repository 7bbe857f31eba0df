"""How lasting a note is, read from its wording alone (no model, no LLM).

Disuse forgetting may archive a note only when it reads like a passing event
or chatter and shows no sign of lasting knowledge. Lasting knowledge holds
beyond the moment it was written: a rule or obligation, a recurrence, a limit
or deadline, who owns or handles what, where something is kept, a how-to (an
imperative), a configuration value or an identifier (versions, paths, ports,
variables, account references), a system's setup, a taste or an allergy, a
decision, a cause, a plan, a calendar date. A passing event is anchored to the
moment of writing ("today", "this morning", "on Friday"), told in the past
tense of a diary ("Bought…", "…was descaled"), is chatter (exclamations,
emoji, "lol", evaluations such as "great" or "terrible"), or a state that
ends when someone acts: a chore waiting ("the plants need watering"), a
fault to fix ("the kettle is broken"). A plan for one near day ("the garage
will be closed on Saturday") is an occasion: long over by the time disuse
may archive it, so the plan is no lasting sign where the meaning can weigh it.

Time counts too: a note of a past event that nobody used for a long time
(`Policy.long_disuse_days`) needs less evidence that it is everyday life.

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
# A note of a past one-off event nobody used for a long time
# (`Policy.long_disuse_days`) is less likely ever to be needed, so it needs
# less evidence of being everyday life: half the margin. No less: the lean of
# work notes told in the past tense ("Fixed the login loop by ...") scatters a
# few hundredths around zero with a small embedder. A note said of the moment
# gets no such easing: its margin is nil already, and useful notes told of a
# day ("the heating engineer came today and said ...") lean just below it.
EVERYDAY_PAST_LONG_UNUSED = EVERYDAY_PAST / 2
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTHS = (
    "January|February|March|April|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{pattern})\b", re.I)


# A gerund ("watering", "clearing"), not a word that merely ends in -ing.
_GERUND = r"(?!(?:no|some|any|every)thing\b|morning\b|evening\b|spring\b)\w{2,}ing\b"


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
            rf"biweekly|fortnightly|weekdays|weekends|usually|whenever|per|(?:{_DAYS})s|"
            rf"(?:{_DAYS}) (?:mornings|afternoons|evenings|nights))\b",
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
        # Someone's thing and its value ("Tom's shoe size is 42"); an event of
        # someone's that is arranged ("her farewell lunch is planned for ...")
        # is a plan, not a value.
        "an attribute",
        re.compile(
            r"(?:\b(?:my|our|your|his|her|their)|\w['’]s)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:is|are)\b"
            r"(?!\s+(?:planned|scheduled|booked|arranged)\b)",
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
            r"provisioned|set up|tuned|patched|rebuilt|restored|reindexed"
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
    (
        # "by" and a gerund tells how a thing was done ("fixed it by clearing
        # the cache"): a way to do it again.
        "a how-to",
        re.compile(
            rf"\b(?:how to|steps?|to \w+ \w+, \w+)\b|\bby {_GERUND}",
            re.I,
        ),
    ),
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

# One near day, as one names the day of an occasion: "on Saturday", "next
# Friday", "this weekend", "tomorrow". A day that bounds a lasting state ("from
# next Monday", "until Friday", "every Friday") names no occasion.
_ON_A_DAY = re.compile(
    r"(?<!\bfrom )(?<!\bstarting )(?<!\bas of )(?<!\buntil )(?<!\btill )(?<!\bby )"
    rf"\b(?:(?:on|next|this|coming) (?:{_DAYS})\b(?!s| (?:mornings|afternoons|evenings|nights)\b)|"
    r"(?:this|next) weekend\b|tomorrow\b)",
    re.I,
)
# Signs of a passing moment.
PASSING: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        # "again" (it happened before) and "finally" (the wait is over) tell
        # how an event stands to others, not that it is tied to the moment:
        # "the landlord called again about the damp", "finally got the visa".
        "said of the moment",
        _words(
            r"today|tonight|yesterday|this (?:morning|afternoon|evening|time|week)|last night|"
            r"just now|right now|all (?:day|morning|afternoon|night)|overnight|at lunch|"
            r"after lunch|after school|on the way (?:in|home)"
        ),
    ),
    ("one particular day", re.compile(rf"{_ON_A_DAY.pattern}|\b(?:{_DAYS})['’]s\b", re.I)),
    # "need" with a gerund is a thing waiting to be done ("the plants need
    # watering", "the car needs washing"), over once someone does it; "needs
    # to" is an obligation, a rule.
    ("a chore to do", re.compile(rf"\bneeds? {_GERUND}", re.I)),
    # A fault lasts until someone repairs it ("the kettle is broken").
    ("a fault to fix", _words(r"(?:is|are) (?:broken|stuck|jammed|out of order|out of service)")),
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
# "has" or "have" with a participle tells an event (the perfect: "nobody has
# assembled them yet"), not a state that holds now; "has been" still does.
_PERFECT = re.compile(
    r"\b(?:has|have)(?:\s+(?:not|never|already|just|yet|now))?\s+"
    r"(?!been\b|need(?:ed)?\b)(?:[a-z]{3,}ed|done|gone|made|taken|seen|given|got|gotten|brought|"
    r"bought|sent|found|left|lost|won|broken|written|eaten|fallen|sold|told|paid|met|built)\b",
    re.I,
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
    long_unused: bool = False  # unused for `Policy.long_disuse_days`

    @property
    def trivia(self) -> bool:
        """The only notes disuse may archive: passing cues, no lasting one,
        and a meaning that does not lean to work knowledge. A past-tense
        verb alone is a weak cue: engineers log changes in the past tense
        ("Bumped the pool to 50"), so it archives a note only when its
        meaning is clearly everyday life, and never beside a clause in the
        present tense ("the person who broke it fixes it"); after long
        disuse, by half that margin."""
        if self.lasting:
            return False
        if any(p != PAST_EVENT for p in self.passing):
            return self.lean is None or self.lean > EVERYDAY_MOMENT
        margin = EVERYDAY_PAST_LONG_UNUSED if self.long_unused else EVERYDAY_PAST
        return bool(self.passing) and not self.present and (self.lean or 0.0) >= margin

    def explain(self) -> str:
        if self.lasting:
            return f"it reads as lasting knowledge ({', '.join(self.lasting)})"
        lean = "" if self.lean is None else f", meaning leans {self.lean:+.2f} to everyday life"
        if self.passing:
            return f"it reads as a passing moment ({', '.join(self.passing)}{lean})"
        return f"its wording shows nothing either way{lean}"


def estimate(
    text: str, *, keyed: bool = False, lean: float | None = None, long_unused: bool = False
) -> Salience:
    """The salience of a note; `keyed` is a fact stored under a key (an
    attribute with a value, lasting by construction); `lean` is where its
    meaning lies (`Topics.lean`), if known; `long_unused`: nobody used it
    for `Policy.long_disuse_days`."""
    read = _OTHER_READINGS.sub(_masked, text)
    lasting = [name for name, pattern in LASTING if pattern.search(read)]
    if "a plan" in lasting and lean is not None and _occasion(text):
        lasting.remove("a plan")
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
    present = _PRESENT.search(_PERFECT.sub(" ", text)) is not None
    return Salience(
        tuple(dict.fromkeys(lasting)), tuple(dict.fromkeys(passing)), present, lean, long_unused
    )


# Words of a lasting cue that read otherwise here: "left the lights on" leaves
# a thing somewhere (no one left a team); "the plants need watering" is a
# chore waiting (no one must do anything).
_OTHER_READINGS = re.compile(
    r"\b(?P<word>left) (?:the|a|an|my|our|your|his|her|their) (?:[\w-]+ ){0,3}?"
    r"(?:on|off|open|unlocked|running|behind|outside)\b|"
    rf"\b(?P<need>needs?) {_GERUND}",
    re.I,
)
# A plan for a state that lasts from then on, not for an occasion.
_FROM_THEN_ON = _words(r"from now on|starting|going forward|from then on|onwards")


def _masked(found: re.Match[str]) -> str:
    word = found.group("word") or found.group("need")
    return found.group().replace(word, "_" * len(word), 1)


def _occasion(text: str) -> bool:
    """A plan for one near day ("the garage will be closed on Saturday", "the
    lunch is planned for next Friday"): an occasion, over within days of its
    writing, and long past by the time disuse may archive it. Whether anyone
    needs the record of it then depends on what it was (a barbecue, or the
    day payments moved to a new provider): only with the meaning's lean,
    which the passing cue then weighs, is the plan no lasting sign."""
    return _ON_A_DAY.search(text) is not None and not _FROM_THEN_ON.search(text)


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
    "housing: rent, the lease, the landlord, insurance and utility bills",
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
