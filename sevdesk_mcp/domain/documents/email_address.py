"""E-mail recipients a human can check: one plain address, no look-alike domain.

An approval shows the recipient; it is only worth something if what the human reads is the
address the mail goes to. So a recipient must be one address (no list, no display name, no
line break); its local part must be ASCII; a domain label that mixes scripts (``example``
written with a Cyrillic a) is refused as a look-alike; a domain with non-ASCII letters of one
script
(``müller.de``) is sent in its ASCII (punycode) form, which the preview shows beside the
Unicode form with a warning.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

import msgspec

from sevdesk_mcp.errors import ToolInputError

_LOCAL: Final = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$")
_ASCII_LABEL: Final = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")


class Recipient(msgspec.Struct, frozen=True):
    """A checked address: what is sent, and what the preview shows (``unicode``: the address
    as typed, for an internationalized domain)."""

    sent: str
    shown: str
    international: bool
    unicode: str = ""


def recipient(value: str, argument: str) -> Recipient:
    """:returns: ``value`` checked as one e-mail address, its domain in ASCII form.

    :raises ToolInputError: naming ``argument`` and what is wrong with the address.
    """
    local, at, domain = value.strip().rpartition("@")
    if not at or not _LOCAL.fullmatch(local):
        raise ToolInputError(
            f"{argument} must be one plain email address like name@example.com (ASCII before "
            "the @, no spaces, no name or list)."
        )
    labels = domain.rstrip(".").split(".")
    ascii_labels = [_ascii_label(label, argument, domain) for label in labels]
    if len(labels) < 2:
        raise ToolInputError(f"{argument}: the domain '{domain}' needs a dot (example.com).")
    sent = f"{local}@{'.'.join(ascii_labels)}"
    if domain.isascii():
        return Recipient(sent=sent, shown=sent, international=False)
    shown = f"{sent} (internationalized domain, shown in Unicode as {domain})"
    return Recipient(sent=sent, shown=shown, international=True, unicode=f"{local}@{domain}")


def _ascii_label(label: str, argument: str, domain: str) -> str:
    if not label.isascii():
        scripts = _scripts(label)
        if len(scripts) > 1:
            raise ToolInputError(
                f"{argument}: the domain '{domain}' mixes {' and '.join(sorted(scripts))} "
                "letters in one part, the way look-alike addresses do. Check the address with "
                "the recipient and type it in plain letters."
            )
        try:
            label = label.encode("idna").decode("ascii")
        except UnicodeError:
            raise ToolInputError(
                f"{argument}: the domain '{domain}' is not a valid internationalized domain."
            ) from None
    if not _ASCII_LABEL.fullmatch(label):
        raise ToolInputError(f"{argument}: the domain '{domain}' is not a valid domain name.")
    return label.lower()


def _scripts(label: str) -> set[str]:
    return {unicodedata.name(c, "UNKNOWN").split(" ")[0].title() for c in label if c.isalpha()}
