"""Independent reads of one tool call, run concurrently inside the account's pacing budget.

The pacer (``pacing.py``) stays the only gate: starting reads together only lets them queue for
tokens and in-flight slots at once instead of one after another. Only reads belong here; the
writes of one tool are sent one after another, never together.

A failure of one read cancels the others and is raised once, as it was raised (an
:class:`~sevdesk_mcp.errors.UpstreamError` stays what it was, never an exception group).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar, overload

import anyio
from anyio import TASK_STATUS_IGNORED, CancelScope
from anyio.abc import TaskStatus

from sevdesk_mcp.sevdesk.pacing import ADMITTED

A = TypeVar("A")
B = TypeVar("B")
C = TypeVar("C")
D = TypeVar("D")
T = TypeVar("T")
Thunk = Callable[[], Awaitable[T]]


@overload
async def both(a: Thunk[A], b: Thunk[B], /) -> tuple[A, B]: ...


@overload
async def both(a: Thunk[A], b: Thunk[B], c: Thunk[C], /) -> tuple[A, B, C]: ...


@overload
async def both(a: Thunk[A], b: Thunk[B], c: Thunk[C], d: Thunk[D], /) -> tuple[A, B, C, D]: ...


async def both(*calls: Thunk[Any]) -> tuple[Any, ...]:
    """Run two to four different reads together.

    :returns: their results, in the order of the arguments.
    :raises Exception: the first failure of any of them (the others are cancelled).
    """
    return tuple(await each(calls))


async def each(calls: Sequence[Thunk[T]]) -> list[T]:
    """Run reads of one kind together (started in the order given).

    :returns: their results, in the order given.
    :raises Exception: the first failure of any of them (the others are cancelled).
    """
    if len(calls) == 1:
        return [await calls[0]()]
    results: list[T | None] = [None] * len(calls)
    failures: list[Exception] = []
    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(_one, index, call, results, failures, group.cancel_scope)
    if failures:
        raise failures[0]
    return results  # type: ignore[return-value] # every slot was filled


async def _one(
    index: int,
    call: Thunk[T],
    results: list[T | None],
    failures: list[Exception],
    scope: CancelScope,
) -> None:
    try:
        results[index] = await call()
    except Exception as exc:  # kept and raised once by ``each``
        if not failures:
            failures.append(exc)
        scope.cancel()


async def in_order(calls: Sequence[Thunk[T]]) -> list[T]:
    """Run reads together, each started once the pacer admitted the one before it, so they
    reach sevDesk in the order given (the pages of one list, by offset).

    :returns: their results, in the order given.
    :raises Exception: the first failure of any of them (the others are cancelled).
    """
    results: list[T | None] = [None] * len(calls)
    failures: list[Exception] = []
    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            await group.start(_admitted, index, call, results, failures, group.cancel_scope)
    if failures:
        raise failures[0]
    return results  # type: ignore[return-value] # every slot was filled


async def _admitted(  # noqa: PLR0913 - the slot, the call and where its outcome goes
    index: int,
    call: Thunk[T],
    results: list[T | None],
    failures: list[Exception],
    scope: CancelScope,
    *,
    task_status: TaskStatus[None] = TASK_STATUS_IGNORED,
) -> None:
    told = False

    def admitted() -> None:
        nonlocal told
        if not told:
            told = True
            task_status.started()

    token = ADMITTED.set(admitted)
    try:
        await _one(index, call, results, failures, scope)
    finally:
        ADMITTED.reset(token)
        admitted()  # answered from a cache, or failed before it was sent: the next may start
