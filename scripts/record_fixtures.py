"""Record the sevDesk endpoints the product reads, sanitized, one JSON file per request.

    SEVDESK_LIVE_TOKEN=... python scripts/record_fixtures.py OUT_DIR [--endpoints Contact,Invoice]
        [--replace]

OUT_DIR must be empty, or ``--replace`` removes its ``*.json`` recordings (nothing else) first.

Only GET requests leave (``live/session.py`` refuses anything else before a socket is opened).
Every answer is sanitized (``live/sanitize.py``); the result is scanned for anything that
still looks personal, and nothing is written if the scan finds something (exit 1, naming the
file and the field). Exit 2 for a setup or connection problem. See ``docs/live.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx
from live.recording import (
    DEFAULT_LIMIT,
    NAMES,
    OutputFolderError,
    UnknownEndpointError,
    chosen,
    record,
)
from live.session import (
    LiveSession,
    LiveSetupError,
    ReadOnlyRefusedError,
    check_access,
    settings_from,
    unreachable,
)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path, help="the folder the JSON files are written to")
    parser.add_argument(
        "--endpoints",
        help=f"comma-separated endpoint names (default: all of {', '.join(sorted(NAMES))})",
    )
    parser.add_argument(
        "--limit", type=int, default=DEFAULT_LIMIT, help="rows per list (1..100; default 3)"
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help="remove the *.json recordings already in OUT_DIR first (nothing else)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Record, scan and write.

    :returns: 0 when written, 1 when the scan refused, 2 for a setup or connection problem.
    """
    args = _arguments(argv)
    try:
        if not 1 <= args.limit <= 100:
            raise LiveSetupError(f"--limit {args.limit} is refused: use 1 to 100 rows per list.")
        endpoints = chosen(args.endpoints.split(",") if args.endpoints else None)
        with LiveSession(settings_from(os.environ if env is None else env)) as session:
            check_access(session)
            recording = record(session, endpoints, args.limit)
    except (LiveSetupError, UnknownEndpointError, ReadOnlyRefusedError) as exc:
        print(exc, file=sys.stderr)
        return 2
    except httpx.HTTPError as exc:
        print(unreachable(exc), file=sys.stderr)
        return 2
    findings = recording.findings()
    for name, found in findings:
        print(f"Refused to write the recording: {name} {found}", file=sys.stderr)
    if findings:
        print("Nothing was written; extend live/sanitize.py for these fields.", file=sys.stderr)
        return 1
    try:
        written = recording.write(args.out_dir, replace=args.replace)
    except OutputFolderError as exc:
        print(exc, file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            f"Could not write {args.out_dir}: {exc.strerror}; choose a writable folder.",
            file=sys.stderr,
        )
        return 2
    print(f"Wrote {len(written)} sanitized recordings to {args.out_dir}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
