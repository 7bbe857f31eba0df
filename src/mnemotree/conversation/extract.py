"""Offline capture: the memories a window of chat states, as clean sentences.

Each message is read as its speaker typed it: pasted material (code, logs,
tables, quotes) set aside (`chat_text`), each sentence's mood and kind read
(`statements`), and a kept sentence rewritten to stand alone: the speaker's
first person named, "we" made the team, a short reply that leans on the
message before it ("we can't ship without one") given that message's
subject (`voice`). A request becomes an action item once its addressee
accepts it; an action item carries its owner and due date (`actions`).
What an assistant says waits for review (its confidence stays below the
promotion mark), unless it restates what the user said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from .actions import ACCEPT, COMMIT, due, only_when, owner
from .answers import answer
from .chat_text import plain, prose
from .cues import Candidate
from .extractive import Said, content_terms
from .numbered import Named, by_number, named
from .picks import CHOICE_WORDS, PICK, chose
from .referents import antecedent, earlier, fragment, leans
from .statements import TO_YOU, Reading, about_answers, mood, read
from .voice import ASSISTANT, TEAM, USER, instruction, third_person

# Confidence an assistant's statement keeps at most: below the promotion
# mark, so it waits for `promote`.
ASSISTANT_CAP = 0.6
# What an assistant says is kept (for review) when it is about the user's
# own plans and settles something: "you're booked at Hotel Lux".
_ABOUT_USER = re.compile(r"\b(?:you|your|you're|you've|you'll)\b", re.I)
_CONFIRMED = frozenset({"decision", "fact", "constraint"})
ACCEPT_WORDS = 8  # longer replies say more than yes: read sentence by sentence
_PROPOSAL = re.compile(
    r"^(?:so |ok |okay |then )?(?:should we|shall we|can we|could we|do we|what if we|"
    r"how about|what about|why don'?t we|let'?s|i (?:suggest|propose|vote)(?: we)?|"
    r"proposal:|i'?d (?:go with|say)|we could|maybe we|maybe)\s*",
    re.I,
)
_ASKED = re.compile(
    r"^(?:@?[A-Za-z]+[,:]?\s+)?(?:can|could|would|will)\s+you(?:\s+(?:please|pls))?\s+"
    r"|^(?:@?[A-Za-z]+[,:]?\s+)?(?:please|pls|plz)\s+",
    re.I,
)

# "remind me to set up the standing order": the speaker's own action item.
_REMIND = re.compile(
    r"^\W*(?:(?:pls|please|and|also|oh|(?:can|could|would) you)\s+)*remind me\s+"
    r"(?P<when>(?:[\w']+\s+){0,3}?)to\s+",
    re.I,
)

_CHOICE = Reading("decision", "stated", 0.75)


def extract(messages: Sequence[Said]) -> list[Candidate]:
    """Every memory the messages state, at most one per sentence."""
    found: list[Candidate] = []
    # "We" is the team where several people talk; one person's "we" (with an
    # assistant) is left as said.
    team = TEAM if len({m.speaker for m in messages if m.role != "assistant"}) > 1 else None
    assisted = any(m.role == "assistant" for m in messages)
    for index, said in enumerate(messages):
        reply = messages[index + 1] if index + 1 < len(messages) else None
        agreed = _agreed(messages, index)
        if agreed is not None and all(agreed != c.text for c in found):  # one "deal" each
            found.append(Candidate(agreed, "decision", 0.75, index, said.speaker, settled=True))
        user = said.role != "assistant"
        whole = by_number(messages, index) if user else None  # "1. obviously": read whole
        if whole is not None:
            found.extend(_numbered(whole, index, said))
            continue
        claimed: list[int] = []  # where this message's claims are in `found`
        for sentence in commitments(dated(prose(said.text).sentences)):
            numbers = named(sentence, messages, index) if user else None
            if numbers is not None:
                claimed += range(len(found), len(found) + len(numbers.items))
                found.extend(_numbered(numbers, index, said, sentence))
                continue
            if _dates_claim(sentence, said, claimed, found):
                continue
            reading = _chosen(sentence, said) or read(sentence)
            if reading.kind is None or _aside(sentence, said, reading):
                continue
            picked = reading is _CHOICE
            leaning = picked or leans(sentence)
            answered = antecedent(messages, index, sentence, picks=picked) if leaning else None
            if picked and answered is None:
                continue  # a pick among options nobody here offered
            told = reading.kind == "preference" and reading.mood == "request"
            if answered is None and fragment(sentence) and not told:
                continue  # "friday at the latest": of what is not clear
            around = (answered, reply, _addressee(said, reply, assisted))
            candidate = _candidate(sentence, reading, index, said, around, team)
            # "I'll do it": the request it accepts is the action item already.
            if candidate is None or _takes_on(candidate, sentence, found):
                continue
            if picked and answered is not None:  # who chose what, from the options offered
                options = plain(answered).rstrip(".?!")
                picks_from = f"{chose(sentence, _named(said), team).rstrip('.?! ')} ({options})"
                candidate = replace(candidate, text=picks_from)
            if not _restates(candidate, sentence, found):
                found.append(replace(candidate, settled=picked))
        # "BL-20417" after "what's the account ID?", where nothing else was kept.
        valued = None if any(c.message == index for c in found) else answer(messages, index)
        if valued is not None:
            found.append(valued)
    return found


def _numbered(numbers: Named, index: int, said: Said, sentence: str = "") -> list[Candidate]:
    """Items of a list a reply names by number, as its speaker's action items
    (a claim, due when the sentence says) or as what they chose (a pick)."""
    name = _named(said)
    who = name[:1].upper() + name[1:]
    if numbers.kind == "pick":
        (item,) = numbers.items[:1]
        return [
            Candidate(f"{who} chose {item}.", "decision", 0.75, index, said.speaker, settled=True)
        ]
    when = due(sentence, said.day)
    return [
        Candidate(f"{who} will take on {item}.", "action", 0.8, index, said.speaker, who, when)
        for item in numbers.items
    ]


# "I can have it in by friday": a sentence that only points back at a claim.
_POINTS_BACK = re.compile(r"\b(?:it|that|this|them|both)\b", re.I)
DATING_WORDS = 12


def _dates_claim(sentence: str, said: Said, claimed: list[int], found: list[Candidate]) -> bool:
    """Whether a short sentence after a claim only dates it ("2 and 3 are me.
    alert by monday", "1 is mine. I can have it in by friday"): the claimed
    item it names by a word of its own takes its due date; the only one, if
    the sentence points back at it. Any other sentence is read for itself."""
    when = due(sentence, said.day) if claimed else ""
    if not when or len(sentence.split()) > DATING_WORDS:
        return False
    words = set(content_terms(sentence))
    shared = [(len(words & set(content_terms(found[at].text))), at) for at in claimed]
    best, at = max(shared)
    if not best and not (len(claimed) == 1 and _POINTS_BACK.search(sentence)):
        return False
    found[at] = replace(found[at], due=found[at].due or when)
    return True


def dated(sentences: Sequence[str]) -> list[str]:
    """A message's sentences, a fragment that says only when ("may 17.",
    "friday at the latest") joined to the sentence before it: "signed up for
    the 10k. may 17." is one statement."""
    out: list[str] = []
    for sentence in sentences:
        if out and not out[-1].endswith("?") and only_when(sentence):
            # "I can do the calls. by thursday?" offers a day: no question of the calls.
            out[-1] = f"{out[-1].rstrip(' .!')}, {sentence.rstrip(' ?')}"
        else:
            out.append(sentence)
    return out


