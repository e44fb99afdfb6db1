"""Latency of every read tool and three workflows against the fake sevDesk with a per-request
latency, at the server's default pacing: requests per call, wall time, and the floor.

Run by hand (never imported by tests)::

    python bench/latency_bench.py                      # this checkout
    BENCH_BASELINE=/path/to/copy python bench/latency_bench.py   # and a copy of the code before

The fake sevDesk runs in a child process of each measurement and serves over 127.0.0.1 HTTP;
our real client talks to it through real sockets, so the fake's CPU is not on our event loop
(against sevDesk it is another machine's). Every request waits ``BENCH_LATENCY_MS`` (default
70) at the fake, then gets its answer, rendered once by a warm-up pass of the same calls (its
own client, pacer and cache) before measuring: sevDesk's own time is inside the latency.
``BENCH_LARGE=0`` skips the large account (10,000 invoices, 2,000 contacts, 20,000
transactions), ``BENCH_DEMO=0`` the demo books; ``BENCH_REPEAT`` (default 1) measures each
report on the large account that many times and prints the medians. Each measurement runs in a
child process with the code root on ``sys.path`` and a fresh account (full token bucket, cold
reference cache); "warm" is the same call made again right after.

The floor of a demo row is the longest chain of dependent requests times the latency, plus what
the pacing forces: ``max(0, requests - burst) / rate`` seconds. The floor of a report on the
large account is the schedule of an ideal client (:func:`schedule_floor`): every request takes
exactly the latency and no CPU, and starts as soon as what it depends on has answered, an
in-flight slot is free and the pacer has a token, so the waves of pages beyond the in-flight cap
and the dependency chain (first page, then the rest; a balance after the account list; the
contacts of open items after the first list showing an open item) are in it; the warm call's
bucket holds what the cold call left in it (refilled over the cold call's measured wall). Both
leave out CPU. The large table adds
"decode", the CPU msgspec alone takes to decode every answer body of the call into Python
objects (timed after the call, outside its wall; the fastest of three passes), which any client
pays for the records it receives, and "floor incl. decode", the floor plus that.
"""

from __future__ import annotations

import datetime as dt
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
    """Run one measurement in this process (the code root is on ``sys.path``), against the fake
    served by a child process (:func:`serve`) over 127.0.0.1."""
    import anyio
    import httpx

    from sevdesk_mcp.accounts.context import AccountContext
    from sevdesk_mcp.cli.run import pacer_of
    from sevdesk_mcp.config import load_config
    from sevdesk_mcp.safety.redact import Secret
    from sevdesk_mcp.server import ServerFactory
    from sevdesk_mcp.sevdesk.client import SevdeskClient
    from sevdesk_mcp.sevdesk.gate import WriteGate

    class Counting(httpx.AsyncBaseTransport):
        def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
            self.inner = inner
            self.sent: list[tuple[str, dict[str, str]]] = []
            self.bodies: list[bytes] = []

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            self.sent.append((request.url.path, dict(request.url.params)))
            response = await self.inner.handle_async_request(request)
            if "json" not in response.headers.get("content-type", ""):
                return response
            body = await response.aread()
            self.bodies.append(body)
            return httpx.Response(
                response.status_code, headers=response.headers, content=body, request=request
            )

        async def aclose(self) -> None:
            await self.inner.aclose()

    server = _start_server(spec)
    try:
        facts = json.loads(server.stdout.readline())  # type: ignore[union-attr]
        config = load_config({"SEVDESK_API_URL": facts["url"]})
        today = dt.date.fromisoformat(facts["today"])
        ids = facts["ids"]

        def app_with(transport: httpx.AsyncBaseTransport) -> tuple[Any, Any]:
            pacer = pacer_of(config)
            client = SevdeskClient(
                base_url=config.api_url,
                token=Secret(facts["token"]),
                gate=WriteGate(tiers=config.tiers, read_only=True),
                pacer=pacer,
                transport=transport,
            )
            account = AccountContext(config=config, client=client, demo=True, today=lambda: today)
            return ServerFactory(config).build(account), pacer

        rows: list[dict[str, Any]] = []

        async def run() -> tuple[int, int]:
            warm_up, _ = app_with(httpx.AsyncHTTPTransport())
            await _calls(spec, ids, warm_up, None, [])  # the server renders every answer once
            counting = Counting(httpx.AsyncHTTPTransport())
            app, pacer = app_with(counting)
            await _calls(spec, ids, app, counting, rows)
            return int(pacer._burst), pacer.max_in_flight

        burst, cap = anyio.run(run)
    finally:
        server.terminate()
        server.wait()
    return {"rows": rows, "rate": config.rate_per_s, "burst": burst, "cap": cap}


