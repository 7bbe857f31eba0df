"""Clauses of a statement: where one ends, what its subject is, whether it denies.

A text is cut at punctuation, at "but", "so", "because", at "after" or
"since" when a verb follows ("after Jordan moved teams"), at "and" before a
verb ("and now teaches ..."), at "to" before a verb, and after the object of
a denying verb ("left Deloitte | for a job at KPMG"). A clause's subject is
what stands before its verb; a clause that starts with its verb continues
the subject before it.
"""

from __future__ import annotations

from itertools import pairwise

from .detect_lexicon import (
    CHANGE_STEMS,
    FRAME_OF,
    NEGATIVE_PHRASES,
    NEGATIVE_STEMS,
    NEGATORS,
    OCCUPATION,
    PRONOUNS,
    SLACK,
    STATE_OF,
    STOP,
    TIME_WORDS,
    VERB_STEMS,
)
from .detect_tokens import Token

CONJUNCTIONS = frozenset("but so because although though whereas where which while".split())
SUBORDINATE = frozenset("after before since until when once".split())
PREPOSITIONS = frozenset("in on at for to from with by of into onto about per via".split())
COPULAS = frozenset("is are was were am be been being".split())
AUXILIARIES = frozenset("has have had will would can could should must does do did might".split())
ARTICLES = frozenset("a an the".split())
MODALS = frozenset("can could may might must should shall will would".split())
ADVERBS = SLACK | NEGATORS | frozenset("then also now just still even only".split())
PAST = frozenset(
    """led left took went grew ran became began built kept held paid sold wrote met told
    spoke flew bought taught gave came sent got made did had was were cut quit set put shut
    split hit let took-over handed-over shrank rose fell grew drove chose froze stole woke
    swam sang rang drank ate saw knew threw drew wore tore hid slid stuck struck hung won spun
    dug fled fed sped lent spent bent felt dealt meant slept swept lost said laid heard found
    brought caught fought sought thought stood understood forgot shot lit sat""".split()
)
# Where a denying verb's object ends: "left Deloitte | for a job at KPMG".
_SCOPE_END = frozenset("for to with after because since and but in".split())
# Verbs that report what someone said: "Lena says her favourite season is ..."
_REPORTING = frozenset(
    "say says said mention mentions mentioned think thinks thought told tells".split()
)
_ANAPHORA = frozenset("he she it they this that".split())
_OWN_THINGS = frozenset("careers jobs teams plans mind sides house flat apartment".split())
_PARTICLES = frozenset("back up down over out off it them this that".split())
POSSESSIVES = frozenset("his her their its".split())
_SUBJECTS = frozenset("i we you he she they it".split())
_NOBODY = frozenset("nobody nothing none everyone everybody someone somebody anyone".split())
# Words of everything or nothing: before "but" they start an exception
# ("anything but the replica", "all but the last four"), not a clause.
INDEFINITES = frozenset(
    """anything anyone anybody anywhere nothing nobody none nowhere all everything everyone
    everybody everywhere""".split()
)
# What follows a negation that excludes the alternatives rather than the
# thing said: "nothing else", "no other", "except", "unless", "other than".
_EXCEPTIONS = frozenset("else except besides unless other outside beyond".split())


def split(tokens: list[Token]) -> list[list[Token]]:
    parts: list[list[Token]] = [[]]
    denying = False
    for i, token in enumerate(tokens):
        if token.kind == "sep":
            if token.raw in ("-", "–") and _in_range(tokens, i):
                continue
            if token.raw == "," and _listed(tokens, i):
                continue
            parts.append([])
            denying = False
            continue
        ends_denial = denying and token.low in _SCOPE_END and len(parts[-1]) > 1
        contrast = bool(parts[-1]) and contrast_at(tokens, i, parts[-1])
        if parts[-1] and (ends_denial or contrast or starts_clause(tokens, i)):
            parts.append([])
            denying = contrast  # the alternative set aside ends where a phrase starts
        token.contrast = contrast
        parts[-1].append(token)
        denying = denying or _denial_at(tokens, i)
    return [p for p in parts if p]


