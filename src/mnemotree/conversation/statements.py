"""What kind of statement a chat sentence is, read offline.

Two readings of each sentence. Its mood: stated, or a question, a request,
a hedge, a hypothetical, reported speech, a joke or small talk (only stated
sentences and accepted requests become memories; a hedge may, with low
confidence). Its kind: a decision (deferrals and reversals included), an
action item, a preference (standing instructions to the assistant
included), a constraint, a goal or a fact about a person, place, date,
number or owner. Both are read from the words a kind is said with, across
the many ways people type them; where none applies the sentence is not
kept ("no notable information").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .voice import ASKS, IMPERATIVES, WHEN


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.I)


_QUESTION_START = _words(
    r"who|what|when|where|why|how|which|whose|whom",
    r"(?:is|are|was|were|do|does|did|have|has|had|will|shall|should|would|could|can|may|might)"
    r"\s+(?:i|we|you|he|she|they|it|there|anyone|anybody|someone|somebody|this|that|the)",
    r"any\s*(?:one|body)\s+(?:know|knows|seen|tried|have|has)",
    r"(?:i\s+)?wonder(?:ing)?\s+(?:if|whether|why|how|what)",
    r"thoughts|any ideas|does that work",
)
_REQUEST = _words(ASKS, r"would you mind", r"remind me")
# "Formal tone please, this is for work": a short ask with "please" at its end.
_POLITE_TAIL = re.compile(r"^\W*[\w' -]{1,40}\s(?:please|pls|plz)\b\W*(?:[,.!]|$)", re.I)
_HEDGE = _words(
    r"maybe|perhaps|possibly|might|may be|probably|not sure|unsure|i guess|i suppose",
    r"(?:i|we)\s+(?:could|might)",
    r"thinking (?:about|of)|considering|toying with|kind of|sort of|no idea",
    r"leaning (?:towards|toward)",
    r"(?:i|we)\s+(?:don't|do not)\s+know",
    r"not decided|undecided|tbd|to be decided",
    # Said with its own warning: "my guess is...", "don't quote me", "iirc".
    r"(?:my|his|her|their|our)\s+(?:guess|hunch|gut feeling)|i think|i believe|iirc|afaik|"
    r"don'?t quote me|(?:haven'?t|have not|didn'?t|did not)\s+(?:actually\s+)?(?:checked|verified)|"
    r"not (?:100%|a hundred percent|entirely) sure",
)
_HYPOTHETICAL = _words(
    r"if\b[^.]*\b(?:would|could|'d)",
    r"^(?:and |but |so |or )?(?:if|unless|in case|as long as)\b",
    r"would be (?:nice|great|cool|good)",
    r"in an ideal world|ideally|imagine|i wish|what if|suppose|supposing|hypothetically|in theory",
    r"someday|some day|one day|at some point",
)
_REPORTED = _words(
    r"(?:he|she|they|someone|somebody|people)\s+(?:said|says|told|mentioned|claims?|reckons?)",
    r"(?-i:[A-Z][a-z]+)\s+(?:said|says|told me|mentioned|claims|reckons|thinks)",
    r"heard|apparently|rumou?rs?|supposedly|allegedly|reportedly",
    # Who said it, named briefly or at length: "my mate swears", "someone on
    # the Ledger team said", "my friend who runs the cafe across the road
    # says"; not "my colleague and I said", the speaker's own word.
    r"(?:mate|friend|colleague|cousin|neighbou?r|boss|brother|sister|someone|somebody|guy|"
    r"people)\b(?:(?!\band (?:i|me)\b)[^.,;:!?]){0,60}?"
    r"\b(?:swears|insists|reckons|thinks|believes|says|said|claims|told (?:me|us))",
    r"according to|word is|i read (?:that|somewhere)|they say|the gossip",
)
# A sentence that shows what follows rather than stating it: "here's my
# attempt", "doing the planning in here", "doc is pinned".
_PRESENTING = _words(
    r"^(?:ok(?:ay)?\s+|so\s+)?(?:here'?s|here is|here are|see attached|attaching|pasting)"
    r"(?![^:]*:\s*\w)",  # "here's the plan: we launch on may 3" states it
    r"in here(?=\s*(?:[,.!;]|$|since|because|so|as|today|now)\b)|doc is pinned|"
    r"(?:is|are) pinned|link (?:is )?(?:above|below)",
)
_JOKE = re.compile(
    r"\b(?:lol|lmao|rofl|haha\w*|hehe\w*|jk|just kidding|kidding|/s)\b|😂|🤣|🙃|😜|😝|"
    # The sarcastic fix: "or we just set it to 10000 and never think about it again".
    r"^(?:or|easy|sure|yeah|simple)[,!.]?\s+(?:we |you |i )?just\b",
    re.I,
)
# A question inside a sentence, after a dash or colon ("first q — is it still 5?").
_INNER_QUESTION = re.compile(
    r"[—–:-]\s*(?:is|are|was|were|do|does|did|can|could|will|would|should|have|has)\s+"
    r"(?:\w+\s+){0,6}?(?:still|or|yet|already|ever)\b",
    re.I,
)
# Said to the other person about them, in a chat between people ("you have
# never once bought a ticket"): banter or advice, not a memory of theirs.
TO_YOU = re.compile(r"^(?:then |and |but |so )?(?:you|you're|you've|ur)\b", re.I)
_SMALL_TALK = _words(
    r"hi|hey|hello|morning|good (?:morning|night|evening)|thanks|thank you|thx|ty|cheers",
    r"ok|okay|k|sure|yes|yep|yeah|no|nope|cool|great|nice|awesome|perfect|sounds good",
    r"got it|makes sense|no worries|np|bye|see you|see ya|talk soon|ttyl|lol|haha",
    r"congrats|congratulations|wow|omg|same|true|fair|agreed|exactly|indeed|right",
)
_KINDS: list[tuple[str, float, re.Pattern[str]]] = [
    (
        "action",
        0.8,
        _words(
            r"i(?:'ll| will| shall|'m going to| am going to| can| could)\s+"
            r"(?:also\s+|quickly\s+|then\s+|just\s+)?(?!not\b|never\b|be\b|see\b|try\b)\w+",
            r"let me\s+(?!know\b)\w+",
            r"(?<![\w\s])(?:on it|will do)|i'?ll take (?:it|that|this)|leave it with me|"
            r"i've got (?:it|this)",
            r"(?-i:[A-Z][a-z]+)(?:'ll| will| is going to|'s going to| to)\s+"
            r"(?:send|write|draft|call|email|book|check|fix|update|prepare|set up|review|share|"
            r"ping|follow up|schedule|order|look|handle|own|run|finish|ship|create|buy|pay|"
            r"contact|organi[sz]e|confirm|file|test|deploy|migrate|do|make|bring|pick)\b",
            r"remind me|action items?|todo|to-do|next step",
        ),
    ),
    (
        "decision",
        0.8,
        _words(
            r"decided|decide to|decision|chose|choose|chosen|selected|settled on|opted|"
            r"went with|going with|go with|sticking with|stick with|locked in|lock in|"
            r"final answer|it is then|it is\.|approved|signed off|agreed (?:on|to|that)|"
            r"confirmed|booked|we'?re doing|we are doing|let'?s do|let'?s go with|"
            r"(?:postpone|defer|push|slip|delay|bump|punt)(?:s|d|ed|red|ped|ing|ring)?"
            r"(?: it| this| that| them)? (?:back|out|to|past|until|till|beyond|after|into)|"
            r"mov(?:e|ed|es|ing) (?:it|this|that|them|the \w+) (?:to|back|out|past)|"
            r"postponed|deferred|delayed|on hold|park(?:ed|ing)? (?:it|this|that)|"
            r"drop(?:ped|ping)?|cancel(?:l?ed|ling)?|scrap(?:ped|ping)?|not doing|won'?t do|"
            r"ship(?:ping)? on|launch(?:ing)? on|switch(?:ed|ing)? to|replac(?:e|ed|ing)",
            # Where a plan goes: "dark mode goes to Q4", "CSV export is in for Q3".
            r"(?:goes|go|slips?|moves?) to (?:q[1-4]|next \w+|the next|later|\w+ planning)",
            r"(?:is|are) (?:in|out) (?:for|of)|(?:is|are) out\b|\w+ (?:stays|wins)\b|it is\b",
            r"park(?:ed)? \w+ (?:until|till)|waits? (?:until|till)|"
            r"not this (?:year|quarter|sprint)",
        ),
    ),
    (
        "preference",
        0.75,
        _words(
            r"(?:i|we|he|she|they|(?-i:[A-Z][a-z]+))\s+(?:really\s+|also\s+|still\s+|kinda\s+|"
            r"(?:don'?t|do not|doesn'?t|does not)\s+)?"
            r"(?:like|likes|love|loves|enjoy|enjoys|prefer|prefers|hate|hates|dislike|dislikes|"
            r"adore|adores|detest|detests)",
            r"favou?rite|i'?d rather|would rather|can'?t stand|not a fan|big fan|a fan of|"
            r"my go-to|works best for me|i'?m into|not into",
            r"(?:always|never|please|pls|don'?t|do not)\s+(?:\w+\s+){0,3}?"
            r"(?:answer|reply|respond|use|give|keep|write|format|convert|show|send|call|"
            r"include|list|summari[sz]e|explain|remind|mention|suggest|add)",
            r"from now on|going forward|in future|in the future|by default",
        ),
    ),
    (
        "goal",
        0.75,
        _words(
            r"goal|aim(?:ing)? (?:to|for)|target(?:ing)?|objective|plan(?:ning)? (?:is )?to|"
            r"hoping to|hope to|trying to|want to (?:get|be|become|reach|hit|run|finish|pass|"
            r"save|lose|learn|improve)|working (?:towards|toward|on getting)|dream is|"
            r"by the end of|resolution",
            # A target the speaker wants or needs: "I want that LDL under 3 by
            # then", "I need a B+ in this class".
            r"(?:i|we)\s+(?:really\s+|actually\s+|just\s+)?want\s+(?:to\s+\w+\s+)?"
            r"(?:\w+\s+){0,4}?(?:under|below|over|above|at least|by (?:then|the|next|\w+day)|"
            r"before)\b",
            r"(?:i|we)\s+(?:really\s+|actually\s+|just\s+)?need\s+(?-i:an?\s+[A-F][+-]?)(?!\w)",
        ),
    ),
    (
        "constraint",
        0.75,
        _words(
            r"must(?:n'?t)?|mustn'?t|(?:cannot|can'?t|can not)(?!\s+(?:wait|believe|imagine|"
            r"thank|stop|help|remember|tell))",
            r"(?:need|needs|have|has) to(?!\s+(?:be|go|run|leave|head|dash|sleep|eat)\b)|"
            r"not allowed|no later than|at the latest|"
            r"deadline|due (?:on|by)|hard stop|non-negotiable|mandatory|required|requirement",
            r"capped|cap(?:ped)? at|budget(?: is| of)?|at most|no more than|maximum|max\b|"
            r"limit(?:ed)? to|only (?:ever|on|after|before|if)|tops? out at|hard cap",
            # A rule: "policy is two references", "no exceptions", "never on sundays".
            r"policy (?:is|says)|the rule is|no exceptions|never on \w+",
            r"allergic|allergy|intolerant|intolerance|vegan|vegetarian|pescatarian|halal|"
            r"kosher|c[o]?eliac|diabetic|gluten|lactose|dairy[- ]free|nut[- ]free|epipen|"
            r"can'?t eat|don'?t eat|never (?:eat|drink|fly|drive)",
            r"never(?!\s+(?:forget|mind|thought|knew|been|ever|heard))",
        ),
    ),
    (
        "fact",
        0.7,
        _words(
            r"owns?|in charge of|responsible for|is leading|leads|runs the|heads|manages",
            r"caused by|root cause|because of|due to|turned out",
            r"the (?:fix|cause|reason) (?:is|was)",
            r"(?:my|our|his|her|their)\s+(?:wife|husband|partner|son|daughter|kids?|children|"
            r"mother|mom|mum|father|dad|parents|sister|brother|friend|boss|colleague|manager|"
            r"dog|cat|name|birthday|job|team|doctor|landlord|flat|apartment|house|car|plan|"
            r"account|subscription|address|flight|hotel|exam|course|teacher)",
            r"(?:i|we|he|she|they)(?:\s+|(?=')|\s+(?:all|both)\s+)(?:live|lives|lived|moved|move|"
            r"moving|work|works|worked|started|start|joined|join|grew up|was born|got|have|has|had|"
            r"am|is|was|were|'m|'re|'s|'ve)",
            r"i'?m (?:a|an|from|based|allergic|training|studying|working|moving|starting)",
        ),
    ),
]
# How an assistant is to answer: a request about its answers' form is a
# standing instruction ("keep replies short", "do the maths in proper notation").
_ANSWER_FORM = _words(
    r"answers?|repl(?:y|ies)|responses?|messages?|explanations?|paragraphs?|notation|"
    r"bullet(?:\s+points?)?s?|walls? of text|essays?|units|format(?:ting)?|in (?:english|"
    r"metric|imperial|celsius|fahrenheit)|prices? in|(?:short|shorter|brief|concise)\b|"
    r"\d+ (?:words|sentences)|(?:a few|one|two|three) sentences|tone|spelling|jargon|emojis?|"
    r"formal|informal|casual|pleasantries"
)
# A request about the answer at hand ("make the answer shorter", "explain it
# in simple words") is no standing instruction.
_ONE_OFF = _words(r"(?:the|this|that)\s+(?:answer|reply|response|message|explanation|one|text)")
_IMPERATIVE = _words(IMPERATIVES)
_STANDING = _words(
    r"whenever you|every time you|each time you|any ?time you|from now on|going forward|"
    r"in (?:the )?future|don'?t ever|never ever|stop \w+ing|(?:call|address|refer to) me|"
    r"(?:for|with|in) (?:any|all|every)|"
    r"when(?:ever)? you (?:write|give|answer|reply|explain|send|suggest|recommend|quote|"
    r"talk|show)|every (?:answer|reply|response|message)"
)
# "When you write code for me, use TypeScript": a standing when, then what to do.
_WHEN_THEN = re.compile(rf"^{WHEN},\s*(.+)$", re.I)
_NOT_AGAIN = re.compile(r"\bnot\b(?:\s+\S+){1,4}\s+again\b", re.I)
# A request may be a standing instruction ("please always answer in bullets").
_PREFERENCE = next(pattern for kind, _, pattern in _KINDS if kind == "preference")
_NUMBER_OR_DATE = re.compile(
    r"\d|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|"
    r"yesterday|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|q[1-4])\b",
    re.I,
)
_NAME = re.compile(r"(?<=\w\s)[A-Z][a-z]+")
# A statement has a verb: a copula, an auxiliary, or a common verb of
# events, costs and changes (a fragment such as "Message number 1 about
# tea" has none).
_VERB = _words(
    r"is|are|was|were|'s|'re|has|have|had|will|would|can|could|does|did|been|being",
    r"\w+ed|costs?|takes?|took|gets?|got|starts?|ends?|runs?|ran|needs?|uses?|pays?|paid|"
    r"lives?|works?|owns?|comes?|came|goes|went|left|leaves|arrives?|bought|sold|sent|"
    r"makes?|made|gives?|gave|says?|said|holds?|held|keeps?|kept|becomes?|became",
)
_SELF = _words(r"i|i'm|i've|i'll|i'd|my|me|we|we're|we've|our|us")
# What someone's life is, though it names no number or name: their work, what
# they are, what they do for a living or on the side, who their people are
# ("I work as a nurse", "my partner is a teacher", "I run a small bakery").
# Kept for review, below the promotion mark: such a sentence may be a passing
# remark ("I'm a mess today").
_LIFE = re.compile(
    r"^(?:[\w']+,?\s+){0,3}?(?:"
    r"i (?:work|volunteer)(?:ed)? (?:as|at|for|in)\b|"
    r"i'?m (?:a|an) (?!(?:\w+ )?(?:bit|little|lot|mess|fan|wreck|idiot|genius|hour|minute|"
    r"day|week|month|year|few|couple)s?\b)\w+|"
    r"i (?:run|own|teach|study|coach) (?:a|an|my|our)\b|"
    r"i (?:teach|study|coach) \w+ (?:at|in|on|for)\b|"
    r"i do (?:\w+ ){1,2}(?:on the side|for a living|professionally|part[- ]time|full[- ]time)|"
    r"(?:my|our) (?:wife|husband|partner|son|daughter|kids|children|mother|mom|mum|father|"
    r"dad|parents|sister|brother|boss|manager) (?:is|are|works|worked|lives|lived) "
    r"(?:a|an|as|at|in)\b"
    r")",
    re.I,
)
LIFE_CONFIDENCE = 0.6
MIN_WORDS = 3
FACT_WORDS = 5


@dataclass(frozen=True, slots=True)
class Reading:
    """A sentence's kind (None: nothing to keep), mood and confidence."""

    kind: str | None
    mood: str
    confidence: float


