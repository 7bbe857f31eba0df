"""Word lists of the contradiction detector: general English, not fitted to any data.

Words are compared as crude stems (`stem`), and words of one frame (what a
statement is about: where someone lives, where they work, who leads
something, what they like or use) are folded into one token ("@place"), so
"lives in", "is based in" and "moved to" name the same attribute.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

# Function words: never an attribute or a value.
STOP = frozenset(
    """a an the this that these those of in on at to for from by with about as into onto
    upon via per than then and or but so if it its it's itself he she they them their theirs
    his her hers him themselves himself herself who whom whose which what where when why how
    there here is are was were be been being am do does did doing done until till
    will would can could should shall must may might some any all every each both either
    very really quite just also too up down out off over under again once only own same such
    other another more most much many few lot lots one's s t whether while during within
    without through across around along near onto toward towards between among against
    below above beyond beneath
    something anything everything nothing someone anyone everyone thing things way get gets
    getting got gotten make makes made let lets whenever wherever whatever""".split()
)
# Pronouns: who a statement is about when it names no one.
PRONOUNS = {
    "i": "user",
    "me": "user",
    "my": "user",
    "mine": "user",
    "myself": "user",
    "user": "user",
    "user's": "user",
    "users": "user",
    "we": "we",
    "us": "we",
    "our": "we",
    "ours": "we",
    "ourselves": "we",
    "you": "you",
    "your": "you",
    "yours": "you",
}
# Words that mean someone else than the subject ("Lena's sister moved to ...").
RELATIONS = frozenset(
    """sister brother mother mom mum father dad parent parents wife husband partner son
    daughter kid kids child children roommate flatmate friend colleague coworker boss cousin
    aunt uncle grandma grandpa grandmother grandfather neighbour neighbor girlfriend boyfriend
    fiance fiancee niece nephew team family deputy assistant""".split()
)
NEGATORS = frozenset("not no never none nobody nothing without neither nor cannot".split())
# Verbs that deny their object ("quit smoking", "left Amazon"), mapped to the
# stem of what they deny when that is a word of its own ("dislike" -> "like").
NEGATIVE_VERBS = {
    "dislike": "like",
    "hate": "like",
    "detest": "like",
    "quit": "",
    "stop": "",
    "cancel": "",
    "drop": "",
    "abandon": "",
    "leave": "",
    "ditch": "",
    "lack": "",
    "remove": "",
    "uninstall": "",
    "unsubscribe": "",
    "lose": "",
    "lost": "",
    "discontinue": "",
    "deprecate": "",
    "sell": "",
    "sold": "",
    "revoke": "",
    "withdraw": "",
    "delete": "",
    "retire": "work",
    "resign": "work",
    "end": "",
    "lapse": "",
    "expire": "",
    "forget": "",
    "forgot": "",
    "forgotten": "",
}
# Particles that make a verb deny: "stepped down as", "gave up", "moved off".
_NEGATIVE_PHRASES = (
    ("step", "down"),
    ("step", "off"),
    ("step", "away"),
    ("give", "up"),
    ("move", "away"),
    ("pull", "out"),
    ("back", "out"),
    ("opt", "out"),
    ("give", "away"),
    ("shave", "off"),
    ("move", "out"),
    ("walk", "away"),
    ("phase", "out"),
    ("call", "off"),
    ("cut", "out"),
)
# States that exclude each other; the first is the one a statement asserts
# or denies, the second asserting the first's denial ("divorced" = not married).
ANTONYMS = (
    ("married", "divorced"),
    ("married", "single"),
    ("employed", "unemployed"),
    ("open", "closed"),
    ("open", "shut"),
    ("enabled", "disabled"),
    ("private", "public"),
    ("required", "optional"),
    ("mandatory", "optional"),
    ("allowed", "forbidden"),
    ("allowed", "prohibited"),
    ("online", "offline"),
    ("active", "inactive"),
    ("available", "unavailable"),
    ("locked", "unlocked"),
    ("accepted", "rejected"),
    ("full-time", "part-time"),
    ("synchronous", "asynchronous"),
    ("sync", "async"),
    ("supported", "unsupported"),
    ("visible", "hidden"),
    ("stable", "unstable"),
    ("healthy", "unhealthy"),
    ("included", "excluded"),
    ("present", "absent"),
    ("alive", "dead"),
    ("safe", "unsafe"),
    ("valid", "invalid"),
    ("blocked", "unblocked"),
    ("paid", "unpaid"),
    ("enable", "disable"),
    ("allow", "forbid"),
    ("editable", "read-only"),
    ("writable", "read-only"),
    ("smoker", "non-smoker"),
    ("heated", "unheated"),
    ("up-to-date", "outdated"),
    ("up-to-date", "out-of-date"),
    ("full", "empty"),
    ("passing", "failing"),
    ("valid", "expired"),
    ("clean", "dirty"),
    ("paid", "free"),
    ("in-stock", "out-of-stock"),
    ("done", "pending"),
    ("finished", "unfinished"),
)
# The last word of an occupation: "engineer", "analyst", "nurse", "CTO".
OCCUPATION = re.compile(
    r"(?:er|or|ist|ista|ant|ian|yst|ee|ent|ect|ive|ic|eon|nurse|lead|chef|cook|clerk|head|"
    r"intern|dba|cto|ceo|cfo|coo|vp|student|pm|pilot|guard|judge|coach|nanny|medic|"
    r"paralegal|sre|dev|devops|rep|associate|secretary|vet|waitress|actress)$"
)
# Frames: what a statement is about. A value (a name, a role) is compared
# with another only when both statements speak of one frame.
FRAMES = {
    "@place": """live living lived lives reside resident residence based home house stay
        stays stayed staying settle located location host hosted hosting city town country
        address office region datacenter relocate relocated flat apartment hometown rent""",
    "@work": """work works worked working job employ employer employed employee employment
        hire hired join joined company career position role staff intern startup
        freelance contractor payroll firm employer""",
    "@lead": """lead leads led leader own owns owned owner ownership maintainer maintain
        maintains responsible charge on-call assignee assigned manager""",
    "@like": """like likes liked love loves loved enjoy enjoys enjoyed fan prefer prefers
        preferred preference favourite favorite go-to choice rather want wants wanted wish
        default fond ask asks asked request requests requested""",
    "@use": """use uses used using build built power powered stack rely relies depend
        depends adopt adopted tool platform engine""",
    "@speak": "speak speaks spoke language languages fluent",
    "@origin": "born birthplace grew grow native origin",
    "@travel": """fly flew flight flying travel travels travelling traveling traveled
        travelled visit visits visited visiting trip""",
}
# Frames whose value never changes ("born in"): a move does not contradict them.
FIXED = frozenset({"@origin", "@travel"})
# Verbs that say a value changed; the value after their "to" is the new one,
# after their "from" the old one.
CHANGE = """move moved moving moves relocate relocated migrate migrated migrating switch
    switched switching change changed changing update updated upgrade upgraded downgrade
    downgraded rename renamed reschedule rescheduled postpone postponed delay delayed slip
    slipped push pushed bring brought extend extended raise raised lower lowered increase
    increased decrease decreased cut reduce reduced bump bumped replace replaced replacing
    become became took-over handed-over transfer transferred convert converted refix refixed
    resize resized drop dropped shrink shrank shrunk rise rose risen fall fell fallen slash
    slashed double doubled halve halved shift shifted triple tripled climb climbed refinance
    refinanced
    rebook rebooked reassign reassigned renegotiate renegotiated reset reprice repriced
    scale scaled emigrate emigrated promote promoted hand hands handed pass passed redesign
    redesigned repaint repainted rebrand rebranded redo redid"""
# Words in a later statement that say it describes a newer state.
UPDATE_MARKERS = frozenset(
    """now anymore no-longer no-more nowadays since new newly switched moved relocated
    migrated upgraded downgraded renamed rescheduled postponed delayed slipped pushed
    extended raised lowered increased decreased cut reduced bumped became become changed
    replaced dropped quit stopped left joined started correction actually instead
    handed refixed took-over handed-over recently lately mistaken misremembered
    henceforth""".split()
)
# Words that say when or how a value changed: never an attribute of their own.
SLACK = frozenset(
    """now currently current recently just lately ago since again anymore nowadays still
    today finally officially actually instead new newly latest previous previously
    formerly originally initially always usually mostly generally typically normally
    completely fully totally entirely basically all whole rest please big news correction
    update note fyi heads turns turned out back already yet soon meanwhile also then
    these right main primary mainly exactly around roughly approximately about some
    both after before later earlier last next past week weeks upcoming following set
    setting kept keep keeps longer called named corrected revised updated final actual real
    apparently""".split()
)
# Words of when: never the attribute a denial or a value is about.
_TIME_WORDS = """day days week weeks month months year years weekend weekends morning mornings
    afternoon afternoons evening evenings night nights noon midday overnight lunchtime quarter
    spring summer autumn fall winter season today tonight tomorrow yesterday date dates
    time times schedule""".split()
ADDITION = frozenset("also too another additionally second addition besides extra".split())
# Discourse labels before a colon: "Correction: my birthday is ..."
LABELS = frozenset(
    "correction update note fyi edit news big reminder ps heads-up context todo".split()
)
MONTHS = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
WEEKDAYS = {
    "monday": 1,
    "tuesday": 2,
    "wednesday": 3,
    "thursday": 4,
    "friday": 5,
    "saturday": 6,
    "sunday": 7,
    "mon": 1,
    "tue": 2,
    "tues": 2,
    "wed": 3,
    "thu": 4,
    "thur": 4,
    "thurs": 4,
    "fri": 5,
    "sat": 6,
    "sun": 7,
}
NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "dozen": 12,
    "half": 0.5,
    "once": 1,
    "twice": 2,
}
MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 10**9}
ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
}
# Units, folded to one spelling and a factor, so "30 seconds" equals "half a minute".
UNITS = {
    "s": ("s", 1),
    "sec": ("s", 1),
    "secs": ("s", 1),
    "second": ("s", 1),
    "ms": ("s", 0.001),
    "millisecond": ("s", 0.001),
    "min": ("s", 60),
    "mins": ("s", 60),
    "minute": ("s", 60),
    "h": ("s", 3600),
    "hr": ("s", 3600),
    "hrs": ("s", 3600),
    "hour": ("s", 3600),
    "day": ("s", 86400),
    "week": ("s", 604800),
    "fortnight": ("s", 1209600),
    "month": ("month", 1),
    "year": ("year", 1),
    "yr": ("year", 1),
    "kb": ("b", 1e3),
    "kilobyte": ("b", 1e3),
    "mb": ("b", 1e6),
    "megabyte": ("b", 1e6),
    "gb": ("b", 1e9),
    "gigabyte": ("b", 1e9),
    "tb": ("b", 1e12),
    "terabyte": ("b", 1e12),
    "byte": ("b", 1),
    "percent": ("%", 1),
    "pct": ("%", 1),
    "%": ("%", 1),
    "m2": ("m2", 1),
    "sqm": ("m2", 1),
    "dollar": ("usd", 1),
    "usd": ("usd", 1),
    "$": ("usd", 1),
    "euro": ("eur", 1),
    "eur": ("eur", 1),
    "€": ("eur", 1),
    "pound": ("gbp", 1),
    "gbp": ("gbp", 1),
    "£": ("gbp", 1),
    "req": ("request", 1),
    "request": ("request", 1),
    "km": ("m", 1000),
    "kilometre": ("m", 1000),
    "kilometer": ("m", 1000),
    "metre": ("m", 1),
    "meter": ("m", 1),
    "mile": ("mile", 1),
    "kg": ("g", 1000),
    "kilo": ("g", 1000),
    "gram": ("g", 1),
    "bed": ("bedroom", 1),
    "k": ("", 1000),
    "core": ("cpu", 1),
    "cpu": ("cpu", 1),
    "vcpu": ("cpu", 1),
    "degree": ("degc", 1),
    "celsius": ("degc", 1),
    "fahrenheit": ("degf", 1),
    "litre": ("l", 1),
    "liter": ("l", 1),
    "l": ("l", 1),
    "ml": ("l", 0.001),
}
# How often: "weekly" or "every two weeks", in seconds.
PERIODS = {
    "hourly": 3600,
    "daily": 86400,
    "nightly": 86400,
    "weekly": 604800,
    "biweekly": 1209600,
    "fortnightly": 1209600,
    "monthly": 2629800,
    "quarterly": 7889400,
    "yearly": 31557600,
    "annually": 31557600,
    "annual": 31557600,
}
# Words of one meaning, folded before comparing.
SYNONYMS = {
    "price": "cost",
    "fee": "cost",
    "goal": "target",
    "movie": "film",
    "begin": "start",
    "finish": "end",
    "reply": "response",
    "respond": "response",
    "mail": "email",
    "deployment": "deploy",
    "postgresql": "postgres",
    "grocery": "grocery",
    "led": "lead",
    "spoke": "speak",
    "flew": "fly",
    "took": "take",
    "went": "go",
    "left": "leave",
    "grew": "grow",
    "ran": "run",
    "bought": "buy",
    "taught": "teach",
    "began": "start",
    "became": "become",
    "gave": "give",
    "came": "come",
    "sent": "send",
    "built": "build",
    "kept": "keep",
    "held": "hold",
    "paid": "pay",
    "sold": "sell",
    "wrote": "write",
    "met": "meet",
    "found": "found",
    "stood": "stand",
    "told": "tell",
    "meds": "medication",
    "data": "data",
    "sq": "square",
    "has": "have",
    "had": "have",
    "having": "have",
    "db": "database",
    "need": "require",
    "needed": "require",
    "cancelled": "cancel",
    "cancelling": "cancel",
    "travelled": "travel",
    "travelling": "travel",
    "labelled": "label",
    "modelled": "model",
    "fuelled": "fuel",
    "levelled": "level",
    "given": "give",
    "taken": "take",
    "gone": "go",
    "eaten": "eat",
    "written": "write",
    "driven": "drive",
    "spoken": "speak",
    "chosen": "choose",
    "broken": "break",
    "grown": "grow",
    "flown": "fly",
    "begun": "start",
}
# Verbs (as stems): where a subject ends when nothing else marks it.
VERBS = frozenset(
    """be is are was were am been being do does did has have had will would can could should
    shall must may might need live work use prefer like love enjoy hate want wish run listen
    accept own lead manage handle start end begin finish join leave move relocate migrate
    switch change become take make go come get give keep set cost speak play teach coach
    follow support require allow provide include contain store host deploy build release ship
    open close meet happen depart arrive fly travel visit eat drink smoke quit stop drop cancel
    book buy pay spend stay commute read write call send receive sleep know think say tell ask
    mention recommend seem look feel sound appear grow bear die pass marry test review cover
    expose map generate schedule reschedule postpone extend push slip raise lower cut
    increase decrease reduce bump upgrade downgrade rename replace remove add install enable
    disable measure weigh earn save rent hold hand maintain mean serve respond answer reply
    protect cap limit last time step found adopt drive ride walk cook exercise train study
    learn graduate retire resign hire fire promote demote report track check sell plan
    intend decide agree refuse avoid tend mostly accept refix employ find see hear try
    lower target mark share commute rely depend belong sit stand apply charge sync send
    back process power land miss win lose break fix ask order reside settle locate relocate
    report request rely depend speak raise visit subscribe unsubscribe listen watch
    swear""".split()
)


def stem(word: str) -> str:
    """A crude stem that maps a word's forms together: live, lives, lived,
    living -> liv; stopped -> stop (a final e is always dropped)."""
    word = SYNONYMS.get(word, word)
    for suffix in ("ies", "ing", "ied", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2 and not word.endswith("ss"):
            if suffix == "es" and not word.endswith(("ses", "xes", "zes", "ches", "shes")):
                suffix = "s"
            base = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            if suffix in ("ing", "ed") and not any(c in "aeiouy" for c in base):
                break  # "spring", "thing", "shed": no suffix of a verb
            if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2] not in "lsfz":
                base = base[:-1]  # "stopped" -> "stop"
            if base.endswith("ee"):
                return base[:-1]  # "agrees" -> "agre", as "agree"
            if suffix == "ed" and word.endswith("eed"):
                return base if len(word) > 5 else word  # "agreed" -> "agre"; "need"
            return SYNONYMS.get(base, base).removesuffix("e")
    return word.removesuffix("e") if len(word) >= 3 else word


_DERIVED = (
    "ation",
    "ition",
    "ment",
    "ship",
    "ness",
    "ance",
    "ence",
    "ing",
    "ion",
    "ant",
    "ent",
    "ist",
    "er",
    "or",
    "al",
    "ive",
)


@lru_cache(maxsize=8192)
def root(word: str) -> str:
    """A stem without its derivation: manager, management -> manag;
    engaged, engagement -> engag; consultant, consulting -> consult."""
    for suffix in _DERIVED:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)].removesuffix("e")
    return word


def stems(words: Iterable[str]) -> frozenset[str]:
    return frozenset(stem(w) for w in words)


FRAME_OF = {stem(w): name for name, words in FRAMES.items() for w in words.split()}
CHANGE_STEMS = stems(CHANGE.split())
SLACK_STEMS = stems(SLACK) | SLACK
# as written and as stems, since both are checked against it
TIME_WORDS = frozenset(_TIME_WORDS) | stems(_TIME_WORDS)
NEGATIVE_STEMS = {stem(k): stem(v) if v else "" for k, v in NEGATIVE_VERBS.items()}
VERB_STEMS = stems(VERBS) | VERBS | CHANGE_STEMS
# Each state mapped to (the state it is about, whether it asserts it).
NEGATIVE_PHRASES = frozenset((stem(verb), particle) for verb, particle in _NEGATIVE_PHRASES)
STATE_OF = {stem(b): (stem(a), False) for a, b in ANTONYMS} | {
    stem(a): (stem(a), True) for a, _ in ANTONYMS
}
