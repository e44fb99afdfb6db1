"""What both approval pages show, the local one (``http.approval_page``) and the inbox
(``http.web.inbox``): the preview, the two decision forms, and the decision a form carries.

The preview is shown in full: warnings first (the irreversible note last of them), the action,
then each fact with its line breaks; every text redacted, without the characters a human would
not see, HTML-escaped, and capped at :data:`~sevdesk_mcp.safety.preview.MAX_PREVIEW_CHARS` in
total with a marker saying how much more there is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from sevdesk_mcp.http.kit.page import e
from sevdesk_mcp.safety.fence import hidden_characters
from sevdesk_mcp.safety.preview import IRREVERSIBLE_NOTE, MAX_PREVIEW_CHARS, Preview
from sevdesk_mcp.safety.redact import REDACTOR

DECISIONS: Final = (("approve", "primary"), ("decline", "danger"))
"""The two buttons: their ``decision`` value and their style."""


def preview_html(preview: Preview) -> str:
    """:returns: the preview as HTML: warnings first, then the action and its facts."""
    budget = _Budget(MAX_PREVIEW_CHARS)
    warnings = [*preview.warnings, *([IRREVERSIBLE_NOTE] if preview.irreversible else [])]
    parts = []
    if warnings:
        items = "".join(f"<li>WARNING: {budget.take(w)}</li>" for w in warnings)
        parts.append(f'<ul class="warnings">{items}</ul>')
    parts.append(f"<h2>{budget.take(preview.action)}</h2>")
    facts = "".join(
        f"<dt>{budget.take(f.label)}</dt><dd>{budget.take(f.value)}</dd>" for f in preview.facts
    )
    parts.append(f"<dl>{facts}</dl>")
    if budget.cut:
        parts.append(
            f'<p class="cut">[… {budget.cut} more characters not shown; open the dry run to '
            "see everything]</p>"
        )
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


class _Budget:
    """Hands out at most ``limit`` visible characters in total, escaped; counts the rest."""

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.cut = 0

    def take(self, text: str) -> str:
        hidden = {chr(int(code[2:], 16)) for code in hidden_characters(text)}
        visible = "".join(c for c in REDACTOR(text) if c not in hidden)
        shown = visible[: self.left]
        self.left -= len(shown)
        self.cut += len(visible) - len(shown)
        return e(shown)
