"""Every row of the approval table (:mod:`sevdesk_mcp.safety.approval_table`) run through both
backends: what a retry, a decision and the cap do from each state is what the table says,
in this process's memory and in Redis, whose scripts take their statuses from the table."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sevdesk_mcp.safety.approval_table import (
    DECIDE,
    SETTLE,
    STATUSES,
    Settle,
    Status,
    has_room,
    shown,
)
from sevdesk_mcp.safety.approvals import (
    Approval,
    ApprovalStore,
    Binding,
    MemoryApprovalStore,
    TooManyApprovalsError,
)
from sevdesk_mcp.safety.approvals_redis import RedisApprovalStore
from sevdesk_mcp.safety.preview import Preview, amount, fact, say

pytestmark = pytest.mark.anyio
PERSON = "f" * 64
BINDING = Binding("sevdesk_finalize_invoice", "args", "oauth:4711:grant-1", "4711", PERSON)
PREVIEW = Preview(
    action=say("Finalize invoice {0}", "Rechnung {0} abschließen", "RE-1001"),
    facts=[fact("Total", "Summe", amount(Decimal("119.00")))],
)
OTHER = Preview(
    action=say("Finalize invoice {0}", "Rechnung {0} abschließen", "RE-1001"),
    facts=[fact("Total", "Summe", amount(Decimal("120.00")))],
)
CAP = 2


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> ApprovalStore:
    """Either backend under the one set of rules, two approvals waiting at most per person."""
    if request.param == "memory":
        return MemoryApprovalStore(max_pending=CAP)
    return RedisApprovalStore(request.getfixturevalue("shared_state"), max_pending=CAP)


async def _into(store: ApprovalStore, status: Status | None) -> Approval | None:
    """:returns: the approval of :data:`BINDING`, brought into ``status`` (``None``: none)."""
    if status is None:
        return None
    asked = (await store.settle(BINDING, PREVIEW)).approval
    if status != "pending":
        assert await store.decide(asked.id, PERSON, approved=status == "approved")
    return asked


@pytest.mark.parametrize("same", [True, False], ids=["same-basis", "other-basis"])
@pytest.mark.parametrize("status", [None, *STATUSES])
async def test_every_settle_row_holds_on_both_backends(
    store: ApprovalStore, status: Status | None, same: bool
) -> None:
    asked = await _into(store, status)
    step = SETTLE[status][same]
    preview = PREVIEW if same else OTHER
    outcome = await store.settle(BINDING, preview)
    kinds = {Settle.NEW: "new", Settle.CHANGED: "changed", Settle.KEEP: "pending"}
    assert outcome.kind == kinds.get(step, status)
    if asked is not None:
        assert (outcome.approval.id == asked.id) == (step in {Settle.KEEP, Settle.USE})
        assert (outcome.approval.call == asked.call) == (step is not Settle.NEW)
    again = await store.settle(BINDING, preview)  # a decided one is used up once
    assert again.kind == ("new" if step is Settle.USE else "pending")


@pytest.mark.parametrize("approved", [True, False], ids=["approve", "decline"])
@pytest.mark.parametrize("status", STATUSES)
async def test_every_decide_row_holds_on_both_backends(
    store: ApprovalStore, status: Status, approved: bool
) -> None:
    asked = await _into(store, status)
    assert asked is not None
    decided = await store.decide(asked.id, PERSON, approved=approved)
    after = DECIDE[status][approved]
    assert (decided.status if decided is not None else None) == after
    final = after or status
    assert (await store.view(asked.id, PERSON) is not None) == shown(final)
    assert [a.id for a in await store.waiting(PERSON)] == ([asked.id] if shown(final) else [])


@pytest.mark.parametrize("waiting", range(CAP + 1))
async def test_the_cap_row_holds_on_both_backends(store: ApprovalStore, waiting: int) -> None:
    for n in range(waiting):
        await store.settle(Binding("t", f"args-{n}", "p", "4711", PERSON), PREVIEW)
    new = store.settle(Binding("t", "another", "p", "4711", PERSON), PREVIEW)
    if has_room(waiting, CAP):
        assert (await new).kind == "new"
    else:
        with pytest.raises(TooManyApprovalsError):
            await new