# Verbs of choosing between two things: "chose Kafka over RabbitMQ", "prefers trains to planes".
_CHOOSING = frozenset(
    """prefer prefers preferred preferring choose chooses chose chosen choosing pick picks
    picked picking favour favours favoured favor favors favored select selects selected
    selecting like likes liked love loves loved want wants wanted recommend recommends
    recommended""".split()
)


def contrast_at(tokens: list[Token], i: int, part: list[Token]) -> bool:
    """Where the alternative a statement sets aside starts: "in Postgres |
    rather than DynamoDB", "| instead of squashing", "would rather call |
    than email", "chose Kafka | over RabbitMQ", "prefers trains | to planes".
    What follows is denied, as after "not": the thing said is chosen over it."""
    low = tokens[i].low
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is None or nxt.kind == "sep":
        return False
    if (low, nxt.low) in (("rather", "than"), ("instead", "of")):
        return True
    if low == "than":
        return any(t.low == "rather" for t in part[:-1])  # "would rather X | than Y"
    if low not in ("over", "to") or _valued(nxt) or nxt.stem in VERB_STEMS:
        return False  # "over 100 users", "prefers to work"
    # right after the chosen thing: "chose Kafka | over", not "prefer going to the gym";
    # "over" may follow the thing's own phrase ("prefers updates in the channel | over calls")
    reach, phrased = (6, True) if low == "over" else (4, False)
    for back, token in enumerate(reversed(part)):
        if token.low in _CHOOSING:
            return back >= 1
        if back >= reach or token.kind == "sep" or (token.low in PREPOSITIONS and not phrased):
            return False
        if token.low.endswith("ing") or _valued(token):
            return False
    return False


def _listed(tokens: list[Token], i: int) -> bool:
    """A comma inside a phrase ("long, detailed answers"; "Osaka, Japan"):
    no verb and no negation before the next separator."""
    for j in range(i + 1, len(tokens)):
        token = tokens[j]
        if token.kind == "sep":
            break
        if token.low in NEGATORS or token.low in CONJUNCTIONS or verb_like(tokens, j):
            return False
    return True


def _denial_at(tokens: list[Token], i: int) -> bool:
    token = tokens[i]
    if token.kind == "word" and token.stem in NEGATIVE_STEMS and denies(tokens, i):
        return True
    return bool(i) and (tokens[i - 1].stem, token.low) in NEGATIVE_PHRASES


def _in_range(tokens: list[Token], i: int) -> bool:
    return 0 < i < len(tokens) - 1 and tokens[i - 1].kind != "word" != tokens[i + 1].kind


def starts_clause(tokens: list[Token], i: int) -> bool:
    low = tokens[i].low
    if low == "but" and i and tokens[i - 1].low in INDEFINITES:
        return False  # "anything but the replica": an exception, no clause
    if low in CONJUNCTIONS or low == "without":
        return True
    if i and tokens[i - 1].low in _REPORTING and low not in PREPOSITIONS:
        return True  # "User says | fantasy is their favourite genre now"
    if low in SUBORDINATE and tokens[i].kind == "word":
        return any(verb_like(tokens, j) for j in range(i + 1, min(i + 4, len(tokens))))
    if low == "and":
        j = i + 1
        while j < len(tokens) and tokens[j].low in ADVERBS:
            j += 1
        if j >= len(tokens):
            return False
        nxt = tokens[j]
        if nxt.low in PRONOUNS and nxt.low not in ("my", "our", "your"):
            return True
        return verb_like(tokens, j) or (nxt.kind == "word" and nxt.low in VERB_STEMS)
    if low == "to" and i + 1 < len(tokens):
        nxt = tokens[i + 1]
        return nxt.kind == "word" and nxt.low in VERB_STEMS and nxt.low not in PREPOSITIONS
    return False


def verb_like(tokens: list[Token], j: int) -> bool:
    token = tokens[j]
    if token.kind != "word" or token.taken:
        return False
    low = token.low
    if low in COPULAS or low in AUXILIARIES:
        return True
    if low in PAST or token.stem in NEGATIVE_STEMS:
        return True
    inflected = low.endswith(("s", "ed", "ing")) and not low.endswith(("ss", "us", "is"))
    return inflected and token.stem in VERB_STEMS