def mood(sentence: str) -> str:
    """stated, question, request, hedge, hypothetical, reported, joke or small_talk."""
    text = sentence.strip()
    words = re.findall(r"[\w']+", text.lower())
    rest = re.findall(r"[\w']+", _SMALL_TALK.sub(" ", text.lower()))
    if len(words) < MIN_WORDS or len(rest) <= 1:
        return "small_talk"
    asked = _opened(text)
    if _REQUEST.match(asked) or (text.endswith("?") and _REQUEST.search(text)):
        return "request"
    if _POLITE_TAIL.match(asked):
        return "request"
    if _STANDING.search(text) and _REQUEST.search(text):
        return "request"  # "whenever you give me a recipe can you put..."
    if _IMPERATIVE.match(asked) and (_ANSWER_FORM.search(asked) or _STANDING.search(asked)):
        return "request"  # "keep replies short if u can": how to answer, told
    then = _WHEN_THEN.match(asked)
    if then and _IMPERATIVE.match(then.group(1)):
        return "request"  # "whenever you give me numbers, mention the source"
    if text.rstrip(")").endswith("?") or _QUESTION_START.match(text):
        return "question"
    if _INNER_QUESTION.search(text):
        return "question"
    if _JOKE.search(text):
        return "joke"
    if _PRESENTING.search(text):
        return "small_talk"
    if _REPORTED.search(text):
        return "reported"
    if _HYPOTHETICAL.search(text):
        return "hypothetical"
    if _HEDGE.search(text):
        return "hedge"
    return "stated"


