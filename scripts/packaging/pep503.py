"""The one package-name normaliser of the packaging scripts and their tests.

``sbom.py``, ``check_sbom.py``, ``build_mcpb.py`` and ``lock.sh`` import it (they run with this
folder on ``sys.path``); the tests load it with ``tests/packaging/support.py``'s ``load_script``.
"""

from __future__ import annotations

import re

_SEPARATORS = re.compile(r"[-_.]+")


def normalise(name: str) -> str:
    """:returns: ``name`` normalised as the package index does (PEP 503)."""
    return _SEPARATORS.sub("-", name).lower()
