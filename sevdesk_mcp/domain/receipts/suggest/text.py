"""Receipt text as the words table reads it: casefolded, umlauts and ß folded (``Bürobedarf``,
``Buerobedarf`` and ``BUROBEDARF`` alike), split into whole words; a phrase matches only as a
run of whole words, never as a prefix of a longer word."""

from __future__ import annotations

import re
from typing import Final

_FOLD: Final = str.maketrans({"ä": "a", "ö": "o", "ü": "u", "ß": "ss", "é": "e", "è": "e"})
_DIGRAPHS: Final = (("ae", "a"), ("oe", "o"), ("ue", "u"))
_WORD: Final = re.compile(r"[0-9a-z]+")


def fold(word: str) -> str:
    """:returns: ``word`` casefolded with umlauts and their spelled-out forms (``ae``, ``oe``,
    ``ue``) and ß folded, so ``Gebühr``, ``Gebuehr`` and ``GEBUHR`` are one word."""
    folded = word.casefold().translate(_FOLD)
    for pair, single in _DIGRAPHS:
        folded = folded.replace(pair, single)
    return folded


def words(text: str) -> tuple[str, ...]:
    """:returns: the folded whole words of ``text`` (letters and digits; hyphens, slashes and
    punctuation separate words, so ``Kfz-Steuer`` is ``kfz steuer``)."""
    return tuple(fold(w) for w in _WORD.findall(text.casefold().translate(_FOLD)))


def phrase(text: str) -> tuple[str, ...]:
    """:returns: a table phrase as the words it must match, in order."""
    return words(text)


def contains(haystack: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    """:returns: whether ``needle`` occurs in ``haystack`` as a run of whole words."""
    size = len(needle)
    if not size:
        return False
    return any(haystack[i : i + size] == needle for i in range(len(haystack) - size + 1))
