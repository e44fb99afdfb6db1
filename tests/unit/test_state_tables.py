"""The decision tables of the shared-state stores, tested directly (pure: no store, no I/O).
What each backend does with them is tested row by row in ``tests/shared/*_table_rows.py``."""

from __future__ import annotations

from typing import get_args

import pytest

from sevdesk_mcp.http import ratelimit_table as rates
from sevdesk_mcp.http.limits import Limits as HttpLimits
from sevdesk_mcp.http.oauth import grant_table as grants
from sevdesk_mcp.http.sessions import session_table as mcp_sessions
from sevdesk_mcp.http.web import attempt_table as attempts
from sevdesk_mcp.http.web import session_table as web_sessions
from sevdesk_mcp.safety import approval_table as approvals
from sevdesk_mcp.safety import lock_table as locks
from sevdesk_mcp.safety import nonce_table as nonces
from sevdesk_mcp.safety import transfer_table as transfers
from sevdesk_mcp.safety.approval_table import Settle
from sevdesk_mcp.safety.transfers import Holder, Kind, Limits, Owner, Record

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


TRANSFER_LIMITS = Limits(
    max_records_per_account=3, max_records_per_grant=2, max_bytes_per_account=10
)


@pytest.mark.parametrize(
    ("held", "size", "full"),
    [
        ((2, 1, 0), 5, None),
        ((3, 0, 0), 0, ("account", 3)),
        ((3, 2, 20), 5, ("account", 3)),  # the account's records first
        ((2, 2, 0), 0, ("grant", 2)),
        ((2, 2, 20), 0, ("grant", 2)),  # then the grant's
        ((1, 1, 5), 5, None),  # exactly the byte limit fits
        ((1, 1, 5), 6, ("bytes", 5)),
    ],
)
def test_a_new_record_fits_every_limit_in_the_tables_order(
    held: tuple[int, int, int], size: int, full: tuple[str, int] | None
) -> None:
    counts: dict[transfers.Limit, int] = dict(zip(transfers.LIMITS, held, strict=True))
    assert transfers.refused(counts, transfers.admission(TRANSFER_LIMITS, size)) == full


def test_a_file_put_into_a_slot_checks_the_bytes_only() -> None:
    rows = transfers.filling(TRANSFER_LIMITS, 4)
    assert rows == [transfers.Row("bytes", 4, 10)]
    assert transfers.flat(rows) == ["bytes", 4, 10]
    assert transfers.refused({"account": 9, "grant": 9, "bytes": 6}, rows) is None
    assert transfers.refused({"account": 0, "grant": 0, "bytes": 7}, rows) == ("bytes", 7)


def _transfer(kind: Kind, filled: bool, person: str = "p") -> Record:
    return Record("r", kind, Owner("grant-1", "4711", person), 10.0, filled=filled)


@pytest.mark.parametrize(
    ("action", "kind", "filled", "served"),
    [
        ("slot", "upload", False, True),
        ("slot", "upload", True, False),
        ("slot", "download", True, False),
        ("fill", "upload", False, True),
        ("fill", "upload", True, False),
        ("fill", "download", True, False),
        ("peek", "upload", False, False),
        ("peek", "upload", True, False),
        ("peek", "download", True, True),
        ("download", "upload", True, False),
        ("download", "download", True, True),
    ],
)
def test_a_live_record_of_its_person_serves_by_kind_and_filling(
    action: transfers.Action, kind: Kind, filled: bool, served: bool
) -> None:
    record = _transfer(kind, filled)
    assert transfers.serves(action, record, Holder("4711", "p"), 9.0) is served
    assert not transfers.serves(action, record, Holder("4711", "p"), 10.0)  # expired
    assert not transfers.serves(action, record, Holder("4711", "q"), 9.0)  # a colleague
    assert not transfers.serves(action, _transfer(kind, filled, ""), Holder("4711", ""), 9.0)
    assert not transfers.serves(action, None, Holder("4711", "p"), 9.0)


@pytest.mark.parametrize(
    ("kind", "filled", "principal", "told"),
    [
        ("upload", True, "grant-1", "ok"),
        ("upload", False, "grant-1", "not_filled"),
        ("upload", True, "grant-2", "not_yours"),
        ("upload", False, "grant-2", "not_yours"),
        ("download", True, "grant-1", "not_yours"),
    ],
)
def test_an_upload_is_read_by_its_grant_once_filled(
    kind: Kind, filled: bool, principal: str, told: transfers.Read
) -> None:
    assert transfers.read(_transfer(kind, filled), principal, 9.0) == told
    assert transfers.read(_transfer(kind, filled), principal, 10.0) == "not_yours"
    assert transfers.read(None, principal, 9.0) == "not_yours"


@pytest.mark.parametrize("signed_out", [False, True])
@pytest.mark.parametrize("live", [False, True])
@pytest.mark.parametrize("opened", [False, True])
def test_only_a_cookie_that_opens_carries_a_live_session_not_signed_out(
    opened: bool, live: bool, signed_out: bool
) -> None:
    admitted = web_sessions.admits(opened=opened, live=live, signed_out=signed_out)
    assert admitted is (opened and live and not signed_out)


def test_a_sign_out_is_kept_while_the_session_could_be_used() -> None:
    assert web_sessions.keep_s(100.0, 40.0) == 60.0
    assert web_sessions.keep_s(100.0, 100.0) is None  # expired: nothing to keep
    assert web_sessions.live(100.0, 99.9)
    assert not web_sessions.live(100.0, 100.0)