# "..., and I'll send the offer friday": a second commitment in one sentence.
_AND_I_WILL = re.compile(
    r"(?:[,;]\s*|\s+)(?:and then|and also|and|also|then|plus)\s+"
    r"(?=I(?:'ll| will|'m going to| am going to)\s)",
    re.I,
)


def commitments(sentences: Sequence[str]) -> list[str]:
    """Sentences with each first-person commitment apart: "I'll brief Helga
    today, and I'll send the offer friday" is two action items."""
    out: list[str] = []
    for sentence in sentences:
        parts = _AND_I_WILL.split(sentence)
        if len(parts) > 1 and COMMIT.search(parts[0]):
            out.extend(part.strip() for part in parts if part.strip())
        else:
            out.append(sentence)
    return out


# An action that names what it does only by pointing back ("I'll do it by the 22nd").
_DO_IT = re.compile(r"\b(?:do|handle|sort|finish)\s+(?:it|that|this)\b", re.I)


def _restates(candidate: Candidate, sentence: str, found: list[Candidate]) -> bool:
    """Whether an action only restates one its owner took on earlier in the
    same message ("I'll send the notice. ... I'll do it by the 22nd"): the
    earlier one takes its due date, and no second item is kept."""
    if candidate.type != "action" or not _DO_IT.search(sentence):
        return False
    for at, before in enumerate(found):
        same = before.message == candidate.message and before.owner == candidate.owner
        if same and before.type == "action" and candidate.owner:
            if candidate.due:
                found[at] = replace(before, due=candidate.due)
            return True
    return False


