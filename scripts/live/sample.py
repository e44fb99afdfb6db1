"""Record the sample in ``tests/contract/recordings``: the recorder against the fake sevDesk.

    python scripts/live/sample.py tests/contract/recordings --replace

Serves :func:`~live.planted.planted_demo` (the demo company with planted personal data) on
127.0.0.1 and runs ``record_fixtures.py`` against it, so the sample went through the same
GET-only session, sanitizer and scan as a recording of a real account.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make ``live`` and ``record_fixtures`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import record_fixtures

from live.planted import planted_demo
from sevdesk_mcp.fake import serve_fake


def record_sample(out_dir: Path, extra: Sequence[str] = ()) -> int:
    """Record the planted demo company into ``out_dir``.

    :returns: the recorder's exit code.
    """
    fake = planted_demo()
    with serve_fake(fake) as url:
        env = {"SEVDESK_LIVE_TOKEN": fake.token, "SEVDESK_LIVE_URL": url}
        return record_fixtures.main([str(out_dir), *extra], env)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--replace"]):
        print("usage: python scripts/live/sample.py OUT_DIR [--replace]", file=sys.stderr)
        sys.exit(2)
    sys.exit(record_sample(Path(sys.argv[1]), sys.argv[2:]))