def denies(tokens: list[Token], i: int) -> bool:
    """A denying verb with an object: "left Amazon", "quit smoking"; not
    "leaves at 6", "leaves every Tuesday", "dropped to 25", nor a state said
    at the end ("the certificate expired", "never let it expire"), which is
    told by its state."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if tokens[i].stem in STATE_OF and (nxt is None or nxt.kind == "sep"):
        return False
    before = _previous_word(tokens, i)
    if before is not None and before.low in MODALS:
        return False  # "only admins can delete projects": who may, not what ended
    if before is not None and before.low in (PREPOSITIONS - {"to"}) | ARTICLES | POSSESSIVES:
        return False  # "is on leave", "at the end", "her leave": a noun; "to end it" a verb
    if nxt is None:
        return tokens[i].stem not in ("leav", "end")
    if tokens[i].stem == "leav" and (_left_as(tokens, i) or _left_somewhere(tokens, i)):
        return False
    if tokens[i].stem == "sell" and tokens[i].low != "sold":
        return False  # "the store sells vinyl": its trade; "sold his car": no longer has it
    after = tokens[i + 2] if i + 2 < len(tokens) else None
    modifier = after is not None and after.kind == "word" and not after.unit
    modifier = modifier and after is not None and after.low not in STOP
    if nxt.value is not None and nxt.kind != "name" and not modifier:
        return False  # "dropped to 25", "leaves Tuesday"; not "stopped Sunday deliveries"
    if nxt.low in ("every", "each", "next"):
        return False
    if tokens[i].stem == "end":  # "ended my subscription", not "ends in May"
        return nxt.low in ARTICLES or nxt.low in POSSESSIVES or nxt.low in ("my", "our")
    if nxt.low == "from":  # "resigned from X" denies X; "dropped from 40 to 25" does not
        return tokens[i].stem != "drop"
    if nxt.low in PREPOSITIONS:
        return False
    return nxt.kind != "sep"


def _left_as(tokens: list[Token], i: int) -> bool:
    """ "leave the door unlocked", "left the lights on": to keep something in
    a state, no leaving."""
    for token in tokens[i + 1 : i + 6]:
        if token.kind == "sep" or (token.low in PREPOSITIONS and token.low not in ("on", "off")):
            return False
        if token.stem in STATE_OF or token.low in ("on", "off", "open", "running"):
            return True
        if token.low.startswith("un") and token.low.endswith("ed"):
            return True
    return False


def _left_somewhere(tokens: list[Token], i: int) -> bool:
    """ "left an umbrella in the meeting room", "left his keys at the desk":
    a thing put somewhere, no leaving; not "left the team in March" (a time)
    nor "left Acme in the spring"."""
    if i + 1 >= len(tokens) or tokens[i + 1].low not in ARTICLES | POSSESSIVES | {"my", "our"}:
        return False
    for j in range(i + 2, min(i + 7, len(tokens) - 2)):
        token = tokens[j]
        if token.kind == "sep":
            return False
        if token.low in _PLACES_PUT and tokens[j + 1].low in ARTICLES | POSSESSIVES | {"my", "our"}:
            return tokens[j + 2].low not in TIME_WORDS
    return False


_PLACES_PUT = frozenset("in at on behind under by near beside inside outside".split())
# Verbs that hold a quantity to a bound, said as an instruction: "Keep X under 300 ms".
_BOUNDING = frozenset("keep hold cap limit".split())
# Where the thing changed or bounded ends: "raised the rent | to", "keep the size | below".
_OBJECT_END = PREPOSITIONS | frozenset("as under below above over within beneath beyond".split())
_OPENING = CONJUNCTIONS | {"and", "then", "please", "to", "that"}  # no part of what is said


class Clause:
    """One clause: its subject, its predicate and its polarity."""

    def __init__(self, tokens: list[Token], keyed: bool, first: bool) -> None:
        self.update = False
        # the alternative set aside ("rather than DynamoDB"): denied, of the subject before
        self.contrast = not first and bool(tokens) and tokens[0].contrast
        if self.contrast:
            for token in tokens[: 2 if tokens[0].low in ("rather", "instead") else 1]:
                token.taken = True
        while tokens and tokens[0].low in _OPENING and not self.contrast:
            tokens = tokens[1:]
        self.tokens = tokens
        # "before they expire", "if it fails": a time or a condition, no state asserted
        self.conditional = bool(tokens) and tokens[0].low in SUBORDINATE | {"if", "unless"}
        base_verb = bool(tokens) and tokens[0].kind == "word" and tokens[0].stem in VERB_STEMS
        if tokens and not first and (verb_like(tokens, 0) or base_verb or _continues(tokens)):
            verb = 0
        elif self.contrast or _fragment(tokens, first):
            verb = 0  # "Standup — | 9:30 every day": a value of the subject before
        elif tokens and tokens[0].low in _BOUNDING and len(tokens) > 2:
            verb = 0  # "Keep the build time under 10 minutes": a target for the build time
        else:
            verb = verb_index(tokens, keyed)
        start = after_phrase(tokens[:verb])
        self.subject_tokens = tokens[start:verb]
        # a leading phrase ("at Sony", "after the refactor") tells circumstances
        self.predicate = tokens[verb:] + tokens[:start] if start > 1 else tokens[verb:]
        self.leading = tokens[:start] if start > 1 else []
        # "After the layoffs | the team is down to 9": a leading phrase, then what is said
        self.conditional = self.conditional and not self.leading
        self._object_as_subject(verb)
        self._inverted()
        self.verb = self._main_verb()
        self.negations = self._polarity() + self.contrast
        self.negative = self.negations % 2 == 1
        # an alternative set aside, "rather than X" or ", not X": a choice, no denial of the
        # statement's claim (its polarity is the claim's)
        bare = bool(tokens) and tokens[0].low == "not" and not first
        bare = bare and not any(verb_like(tokens, j) for j in range(1, len(tokens)))
        self.set_aside = self.negative and (self.contrast or bare)

    def unnegate(self) -> None:
        """One negation of the clause cancelled by another's."""
        self.negations = max(0, self.negations - 1)
        self.negative = self.negations % 2 == 1

    def _polarity(self) -> int:
        negations = 0
        tokens = self.tokens
        for i, token in enumerate(tokens):
            low = token.low
            if low in NEGATORS and exclusive(tokens, i):
                continue  # "bcrypt and nothing else": it says only, denies nothing
            if low in NEGATORS:
                negations += 1
                if low == "no" and i + 1 < len(tokens) and tokens[i + 1].low in ("longer", "more"):
                    self.update = True
            elif token.kind == "word" and token.stem in NEGATIVE_STEMS and denies(tokens, i):
                negations += 1
            elif i and (tokens[i - 1].stem, low) in NEGATIVE_PHRASES:
                negations += 1
                tokens[i - 1].taken = token.taken = True
                verb = tokens[i - 1].low
                self.update = self.update or verb.endswith("ed") or verb in PAST  # "stepped down"
        return negations

    def _object_as_subject(self, verb: int) -> None:
        """ "The landlord raised the rent to 1,100": the statement is about the
        rent; "I changed my default shell to zsh": about my default shell."""
        tokens = self.tokens
        if verb >= len(tokens) or tokens[verb].stem not in CHANGE_STEMS | _BOUNDING | {"end"}:
            return
        if tokens[verb].stem == "becom":
            return
        if tokens[verb].stem in NEGATIVE_STEMS and tokens[verb].stem != "end":
            return
        end = verb + 1
        while end < len(tokens) and tokens[end].low not in _OBJECT_END and end - verb <= 5:
            end += 1
        thing = tokens[verb + 1 : end]
        if not thing or thing[0].low in _PARTICLES or any(t.value is not None for t in thing):
            return
        nouns = [t for t in thing if t.low not in ARTICLES | POSSESSIVES | {"my", "our", "your"}]
        if len(nouns) == 1 and (nouns[0].stem in FRAME_OF or nouns[0].low in _OWN_THINGS):
            return  # "changed careers", "moved house": about the subject itself
        if thing[0].low in POSSESSIVES:  # "Sara lowered her goal": Sara's goal
            thing = [t for t in self.subject_tokens if t.kind == "name"] + thing[1:]
        self.subject_tokens = thing
        self.predicate = [tokens[verb], *tokens[end:]]

    def _inverted(self) -> None:
        """ "Fantasy is their favourite genre": about their favourite genre."""
        predicate = self.predicate
        if len(predicate) < 3 or predicate[0].low not in COPULAS:
            return
        j = 1
        while j < len(predicate) and predicate[j].low in ADVERBS:
            j += 1
        owned = j < len(predicate) and predicate[j].low in POSSESSIVES | {"my", "our", "your"}
        job = self._occupation(predicate[j + 1 :])  # "Femi is our office manager": a role
        if owned and any(t.stem in FRAME_OF for t in predicate[j:]) and not job:
            thing = self.subject_tokens
            self.subject_tokens = predicate[j:]
            self.predicate = [predicate[0], *thing]
        elif owned and self._named_only() and not job:
            # "Luca is our point of contact": about our point of contact, Luca its value
            thing = self.subject_tokens
            self.subject_tokens = predicate[j:]
            self.predicate = [predicate[0], *thing]

    def _named_only(self) -> bool:
        words = [t for t in self.subject_tokens if t.low not in ARTICLES and not t.taken]
        return bool(words) and all(t.kind == "name" for t in words)

    @staticmethod
    def _occupation(phrase: list[Token]) -> bool:
        """Is the phrase a job ("the CTO", "a nurse at X"): its head, before "of" or "at"."""
        head = ""
        for token in phrase:
            if token.low in PREPOSITIONS or token.kind != "word":
                break
            if token.low not in ADVERBS:  # "our DBA now"
                head = token.low
        return bool(OCCUPATION.search(head))

    def _done(self, i: int) -> bool:
        """ "does yoga", "did the dishes": "do" as the verb, with a thing done
        after it, not the auxiliary of "does not like" or "do you use"."""
        predicate = self.predicate
        if predicate[i].low not in ("do", "does", "did") or i + 1 >= len(predicate):
            return False
        nxt = predicate[i + 1]
        if nxt.kind not in ("word", "name") or nxt.low in NEGATORS or nxt.low in ADVERBS:
            return False
        return nxt.low not in PRONOUNS and nxt.stem not in VERB_STEMS

    def _main_verb(self) -> str:
        """The clause's content verb and its preposition ("report:to",
        "drive:for", "drive:"), if it has one."""
        for i, token in enumerate(self.predicate[:4]):
            if token.kind != "word" or token.taken or token.unit:
                continue
            light = token.low in COPULAS or token.low in AUXILIARIES or token.low in ADVERBS
            if light and not self._done(i):
                continue
            # a verb the lists lack, where the verb stands: "Ali cycles", "was signed"
            placed = i == 0 or self.predicate[i - 1].low in COPULAS | AUXILIARIES
            inflected = token.low.endswith(("s", "ed")) and not token.low.endswith("ss")
            if token.stem not in VERB_STEMS and not (placed and inflected):
                return ""
            nxt = self.predicate[i + 1] if i + 1 < len(self.predicate) else None
            if nxt is not None and nxt.low.endswith("ing") and nxt.kind == "word":
                return f"{token.stem}:+ing"  # "started drinking": an aspect
            preposition = nxt.low if nxt and nxt.low in PREPOSITIONS else ""
            return f"{token.stem}:{'' if preposition == 'by' else preposition}"
        return ""