def _agreed(messages: Sequence[Said], index: int) -> str | None:
    """A decision made by agreeing: someone proposes ("should we push the
    breaker to Q2?", "how about Tracewell, 1 year"), another accepts ("deal",
    "agreed", "👍"), maybe after a message or two by others. The decision is
    the latest proposal. A request accepted is an action item instead (see
    `actions.owner`)."""
    said = messages[index]
    if said.role == "assistant":
        return None
    if not ACCEPT.match(said.text) or len(said.text.split()) > ACCEPT_WORDS:
        return None
    for before in earlier(messages, index):
        for sentence in reversed(prose(before.text).sentences):
            if _ASKED.match(sentence):
                return None  # "can you own it?" / "sure": an action, read there
            proposed = _PROPOSAL.match(sentence)
            # "let's do the review in here, doc is pinned" arranges the chat itself.
            if proposed and len(sentence.split()) >= 3 and mood(sentence) != "small_talk":
                rest = sentence[proposed.end() :].strip(" ?!.")
                return f"Agreed: {rest}." if rest else None
    return None


def _takes_on(candidate: Candidate, sentence: str, found: Sequence[Candidate]) -> bool:
    """Whether an action is its owner saying yes to the request just before,
    already an action item of theirs (asked by someone else, kept as of this
    reply)."""
    return (
        candidate.type == "action"
        and bool(ACCEPT.match(sentence))
        and any(
            c.type == "action"
            and c.message == candidate.message
            and c.owner == candidate.owner
            and c.speaker != candidate.speaker
            for c in found
        )
    )


def _chosen(sentence: str, said: Said) -> Reading | None:
    """A short pick among what was offered ("off peak is fine", "DéménEurope
    then, june 8", "netflix stays"): a decision, once what it picks is found."""
    short = len(sentence.split()) <= CHOICE_WORDS
    if said.role == "assistant" or not short or not PICK.search(sentence.rstrip(" .!")):
        return None
    if about_answers(sentence):
        return None  # "keep it under 100 words": how to answer, not a pick
    return _CHOICE


def _aside(sentence: str, said: Said, reading: Reading) -> bool:
    """Not a memory of the chat: what one person tells another about them
    ("you have never once bought a ticket"), and an assistant's own advice
    (what it says is kept only where it is about the user's plans)."""
    if said.role == "assistant":
        if _promised(sentence, said, reading):
            return False
        return not _ABOUT_USER.search(sentence) or reading.kind not in _CONFIRMED
    return reading.mood != "request" and bool(TO_YOU.match(sentence))


_WILL = re.compile(r"\bI(?:'ll| will|'m going to| am going to)\b", re.I)
# Names an assistant goes by that are roles, not a person who can promise.
_ROLE_NAMES = frozenset({"", "assistant", "ai", "bot", "agent", "tutor", "coach", "system", "tool"})


def _promised(sentence: str, said: Said, reading: Reading) -> bool:
    """Whether an assistant's sentence is a dated promise of its own ("I'll
    push the refund through today"): what a support agent answering as the
    assistant commits to. Kept for review, as all it says."""
    named_agent = said.speaker.strip().lower() not in _ROLE_NAMES
    promise = _WILL.search(sentence) and due(sentence, said.day)
    return reading.kind == "action" and named_agent and bool(promise)


