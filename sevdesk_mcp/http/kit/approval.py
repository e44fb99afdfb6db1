"""What both approval pages show, the local one (``http.approval_page``) and the inbox
(``http.web.inbox``): the preview, the two decision forms, and the decision a form carries.

The preview (``safety.preview``, data) is shown in the page's language: warnings first (the
irreversible note last of them), the action as the heading sentence, how to undo it under it,
then each fact in a ``<dl>``; a :class:`~sevdesk_mcp.safety.preview.Table` as a real table
(numbers aligned right), a :class:`~sevdesk_mcp.safety.preview.Change` as old → new, amounts,
days and moments as a person reads them (``safety.locale``: ``1.150,00 €``, ``24.11.2026``,
Europe/Berlin with the zone named). Third-party text (:class:`~sevdesk_mcp.safety.preview.Quoted`)
is set apart as quoted data (``<q class="data">``, styled by the one stylesheet), never with the
model's ``⟦ ⟧`` fences. Every text is redacted, stripped of the characters a human would not
see and HTML-escaped; the whole is capped at
:data:`~sevdesk_mcp.safety.preview.MAX_PREVIEW_CHARS` visible characters, with the marker
(:func:`~sevdesk_mcp.safety.preview.cut_note`) saying how much more there is.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Final

from sevdesk_mcp.http.kit.lang import Lang
from sevdesk_mcp.http.kit.page import e
from sevdesk_mcp.safety.fence import CLOSE, OPEN
from sevdesk_mcp.safety.preview import (
    EMPTY,
    IRREVERSIBLE,
    MAX_PREVIEW_CHARS,
    NONE,
    REHEARSAL,
    REHEARSAL_TITLE,
    WARNING,
    Change,
    Fact,
    Lines,
    Piece,
    Preview,
    Quoted,
    Said,
    Table,
    Value,
    Words,
    cut_note,
    visible,
)
from sevdesk_mcp.safety.redact import REDACTOR

DECISIONS: Final = (("approve", "primary"), ("decline", "danger"))
"""The two buttons: their ``decision`` value and their style."""
_FORMATTER: Final = string.Formatter()


def preview_html(preview: Preview, lang: Lang = "en") -> str:
    """:returns: the preview as HTML in ``lang``: in a rehearsal its heading (REHEARSAL,
    PROBELAUF) first, then warnings, the action, how to undo it, the facts; the cut marker if
    the preview is longer than the page shows."""
    shown = _Shown(lang)
    warnings = [*preview.warnings, *([IRREVERSIBLE] if preview.irreversible else [])]
    parts = []
    if REHEARSAL in preview.warnings:  # a rehearsal: said first, as a heading of its own
        parts.append(f'<h2 class="warnings">{e(shown.words.text(REHEARSAL_TITLE))}</h2>')
    if warnings:
        label = shown.words.text(WARNING)
        items = "".join(f"<li><strong>{e(label)}:</strong> {shown.said(w)}</li>" for w in warnings)
        parts.append(f'<ul class="warnings">{items}</ul>')
    parts.append(f'<h2 class="action">{shown.said(preview.action)}</h2>')
    if preview.undo is not None:
        parts.append(f'<p class="undo">{shown.said(preview.undo)}</p>')
    if preview.facts:
        parts.append(f"<dl>{''.join(shown.fact(f) for f in preview.facts)}</dl>")
    if shown.cut:
        parts.append(f'<p class="cut">{e(shown.words.text(cut_note(shown.cut)))}</p>')
    return "".join(parts)


def decision_forms(
    action: str,
    hidden: Sequence[tuple[str, str]],
    labels: Mapping[str, str],
    described_by: str | None = None,
) -> str:
    """:returns: the Approve and Decline forms, each a POST to ``action`` with the ``hidden``
    fields (the CSRF token first) and one button named ``decision``.

    :param labels: the buttons' words, by decision (``approve``, ``decline``), trusted.
    :param described_by: the id of the element naming the approval (``aria-describedby``).
    """
    fields = "".join(f'<input type="hidden" name="{e(n)}" value="{e(v)}">' for n, v in hidden)
    aria = f' aria-describedby="{e(described_by)}"' if described_by else ""
    return "".join(
        f'<form method="post" action="{e(action)}">{fields}'
        f'<button type="submit" name="decision" value="{value}" class="{css}"{aria}>'
        f"{labels[value]}</button></form>"
        for value, css in DECISIONS
    )


def decision_of(fields: Mapping[str, str]) -> bool | None:
    """:returns: ``True`` to approve, ``False`` to decline, ``None`` for anything else."""
    return {"approve": True, "decline": False}.get(fields.get("decision", ""))


class _Shown:
    """Renders the pieces of one preview as HTML in one language, within one budget of
    visible characters (:data:`MAX_PREVIEW_CHARS`); counts what is cut."""

    def __init__(self, lang: Lang) -> None:
        self.words = Words(lang, "person")
        self.left = MAX_PREVIEW_CHARS
        self.cut = 0

    def take(self, text: str) -> str:
        """:returns: ``text`` redacted, without hidden characters, within the budget, escaped."""
        seen = visible(REDACTOR(text))
        kept = seen[: self.left]
        self.left -= len(kept)
        self.cut += len(seen) - len(kept)
        return e(kept)

    def piece(self, piece: Piece) -> str:
        """:returns: one piece as HTML: words, quoted data, or a formatted value."""
        if isinstance(piece, Said):
            return self.said(piece)
        if isinstance(piece, Quoted):
            text = piece.text.replace(OPEN, "(").replace(CLOSE, ")")  # the model's fences only
            inner = self.take(text)
            return f'<q class="data">{inner}</q>' if inner else ""
        return self.take(self.words.plain(piece))

    def said(self, said: Said) -> str:
        """:returns: words of this server in the page's language, their pieces in place."""
        template = said.de if self.words.lang == "de" else said.en
        out = []
        for literal, field, _, _ in _FORMATTER.parse(template):
            out.append(self.take(literal.replace(OPEN, "").replace(CLOSE, "")))
            if field is not None:
                out.append(self._arg(said, field))
        return "".join(out)

    def _arg(self, said: Said, field: str) -> str:
        index = int(field) if field.isdigit() else -1
        return self.piece(said.args[index]) if 0 <= index < len(said.args) else ""

    def fact(self, item: Fact) -> str:
        """:returns: one fact: its label and its value."""
        label = self.said(item.label)
        return f"<dt>{label}</dt><dd>{self.value(item.value)}</dd>"

    def value(self, value: Value) -> str:
        """:returns: a fact's value: lines, a change, a table or one piece."""
        if isinstance(value, Lines):
            return "\n".join(self.piece(line) for line in value.lines) or self.said(NONE)
        if isinstance(value, Change):
            old = self.piece(value.old) if value.old is not None else self.said(EMPTY)
            return (
                f'<span class="old">{old}</span> → <span class="new">{self.piece(value.new)}</span>'
            )
        if isinstance(value, Table):
            return self.table(value)
        return self.piece(value)

    def table(self, table: Table) -> str:
        """:returns: a real table under its column titles (``right`` columns aligned right),
        in a box that scrolls sideways on a narrow screen (focusable, so a keyboard can too;
        no landmark: an inbox shows several tables of the same name)."""
        if not table.rows:
            return self.said(NONE)
        head = "".join(
            f'<th scope="col"{_align(i, table)}>{self.said(c)}</th>'
            for i, c in enumerate(table.columns)
        )
        body = "".join(
            "<tr>"
            + "".join(f"<td{_align(i, table)}>{self.piece(c)}</td>" for i, c in enumerate(row))
            + "</tr>"
            for row in table.rows
        )
        return (
            '<div class="table" tabindex="0">'
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
        )


def _align(column: int, table: Table) -> str:
    return ' class="num"' if column in table.right else ""