def requirements(clauses: list[Clause]) -> None:
    """ "Do not merge without a green build" asks for a green build: the two
    negations cancel, and both clauses assert."""
    for clause, nxt in pairwise(clauses):
        if clause.negative and nxt.negative and nxt.tokens and nxt.tokens[0].low == "without":
            clause.unnegate()
            nxt.unnegate()


def exclusive(tokens: list[Token], i: int) -> bool:
    """The negator at i excludes everything but what is said, which the
    clause so asserts: "nothing else", "no other region", "never anything
    but the replica", "nothing reaches production except ...", "no release
    ships unless it is signed"."""
    for j in range(i + 1, len(tokens)):
        low = tokens[j].low
        if low in _EXCEPTIONS and (low != "other" or j == i + 1 or tokens[j - 1].low == "any"):
            return True
        if low == "but" and tokens[j - 1].low in INDEFINITES:
            return True
        if (tokens[j - 1].low, low) in (("other", "than"), ("apart", "from")):
            return True
    return False


def _fragment(tokens: list[Token], first: bool) -> bool:
    """A piece with no verb that opens with a value: it tells the subject before."""
    if first or not tokens or not _valued(tokens[0]):
        return False
    return not any(verb_like(tokens, j) for j in range(len(tokens)))


def _valued(token: Token) -> bool:
    """A number, a date, a time: no thing chosen ("over 100 users", "to 5 pm")."""
    return token.value is not None and token.value.kind != "name"


