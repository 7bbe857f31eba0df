"""A chat sentence as a memory reads it: in the third person, self-contained.

"I prefer tea", said by Dana, is kept as "Dana prefers tea": a memory is
read later, by someone else, without the chat around it. First person
becomes the speaker's name (the verb agreeing with it), "we" becomes the
team the chat names or "the team", and the chat's openers ("ok so", "tbh")
and a trailing emoji go.
"""

from __future__ import annotations

import re

TEAM = "the team"  # who "we" is when the chat names no team
USER = "the user"  # who "I" is when the speaker has no name
ASSISTANT = "the assistant"  # whom a user's standing instruction is given
# Words the rewrite brings in: not news when a memory says the same without them.
ADDED_WORDS = frozenset({"team", "user", "assistant", "wants", "want"})
OPENER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|yeah|yes|yep|right|alright|also|and|but|btw|tbh|honestly|"
    r"actually|anyway|fwiw|fyi|oh|hmm+|um+|uh+|great|cool|perfect|sure|fine|agreed|wait|aw+|"
    r"(?:one )?(?:last|more) thing|by the way)"
    r"[\s,:;.!-]+)+",
    re.I,
)
_TRAILING = re.compile(
    r"(?:[\s,]+(?:btw|tbh|honestly|lol|haha|fyi|imo|imho|though|anyway))*"
    r"[\s\U0001F300-\U0001FAFF\u2600-\u27BF!,;:-]*$",
    re.I,
)
_IRREGULAR = {
    "am": "is",
    "'m": " is",
    "have": "has",
    "'ve": " has",
    "do": "does",
    "don't": "doesn't",
    "go": "goes",
    "was": "was",
}
# Verbs that stay as they are after a third-person subject.
_MODAL = frozenset(
    "will would can could should shall may might must 'll 'd did didn't won't wouldn't can't "
    "cannot couldn't shouldn't was wasn't had hadn't".split()
)


def third_person(sentence: str, speaker: str, team: str | None = TEAM) -> str:
    """`sentence` (said by `speaker`) with its first person named; "we" is
    `team`, or left as said when `team` is None (one person talking with an
    assistant: their "we" is a household or a company no one named)."""
    text = _TRAILING.sub("", OPENER.sub("", sentence.strip())).strip()
    if not text:
        return sentence.strip()
    if speaker:
        text = _name_first_person(_subject_said(text, speaker), speaker)
    if team:
        text = _name_we(text, team)
    return text[0].upper() + text[1:]


_ADVERBS = r"(?:also|really|just|still|never|always|usually|often|actually|only|now|\w+ly)"
# Chat's lowercase "i" is the speaker where it cannot be anything else: with
# a contraction ("i'll"), or opening the sentence ("i think so"); not "i.e."
# nor "item i of the list".
_SUBJECT_I = re.compile(
    rf"(?:\bI|(?<![\w.])i(?='(?:m|ve|ll|d)\b)|^i(?=\s+\w))((?:\s+{_ADVERBS})*)"
    rf"('m|'ve|'ll|'d|\s+[\w']+)?\b"
)
# Past forms that take no -s: the common irregular ones (regular ones end in -ed).
_PAST = frozenset(
    """went was were had got made took said saw came left bought thought found told felt kept
    ran began wrote sent spent met paid lost heard knew gave brought built caught chose drove
    ate fell flew forgot grew held hit hurt let lent meant put quit read rode rang rose sat
    sold shut slept sold spoke stood stole swam taught threw understood woke won wore""".split()
)


# Verbs in the present that end as a past does ("I need" is "Lena needs").
_PRESENT_ED = frozenset(
    "need feed bleed breed speed proceed succeed exceed heed embed shred".split()
)


