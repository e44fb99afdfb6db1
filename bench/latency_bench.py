"""Latency of every read tool and three workflows against the fake sevDesk with a per-request
latency, at the server's default pacing: requests per call, wall time, and the floor.

Run by hand (never imported by tests)::

    python bench/latency_bench.py                      # this checkout
    BENCH_BASELINE=/path/to/copy python bench/latency_bench.py   # and a copy of the code before

``BENCH_LATENCY_MS`` (default 70) is added in front of the fake's transport, per request, not
inside the fake. ``BENCH_LARGE=0`` skips the large account (10,000 invoices, 2,000 contacts,
20,000 transactions), ``BENCH_DEMO=0`` the demo books; ``BENCH_REPEAT`` (default 1) measures
each report on the large account that many times and prints the medians. Each measurement runs
in a child process with the code root on ``sys.path`` and a fresh account (full token bucket,
cold reference cache); "warm" is the same call made again right after.

The floor is the longest chain of dependent requests times the latency, plus what the pacing
forces: ``max(0, requests - burst) / rate`` seconds. It leaves out CPU. On the large account the
table adds two columns: "decode", the CPU msgspec alone takes to decode every answer body of the
call into Python objects (timed after the call, outside its wall; the fastest of three passes),
which any client pays for the records it receives; "floor incl. decode" is the floor plus that.
"fake" is the CPU the in-process fake spent rendering its answers: it runs on the event loop of
the call, so it is in the wall, though against sevDesk it would be the server's (inside its
latency); it is in no floor.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LATENCY_S = float(os.environ.get("BENCH_LATENCY_MS", "70")) / 1000
BASELINE = os.environ.get("BENCH_BASELINE")
LARGE = os.environ.get("BENCH_LARGE", "1") != "0"
DEMO = os.environ.get("BENCH_DEMO", "1") != "0"
REPEAT = max(1, int(os.environ.get("BENCH_REPEAT", "1")))

# the longest chain of dependent requests per call, as the API allows it (cold; warm in [1])
CHAIN: dict[str, tuple[int, int]] = {
    "sevdesk_account_info": (1, 1),
    "sevdesk_reference_data": (1, 0),
    "sevdesk_search_contacts": (1, 1),
    "sevdesk_get_contact": (2, 2),
    "sevdesk_search_documents": (2, 2),
    "sevdesk_get_document": (2, 2),
    "sevdesk_document_pdf": (1, 1),
    "sevdesk_search_vouchers": (1, 1),
    "sevdesk_get_voucher": (2, 1),
    "sevdesk_search_parts": (2, 1),
    "sevdesk_list_bank_accounts": (2, 2),
    "sevdesk_search_transactions": (2, 2),
    "sevdesk_open_items": (2, 2),
    "sevdesk_cash_position": (2, 2),
    "sevdesk_changed_since": (1, 1),
}
TOOLS: list[tuple[str, dict[str, Any]]] = [
    ("sevdesk_account_info", {}),
    ("sevdesk_reference_data", {"kind": "booking_accounts"}),
    ("sevdesk_search_contacts", {"query": "a"}),
    ("sevdesk_get_contact", {"contact_id": "contact"}),
    ("sevdesk_search_documents", {"kind": "invoice"}),
    ("sevdesk_get_document", {"kind": "invoice", "document_id": "invoice"}),
    ("sevdesk_document_pdf", {"kind": "invoice", "document_id": "invoice"}),
    ("sevdesk_search_vouchers", {}),
    ("sevdesk_get_voucher", {"voucher_id": "voucher"}),
    ("sevdesk_search_parts", {}),
    ("sevdesk_list_bank_accounts", {}),
    ("sevdesk_search_transactions", {}),
    ("sevdesk_open_items", {}),
    ("sevdesk_cash_position", {}),
    ("sevdesk_changed_since", {}),
]
WORKFLOWS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "month-end overview": [
        ("sevdesk_open_items", {}),
        ("sevdesk_cash_position", {}),
        ("sevdesk_changed_since", {}),
    ],
    "invoice: search, detail, PDF": [
        ("sevdesk_search_documents", {"kind": "invoice", "status": "open"}),
        ("sevdesk_get_document", {"kind": "invoice", "document_id": "invoice"}),
        ("sevdesk_document_pdf", {"kind": "invoice", "document_id": "invoice"}),
    ],
    "contact with its documents": [
        ("sevdesk_search_contacts", {"query": "a"}),
        ("sevdesk_get_contact", {"contact_id": "contact"}),
        ("sevdesk_search_documents", {"kind": "invoice", "contact_id": "contact"}),
    ],
}
HEADER = "| call | code | requests cold / warm | wall cold / warm (s) | floor cold / warm (s) |"
REPORTS = ["sevdesk_open_items", "sevdesk_cash_position", "sevdesk_changed_since"]


def worker(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one measurement in this process (the code root is on ``sys.path``)."""
    import anyio
    import httpx

    from sevdesk_mcp.accounts.context import AccountContext
    from sevdesk_mcp.cli import _pacer
    from sevdesk_mcp.config import load_config
    from sevdesk_mcp.fake import FakeSevdesk, build_demo
    from sevdesk_mcp.safety.redact import Secret
    from sevdesk_mcp.server import ServerFactory
    from sevdesk_mcp.sevdesk.client import SevdeskClient
    from sevdesk_mcp.sevdesk.gate import WriteGate
    from tests.wire import open_wire

    class Slow(httpx.AsyncBaseTransport):
        def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
            self.inner, self.count, self.fake_s = inner, 0, 0.0
            self.bodies: list[bytes] = []

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            self.count += 1
            await anyio.sleep(LATENCY_S)
            start = time.perf_counter()
            response = await self.inner.handle_async_request(request)
            self.fake_s += time.perf_counter() - start
            if "json" in response.headers.get("content-type", ""):
                self.bodies.append(response.content)
            return response

    fake: FakeSevdesk = build_demo()
    if spec["large"]:
        _fill(fake)
    ids = _ids(fake)
    config = load_config({"SEVDESK_API_URL": "https://demo.sevdesk.invalid/api/v1"})
    slow = Slow(fake.transport())
    pacer = _pacer(config)
    client = SevdeskClient(
        base_url=config.api_url,
        token=Secret(fake.token),
        gate=WriteGate(tiers=config.tiers, read_only=True),
        pacer=pacer,
        transport=slow,
    )
    account = AccountContext(config=config, client=client, demo=True, today=lambda: fake.today)
    app = ServerFactory(config).build(account)
    rows: list[dict[str, Any]] = []

    async def run() -> None:
        async with open_wire(app) as wire:
            for _ in range(spec["rounds"]):
                before, fake_before, start = slow.count, slow.fake_s, time.perf_counter()
                slow.bodies.clear()
                for name, arguments in spec["calls"]:
                    args = {k: ids[v] if k.endswith("_id") else v for k, v in arguments.items()}
                    answer = await wire.modern("tools/call", {"name": name, "arguments": args})
                    assert not answer["result"].get("isError"), answer
                wall = time.perf_counter() - start
                rows.append(
                    {
                        "requests": slow.count - before,
                        "wall": wall,
                        "fake": slow.fake_s - fake_before,
                        "decode": _decode_s(slow.bodies),
                    }
                )

    anyio.run(run)
    return {"rows": rows, "rate": config.rate_per_s, "burst": pacer._burst}


