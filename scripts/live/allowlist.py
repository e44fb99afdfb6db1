"""The only paths the live session sends: the templates the recorder and the probes read.

A template is a path of API words with ``{id}`` for a numeric id (``/Invoice/{id}/getPdf``);
a request path must match one exactly, in the same case (``/Invoice/1/getpdf`` does not), so
a GET the product's classification misses (an export job, a download hash) is never sent.
"""

from __future__ import annotations

import re
from typing import Final

from live.probes import READS
from live.recording import ENDPOINTS

ID: Final = "[1-9][0-9]{0,14}"


def templates() -> frozenset[str]:
    """:returns: every path template of :data:`~live.recording.ENDPOINTS` and the probes."""
    recorded = {e.path for e in ENDPOINTS} | {t for e in ENDPOINTS for t in e.by_id}
    return frozenset(recorded | set(READS))


def _pattern(template: str) -> re.Pattern[str]:
    parts = (ID if part == "{id}" else re.escape(part) for part in template.split("/"))
    return re.compile("/".join(parts))


PATTERNS: Final = tuple(_pattern(t) for t in sorted(templates()))


def allowed(path: str) -> bool:
    """:returns: whether ``path`` matches one of the templates (case-sensitive, whole path)."""
    return any(p.fullmatch(path) for p in PATTERNS)