# Words a request opens with before it asks: "oh also can you...", "and pls..."
# (not a yes: "sure, can you..." is read with what it agrees to).
_LEAD = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|oh|and|also|so|btw|by the way|actually|(?:one )?(?:last|more) thing)"
    r"\b[\s,.!:;-]*)+",
    re.I,
)


def _opened(text: str) -> str:
    """A sentence without the words a request opens with."""
    return _LEAD.sub("", text.strip())


def _standing(sentence: str) -> bool:
    """Said to hold from now on: "from now on", "whenever you...", "not ... again"."""
    return bool(
        _STANDING.search(sentence)
        or _NOT_AGAIN.search(sentence)
        or _WHEN_THEN.match(_opened(sentence))
    )


def _instructs(sentence: str, to_you: bool = False) -> bool:
    """Whether a sentence says how the assistant is to answer from now on:
    the form of its answers, for good, or (`to_you`) anything said to "you";
    never one about the answer at hand ("make the answer shorter")."""
    standing = _standing(sentence)
    if _ONE_OFF.search(sentence) and not standing:
        return False
    you = to_you and bool(re.search(r"\byou\b", sentence, re.I))
    return bool(_ANSWER_FORM.search(sentence)) or standing or you


def about_answers(sentence: str) -> bool:
    """Whether a sentence speaks of how the assistant is to answer: the form
    of its answers, to "you", or for good ("from now on", "stop ...ing")."""
    return _instructs(sentence, to_you=True)