async def _calls(
    spec: dict[str, Any],
    ids: dict[str, int],
    app: Any,
    counting: Any,
    rows: list[dict[str, Any]],
) -> None:
    """Make the calls of ``spec`` ``spec["rounds"]`` times; with ``counting`` (the transport
    that counts), add a row per round to ``rows``."""
    from tests.wire import open_wire

    async with open_wire(app) as wire:
        for _ in range(spec["rounds"]):
            if counting is not None:
                counting.sent.clear()
                counting.bodies.clear()
            start = time.perf_counter()
            for name, arguments in spec["calls"]:
                args = {k: ids[v] if k.endswith("_id") else v for k, v in arguments.items()}
                answer = await wire.modern("tools/call", {"name": name, "arguments": args})
                assert not answer["result"].get("isError"), answer
            wall = time.perf_counter() - start
            if counting is not None:
                rows.append(
                    {
                        "requests": len(counting.sent),
                        "sent": counting.sent[:],
                        "wall": wall,
                        "decode": _decode_s(counting.bodies),
                    }
                )


def _start_server(spec: dict[str, Any]) -> subprocess.Popen[str]:
    """:returns: the child process serving the fake (:func:`serve`); its first line of output
    tells the base URL, the token, the day the fake treats as today and the ids to ask for."""
    code = (
        f"import sys, json; sys.path.insert(0, {str(ROOT / 'bench')!r}); "
        "import latency_bench as b; b.serve(json.loads(sys.argv[1]))"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, json.dumps({"large": spec["large"]})],
        stdout=subprocess.PIPE,
        text=True,
    )


def serve(spec: dict[str, Any]) -> None:
    """Serve the fake over 127.0.0.1 HTTP until terminated: every request waits the latency,
    then gets its answer, rendered once and kept (sevDesk's own time is inside its latency)."""
    from sevdesk_mcp.fake import build_demo
    from sevdesk_mcp.fake import serve as served
    from sevdesk_mcp.fake.exchange import Action, Incoming, Outcome
    from sevdesk_mcp.fake.serve import POLL_INTERVAL_S, _Server, base_url

    class Server(_Server):
        request_queue_size = 64  # the default 5 drops connects beyond it: a 1 s retransmit

    # headers and body go out in two writes: with Nagle's algorithm and the client's delayed
    # acknowledgement, the body would wait 40 ms
    served._Handler.disable_nagle_algorithm = True

    fake = build_demo()
    if spec["large"]:
        _fill(fake)
    fake.faults.latency_s = LATENCY_S
    rendered: dict[tuple[str, str, tuple[tuple[str, str], ...]], Outcome] = {}
    render = fake.handle

    def handle(incoming: Incoming) -> Outcome:
        key = (incoming.method, incoming.path, tuple(sorted(incoming.query.items())))
        outcome = rendered.get(key)
        if outcome is None:
            outcome = render(incoming)
            if incoming.method == "GET" and outcome.action is Action.ANSWER:
                rendered[key] = outcome
        return outcome

    fake.handle = handle  # type: ignore[method-assign]
    server = Server(("127.0.0.1", 0), fake)
    facts = {
        "url": base_url(server),
        "token": fake.token,
        "today": fake.today.isoformat(),
        "ids": _ids(fake),
    }
    print(json.dumps(facts), flush=True)
    server.serve_forever(poll_interval=POLL_INTERVAL_S)


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
        print(LARGE_RULE)
        for name in REPORTS:
            for label, root in roots:
                runs = [measure(root, [(name, {})], large=True) for _ in range(REPEAT)]
                _large_row(name, label, runs)


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
    "| call | code | requests cold / warm | wall cold / warm (s) | floor cold / warm (s) | "
    "decode cold / warm (s) | floor incl. decode cold / warm (s) | "
    "wall / floor, wall / floor incl. decode (cold) |"
)
LARGE_RULE = "|---|---|---|---|---|---|---|---|"
_PAGING = frozenset({"offset", "limit", "countAll"})
EPSILON = 1e-9
# a report's lists whose first page waits for others (any one of them, a kept item seen)
WAITS_FOR_ANY: dict[str, tuple[str, tuple[str, ...]]] = {
    "sevdesk_open_items": ("/Contact", ("/Invoice", "/CreditNote", "/Voucher")),
}


def _large_row(name: str, label: str, runs: list[dict[str, Any]]) -> None:
    """Print the medians of ``runs`` of one report on the large account."""
    rate, burst, cap = runs[0]["rate"], runs[0]["burst"], runs[0]["cap"]

    def median(key: str, index: int) -> float:
        return float(statistics.median(r["rows"][index][key] for r in runs))

    requests = [runs[0]["rows"][i]["requests"] for i in (0, 1)]
    walls, decodes = ([median(k, i) for i in (0, 1)] for k in ("wall", "decode"))
    sent = [runs[0]["rows"][i]["sent"] for i in (0, 1)]
    cold = schedule_floor(name, sent[0], rate=rate, burst=burst, cap=cap)
    left = min(float(burst), burst - len(sent[0]) + walls[0] * rate)  # the bucket after it
    floors = [cold, schedule_floor(name, sent[1], rate=rate, burst=burst, cap=cap, tokens=left)]
    with_decode = [f + d for f, d in zip(floors, decodes, strict=True)]
    print(
        f"| {name} | {label} | {requests[0]} / {requests[1]} | "
        f"{walls[0]:.2f} / {walls[1]:.2f} | "
        f"{floors[0]:.2f} / {floors[1]:.2f} | {decodes[0]:.3f} / {decodes[1]:.3f} | "
        f"{with_decode[0]:.2f} / {with_decode[1]:.2f} | "
        f"{walls[0] / floors[0]:.2f}x, {walls[0] / with_decode[0]:.2f}x |",
        flush=True,
    )


