"""The decision tables of the shared-state stores, tested directly (pure: no store, no I/O).
What each backend does with them is tested row by row in ``tests/shared/*_table_rows.py``."""

from __future__ import annotations

from typing import get_args

import pytest

from sevdesk_mcp.safety import approval_table as approvals
from sevdesk_mcp.safety import lock_table as locks
from sevdesk_mcp.safety import nonce_table as nonces
from sevdesk_mcp.safety.approval_table import Settle

# status, same basis -> step
SETTLE_ROWS = [
    (None, True, Settle.NEW),
    (None, False, Settle.NEW),
    ("pending", True, Settle.KEEP),
    ("pending", False, Settle.CHANGED),
    ("approved", True, Settle.USE),
    ("approved", False, Settle.CHANGED),
    ("declined", True, Settle.USE),
    ("declined", False, Settle.CHANGED),
]


@pytest.mark.parametrize(("status", "same", "step"), SETTLE_ROWS)
def test_a_retry_settles_an_approval_by_its_status_and_basis(
    status: approvals.Status | None, same: bool, step: Settle
) -> None:
    assert approvals.settle(status, same) is step


def test_the_settle_table_decides_every_status_and_basis() -> None:
    cells = {(s, same) for s in approvals.SETTLE for same in approvals.SETTLE[s]}
    assert cells == {(s, same) for s, same, _ in SETTLE_ROWS}


@pytest.mark.parametrize("approved", [True, False])
@pytest.mark.parametrize("status", approvals.STATUSES)
def test_an_approval_is_decided_once_while_it_waits(
    status: approvals.Status, approved: bool
) -> None:
    after = approvals.decide(status, approved=approved)
    if status == "pending":
        assert after == ("approved" if approved else "declined")
        assert not approvals.shown(after)  # decided: off the inbox, off the cap
    else:
        assert after is None


def test_what_the_redis_scripts_compare_against_comes_from_the_table() -> None:
    assert approvals.kept() == ("pending",)
    assert approvals.decidable() == ("pending",)
    assert all(approvals.decide(s, approved=False) for s in approvals.decidable())
    assert set(approvals.kept()) == approvals.WAITING


@pytest.mark.parametrize(("waiting", "room"), [(0, True), (4, True), (5, False), (6, False)])
def test_a_new_approval_needs_room_under_the_cap(waiting: int, room: bool) -> None:
    assert approvals.has_room(waiting, 5) is room


def test_an_approval_lives_until_its_expiry() -> None:
    assert approvals.live(10.0, 9.9)
    assert not approvals.live(10.0, 10.0)


@pytest.mark.parametrize(
    ("found", "accepted"),
    [("unused", True), ("absent", False), ("expired", False), ("forged", False)],
)
def test_only_the_genuine_unused_mark_of_a_live_nonce_accepts(
    found: nonces.Found, accepted: bool
) -> None:
    assert nonces.accepts(found) is accepted
    assert set(nonces.ACCEPT) == set(get_args(nonces.Found))


@pytest.mark.parametrize(
    ("nonce", "looked_up"), [("abc", True), ("", False), (None, False), (7, False)]
)
def test_only_a_non_empty_string_is_looked_up(nonce: object, looked_up: bool) -> None:
    assert nonces.well_formed(nonce) is looked_up


def test_a_nonce_is_usable_until_its_expiry() -> None:
    assert nonces.live(10.0, 10.0)
    assert not nonces.live(10.0, 10.1)


@pytest.mark.parametrize(
    ("owner", "life", "take"),
    [
        ("free", "none", True),
        ("free", "lease", True),
        ("free", "longer", True),
        ("genuine", "none", False),
        ("genuine", "lease", False),
        ("genuine", "longer", False),
        ("forged", "none", True),  # a lifetime the server never gives: taken over
        ("forged", "lease", False),  # may be genuine under a secret not known yet: waited for
        ("forged", "longer", True),
    ],
)
def test_a_lock_is_taken_by_whose_it_is_and_its_lifetime(
    owner: locks.Owner, life: locks.Lifetime, take: bool
) -> None:
    assert (locks.acquire(owner, life) is locks.Take.TAKE) is take


@pytest.mark.parametrize(
    ("pttl_ms", "life"), [(-1, "none"), (0, "lease"), (30_000, "lease"), (30_001, "longer")]
)
def test_a_locks_lifetime_is_classified_against_one_lease(
    pttl_ms: int, life: locks.Lifetime
) -> None:
    assert locks.lifetime(pttl_ms, 30_000) == life


def test_the_taking_script_gets_the_forged_row_as_flags() -> None:
    assert locks.takeover_flags() == ["1", "0", "1"]


@pytest.mark.parametrize(("lost", "send"), [(0, True), (1, False), (3, False)])
def test_a_write_sends_only_while_no_lock_was_lost(lost: int, send: bool) -> None:
    assert locks.sends(lost) is send


@pytest.mark.parametrize(
    ("began", "known", "marks"),
    [(True, True, "mine"), (True, False, "none"), (False, True, "found"), (False, False, "none")],
)
def test_release_clears_the_marks_the_table_names(began: bool, known: bool, marks: str) -> None:
    other = not known  # the flag of the other stage does not matter
    if began:
        assert locks.clearing(began=True, settled=known, acknowledged=other) == marks
    else:
        assert locks.clearing(began=False, settled=other, acknowledged=known) == marks