# Said of oneself without "I" ("signed up for the 10k", "need to renew my
# passport"): a past tense, or a need, opening the sentence. Past participles
# that read as a state ("tired of it", "based in Porto") are not actions.
_STATES = frozenset(
    """based tired excited worried scared bored interested stressed exhausted obsessed confused
    related supposed used done fed annoyed pleased thrilled gutted""".split()
)
_UNSAID_I = re.compile(
    r"^(?:(?:just|finally|already|also|actually|literally)\s+)?([a-z]+)\b(?!:)(?=\s+\w)", re.I
)


# What follows a verb of the speaker's: a particle, a preposition, an article,
# a pronoun or a number ("signed up", "booked the flights", "got 61%").
_OBJECT = re.compile(
    r"\s+(?:up|out|in|on|off|to|for|with|at|by|from|into|back|down|over|around|through|"
    r"the|a|an|my|our|his|her|their|its|this|that|these|those|some|it|them|him|me|us|"
    r"\d)",
    re.I,
)
_FINITE = re.compile(r"^(?:\s+[\w'-]+){0,3}?\s+(?:is|are|was|were|has|have|will|can|'s)\b", re.I)


def _subject_said(text: str, name: str) -> str:
    """`text` with its speaker named where it opens with their verb and no subject."""
    found = _UNSAID_I.match(text)
    if not found:
        return text
    verb = found.group(1).lower()
    past = verb in _PAST or (len(verb) > 4 and verb.endswith("ed") and verb not in _PRESENT_ED)
    if verb in _STATES or not (past or verb in ("need", "have", "want")):
        return text
    rest = text[found.end() :]
    if verb in ("need", "have", "want") and not re.match(r"\s+to\b", rest):
        return text
    if _FINITE.match(rest):
        return text  # "shared budgets is out": the verb is later, the first word its subject's
    if past and not _OBJECT.match(rest):
        return text  # "fixed costs went up", "left knee aches": no verb of the speaker's
    return f"I {text[0].lower()}{text[1:]}"


def _name_first_person(text: str, name: str) -> str:
    def subject(found: re.Match[str]) -> str:
        adverbs, verb = found.group(1), found.group(2)
        return f"{name}{adverbs}{_agree(verb) if verb else ''}"

    text = _SUBJECT_I.sub(subject, text)
    text = re.sub(r"\b(?:my|My|mine)\b", f"{name}'s", text)
    text = re.sub(r"\bmyself\b", name, text)
    return re.sub(r"(?<![\w'])me\b", name, text)


def _agree(verb: str) -> str:
    """The verb after I, as it reads after a name ("'m" -> " is", " prefer" -> " prefers")."""
    if verb in ("'m", "'ve"):
        return _IRREGULAR[verb]
    if verb in ("'ll", "'d"):
        return " will" if verb == "'ll" else " would"
    word = verb.strip()
    lower = word.lower()
    if lower in _IRREGULAR:
        return " " + _IRREGULAR[lower]
    past = lower.endswith("ed") and lower not in _PRESENT_ED
    if lower in _MODAL or lower in _PAST or not lower.isalpha() or past:
        return " " + word
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return f" {word}es"
    if re.search(r"[^aeiou]y$", lower):
        return f" {word[:-1]}ies"
    return f" {word}s"


def _name_we(text: str, team: str) -> str:
    owner = team
    text = re.sub(r"^We\b", owner[0].upper() + owner[1:], text)
    text = re.sub(r"\bwe\b", owner, text)
    text = re.sub(r"\b(?:our|Our)\b", f"{owner}'s", text)
    text = re.sub(r"\b(?:ourselves)\b", owner, text)
    text = re.sub(r"\bus\b", owner, text)
    text = re.sub(rf"\b{re.escape(owner)}'ll\b", f"{owner} will", text)
    text = re.sub(rf"\b{re.escape(owner)}'d\b", f"{owner} would", text)
    text = re.sub(rf"\b{re.escape(owner)}'re\b", f"{owner} are", text)
    return re.sub(rf"\b{re.escape(owner)}'ve\b", f"{owner} have", text)