def _continues(tokens: list[Token]) -> bool:
    """A clause such as "for a job at KPMG": a phrase with no verb of its own."""
    return tokens[0].low in PREPOSITIONS | {"as"} and not any(
        verb_like(tokens, j) for j in range(1, len(tokens))
    )


def after_phrase(subject: list[Token]) -> int:
    """Where the subject starts after a leading phrase: "After the refactor |
    the endpoint", "at Sony | he"."""
    if not subject or subject[0].low not in PREPOSITIONS | SUBORDINATE | {"during", "as"}:
        return 0
    for i, token in enumerate(subject[2:], start=2):
        if token.low in PRONOUNS or token.low in _ANAPHORA:
            return i
    # the last article opens the subject: "As of this week | the standup"
    articles = [i for i, t in enumerate(subject) if t.low in ARTICLES and i > 1]
    if articles:
        return articles[-1]
    names = [i for i, t in enumerate(subject) if i > 1 and t.kind == "name"]
    return names[0] if names else 1


def verb_index(tokens: list[Token], keyed: bool) -> int:
    """Where the subject ends: the first verb, or the first preposition."""
    if keyed:
        for i, token in enumerate(tokens):
            if token.low == "is":
                return i
    for i, token in enumerate(tokens):
        if token.kind != "word" or (token.taken and token.low not in AUXILIARIES):
            continue
        if is_verb(tokens, i):
            return i
    for i, token in enumerate(tokens):
        if i and token.low in PREPOSITIONS:
            return i - 1 if _unknown_verb(tokens, i - 1) else i
    return 0 if len(tokens) < 2 else 1


