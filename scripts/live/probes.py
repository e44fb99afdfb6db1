"""The quirks of ``docs/sevdesk-api.md`` (Q1 … Q46 and a few of §1), probed one by one.

Each :class:`Probe` has the quirk's id and a one-line statement. Where a read-only GET can
show the quirk, its check reads the account through the GET-only session and says ``holds``
or ``changed: <what>``; where the account lacks the data to show it, ``cannot check: <why>``.
Quirks only a write (or a deliberately broken request) could show are listed with
``cannot check read-only``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from sevdesk_mcp.jsontypes import JsonValue

if TYPE_CHECKING:  # the session imports these modules for its allow-list
    from live.session import Answer, LiveSession

HOLDS: Final = "holds"
READ_ONLY: Final = "cannot check read-only"
BERLIN_OFFSETS: Final = ("+01:00", "+02:00")
LIMIT_MESSAGE: Final = "Invalid 'limit' parameter"
MISSING_ID: Final = 999_999_999_999
# every path a probe reads, ids as ``{id}``: the live session refuses any other path
READS: Final = (
    "/Contact",
    "/Contact/{id}",
    "/Contact/Factory/getNextCustomerNumber",
    "/Tools/bookkeepingSystemVersion",
    "/Invoice",
    "/Invoice/{id}/getPdf",
    "/Part",
    "/Part/{id}/getStock",
    "/ReceiptGuidance/forExpense",
    "/Voucher",
    "/VoucherPos",
    "/CheckAccount",
    "/CheckAccountTransaction",
    "/AccountDatev",
)


class CannotCheckError(Exception):
    """The account holds no data that could show the quirk."""


Check = Callable[["LiveSession"], str]


@dataclass(frozen=True, slots=True)
class Probe:
    """One quirk: its id, what it says, and how a GET shows it (``None``: no GET can)."""

    qid: str
    statement: str
    check: Check | None = None

    def run(self, session: LiveSession) -> str:
        """:returns: ``holds``, ``changed: <what>``, ``cannot check: <why>`` or ``cannot check
        read-only``.

        :raises httpx.HTTPError: when sevDesk cannot be reached.
        """
        if self.check is None:
            return READ_ONLY
        try:
            return self.check(session)
        except CannotCheckError as exc:
            return f"cannot check: {exc}"


def verdict(ok: bool, what: str) -> str:
    """:returns: ``holds`` when ``ok``, else ``changed: what``."""
    return HOLDS if ok else f"changed: {what}"


def objects(answer: Answer) -> JsonValue:
    """:returns: the ``objects`` of an answer (``None`` without an envelope)."""
    return answer.body.get("objects") if isinstance(answer.body, dict) else None


def rows(session: LiveSession, path: str, **query: str) -> list[dict[str, JsonValue]]:
    """:returns: the objects of a list.

    :raises CannotCheckError: when the list cannot be read.
    """
    answer = session.get(path, {"limit": "100", **query})
    found = objects(answer)
    if answer.status != 200 or not isinstance(found, list):
        raise CannotCheckError(f"GET {path} answered HTTP {answer.status} without a list")
    return [r for r in found if isinstance(r, dict)]


def first(
    session: LiveSession,
    path: str,
    *,
    where: Callable[[dict[str, JsonValue]], bool] | None = None,
    **query: str,
) -> dict[str, JsonValue]:
    """:returns: the first object of a list (that ``where`` accepts).

    :raises CannotCheckError: when there is none.
    """
    for row in rows(session, path, **query):
        if where is None or where(row):
            return row
    raise CannotCheckError(f"the account has no fitting object in {path}")


def total(session: LiveSession, path: str, **query: str) -> str:
    """:returns: the ``total`` of a list asked with ``countAll``.

    :raises CannotCheckError: when the list sends no total.
    """
    answer = session.get(path, {"limit": "1", "countAll": "true", **query})
    found = answer.body.get("total") if isinstance(answer.body, dict) else None
    if answer.status != 200 or found is None:
        raise CannotCheckError(f"GET {path} sent no total (HTTP {answer.status})")
    return str(found)


def _q1(session: LiveSession) -> str:
    paths = (
        "/Contact",
        "/Tools/bookkeepingSystemVersion",
        "/Contact/Factory/getNextCustomerNumber",
    )
    bare = [
        p
        for p in paths
        if not (isinstance(a := session.get(p, {"limit": "1"}).body, dict) and "objects" in a)
    ]
    return verdict(not bare, f"no objects envelope on {', '.join(bare)}")


def _q2(session: LiveSession) -> str:
    contact = first(session, "/Contact")
    found = objects(session.get(f"/Contact/{contact['id']}"))
    return verdict(
        isinstance(found, list) and len(found) == 1,
        f"GET /Contact/{{id}} sent {type(found).__name__}",
    )


def _q3(session: LiveSession) -> str:
    invoice = first(session, "/Invoice", where=lambda r: r.get("status") != "100")
    found = objects(session.get(f"/Invoice/{invoice['id']}/getPdf", {"preventSendBy": "true"}))
    keys = set(found) if isinstance(found, dict) else set()
    return verdict({"mimetype", "base64Encoded"} <= keys, f"getPdf keys are {sorted(keys)}")


def _q4(session: LiveSession) -> str:
    invoice = first(session, "/Invoice", where=lambda r: "paidAmount" in r)
    strings = [
        k
        for k in ("id", "status", "sumNet", "sumGross", "showNet")
        if not isinstance(invoice.get(k), str)
    ]
    paid = invoice.get("paidAmount")
    number = isinstance(paid, int | float) and not isinstance(paid, bool)
    return verdict(
        not strings and number, f"not strings: {strings}; paidAmount is {type(paid).__name__}"
    )


def _q5(session: LiveSession) -> str:
    amount = first(session, "/CheckAccountTransaction").get("amount")
    return verdict(isinstance(amount, str), f"the transaction amount is a {type(amount).__name__}")


def _q6(session: LiveSession) -> str:
    part = first(session, "/Part")
    stock = objects(session.get(f"/Part/{part['id']}/getStock"))
    return verdict(
        isinstance(stock, str) and stock.replace(".", "", 1).lstrip("-").isdigit(),
        f"getStock sent {stock!r}",
    )


def _q8(session: LiveSession) -> str:
    rule = first(session, "/Invoice", where=lambda r: isinstance(r.get("taxRule"), dict)).get(
        "taxRule"
    )
    rule_id = rule.get("id") if isinstance(rule, dict) else None
    guide = first(session, "/ReceiptGuidance/forExpense")
    allowed = guide.get("allowedTaxRules")
    ids = [r.get("id") for r in allowed if isinstance(r, dict)] if isinstance(allowed, list) else []
    ints = bool(ids) and all(isinstance(i, int) and not isinstance(i, bool) for i in ids)
    return verdict(
        isinstance(rule_id, str) and ints, f"taxRule.id {rule_id!r}, guidance ids {ids[:3]}"
    )


def _q10(session: LiveSession) -> str:
    draft = first(session, "/Invoice", status="100")
    return verdict(
        draft.get("sendType") in ("0", "", None), f"a draft's sendType is {draft.get('sendType')!r}"
    )


def _q11(session: LiveSession) -> str:
    voucher = first(session, "/Voucher")
    return verdict(
        {"recurringIntervall", "recurringInterval"} <= set(voucher),
        "the voucher lacks one of the two",
    )


def _ignored(path: str, **query: str) -> Check:
    def check(session: LiveSession) -> str:
        plain, filtered = total(session, path), total(session, path, **query)
        return verdict(plain == filtered, f"{query} narrowed {path} from {plain} to {filtered}")

    return check


def _q15(session: LiveSession) -> str:
    voucher = first(session, "/Voucher", embed="voucherPos")
    return verdict("voucherPos" not in voucher, "embed=voucherPos now adds positions")


def _q19(session: LiveSession) -> str:
    if total(session, "/Invoice") == "0":
        raise CannotCheckError("the account has no invoices")
    found = rows(session, "/Invoice", startDate="2000-01-01", endDate="2099-12-31")
    return verdict(found == [], f"ISO dates found {len(found)} invoices")


def _q20(session: LiveSession) -> str:
    stamp = first(session, "/Contact").get("create")
    return verdict(
        isinstance(stamp, str) and stamp.endswith(BERLIN_OFFSETS), f"create is {stamp!r}"
    )


def _q37(session: LiveSession) -> str:
    contact = first(session, "/Contact")
    return verdict({"surename", "titel"} <= set(contact), "surename/titel are spelled otherwise")


def _q40(session: LiveSession) -> str:
    have = {p: "currency" in first(session, p) for p in ("/CheckAccount", "/Voucher", "/Invoice")}
    transaction = "currency" in first(session, "/CheckAccountTransaction")
    return verdict(
        all(have.values()) and not transaction, f"currency on {have}, on transactions {transaction}"
    )


def _q42(session: LiveSession) -> str:
    answer = session.get("/AccountDatev")
    found = objects(answer)
    count = len(found) if isinstance(found, list) else -1
    return verdict(0 < count <= 100, f"GET /AccountDatev without limit sent {count} rows")


def _q43(session: LiveSession) -> str:
    position = first(session, "/VoucherPos")
    voucher = first(session, "/Voucher")
    ok = {"comment", "accountDatev"} <= set(position) and "accountDatev" not in voucher
    return verdict(ok, "the account field moved between voucher and position")


def _limit(session: LiveSession) -> str:
    answer = session.get("/Contact", {"limit": "1001"})
    error = answer.body.get("error") if isinstance(answer.body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return verdict(
        answer.status == 400 and LIMIT_MESSAGE in str(message),
        f"limit=1001 gave HTTP {answer.status}",
    )


def _total(session: LiveSession) -> str:
    answer = session.get("/Contact", {"limit": "1", "countAll": "true"})
    found = answer.body.get("total") if isinstance(answer.body, dict) else None
    return verdict(isinstance(found, str), f"total is {type(found).__name__}")


def _not_found(session: LiveSession) -> str:
    answer = session.get(f"/Contact/{MISSING_ID}")
    body = answer.body if isinstance(answer.body, dict) else {}
    error = body.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    ok = (
        answer.status == 404
        and "objects" in body
        and body["objects"] is None
        and str(code) == "151"
    )
    return verdict(ok, f"HTTP {answer.status}, code {code!r}")


PROBES: Final = (
    Probe("Q1", "success bodies are wrapped in objects (reads here; creates need a write)", _q1),
    Probe("Q2", "GET by id returns an array of one", _q2),
    Probe("Q3", "getPdf is wrapped, with the keys mimetype and base64Encoded", _q3),
    Probe("Q4", "ids, status, sums and flags are strings; paidAmount is a number", _q4),
    Probe("Q5", "the transaction amount is a string", _q5),
    Probe("Q6", "Part getStock sends a numeric string", _q6),
    Probe("Q7", 'DELETE answers {"objects":[null]}'),
    Probe("Q8", "taxRule.id is a string; ReceiptGuidance tax rule ids are integers", _q8),
    Probe("Q9", "bookAmount answers a wrapped log with amountPayed"),
    Probe("Q10", 'a draft\'s sendType is "0", "" or null', _q10),
    Probe("Q11", "a voucher has recurringIntervall and recurringInterval", _q11),
    Probe(
        "Q12",
        "a misspelled filter (customerIntenalNote) is ignored",
        _ignored("/Invoice", customerIntenalNote="no-such-note"),
    ),
    Probe(
        "Q13",
        "isBooked=false on transactions is ignored",
        _ignored("/CheckAccountTransaction", isBooked="false"),
    ),
    Probe("Q14", "PUT /CheckAccount ignores autoMapTransactions (plural)"),
    Probe("Q15", "embed=voucherPos on /Voucher is ignored", _q15),
    Probe("Q16", "unknown body fields are dropped without error"),
    Probe(
        "Q17",
        "transaction-log filters object[id] and objectName are ignored",
        _ignored(
            "/CheckAccountTransactionLog", **{"object[id]": "1", "object[objectName]": "Voucher"}
        ),
    ),
    Probe("Q18", "date formats of requests differ per endpoint"),
    Probe("Q19", "ISO startDate/endDate on /Invoice give 200 and an empty list", _q19),
    Probe("Q20", "datetimes carry the Berlin offset", _q20),
    Probe("Q21", "getPdf without preventSendBy marks the document sent"),
    Probe("Q22", "saveInvoice creates a draft without a number"),
    Probe("Q23", "an e-invoice draft cannot render (503)"),
    Probe("Q24", "the contact's address is not copied onto an invoice"),
    Probe("Q25", "only drafts change; others answer 400/90400 or 409/159"),
    Probe("Q26", "booking amounts carry the sign of the transaction"),
    Probe("Q27", "bookAmount on an online account needs the transaction"),
    Probe("Q28", "FULL_PAYMENT consumes the whole transaction"),
    Probe("Q29", "resetToOpen takes back all bookings"),
    Probe("Q30", "resetting a paid foreign-currency voucher recalculates it"),
    Probe("Q31", "a person created with parent gets the company's customer number"),
    Probe("Q32", "validation errors can come as HTTP 500"),
    Probe("Q33", "an error status does not mean not written"),
    Probe("Q34", "wrong shapes give parser-style messages"),
    Probe("Q35", "credit-note rules 455/456/830 and taxRule 9"),
    Probe("Q36", "render/changeParameter/sendByWithRender return one PDF"),
    Probe("Q37", "contact fields are spelled surename and titel", _q37),
    Probe("Q38", "objectName and mapAll are needed in requests"),
    Probe("Q39", "a voucher's description is its receipt number"),
    Probe(
        "Q40", "currency is set on accounts, vouchers and invoices, absent on transactions", _q40
    ),
    Probe("Q41", "GET /Contact ignores search=", _ignored("/Contact", search="no-such-contact")),
    Probe("Q42", "GET /AccountDatev without limit sends at most 100 rows", _q42),
    Probe("Q43", "the account is on voucher positions (with comment), not on the voucher", _q43),
    Probe("Q44", "invoices partly paid before 2024-06-13 still say 200"),
    Probe("Q45", "the documentation contradicts itself (no API behaviour)"),
    Probe("Q46", "a whole env line as the token header gives 401"),
    Probe("§1-limit", "limit outside 1..1000 gives HTTP 400 with sevDesk's message", _limit),
    Probe("§1-total", "countAll adds total as a string", _total),
    Probe("§5.7", "a missing object gives 404 with error code 151 and objects null", _not_found),
)
