"""Server CPU time per floor-tool request: ours, the floor and (optionally) a baseline.

Run by hand: ``python bench/cpu_bench.py`` (``BENCH_BASELINE=/path/to/a/checkout`` adds that
checkout's server as "base"). Never imported by tests.

Each server is started once; then, ``BENCH_ROUNDS`` times, for each era (2026-07-28 and
2025-11-25) and each client count of ``BENCH_CLIENTS``, every server in turn answers floor-tool
requests for ``BENCH_SECONDS``. Around each load the server's CPU time (user + system, from
``/proc``) is read: CPU µs per request is what a machine shared with other jobs disturbs least,
and at many clients (where every server is CPU-bound) ours as a fraction of the floor is the
ratio of the two. Medians over the rounds; requests per second beside them, and peak RSS
(VmHWM) of each server at the end.
"""

from __future__ import annotations

import asyncio
import statistics

from http_bench import (
    CLIENTS,
    DURATION_S,
    FLOOR_TOOL,
    ROUNDS,
    call_request,
    free_port,
    peak_rss_mib,
    servers,
    start,
    wait_ready,
)
from http_profile import cpu_seconds
from loadgen import closed_loop

ERAS = ("2026-07-28", "2025-11-25")


def one_load(pid: int, request: bytes, port: int, clients: int) -> tuple[float, float]:
    """:returns: CPU µs per request of process ``pid`` and requests per second, over one load.

    :raises RuntimeError: if no request was answered.
    """
    user, system = cpu_seconds(pid)
    tally = asyncio.run(closed_loop(port, request, clients, DURATION_S))
    user_after, system_after = cpu_seconds(pid)
    answered = len(tally.latencies_s)
    if not answered:
        raise RuntimeError(f"no request answered on port {port}")
    cpu = user_after - user + system_after - system
    return 1e6 * cpu / answered, answered / DURATION_S


def main() -> None:
    """Measure and print the table (see the module's docstring)."""
    names = [name for name in servers() if name != "peer"]
    ports = {name: free_port() for name in names}
    processes = {name: start(name, ports[name]) for name in names}
    figures: dict[tuple[str, str, int], list[tuple[float, float]]] = {}
    try:
        for name in names:
            wait_ready(ports[name])
            asyncio.run(closed_loop(ports[name], call_request(ports[name], FLOOR_TOOL), 4, 1.0))
        for _ in range(ROUNDS):
            for era in ERAS:
                for clients in CLIENTS:
                    for name in names:
                        request = call_request(ports[name], FLOOR_TOOL, era=era)
                        pid = processes[name].pid
                        cell = one_load(pid, request, ports[name], clients)
                        figures.setdefault((name, era, clients), []).append(cell)
        rss = {name: peak_rss_mib(processes[name]) for name in names}
    finally:
        for process in processes.values():
            process.terminate()
            process.wait(10)
    report(names, figures, rss)


def report(
    names: list[str],
    figures: dict[tuple[str, str, int], list[tuple[float, float]]],
    rss: dict[str, float],
) -> None:
    """Print CPU µs per request (median, and every round) and req/s per server."""
    for era in ERAS:
        for clients in CLIENTS:
            cells = []
            for name in names:
                runs = figures[(name, era, clients)]
                cpu = statistics.median(run[0] for run in runs)
                rps = statistics.median(run[1] for run in runs)
                every = "/".join(f"{run[0]:.0f}" for run in runs)
                cells.append(f"{name} {cpu:.0f} µs ({every}) {rps:,.0f} req/s")
            floor = statistics.median(run[0] for run in figures[("floor", era, clients)])
            ours = statistics.median(run[0] for run in figures[("ours", era, clients)])
            print(f"{era} c={clients}: " + "; ".join(cells) + f"; floor/ours {floor / ours:.2f}")
    print("peak RSS MiB: " + ", ".join(f"{name} {value:.1f}" for name, value in rss.items()))


if __name__ == "__main__":
    main()