def _unknown_verb(tokens: list[Token], i: int) -> bool:
    """A verb the word lists lack, before the first preposition: "The bakery
    delivers | on Sundays" (a third-person -s after a noun)."""
    if i < 1 or tokens[i].kind != "word" or tokens[i].taken:
        return False
    low, before = tokens[i].low, tokens[i - 1]
    if not low.endswith("s") or low.endswith(("ss", "us", "is", "ys")) or len(low) < 4:
        return False
    return before.kind in ("word", "name") and before.low not in ARTICLES | PREPOSITIONS


def is_verb(tokens: list[Token], i: int) -> bool:
    token, low = tokens[i], tokens[i].low
    if token.unit:
        return False  # what a number counts: "8,000 calls", "5 runs"
    if low in COPULAS or low in AUXILIARIES or low == "may":
        return not (low == "may" and token.raw[:1].isupper())
    if token.stem not in VERB_STEMS and low not in PAST and token.stem not in NEGATIVE_STEMS:
        # a past form the lists lack after a subject pronoun: "we onboarded"
        return low.endswith("ed") and i > 0 and tokens[i - 1].low in _SUBJECTS
    if i and tokens[i - 1].low in _NOBODY:  # "Nobody applies migrations by hand"
        return low.endswith("s") or low in PAST or low.endswith("ed")
    before = _previous_word(tokens, i)
    if before is None:  # first word: a verb only as "Left Chiang Mai"
        return (low in PAST or low.endswith("ed")) and i + 1 < len(tokens)
    if before.possessive:
        return False  # "Sofia's family": a noun follows a possessive
    if low in PAST or low.endswith("ed"):
        return before.low not in ARTICLES
    if low.endswith("ing"):
        return before.low in COPULAS
    if low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return before.low not in ARTICLES and before.low not in PREPOSITIONS
    # a base form: after a pronoun or a plural ("we deploy", "backups run")
    plural = before.low.endswith("s") and not before.low.endswith(("ss", "us", "is"))
    owner = before.low in ("my", "our", "your")  # "my last job": a noun follows
    return (before.low in PRONOUNS and not owner) or before.low in ("they", "people") or plural


def _previous_word(tokens: list[Token], i: int) -> Token | None:
    for token in reversed(tokens[:i]):
        if token.low not in ADVERBS:
            return token
    return None


def anaphoric(token: Token) -> bool:
    return token.low in _ANAPHORA
