"""Previews of write actions: what a human approves, shown in full, warnings first.

A preview is data, not prose: every word a person reads is a :class:`Said` with its German and
its English wording (placeholders ``{0}``, ``{1}`` filled with the pieces in ``args``, so each
language keeps its own word order); numbers, ids and codes are :class:`Plain`; third-party text
(names, texts from sevDesk or a bank) is :class:`Quoted`; amounts, days and moments keep their
values and are formatted only when shown (:mod:`sevdesk_mcp.safety.locale`). The same preview
is rendered

- for the model (:func:`render`, ``reader="model"``): English, machine forms (``1150.00 EUR``,
  ``2026-11-24``), third-party text fenced in ``⟦ ⟧``;
- for a person (``reader="person"``, the approval question in the client): in the person's
  language, ``1.150,00 €`` and ``24.11.2026``, third-party text in quotation marks;
- as HTML for the approval pages (``http.kit.approval``), from the same pieces.

The rendered text keeps the lines of multi-line values (indented under their label), is capped
only at 12,000 characters with an explicit marker, and is stripped of hidden characters. The
hash covers the complete preview data in both languages, so an approval binds exactly what was
shown, whichever language it was read in.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.safety import locale
from sevdesk_mcp.safety.fence import CLOSE, OPEN, clean, hidden_characters
from sevdesk_mcp.safety.locale import Lang

MAX_PREVIEW_CHARS: Final = 12_000
Reader = Literal["model", "person"]


class Plain(msgspec.Struct, frozen=True, tag="plain"):
    """Language-neutral text of this server: a number, an id, a code (``RE-1037``, ``8400``)."""

    text: str


class Quoted(msgspec.Struct, frozen=True, tag="quoted"):
    """Third-party text: a name, a text from sevDesk or a bank. Shown as data, never as words
    of this server: fenced for the model, quoted and set apart for a person."""

    text: str


class Amount(msgspec.Struct, frozen=True, tag="amount"):
    """An amount in a currency, formatted when shown."""

    value: Decimal
    currency: str = "EUR"


class Number(msgspec.Struct, frozen=True, tag="number"):
    """A number that is no amount (a rate, a quantity, an exchange rate), formatted when shown:
    ``5,5`` for a German reader, ``5.5`` for the model and an English one."""

    value: Decimal


class Day(msgspec.Struct, frozen=True, tag="day"):
    """A calendar day (as sevDesk means it: Europe/Berlin)."""

    value: dt.date


class Moment(msgspec.Struct, frozen=True, tag="moment"):
    """A point in time (aware), shown in Europe/Berlin with its zone."""

    value: dt.datetime


class Said(msgspec.Struct, frozen=True, tag="said"):
    """Words of this server in both languages; ``{0}``, ``{1}``… are the pieces of ``args``."""

    en: str
    de: str
    args: tuple[Piece, ...] = ()


Piece = Plain | Quoted | Amount | Number | Day | Moment | Said


class Lines(msgspec.Struct, frozen=True, tag="lines"):
    """A value of several lines, each a piece."""

    lines: tuple[Piece, ...]


class Change(msgspec.Struct, frozen=True, tag="change"):
    """A value that changes: ``old`` (``None``: empty before) to ``new``."""

    old: Piece | None
    new: Piece


class Table(msgspec.Struct, frozen=True, tag="table"):
    """Rows under column titles, e.g. a document's positions; ``right``: the columns of
    numbers (aligned right on a page). As text: the titles, then one line per row, the cells
    apart by ``|``."""

    columns: tuple[Said, ...]
    rows: tuple[tuple[Piece, ...], ...]
    right: tuple[int, ...] = ()


Value = Piece | Lines | Change | Table


class Fact(msgspec.Struct, frozen=True):
    """One labelled value of a preview."""

    label: Said
    value: Value


class Preview(msgspec.Struct, frozen=True, kw_only=True):
    """What a write will do: ``action`` is the one sentence of what happens; ``undo``, where it
    can be undone, says how (``irreversible`` says it cannot)."""

    action: Said
    facts: list[Fact] = []
    warnings: list[Said] = []
    irreversible: bool = False
    undo: Said | None = None


IRREVERSIBLE: Final = Said("This cannot be undone.", "Das lässt sich nicht rückgängig machen.")
WARNING: Final = Said("WARNING", "ACHTUNG")
REHEARSAL_TITLE: Final = Said("REHEARSAL", "PROBELAUF")
REHEARSAL: Final = Said(
    "REHEARSAL: this is rehearsed on this machine only; nothing is written to sevDesk or sent "
    "to anyone.",
    "PROBELAUF: Das wird nur auf diesem Rechner geprobt; nichts wird in sevDesk geschrieben "
    "oder an jemanden gesendet.",
)
"""The first warning of every preview in a rehearsal (``--rehearse``)."""
NONE: Final = Said("(none)", "(keine Angabe)")
EMPTY: Final = Said("(empty)", "(leer)")


def say(en: str, de: str, *args: Piece | str | int) -> Said:
    """:returns: words in both languages; ``str`` and ``int`` arguments count as :class:`Plain`."""
    return Said(en, de, tuple(_piece(a) for a in args))


def quoted(text: str | None) -> Piece:
    """:returns: third-party ``text`` cleaned, or :data:`NONE` for no or blank text."""
    cleaned = clean(text or "")
    return Quoted(cleaned) if cleaned else NONE


def amount(value: Decimal | None, currency: str | None = "EUR") -> Amount:
    """:returns: an :class:`Amount` (``None`` counts as zero, no currency as EUR)."""
    return Amount(value if value is not None else Decimal(0), (currency or "EUR").upper())


def percent(value: Decimal) -> Said:
    """:returns: a rate as it is read: ``7 %``, ``5.5 %`` (the model, English), ``5,5 %``."""
    return Said("{0} %", "{0} %", (Number(value),))


def fact(en: str, de: str, value: Value | str | int) -> Fact:
    """:returns: a fact labelled in both languages (a ``str``/``int`` value is :class:`Plain`)."""
    return Fact(Said(en, de), value if not isinstance(value, str | int) else _piece(value))


def _piece(value: Piece | str | int) -> Piece:
    return Plain(str(value)) if isinstance(value, str | int) else value


def digest(preview: Preview) -> str:
    """:returns: the SHA-256 (hex) of the complete preview as canonical JSON."""
    return hashlib.sha256(msgspec.json.encode(preview, order="sorted")).hexdigest()


def render(preview: Preview, lang: Lang = "en", reader: Reader = "model") -> str:
    """:returns: the preview as text: warnings first, the action, the facts; capped with a
    marker. For the model always English with machine forms and fences (``lang`` is ignored)."""
    words = Words("en" if reader == "model" else lang, reader)
    lines = [f"{words.text(WARNING)}: {words.text(w)}" for w in preview.warnings]
    if preview.irreversible:
        lines.append(f"{words.text(WARNING)}: {words.text(IRREVERSIBLE)}")
    lines.append(words.text(preview.action))
    if preview.undo is not None:
        lines.append(words.text(preview.undo))
    for item in preview.facts:
        lines += _fact_lines(words, item)
    text = "\n".join(lines)
    if len(text) <= MAX_PREVIEW_CHARS:
        return text
    rest = len(text) - MAX_PREVIEW_CHARS
    return f"{text[:MAX_PREVIEW_CHARS]}\n{words.text(cut_note(rest))}"


def cut_note(rest: int) -> Said:
    """:returns: the marker of a preview cut at :data:`MAX_PREVIEW_CHARS`."""
    return say(
        "[… {0} more characters not shown; open the dry run to see everything]",
        "[… {0} weitere Zeichen nicht gezeigt; der Probelauf zeigt alles]",
        rest,
    )


def _fact_lines(words: Words, item: Fact) -> list[str]:
    label = words.text(item.label)
    shown = words.value_lines(item.value)
    if len(shown) == 1:
        return [f"{label}: {shown[0]}"]
    return [f"{label}:", *(f"    {line}" for line in shown)]


class Words:
    """Renders pieces as text for one reader in one language."""

    def __init__(self, lang: Lang, reader: Reader = "person") -> None:
        self.lang: Lang = lang
        self.reader: Reader = reader

    def text(self, piece: Piece, quote: Callable[[str], str] | None = None) -> str:
        """:returns: ``piece`` as text; third-party text through ``quote`` (else the reader's
        quotation: fences for the model, quotation marks for a person)."""
        if isinstance(piece, Said):
            template = piece.en if self.lang == "en" else piece.de
            return template.format(*(self.text(a, quote) for a in piece.args))
        if isinstance(piece, Quoted):
            return (quote or self.quote)(visible(piece.text))
        return visible(self.plain(piece))

    def plain(self, piece: Plain | Amount | Number | Day | Moment) -> str:
        """:returns: a neutral piece as text: machine forms for the model, else localised."""
        if isinstance(piece, Plain):
            return piece.text
        return machine(piece) if self.reader == "model" else self.local(piece)

    def local(self, piece: Amount | Number | Day | Moment) -> str:
        """:returns: ``piece`` as a person reads it in this language."""
        if isinstance(piece, Amount):
            return locale.amount(piece.value, piece.currency, self.lang)
        if isinstance(piece, Number):
            return locale.number(piece.value, self.lang)
        if isinstance(piece, Day):
            return locale.day(piece.value, self.lang)
        return locale.moment(piece.value, self.lang)

    def quote(self, text: str) -> str:
        """:returns: third-party text set apart: ``⟦…⟧`` for the model, „…“ / “…” for a person."""
        if self.reader == "model":
            return f"{OPEN}{text.replace(OPEN, '(').replace(CLOSE, ')')}{CLOSE}"
        if self.lang == "de":
            return f"„{text}“"
        return f"“{text}”"

    def value_lines(self, value: Value) -> list[str]:
        """:returns: a fact's value as lines of text."""
        if isinstance(value, Lines):
            return [self.text(line) for line in value.lines] or [self.text(NONE)]
        if isinstance(value, Change):
            old = self.text(value.old) if value.old is not None else self.text(EMPTY)
            return [f"{old} → {self.text(value.new)}"]
        if isinstance(value, Table):
            return self._table_lines(value)
        return self.text(value).splitlines() or [""]

    def _table_lines(self, table: Table) -> list[str]:
        if not table.rows:
            return [self.text(NONE)]
        header = " | ".join(self.text(c) for c in table.columns)
        return [header, *(" | ".join(self.text(cell) for cell in row) for row in table.rows)]


