"""Check the quirks of ``docs/sevdesk-api.md`` one by one against an account, read-only.

    SEVDESK_LIVE_TOKEN=... python scripts/probe_api.py [--only Q4,Q19]

Prints one line per quirk: ``holds``, ``changed: <what>``, ``cannot check: <why>`` (the
account lacks the data) or ``cannot check read-only`` (only a write could show it). Only GET
requests leave (``live/session.py``). Exit 1 when a quirk changed, 2 for a setup or
connection problem. See ``docs/live.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

import httpx
from live.probes import PROBES, Probe
from live.session import (
    LiveSession,
    LiveSetupError,
    ReadOnlyRefusedError,
    check_access,
    settings_from,
    unreachable,
)

CHANGED = "changed"


def _chosen(only: str | None) -> tuple[Probe, ...]:
    if only is None:
        return PROBES
    wanted = {part.strip() for part in only.split(",") if part.strip()}
    unknown = sorted(wanted - {p.qid for p in PROBES})
    if unknown:
        raise LiveSetupError(f"Unknown quirk {', '.join(unknown)}; use ids such as Q4 or §1-limit.")
    return tuple(p for p in PROBES if p.qid in wanted)


def run(session: LiveSession, probes: Sequence[Probe] = PROBES) -> dict[str, str]:
    """:returns: the verdict of each probe, by quirk id, printing one line each.

    :raises httpx.HTTPError: when sevDesk cannot be reached.
    :raises ReadOnlyRefusedError: if a probe tried anything but a plain read.
    """
    verdicts = {}
    for probe in probes:
        verdicts[probe.qid] = found = probe.run(session)
        print(
            f"{probe.qid:<9} {found:<24} {probe.statement}"
            if len(found) <= 24
            else f"{probe.qid:<9} {probe.statement}: {found}"
        )
    return verdicts


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Probe every quirk (or those of ``--only``).

    :returns: 0 when none changed, 1 when one did, 2 for a setup or connection problem.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated quirk ids (default: all)")
    args = parser.parse_args(argv)
    try:
        probes = _chosen(args.only)
        with LiveSession(settings_from(os.environ if env is None else env)) as session:
            check_access(session)
            verdicts = run(session, probes)
    except (LiveSetupError, ReadOnlyRefusedError) as exc:
        print(exc, file=sys.stderr)
        return 2
    except httpx.HTTPError as exc:
        print(unreachable(exc), file=sys.stderr)
        return 2
    changed = [q for q, v in verdicts.items() if v.startswith(CHANGED)]
    print(
        f"{len(verdicts)} quirks: {len(changed)} changed"
        + (f" ({', '.join(changed)})" if changed else "")
    )
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
