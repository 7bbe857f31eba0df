"""Commands said in chat, as events: what a user or an assistant ran or
told to run, in a shell code block (```bash, ```sh, ```console… or a
block without a language whose lines start with `$ `) or on a line of its
own starting with `$ `. Each command is a step at its message's time, in
its chat session, so routines walked through in conversations are found
like those recorded as events."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model import Node
from ..timeutil import from_iso
from .mining import Event, step_of

SHELLS = frozenset({"bash", "sh", "shell", "console", "zsh", "terminal", "shell-session"})
_FENCE = re.compile(r"^```[ \t]*([\w-]*)[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_PROMPT = re.compile(r"^[ \t]*\$[ \t]+(\S.*)$", re.MULTILINE)
MAX_COMMANDS = 50  # per message


def commands(text: str) -> list[str]:
    """The shell commands a message holds, in order (see the module)."""
    found: list[str] = []
    rest = text
    for match in _FENCE.finditer(text):
        language, body = match.group(1).lower(), match.group(2)
        prompted = _PROMPT.findall(body)
        if prompted:
            found += prompted
        elif language in SHELLS:
            found += [
                line.strip()
                for line in body.splitlines()
                if line.strip() and not line.strip().startswith("#")
            ]
        rest = rest.replace(match.group(0), "\n")
    found += _PROMPT.findall(rest)
    return [c.strip() for c in found if c.strip()][:MAX_COMMANDS]


def chat_events(session: Node, messages: list[Node]) -> Iterator[Event]:
    """Each command of the session's messages as an event of that session."""
    for message in messages:
        at = from_iso(message.created_at)
        for command in commands(message.text):
            yield Event(
                message.id,  # several commands of a message share it: it can be opened
                at,
                step_of("command", command),
                session=session.id,
            )
