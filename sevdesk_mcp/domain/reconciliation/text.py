"""Normalizing what people type into a transfer: document numbers, names and IBANs.

A purpose such as ``Re.-Nr. 1O41 / RE 1042, 1.234,56 EUR vom 03.11.2026`` yields the number
keys ``1041`` (read from ``1O41``: OCR confuses O and 0, l and 1, S and 5, B and 8) and
``1042``; amounts, dates and IBANs are taken out first so that their digits are never taken
for a document number. A document number yields its digits (``RE-1041`` -> ``1041``;
``SK-26-0711`` -> ``260711`` and ``0711``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Final

import msgspec

MIN_DIGITS: Final = 3
MAX_DIGITS: Final = 12
_NOISE: Final = re.compile(
    r"\b[A-Z]{2}\d{2}(?: ?[0-9A-Z]{4}){3,7}(?: ?[0-9A-Z]{1,3})?\b"  # an IBAN
    r"|\b\d{1,2}\.\d{1,2}\.(?:\d{4}|\d{2})\b"  # a date
    r"|\b\d{4}-\d{2}-\d{2}\b"
    r"|\b\d{1,3}(?:\.\d{3})*,\d{2}\b"  # an amount, German
    r"|\b\d+\.\d{2}\b(?!\.)"  # an amount, English
    r"|\b(?:EUR|USD|CHF|GBP)\b"
)
_CHUNK: Final = re.compile(r"[0-9A-Za-z|]+")
_GLUE: Final = re.compile(r"^[ \t]*[-/][ \t]*$|^$")
_OCR: Final = str.maketrans(
    {"O": "0", "o": "0", "D": "0", "Q": "0", "l": "1", "I": "1", "i": "1", "|": "1"}
    | {"S": "5", "s": "5", "B": "8", "Z": "2", "z": "2", "G": "6", "g": "9"}
)
_CUSTOMER: Final = frozenset({"kd", "kdnr", "kunde", "kundennr", "kundennummer", "knr"})
_LEGAL: Final = frozenset(
    {"gmbh", "mbh", "ag", "kg", "ohg", "ug", "ek", "eg", "ev", "co", "und", "the", "ltd", "inc"}
)
_FOLD: Final = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


class NumberToken(msgspec.Struct, frozen=True):
    """A number read from a purpose.

    :param prefix: the letters written right before it (``re``, ``gu``), lower case.
    :param read_as: the characters OCR or a typo changed (``1O41``), or ``None``.
    :param customer: whether it follows "Kd"/"Kunde": a customer number, not a document's.
    """

    digits: str
    prefix: str
    read_as: str | None
    customer: bool = False


def number_keys(number: str | None) -> tuple[str, ...]:
    """:returns: the digit keys of a document number: all its digits, and its last group."""
    if not number:
        return ()
    groups = re.findall(r"\d+", number)
    keys = {"".join(groups)}
    if groups and len(groups[-1]) >= MIN_DIGITS:
        keys.add(groups[-1])
    return tuple(sorted(k for k in keys if MIN_DIGITS <= len(k) <= MAX_DIGITS))


def prefix_of(number: str | None) -> str:
    """:returns: the letters a document number starts with, lower case (``RE-1041`` -> ``re``)."""
    found = re.match(r"[A-Za-z]+", number or "")
    return found.group().lower() if found else ""


def numbers_in(purpose: str | None) -> list[NumberToken]:
    """:returns: the numbers of a purpose, each once, in the order written."""
    if not purpose:
        return []
    text = _NOISE.sub(" ", purpose)
    found: dict[str, NumberToken] = {}
    for token in _tokens(text):
        found.setdefault(token.digits, token)
    return list(found.values())


def _tokens(text: str) -> Iterator[NumberToken]:
    previous: tuple[int, str] | None = None  # end and digits of the last number
    words: list[str] = []
    for match in _CHUNK.finditer(text):
        token = _token(match.group(), words)
        words.append(match.group().lower())
        if token is None:
            previous = None
            continue
        yield token
        if previous is not None and _GLUE.match(text[previous[0] : match.start()]):
            joined = previous[1] + token.digits
            if len(joined) <= MAX_DIGITS:
                yield NumberToken(joined, token.prefix, token.read_as, token.customer)
        previous = (match.end(), token.digits)


def _token(chunk: str, words: list[str]) -> NumberToken | None:
    whole = chunk.translate(_OCR)
    if whole.isdigit():  # every letter an OCR confusion: "l23O" is 1230
        prefix, body = "", chunk
    else:
        letters = re.match(r"[A-Za-z]*", chunk)
        prefix = letters.group() if letters else ""
        body = chunk[len(prefix) :]
    if sum(c.isdigit() for c in body) < 2:  # at least two real digits
        return None
    fixed = body.translate(_OCR)
    if not fixed.isdigit() or not MIN_DIGITS <= len(fixed) <= MAX_DIGITS:
        return None
    before = words[-1].strip(".") if words else ""
    if not prefix and before.isalpha() and len(before) <= 3:  # "RE 1041"
        prefix = before
    customer = prefix.lower() in _CUSTOMER or before in _CUSTOMER
    return NumberToken(fixed, prefix.lower(), body if fixed != body else None, customer)


def near_misses(digits: str) -> Iterator[str]:
    """:returns: every number one typo away: a digit replaced, or two neighbours swapped."""
    for at, char in enumerate(digits):
        for other in "0123456789":
            if other != char:
                yield digits[:at] + other + digits[at + 1 :]
    for at in range(len(digits) - 1):
        if digits[at] != digits[at + 1]:
            yield digits[:at] + digits[at + 1] + digits[at] + digits[at + 2 :]


def name_tokens(name: str | None) -> frozenset[str]:
    """:returns: the meaningful words of a name: folded, without legal forms and short words."""
    if not name:
        return frozenset()
    folded = unicodedata.normalize("NFKC", name).casefold().translate(_FOLD)
    words = re.findall(r"[a-z0-9]+", folded)
    return frozenset(w for w in words if len(w) >= 3 and w not in _LEGAL)


def similar(known: frozenset[str], seen: frozenset[str]) -> float:
    """:returns: the share of the known name's words that appear in the seen one."""
    if not known or not seen:
        return 0.0
    return len(known & seen) / len(known)


def iban(value: str | None) -> str | None:
    """:returns: an IBAN without spaces, upper case, or ``None`` for anything else."""
    if not value:
        return None
    compact = re.sub(r"\s+", "", value).upper()
    return compact if re.fullmatch(r"[A-Z]{2}\d{2}[0-9A-Z]{8,30}", compact) else None


def words_of(text: str | None) -> frozenset[str]:
    """:returns: the folded words of a purpose or a name, for keyword rules."""
    if not text:
        return frozenset()
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_FOLD)
    return frozenset(re.findall(r"[a-z]+", folded))
