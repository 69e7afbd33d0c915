"""Messages with no clinical content: answered by code, never by the model or a tool.

A message has no clinical content when, once punctuation is set aside, every word it
holds belongs to a small closed vocabulary of greetings, thanks, farewells, confirmations
and filler ("Can you", ".", "ok bye", "thanks, that's all for her"). Any other word — an
abbreviation ("BP?"), a number ("K 6.1"), a drug, a question word with a topic ("dose?") —
is content, and the message goes to the agent. Given a question that is only a fragment,
a small model answers the previous question again; given "bye", it asked for a patient ID.

A message of confirmations alone ("yes", "ok") answers the assistant when its last
message asked something, so it is content then.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum

GREETINGS = frozenset(
    {"hi", "hello", "hey", "hiya", "morning", "afternoon", "evening", "greetings", "yo"}
)
THANKS = frozenset(
    {
        "thanks",
        "thank",
        "thx",
        "ty",
        "cheers",
        "appreciated",
        "appreciate",
        "great",
        "perfect",
        "brilliant",
        "excellent",
        "awesome",
        "lovely",
        "nice",
        "cool",
        "helpful",
    }
)
FAREWELLS = frozenset(
    {"bye", "goodbye", "byebye", "cya", "later", "goodnight", "night", "done", "finished"}
)
CONFIRMATIONS = frozenset(
    {
        "yes",
        "yeah",
        "yep",
        "no",
        "nope",
        "ok",
        "okay",
        "sure",
        "right",
        "correct",
        "fine",
        "alright",
        "understood",
        "noted",
        "agreed",
    }
)
FILLER = frozenset(
    {
        "a",
        "all",
        "again",
        "and",
        "are",
        "be",
        "but",
        "can",
        "could",
        "do",
        "doc",
        "for",
        "go",
        "good",
        "got",
        "guys",
        "help",
        "i",
        "i'm",
        "is",
        "it",
        "it's",
        "just",
        "me",
        "much",
        "my",
        "oh",
        "ah",
        "on",
        "please",
        "pls",
        "so",
        "that",
        "that's",
        "the",
        "then",
        "there",
        "this",
        "to",
        "u",
        "uh",
        "um",
        "er",
        "hmm",
        "very",
        "we",
        "well",
        "will",
        "with",
        "would",
        "you",
        "your",
        "see",
        "have",
        "day",
        "s",
        "there's",
        "let's",
        "lot",
        "bit",
        "today",
        "everything",
        "clinical",
        "question",
        "questions",
        "quick",
        "something",
        "ask",
        "anything",
        "her",
        "him",
        "his",
        "them",
        "their",
    }
)
VOCABULARY = GREETINGS | THANKS | FAREWELLS | CONFIRMATIONS | FILLER
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


class SmallTalk(StrEnum):
    """What a message without clinical content is."""

    FAREWELL = "farewell"
    THANKS = "thanks"
    GREETING = "greeting"
    FRAGMENT = "fragment"


REPLIES: dict[SmallTalk, str] = {
    SmallTalk.FAREWELL: "Goodbye. Come back any time with a clinical question.",
    SmallTalk.THANKS: "You're welcome. Ask another question whenever you need.",
    SmallTalk.GREETING: (
        "Hello. Ask me a clinical question: I answer from the condition pages, drug labels, "
        "the literature and the selected patient's record, and cite the source of every "
        "statement."
    ),
    SmallTalk.FRAGMENT: (
        "Your message seems incomplete. Please go on: what would you like to ask?"
    ),
}


def words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text.replace("’", "'"))]


def small_talk(text: str, last_answer: str = "") -> SmallTalk | None:
    """What ``text`` is when it holds no clinical content, or None when it holds some.

    ``last_answer``: the assistant's previous message; when it asked a question, a bare
    confirmation is the clinician's reply to it and counts as content.
    """
    found = words(text)
    if any(w not in VOCABULARY for w in found):
        return None
    kinds = set(found)
    if kinds & FAREWELLS:
        return SmallTalk.FAREWELL
    if kinds & THANKS:
        return SmallTalk.THANKS
    if kinds & CONFIRMATIONS and last_answer.rstrip().endswith("?"):
        return None
    if kinds & GREETINGS:
        return SmallTalk.GREETING
    return SmallTalk.FRAGMENT


def last_assistant_message(conversation: Iterable[dict[str, str]]) -> str:
    """The assistant's latest message in a conversation, or ""."""
    said = [m.get("content", "") for m in conversation if m.get("role") == "assistant"]
    return said[-1] if said else ""
