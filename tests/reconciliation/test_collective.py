"""Collective payments (Sammelüberweisung) through the scorer: documents named together and paid
after their cash discounts or in part, and sets of a known payer's open documents offered as
choices, never as confident."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.reconciliation.candidate import Candidate
from sevdesk_mcp.domain.reconciliation.model import DocKind, OpenDoc, Party, Terms, Tx
from sevdesk_mcp.domain.reconciliation.score import Verdict, reconcile

DAY: Final = dt.date(2026, 11, 2)
IBAN: Final = "DE02120300000000202051"
PAYER: Final = Party(7, "Holz GmbH", IBAN, "1008")
SKONTO: Final = Terms(30, Decimal(2), 10)
NET_14: Final = Terms(14)


def _doc(
    ident: int,
    amount: str,
    *,
    terms: Terms = NET_14,
    kind: DocKind = "invoice",
    currency: str = "EUR",
) -> OpenDoc:
    sign = -1 if kind == "credit_note" else 1
    value = Decimal(amount)
    return OpenDoc(
        kind, ident, f"RE-{ident}", PAYER.id, PAYER.name, sign, value, value, currency, DAY, terms
    )


def _judge(amount: str, purpose: str, docs: list[OpenDoc], *, iban: str | None = IBAN) -> Verdict:
    value = Decimal(amount)
    tx = Tx(1, 5001, value, abs(value), DAY + dt.timedelta(days=5), PAYER.name, iban, purpose)
    (verdict,) = reconcile([tx], docs, [PAYER])
    return verdict


def _offered(verdict: Verdict, *ids: int) -> Candidate:
    keys = tuple(("invoice", i) for i in ids)
    found = [c for c in verdict.candidates if c.keys == keys]
    assert found, [c.keys for c in verdict.candidates]
    return found[0]


def _sets(verdict: Verdict) -> list[tuple[int, ...]]:
    return [tuple(i for _, i in c.keys) for c in verdict.candidates if len(c.docs) > 1]


def test_named_documents_paid_after_their_cash_discounts_are_settled_together() -> None:
    docs = [_doc(1041, "100.00", terms=SKONTO), _doc(1042, "250.00", terms=SKONTO)]
    verdict = _judge("343.00", "Sammelueberweisung RE-1041 RE-1042", docs)
    assert verdict.status == "confident"
    top = verdict.candidates[0]
    assert top.keys == (("invoice", 1041), ("invoice", 1042)) and top.settle == "cash_discount"
    assert "the purpose names invoice RE-1041, invoice RE-1042" in top.reasons
    assert "their open sum less the cash discounts of their payment terms" in top.reasons


def test_named_documents_without_cash_discount_terms_are_not_settled_by_a_discount() -> None:
    docs = [_doc(1041, "100.00"), _doc(1042, "250.00")]
    verdict = _judge("343.00", "Sammelueberweisung RE-1041 RE-1042", docs)
    pair = _offered(verdict, 1041, 1042)
    assert pair.settle == "partial" and verdict.candidates[0] is not pair


def test_named_documents_paid_short_are_a_partial_payment_and_score_lower() -> None:
    docs = [_doc(1041, "100.00"), _doc(1042, "250.00")]
    full = _offered(_judge("350.00", "RE-1041 RE-1042", docs), 1041, 1042)
    verdict = _judge("300.00", "RE-1041 RE-1042", docs)
    short = _offered(verdict, 1041, 1042)
    assert (full.settle, short.settle) == ("full", "partial")
    assert "300.00 EUR of their open sum 350.00 EUR: paid in part" in short.reasons
    assert short.score < full.score and verdict.status != "confident"


def test_named_documents_paid_more_than_their_sum_are_not_offered_as_paid_together() -> None:
    docs = [_doc(1041, "100.00"), _doc(1042, "250.00")]
    verdict = _judge("400.00", "RE-1041 RE-1042", docs)
    assert (1041, 1042) not in _sets(verdict)
    assert verdict.status != "confident"


def test_the_one_set_of_a_known_payers_documents_that_adds_up_is_offered_not_confident() -> None:
    docs = [_doc(1041, "100.00"), _doc(1042, "250.00"), _doc(1043, "80.00"), _doc(1044, "70.00")]
    for verdict in (
        _judge("150.00", "Zahlung", docs),  # the IBAN is the contact's
        _judge("150.00", "Zahlung Kd 1008", docs, iban=None),  # its customer number
    ):
        pair = _offered(verdict, 1043, 1044)
        assert verdict.status == "choices" and pair.settle == "full" and not pair.anchored
        assert "2 open documents of the contact add up to the amount" in pair.reasons
        assert "no other set of its open documents does" in pair.reasons


def test_several_sets_that_add_up_the_same_are_each_offered_and_none_is_preferred() -> None:
    docs = [_doc(1041, "100.00"), _doc(1042, "50.00"), _doc(1043, "80.00"), _doc(1044, "70.00")]
    verdict = _judge("150.00", "Zahlung", docs)
    assert verdict.status == "choices"
    assert sorted(_sets(verdict)) == [(1041, 1042), (1043, 1044)]
    for found in verdict.candidates:
        assert "no other set of its open documents does" not in found.reasons


def test_a_payer_known_only_by_name_is_offered_no_set() -> None:
    docs = [_doc(1043, "80.00"), _doc(1044, "70.00")]
    verdict = _judge("150.00", "Zahlung", docs, iban="DE89370400440532013000")
    assert _sets(verdict) == []


def test_a_set_never_mixes_in_a_credit_note_or_another_currency() -> None:
    docs = [
        _doc(1043, "80.00"),
        _doc(2001, "70.00", kind="credit_note"),
        _doc(1045, "70.00", currency="CHF"),
    ]
    verdict = _judge("150.00", "Zahlung", docs)
    assert _sets(verdict) == []
    with_invoice = _judge("150.00", "Zahlung", [*docs, _doc(1044, "70.00")])
    assert _sets(with_invoice) == [(1043, 1044)]


def test_a_set_holds_at_most_four_documents() -> None:
    docs = [_doc(1040 + i, "10.00") for i in range(1, 6)]
    assert _sets(_judge("40.00", "Zahlung", docs))
    assert _sets(_judge("50.00", "Zahlung", docs)) == []