def machine(piece: Amount | Number | Day | Moment) -> str:
    """:returns: ``piece`` as the model reads it: ``714.00 EUR``, ``5.5``, ``2026-11-24``, a
    Berlin ISO moment."""
    if isinstance(piece, Amount):
        return f"{piece.value.quantize(Decimal('0.01'))} {piece.currency}"
    if isinstance(piece, Number):
        return f"{piece.value.normalize():f}"
    if isinstance(piece, Day):
        return piece.value.isoformat()
    return piece.value.astimezone(locale.BERLIN).isoformat(timespec="seconds")


def visible(text: str) -> str:
    """:returns: ``text`` without the characters a human would not see (line feeds kept)."""
    hidden = {chr(int(code[2:], 16)) for code in hidden_characters(text)}
    return "".join(c for c in text if c not in hidden) if hidden else text


class ShownFact(msgspec.Struct, frozen=True):
    """One fact as the model reads it."""

    label: str
    value: str


class Shown(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A preview as the model reads it in a result's text: English, machine forms, third-party
    text fenced (the structured content keeps the preview's data in both languages)."""

    action: str
    facts: list[ShownFact] = []
    warnings: list[str] = []
    irreversible: bool = False
    undo: str | None = None


def shown(preview: Preview) -> Shown:
    """:returns: ``preview`` as the model reads it (see :class:`Shown`)."""
    words = Words("en", "model")
    return Shown(
        action=words.text(preview.action),
        facts=[
            ShownFact(words.text(f.label), "\n".join(words.value_lines(f.value)))
            for f in preview.facts
        ],
        warnings=[words.text(w) for w in preview.warnings],
        irreversible=preview.irreversible,
        undo=None if preview.undo is None else words.text(preview.undo),
    )
