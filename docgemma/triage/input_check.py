"""Bad input before the graph: an empty message, a very long one, one not in English.

Language is judged by counting common function words of English against those of
the languages patients here most often write in, and by the share of non-Latin
letters; nothing is downloaded and the check is deterministic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

EMPTY_REPLY = (
    "Please tell me what symptoms you have, for example “I have had a sore throat and "
    "a temperature since yesterday”. In an emergency call 999."
)
NOT_ENGLISH_NOTICE = (
    "Your message looks like it is not in English. I can only answer in English, so my "
    "reply is in English."
)
_WORD_LIST = re.compile(r"\S+")
_ENGLISH = frozenset(
    _WORD_LIST.findall(
        """i my me have has had is are am was it the a an and of to in on for with since been
        pain hurts feel feeling sore days day week weeks yesterday today what should do can
        not no he she his her baby child got very bad when"""
    )
)
_OTHER = frozenset(
    # French, Spanish, German, Italian, Portuguese and Polish function and symptom words
    _WORD_LIST.findall(
        """je j'ai mal au aux est et les des une depuis tête ventre fièvre bonjour merci
        tengo dolor duele el los las y desde estoy cabeza fiebre hola gracias
        ich habe und der die das seit schmerzen mir ist kopf fieber hallo danke
        ho di il sono dolore testa febbre ciao grazie
        eu tenho dor não com cabeça febre olá obrigado
        mam boli mnie głowa gorączka się jest nie dzień"""
    )
)
_WORDS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


@dataclass
class CheckedInput:
    text: str
    empty: bool = False
    notices: list[str] = field(default_factory=list)
    not_english: bool = False


def looks_english(text: str) -> bool:
    """False when the message is clearly in another language or another script."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return True
    latin = sum(1 for c in letters if c.isascii() or "\u00c0" <= c <= "\u024f")
    if latin / len(letters) < 0.5:
        return False
    words = [w.lower() for w in _WORDS.findall(text)]
    english = sum(w in _ENGLISH for w in words)
    other = sum(w in _OTHER and w not in _ENGLISH for w in words)
    return not (other >= 1 and other > english)


def check_input(message: str | None, max_chars: int) -> CheckedInput:
    text = (message or "").strip()
    if not text:
        return CheckedInput(text="", empty=True)
    checked = CheckedInput(text=text)
    if len(text) > max_chars:
        checked.text = text[:max_chars]
        checked.notices.append(
            f"Your message was longer than {max_chars} characters, so only the first "
            f"{max_chars} were read."
        )
    if not looks_english(checked.text):
        checked.not_english = True
        checked.notices.append(NOT_ENGLISH_NOTICE)
    return checked
