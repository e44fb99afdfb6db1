"""What the text content of a result must be, given its structured content, written apart from
the server's code: each amount (an object of exactly ``amount`` and ``currency``) becomes one
string ``"714.00 EUR"``; a write result's preview (its data in both languages) becomes the
model's English form of the same facts (:func:`check_preview`); a tool with a brief may leave
parts out and add the keys of :data:`ADDED`, nothing else."""

from __future__ import annotations

import json
from typing import Any, Final

# the tools whose text is shortened beyond the amounts (docs/tools.md, "Results for the model")
BRIEFED: Final = frozenset(
    {
        "sevdesk_server_status",
        "sevdesk_open_items",
        "sevdesk_cash_position",
        "sevdesk_vat_return",
        "sevdesk_profit_and_loss",
    }
)
# keys a brief writes instead of what it leaves out
ADDED: Final = frozenset({"tool_count", "tools_per_tier", "empty_boxes"})


def money_as_text(value: Any) -> Any:
    """:returns: ``value`` with every amount object written as ``"<amount> <currency>"``."""
    if isinstance(value, dict):
        if set(value) == {"amount", "currency"} and all(isinstance(v, str) for v in value.values()):
            return f"{value['amount']} {value['currency']}"
        return {k: money_as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [money_as_text(v) for v in value]
    return value


def within(text: Any, full: Any) -> bool:
    """:returns: whether ``text`` is ``full`` with parts left out (objects' keys, list items,
    in order) and only :data:`ADDED` keys added at the top."""
    if isinstance(text, dict) and isinstance(full, dict):
        return all(k in full and within(v, full[k]) for k, v in text.items() if k not in ADDED)
    if isinstance(text, list) and isinstance(full, list):
        rest = iter(full)
        return all(any(within(item, other) for other in rest) for item in text)
    return bool(text == full)


def check_text(name: str, result: dict[str, Any]) -> None:
    """Assert that the text content of ``result`` (a success of tool ``name``) is its
    structured content as the model reads it."""
    text = json.loads(result["content"][0]["text"])
    expected = money_as_text(result["structuredContent"])
    if isinstance(expected.get("preview"), dict):
        check_preview(text.pop("preview"), expected.pop("preview"))
    if name in BRIEFED:
        assert within(text, expected), (name, text)
    else:
        assert text == expected, name


def check_preview(text: Any, data: dict[str, Any]) -> None:
    """Assert that the preview in a result's text is the English form of its data: every
    sentence a string, the facts in the same order, a label without placeholders as written in
    English, the flags as they are."""
    assert isinstance(text, dict) and isinstance(text["action"], str), text
    labels = [f["label"] for f in data.get("facts", [])]
    assert [f["label"] for f in text.get("facts", [])] == [
        label["en"] if not label.get("args") else f["label"]
        for label, f in zip(labels, text.get("facts", []), strict=True)
    ]
    assert all(isinstance(f["value"], str) for f in text.get("facts", []))
    assert len(text.get("warnings", [])) == len(data.get("warnings", []))
    assert text.get("irreversible", False) == data.get("irreversible", False)
    assert ("undo" in text) == (data.get("undo") is not None)