def _decode_s(bodies: list[bytes]) -> float:
    """:returns: the seconds msgspec alone takes to decode ``bodies``, the fastest of three
    passes (the first one also grows the heap)."""
    import msgspec

    passes = []
    for _ in range(3):
        start = time.perf_counter()
        for body in bodies:
            msgspec.json.decode(body)
        passes.append(time.perf_counter() - start)
    return min(passes)


def _ids(fake: Any) -> dict[str, int]:
    store = fake.store
    invoice = next(i for i in store.invoices if i.status == 200)
    return {
        "invoice": invoice.id,
        "contact": invoice.contact.id,
        "voucher": next(iter(store.vouchers)).id,
    }


def _fill(fake: Any) -> None:
    from tests.finance.helpers import (
        seed_contacts,
        seed_open_invoices,
        seed_transactions,
    )

    seed_open_invoices(fake, 10_000)
    seed_contacts(fake, 2_000)
    seed_transactions(fake, 20_000)


def measure(root: Path, calls: list[tuple[str, dict[str, Any]]], *, large: bool) -> dict[str, Any]:
    """:returns: the worker's figures for ``calls`` run twice (cold, warm) from ``root``."""
    spec = json.dumps({"calls": calls, "large": large, "rounds": 2})
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    code = (
        f"import sys, json; sys.path.insert(0, {str(ROOT / 'bench')!r}); "
        "import latency_bench as b; print(json.dumps(b.worker(json.loads(sys.argv[1]))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, spec],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def floor(chain: int, requests: int, rate: float, burst: float) -> float:
    """:returns: the floor of a call: its dependent chain, plus what pacing forces."""
    return chain * LATENCY_S + max(0.0, requests - burst) / rate


def main() -> None:
    roots = [("after", ROOT)] + ([("before", Path(BASELINE))] if BASELINE else [])
    print(f"latency {LATENCY_S * 1000:.0f} ms per request, default pacing\n")
    if DEMO:
        _demo(roots)
    if LARGE:
        print("\nlarge account: 10,000 invoices, 2,000 contacts, 20,000 transactions", end="")
        print(f" (medians of {REPEAT})\n" if REPEAT > 1 else "\n")
        print(LARGE_HEADER)
        print("|---|---|---|---|---|---|---|---|---|")
        for name in REPORTS:
            chain = CHAIN[name]
            for label, root in roots:
                runs = [measure(root, [(name, {})], large=True) for _ in range(REPEAT)]
                _large_row(name, label, runs, (chain[0] + 1, chain[1] + 1))


def _demo(roots: list[tuple[str, Path]]) -> None:
    print(HEADER)
    print("|---|---|---|---|---|")
    for name, arguments in TOOLS:
        for label, root in roots:
            _row(name, label, measure(root, [(name, arguments)], large=False), CHAIN[name])
    for name, calls in WORKFLOWS.items():
        chain = tuple(sum(CHAIN[c][i] for c, _ in calls) for i in (0, 1))
        for label, root in roots:
            _row(name, label, measure(root, calls, large=False), chain)  # type: ignore[arg-type]


LARGE_HEADER = (
    "| call | code | requests cold / warm | wall cold / warm (s) | fake cold / warm (s) | "
    "floor cold / warm (s) | decode cold / warm (s) | floor incl. decode cold / warm (s) | "
    "wall / floor, wall / floor incl. decode (cold) |"
)


def _large_row(name: str, label: str, runs: list[dict[str, Any]], chain: tuple[int, int]) -> None:
    """Print the medians of ``runs`` of one report on the large account."""
    rate, burst = runs[0]["rate"], runs[0]["burst"]

    def median(key: str, index: int) -> float:
        return float(statistics.median(r["rows"][index][key] for r in runs))

    requests = [runs[0]["rows"][i]["requests"] for i in (0, 1)]
    walls, fakes, decodes = ([median(k, i) for i in (0, 1)] for k in ("wall", "fake", "decode"))
    floors = [floor(c, n, rate, burst) for c, n in zip(chain, requests, strict=True)]
    with_decode = [f + d for f, d in zip(floors, decodes, strict=True)]
    print(
        f"| {name} | {label} | {requests[0]} / {requests[1]} | "
        f"{walls[0]:.2f} / {walls[1]:.2f} | {fakes[0]:.2f} / {fakes[1]:.2f} | "
        f"{floors[0]:.2f} / {floors[1]:.2f} | {decodes[0]:.3f} / {decodes[1]:.3f} | "
        f"{with_decode[0]:.2f} / {with_decode[1]:.2f} | "
        f"{walls[0] / floors[0]:.2f}x, {walls[0] / with_decode[0]:.2f}x |",
        flush=True,
    )


def _row(name: str, label: str, figures: dict[str, Any], chain: tuple[int, int]) -> None:
    cold, warm = figures["rows"]
    floors = [
        floor(c, r["requests"], figures["rate"], figures["burst"])
        for c, r in zip(chain, (cold, warm), strict=True)
    ]
    print(
        f"| {name} | {label} | {cold['requests']} / {warm['requests']} | "
        f"{cold['wall']:.2f} / {warm['wall']:.2f} | {floors[0]:.2f} / {floors[1]:.2f} |",
        flush=True,
    )


if __name__ == "__main__":
    main()