def read(sentence: str) -> Reading:
    """The sentence's mood, and the kind of memory it states, if any."""
    said = mood(sentence)
    if said in ("small_talk", "question", "joke", "reported", "hypothetical"):
        return Reading(None, said, 0.0)
    if said == "request" and _instructs(sentence):
        return Reading("preference", said, 0.75)  # how the assistant is to answer, from now on
    if said == "request" and not _PREFERENCE.search(sentence):
        return Reading("action", said, 0.75)  # asked of someone: theirs once taken on
    for kind, confidence, pattern in _KINDS:
        if pattern.search(sentence):
            if kind == "fact" and not specific(sentence):
                continue  # "I have a question" is no fact
            return Reading(kind, said, confidence - (0.3 if said == "hedge" else 0.0))
    if said == "stated" and _LIFE.search(sentence):
        return Reading("fact", said, LIFE_CONFIDENCE)
    if said == "stated" and specific(sentence) and _VERB.search(sentence) and _long(sentence):
        # About the speaker ("switched my phone contract to Vodafone"): kept.
        return Reading("fact", said, 0.7 if _SELF.search(sentence) else 0.6)
    return Reading(None, said, 0.0)


def _long(sentence: str) -> bool:
    """Long enough to state a fact on its own ("Noted, item 3." is not)."""
    return len(sentence.split()) >= FACT_WORDS


def specific(sentence: str) -> bool:
    """Names a number, a date or a name: what makes a fact worth keeping."""
    return bool(_NUMBER_OR_DATE.search(sentence) or _NAME.search(sentence))