@pytest.mark.parametrize(("counted", "allowed"), [(0, True), (4, True), (5, False), (6, False)])
def test_a_sign_in_try_is_allowed_with_room_under_the_limit(counted: int, allowed: bool) -> None:
    assert attempts.allows(counted, 5) is allowed


def test_a_try_counts_while_younger_than_the_window() -> None:
    assert attempts.within(10.1, 310.0, 300.0)
    assert not attempts.within(10.0, 310.0, 300.0)


@pytest.mark.parametrize(
    ("stored", "presented", "found", "step"),
    [
        (None, 0, "absent", grants.Rotate.GONE),
        (3, 3, "current", grants.Rotate.ROTATE),
        (4, 3, "other", grants.Rotate.REVOKE),  # the presented one was used already
        (2, 3, "other", grants.Rotate.REVOKE),
    ],
)
def test_a_refresh_rotates_revokes_or_refuses_by_the_generation_found(
    stored: int | None, presented: int, found: grants.Generation, step: grants.Rotate
) -> None:
    assert grants.generation(stored, presented) == found
    assert grants.rotation(found) is step
    assert set(grants.ROTATE) == set(get_args(grants.Generation))


def test_the_rotating_script_gets_the_replay_row_as_a_flag() -> None:
    assert grants.mismatch_revokes() == "1"


def test_a_code_is_claimed_once() -> None:
    assert grants.claims("unclaimed")
    assert not grants.claims("claimed")
    assert grants.code_kept(60.0, 60.0)
    assert not grants.code_kept(60.0, 60.1)


@pytest.mark.parametrize(("count", "dropped"), [(0, 0), (3, 0), (4, 1), (6, 3)])
def test_the_oldest_clients_beyond_the_cap_are_dropped(count: int, dropped: int) -> None:
    assert grants.excess(count, 3) == dropped


def test_a_grant_lives_until_its_end_and_a_revocation_90_days() -> None:
    assert grants.live(10.0, 9.0)
    assert not grants.live(10.0, 10.0)
    assert grants.revocation_kept(1.0, grants.REVOCATION_KEEP_S)
    assert not grants.revocation_kept(0.0, grants.REVOCATION_KEEP_S)


@pytest.mark.parametrize(
    ("tokens", "left", "wait"),
    [(3.0, 2.0, None), (1.0, 0.0, None), (0.5, 0.5, 1), (0.0, 0.0, 2), (-0.5, -0.5, 3)],
)
def test_a_request_takes_a_token_or_is_told_the_wait(
    tokens: float, left: float, wait: int | None
) -> None:
    assert rates.take(tokens, 0.5) == (left, wait)


def test_a_bucket_refills_up_to_its_burst_and_never_backwards() -> None:
    assert rates.refill(0.0, 2.0, 0.5, 5.0) == 1.0
    assert rates.refill(4.5, 10.0, 0.5, 5.0) == 5.0
    assert rates.refill(1.0, -3.0, 0.5, 5.0) == 1.0
    assert rates.wait_s(0.99, 100.0) == 1  # at least a second


def test_a_bucket_is_kept_until_it_would_be_full_and_a_second_more() -> None:
    limits = HttpLimits(rate_per_s=2, rate_burst=10)
    assert rates.keep_ms(limits) == 6_000
    assert rates.script_args(limits) == ("2.0", "10", "6000")


# MCP sessions: running, within the lease, now -> busy
@pytest.mark.parametrize(
    ("active", "busy_until", "now", "busy"),
    [(1, 10.0, 9.0, True), (1, 10.0, 10.0, False), (0, 10.0, 9.0, False), (0, 0.0, 9.0, False)],
)
def test_a_session_is_busy_only_while_running_within_its_lease(
    active: int, busy_until: float, now: float, busy: bool
) -> None:
    assert mcp_sessions.busy(active, busy_until, now) is busy
    assert mcp_sessions.lease_until(5.0) == 5.0 + mcp_sessions.BUSY_LEASE_S
    assert mcp_sessions.lease_ms() == 900_000
    assert mcp_sessions.busy_flags() == ["1", "0", "0", "0"]


def test_a_session_expires_at_its_idle_time_busy_or_not() -> None:
    assert not mcp_sessions.expired(100.0, 129.0, 30.0)
    assert mcp_sessions.expired(100.0, 130.0, 30.0)
    assert mcp_sessions.BUSY_LEASE_S < 30 * 60.0  # a lease never outlives an idle session


@pytest.mark.parametrize(
    ("count", "idle_one", "step"),
    [
        (1, True, mcp_sessions.Create.ROOM),
        (1, False, mcp_sessions.Create.ROOM),
        (2, True, mcp_sessions.Create.EVICT),
        (3, False, mcp_sessions.Create.REFUSE),
    ],
)
def test_each_cap_makes_room_evicts_or_refuses(
    count: int, idle_one: bool, step: mcp_sessions.Create
) -> None:
    assert mcp_sessions.create(count, 2, idle_one=idle_one) is step


def test_the_caps_order_refusals_victim_and_end() -> None:
    assert get_args(mcp_sessions.Cap) == mcp_sessions.CAPS
    assert [mcp_sessions.REFUSE[c] for c in mcp_sessions.CAPS] == [429, 429, 503]
    assert mcp_sessions.limits(100, 4, 10_000) == (100, 400, 10_000)
    assert mcp_sessions.create_args((1, 4, 9)) == [1, 4, 9]
    assert mcp_sessions.victim([("a", True), ("b", False), ("c", False)]) == "b"
    assert mcp_sessions.victim([("a", True)]) is None
    assert mcp_sessions.ends(same_principal=True) and not mcp_sessions.ends(same_principal=False)
