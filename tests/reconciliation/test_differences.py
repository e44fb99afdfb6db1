"""A payment less or more than open, settled as the table of
``../shared/docs/german-tax-rules.md`` section 4 says (expected settles written by hand):

| case | settle | booked |
|---|---|---|
| Skonto the invoice grants, within its days | cash_discount | CB, closed |
| Skonto after its days | short (stays open, ask) | N, rest open |
| Skonto the invoice does not grant | short (stays open, ask) | N, rest open |
| the purpose names the bank's charges | fees | MTC, closed |
| a few euros short, no fee cue | short (stays open, ask) | N, rest open |
| more than open | full, surplus unbooked (ask) | N, transaction rest left |
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from sevdesk_mcp.domain.reconciliation.charges import fee_cue
from sevdesk_mcp.domain.reconciliation.model import DocKind, OpenDoc, Party, Terms, Tx
from sevdesk_mcp.domain.reconciliation.plan import Wanted, plan_allocations
from sevdesk_mcp.domain.reconciliation.score import Verdict, reconcile
from sevdesk_mcp.domain.reconciliation.suggest import plan_of
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.preview import Words

DAY = dt.date(2026, 11, 2)
IBAN = "DE02120300000000202051"
SKONTO = Terms(30, Decimal(2), 10)
NO_SKONTO = Terms(14)
CUSTOMER = Party(7, "Vollmer Bau GmbH", IBAN, "1008")

MODEL = Words("en", "model")


def _doc(gross: str, terms: Terms = NO_SKONTO, kind: DocKind = "invoice") -> OpenDoc:
    sign = 1 if kind == "invoice" else -1
    contact = CUSTOMER.id if kind != "voucher" else None
    amount = Decimal(gross)
    return OpenDoc(kind, 41, "RE-1041", contact, None, sign, amount, amount, "EUR", DAY, terms)


def _tx(amount: str, purpose: str = "RE-1041", days: int = 7) -> Tx:
    money = Decimal(amount)
    day = DAY + dt.timedelta(days=days)
    return Tx(1, 5001, money, abs(money), day, "Vollmer Bau GmbH", IBAN, purpose)


def _judge(tx: Tx, doc: OpenDoc) -> Verdict:
    (verdict,) = reconcile([tx], [doc], [CUSTOMER])
    return verdict


def _booked(verdict: Verdict) -> tuple[str, str, Decimal, Decimal]:
    plan = plan_of(verdict, verdict.candidates[0])
    (one,) = plan.allocations
    return one.booked, one.payment_type, one.open_after, plan.rest_after


def test_skonto_the_invoice_grants_within_its_days_is_a_cash_discount() -> None:
    verdict = _judge(_tx("980.00", "RE-1041 abzgl. 2% Skonto"), _doc("1000.00", SKONTO))
    assert (verdict.status, verdict.candidates[0].settle) == ("confident", "cash_discount")
    assert _booked(verdict) == ("cash_discount", "CB", Decimal(0), Decimal(0))
    assert "2 % within 10 days" in " ".join(verdict.candidates[0].reasons)


def test_a_smaller_skonto_than_granted_and_the_grace_days_are_a_cash_discount() -> None:
    assert _judge(_tx("990.00"), _doc("1000.00", SKONTO)).candidates[0].settle == "cash_discount"
    on_the_grace = _judge(_tx("980.00", days=13), _doc("1000.00", SKONTO))
    assert on_the_grace.candidates[0].settle == "cash_discount"


@pytest.mark.parametrize("days", [14, 25])
def test_skonto_after_its_days_stays_open(days: int) -> None:
    verdict = _judge(_tx("980.00", "RE-1041 abzgl. 2% Skonto", days), _doc("1000.00", SKONTO))
    (top,) = verdict.candidates
    assert (verdict.status, top.settle) == ("choices", "short")
    assert _booked(verdict) == ("partial", "N", Decimal("20.00"), Decimal(0))
    assert f"paid {days} days after the document's date, after its days" in " ".join(top.reasons)
    assert "a difference stays open" in verdict.why


def test_skonto_the_invoice_does_not_grant_stays_open_and_says_why() -> None:
    verdict = _judge(_tx("980.00", "RE-1041 abzgl. 2% Skonto"), _doc("1000.00"))
    (top,) = verdict.candidates
    assert (verdict.status, top.settle) == ("choices", "short")
    assert _booked(verdict) == ("partial", "N", Decimal("20.00"), Decimal(0))
    said = " ".join(top.reasons)
    assert "20.00 EUR (2 %) less than open (the purpose speaks of Skonto)" in said
    assert "the document grants no cash discount" in said and "ask the customer" in said


@pytest.mark.parametrize(("gross", "paid"), [("595.00", "583.10"), ("1190.00", "1166.20")])
def test_issue_37_two_percent_of_at_most_25_euros_without_terms_is_never_fees(
    gross: str, paid: str
) -> None:
    verdict = _judge(_tx(paid), _doc(gross))
    assert verdict.candidates[0].settle == "short"
    assert verdict.status != "confident"
    assert _booked(verdict)[:2] == ("partial", "N")


def test_a_few_euros_short_without_a_fee_cue_stays_open() -> None:
    verdict = _judge(_tx("818.00", "INV RE-1041 SWIFT"), _doc("833.00"))
    assert (verdict.status, verdict.candidates[0].settle) == ("choices", "short")
    assert "not bank fees, the purpose names no charges" in " ".join(verdict.candidates[0].reasons)


def test_a_fee_line_settles_the_difference_as_fees_that_keep_the_vat_base() -> None:
    verdict = _judge(_tx("818.00", "INV RE-1041 SWIFT SHA"), _doc("833.00"))
    (top,) = verdict.candidates
    assert (verdict.status, top.settle) == ("confident", "fees")
    assert _booked(verdict) == ("fees", "MTC", Decimal(0), Decimal(0))
    said = " ".join(top.reasons)
    assert "names the bank's charges ('SHA')" in said and "never reduce the VAT base" in said


def test_a_fee_cue_does_not_stretch_fees_beyond_what_a_bank_takes() -> None:
    verdict = _judge(_tx("950.00", "RE-1041 abzgl. Bankgebuehren"), _doc("1000.00"))
    assert (verdict.status, verdict.candidates[0].settle) == ("choices", "short")


@pytest.mark.parametrize(
    ("purpose", "cue"),
    [
        ("INV RE-1041 SWIFT SHA", "SHA"),
        ("RE-1041 /CHGS/EUR15,00", "chgs"),
        ("RE-1041 abzgl. Bankgebühren", "bankgebuehren"),
        ("RE-1041 Fremdspesen 15,00 EUR", "fremdspesen"),
        ("RE-1041 less charges", "charges"),
        ("RE-1041 71A:BEN", "71A:BEN"),
        ("RE-1041 OUR", None),  # the payer bore the charges
        ("RE-1041 Ben Vogt", None),  # a name, not a charge code
        ("RE-1041 sha", None),
        ("RE-1041 SWIFT", None),
    ],
)
def test_the_fee_cue_is_a_word_or_code_of_charges(purpose: str, cue: str | None) -> None:
    assert fee_cue(_tx("1.00", purpose)) == cue


def test_an_overpayment_books_the_open_amount_and_leaves_the_surplus_unbooked() -> None:
    verdict = _judge(_tx("530.00"), _doc("500.00"))
    (top,) = verdict.candidates
    assert verdict.status == "choices" and top.settle == "full"
    assert _booked(verdict) == ("full", "N", Decimal(0), Decimal("30.00"))  # not FULL_PAYMENT
    assert "the surplus stays unbooked" in " ".join(top.reasons)
    assert "refund it or keep it as a credit" in " ".join(top.reasons)
    notes = [MODEL.text(n) for n in plan_of(verdict, top).notes]
    assert notes and "30.00 EUR of transaction 1 stays unbooked" in notes[0]
    german = Words("de").text(plan_of(verdict, top).notes[0])
    assert german.startswith("30,00 € des Umsatzes 1 bleiben unverbucht")


def test_a_receipt_paid_short_stays_open_and_names_the_cash_discount_way() -> None:
    receipt = _doc("1000.00", kind="voucher")
    tx = Tx(1, 5001, Decimal("-980.00"), Decimal("980.00"), DAY, "Holzhandel", None, "RE-1041")
    verdict = _judge(tx, receipt)
    assert verdict.candidates[0].settle == "short"
    assert "book it with settle=cash_discount" in " ".join(verdict.candidates[0].reasons)


def test_when_nothing_fits_the_verdict_says_what_is_missing() -> None:
    stranger = Tx(1, 5001, Decimal("77.00"), Decimal("77.00"), DAY, "Niemand", None, "Danke")
    verdict = _judge(stranger, _doc("1000.00"))
    assert verdict.status == "no_match"
    assert verdict.why.startswith("no match: the purpose names no open document's number")
    assert "match no contact" in verdict.why and "no open document" in verdict.why
    assert "Nothing is guessed" in verdict.why


def test_a_confident_verdict_says_why() -> None:
    verdict = _judge(_tx("1000.00"), _doc("1000.00"))
    assert verdict.why == "confident: 0.99 (at least 0.85), anchored, alone"


def test_a_cash_discount_asked_for_after_its_days_is_refused() -> None:
    wanted = [Wanted(_doc("1000.00", SKONTO), settle="cash_discount")]
    with pytest.raises(ToolError, match="came 25 days after the document's date") as info:
        plan_allocations(_tx("980.00", days=25), wanted)
    assert "settle=partial" in str(info.value)


def test_fees_asked_for_without_a_fee_cue_are_warned_about() -> None:
    plan = plan_allocations(_tx("980.00"), [Wanted(_doc("1000.00"), settle="fees")])
    (said,) = plan.notes
    note = MODEL.text(said)
    assert "never reduce the VAT base" in note and "names no bank charges" in note
    assert "Der Verwendungszweck nennt keine Bankgebühren" in Words("de").text(said)
    plan = plan_allocations(
        _tx("990.00", "RE-1041 Spesen"), [Wanted(_doc("1000.00"), settle="fees")]
    )
    assert "names no bank charges" not in MODEL.text(plan.notes[0])