def schedule_floor(  # noqa: PLR0913 - the call, and the pacer's three figures
    name: str,
    sent: list[tuple[str, dict[str, str]]],
    *,
    rate: float,
    burst: float,
    cap: int,
    tokens: float | None = None,
) -> float:
    """:returns: the floor of a report call that sent ``sent``: the schedule of an ideal client
    where every request takes exactly the latency and no CPU, each starts as soon as what it
    depends on has answered, an in-flight slot is free (``cap``) and the pacer has a token
    (``rate``, ``burst``; a full bucket unless ``tokens`` says what is left in it), the longest
    remaining chain first. The warm call follows the cold one at once: its bucket holds what
    the cold call left in it over its measured wall.

    What a request depends on, as the API and the answer force it: a page past the first waits
    for the first page of its list (its total); a balance waits for the check account list;
    the contact list of open items waits for the first list that shows an open item (without
    one, no names are needed, hence no contact list); everything else starts at once.
    """
    tasks = _dependencies(name, [(_api_path(path), params) for path, params in sent])
    start = float(burst) if tokens is None else tokens
    return _simulate(tasks, rate=rate, burst=burst, cap=cap, tokens=start)


def _api_path(path: str) -> str:
    return path.split("/api/v1", 1)[-1]


def _dependencies(
    name: str, sent: list[tuple[str, dict[str, str]]]
) -> list[tuple[list[int], bool]]:
    """:returns: per request, the requests it waits for and whether any one of them will do."""
    firsts: dict[tuple[str, tuple[tuple[str, str], ...]], int] = {}
    for index, (path, params) in enumerate(sent):
        key = (path, tuple(sorted((k, v) for k, v in params.items() if k not in _PAGING)))
        if params.get("offset", "0") == "0":
            firsts.setdefault(key, index)
    waiter, awaited = WAITS_FOR_ANY.get(name, ("", ()))
    tasks: list[tuple[list[int], bool]] = []
    for path, params in sent:
        key = (path, tuple(sorted((k, v) for k, v in params.items() if k not in _PAGING)))
        if params.get("offset", "0") != "0":
            tasks.append(([firsts[key]], False))
        elif path.endswith("/getBalanceAtDate"):
            tasks.append(([i for (p, _), i in firsts.items() if p == "/CheckAccount"], False))
        elif path == waiter:
            tasks.append(([i for (p, _), i in firsts.items() if p in awaited], True))
        else:
            tasks.append(([], False))
    return tasks


def _simulate(
    tasks: list[tuple[list[int], bool]], *, rate: float, burst: float, cap: int, tokens: float
) -> float:
    """:returns: when the last of ``tasks`` answers in the schedule of :func:`schedule_floor`."""
    level = _levels(tasks)
    done: dict[int, float] = {}
    now, stamp = 0.0, 0.0
    while len(done) < len(tasks):
        tokens = min(float(burst), tokens + (now - stamp) * rate)
        stamp = now
        answered = {i for i, t in done.items() if t <= now + EPSILON}
        flying = len(done) - len(answered)
        ready = sorted(
            (i for i in range(len(tasks)) if i not in done and _ready(tasks[i], answered)),
            key=lambda i: (-level[i], i),
        )
        started = 0
        for index in ready:
            if flying >= cap or tokens < 1 - EPSILON:
                break
            done[index] = now + LATENCY_S
            tokens, flying, started = tokens - 1, flying + 1, started + 1
        later = [t for t in done.values() if t > now + EPSILON]
        if started < len(ready) and flying < cap:  # waiting for a token
            later.append(now + max((1 - tokens) / rate, EPSILON))
        now = min(later)
    return max(done.values(), default=0.0)


def _levels(tasks: list[tuple[list[int], bool]]) -> list[int]:
    """:returns: per task, the longest chain from it to the end (the graph is shallow)."""
    level = [1] * len(tasks)
    for _ in range(4):
        for index, (after, _any) in enumerate(tasks):
            for before in after:
                level[before] = max(level[before], level[index] + 1)
    return level


def _ready(task: tuple[list[int], bool], answered: set[int]) -> bool:
    after, any_one = task
    if not after:
        return True
    hits = [a in answered for a in after]
    return any(hits) if any_one else all(hits)


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