# How a request asks, before what it asks ("can you", "pls", "make sure you").
ASKS = (
    r"(?:can|could|would|will)\s+you|please|pls|plz|i'?d like you to|i want you to|"
    r"i need you to|make sure (?:you|to)|it'?d (?:help|be (?:great|nice|good|better)) if you"
)
# Verbs an instruction opens with ("keep it short", "use metric").
IMPERATIVES = (
    r"keep|always|never|stop|use|give|write|format|answer|reply|respond|explain|show|put|"
    r"do|don'?t|no more|less|fewer|more|start|begin|open|end|mention|tell|cite|include|"
    r"leave|avoid|skip|stick|add|list|be|assume|check|address|refer|speak|talk"
)
# A standing when ("when you write code for me", "for recipes", "any time you...").
WHEN = r"(?:whenever|when|every time|each time|any ?time|for)\s+(?:you\b|\w+ing\b|\w+s\b)[^,]*"
_ASKING = re.compile(rf"^(?:{ASKS}|from now on|going forward|always)\b[\s,]*", re.I)
_ASKING_TAIL = re.compile(r"[\s,]*(?:please|pls|plz|thanks|thx)?[\s?!.]*$", re.I)
# "Whenever you give me numbers, mention the source" / "...a recipe can you put...":
# the standing when, and the ask after it.
_WHENEVER = (
    re.compile(rf"^({WHEN}),\s*", re.I),
    re.compile(
        r"^((?:whenever|when|every time|each time) you\b[^,]*?)\s+"
        r"(?=(?:can|could|would|will|please|pls)\b)",
        re.I,
    ),
)
# "Small request: could you...", "One rule for code examples: ...": a label before the ask.
_PREAMBLE = re.compile(r"^((?:[\w'-]+\s+){0,4}[\w'-]+):\s+(?=\S)")
_ASKER = re.compile(r"\b(?:please|pls|you|me|my)\b", re.I)
_IF_YOU_CAN = re.compile(r",?\s*if (?:u|you) can\b", re.I)
_NEGATED = re.compile(r"^(?:don'?t|do not|never|no more)\s+", re.I)
_BARE_NO = re.compile(r"^no\s+(?=\w)", re.I)
_BARE_NOT = re.compile(r"^not\s+", re.I)


def instruction(sentence: str, speaker: str, addressee: str = ASSISTANT) -> str:
    """A standing instruction as a memory: "pls keep answers short from now
    on", said by Keiko, is "Keiko wants the assistant to keep answers short
    from now on"; "pls not factorial again" is "Mateo does not want factorial
    again"."""
    rest = OPENER.sub("", sentence.strip())
    label = _PREAMBLE.match(rest)
    if label and not _ASKER.search(label.group(1)):
        rest = rest[label.end() :]
    when = _WHENEVER[0].match(rest) or _WHENEVER[1].match(rest)
    if when:  # "whenever you give me a recipe can you put...": the when goes last
        told = re.sub(
            r"\byou (\w+)", lambda m: f"it {_agree(' ' + m.group(1)).strip()}", when.group(1)
        )
        rest = f"{rest[when.end() :].rstrip(' .!')} {told[:1].lower()}{told[1:]}"
    rest = _IF_YOU_CAN.sub("", rest)
    for _ in range(3):  # "also from now on can you always ..."
        rest = OPENER.sub("", _ASKING.sub("", rest)).strip()
    rest = _ASKING_TAIL.sub("", _TRAILING.sub("", rest)).strip()
    if not rest:
        return third_person(sentence, speaker)
    rest = _name_first_person(rest, speaker)
    rest = re.sub(r"(?<![\w'])(?:your|Your)\b", "its" if addressee == ASSISTANT else "their", rest)
    who = speaker[:1].upper() + speaker[1:]
    negated = _NEGATED.match(rest)
    if negated:
        return f"{who} does not want {addressee} to {rest[negated.end() :]}."
    bare = _BARE_NOT.match(rest) or _BARE_NO.match(rest)
    if bare:
        return f"{who} does not want {rest[bare.end() :]}."
    return f"{who} wants {addressee} to {rest[0].lower()}{rest[1:]}."