def _candidate(
    sentence: str,
    reading: Reading,
    index: int,
    said: Said,
    around: tuple[str | None, Said | None, str],
    team: str | None,
) -> Candidate | None:
    answered, reply, addressee = around
    kind, confidence = reading.kind, reading.confidence
    assert kind is not None
    who = ""
    when = ""
    if kind == "preference" and reading.mood == "request":
        if said.role == "assistant":
            return None
        text = instruction(sentence, _named(said), addressee)
        standing = addressee == ASSISTANT
        return Candidate(text, kind, confidence, index, said.speaker, instruction=standing)
    if kind == "action" or reading.mood == "request":
        who = owner(sentence, said.speaker, (reply.speaker, reply.text) if reply else None)
        if reading.mood == "request" and (not who or _assistant(who, said, reply)):
            return None  # asked, not (yet) taken on; or an ask of the assistant
        kind = "action" if who else kind
        day = said.day
        accepted = reply is not None and who == reply.speaker
        # A deadline said after the commitment is part of its sentence (`dated`).
        when = due(sentence, day) or (due(reply.text, day) if reply and accepted else "")
        # A request becomes an action item when it is taken on: of the reply
        # (so a capture that reads the request again as context keeps it).
        index += 1 if accepted and reading.mood == "request" else 0
    text = _standalone(sentence, said, answered, who, team)
    if said.role == "assistant":
        confidence = min(confidence, ASSISTANT_CAP)
    confidence = round(max(0.0, min(1.0, confidence)), 2)
    # A user's preference about how the assistant answers holds for every task.
    standing = (
        kind == "preference"
        and said.role != "assistant"
        and addressee == ASSISTANT
        and about_answers(sentence)
    )
    return Candidate(text, kind, confidence, index, said.speaker, who, when, instruction=standing)


def _reminder(sentence: str) -> re.Match[str] | None:
    """ "remind me (friday) to X", asking for the speaker's own X; not "remind
    me not to...", "remind me how to...", whose X is no action of theirs."""
    found = _REMIND.match(sentence)
    when = found.group("when").strip() if found else ""
    if found is None or (when and not only_when(when)):
        return None
    return found


def _addressee(said: Said, reply: Said | None, assisted: bool) -> str:
    """Whom a standing instruction is given: the assistant of a chat with
    one, else whoever answers it."""
    if assisted or reply is None or reply.speaker == said.speaker:
        return ASSISTANT if assisted else TEAM
    return reply.speaker


def _assistant(who: str, said: Said, reply: Said | None) -> bool:
    """Whether `who` is the assistant a user asked: what it is asked to do
    is the conversation itself, not an action item."""
    return reply is not None and who == reply.speaker and reply.role == "assistant"


def _standalone(sentence: str, said: Said, answered: str | None, who: str, team: str | None) -> str:
    """The sentence as a memory reads it, alone."""
    reminded = _reminder(sentence)
    asked = reminded or _ASKED.match(sentence)
    if asked and who:
        rest = sentence[asked.end() :].rstrip(" ?!.")
        if reminded and reminded.group("when"):  # "remind me friday to renew it, ..."
            head, comma, tail = rest.partition(",")
            rest = f"{head} {reminded.group('when').strip()}{comma}{tail}"
        name = _named(said)
        rest = re.sub(r"\bme\b", name, re.sub(r"\bmy\b", f"{name}'s", rest))
        text = f"{who[:1].upper()}{who[1:]} will {rest}"
    elif said.role == "assistant":
        # Its "we" is not the user's team; its own promise names it.
        text = third_person(sentence, said.speaker, None) if who else sentence.strip()
    else:
        text = third_person(sentence, _named(said), team)
    if answered is not None:
        named = _object_named(text, answered)
        text = named or f"{text.rstrip('.')} ({plain(answered).rstrip('.?!')})"
    return text if text.endswith((".", "!", "?", ")")) else text + "."


# "I'll send it" after "send me the new address": the thing the verb was asked of.
_VERB_IT = re.compile(r"\b(\w+)\s+(it|them)\b", re.I)
_THING = (
    r"\s+(?:(?:me|us|him|her|them)\s+)?(?P<thing>(?:the|a|an|your|my|our|his|her|their|those|"
    r"these)\s+[^,.?!;]{1,40}?)(?=\s+(?:when|if|by|before|after|for|so|and|but|or|pls|please|"
    r"tonight|today|tomorrow)\b|\s*[,.?!;]|\s*$)"
)


def _object_named(text: str, answered: str) -> str | None:
    """`text` with its "it" named by the sentence it answers, where that
    sentence asks the same verb of a thing ("send me the new address" /
    "Lena will send it tonight": "Lena will send the new address tonight");
    None when it names none."""
    found = _VERB_IT.search(text)
    if found is None:
        return None
    asked = re.search(rf"\b{re.escape(found.group(1))}{_THING}", answered, re.I)
    if asked is None:
        return None
    thing = re.sub(r"\byour\b", "their", asked.group("thing"), flags=re.I)
    return f"{text[: found.start(2)]}{thing}{text[found.end(2) :]}"


def _named(said: Said) -> str:
    """Who "I" is in a message: its speaker's name; an unnamed user is "the user"."""
    if not said.speaker or said.speaker.lower() == said.role.lower() or said.speaker == "user":
        return USER
    return said.speaker
