"""The previews of document, contact and article writes as data (issue 39): the positions as a
table like the document's, the sums under it, every word in German and English, third-party
text quoted, what can be undone said; and a draft position's tax rate as a number or a string."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec
import pytest

from sevdesk_mcp.domain.documents import actions, drafts, resets
from sevdesk_mcp.domain.documents.draft_body import Draft
from sevdesk_mcp.domain.documents.draft_lines import Line, checked_line
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.safety.preview import Preview, Table, Words, render
from sevdesk_mcp.tools.documents.write import PositionInput
from tests.demo_account import fake_client
from tests.documents.commit_helpers import PAID_INVOICE
from tests.documents.draft_helpers import CUSTOMER, DRAFT_INVOICE, OPEN_INVOICE

pytestmark = pytest.mark.anyio


def _fact(preview: Preview, label: str) -> object:
    (value,) = [f.value for f in preview.facts if f.label.en == label]
    return value


async def test_the_finalize_preview_lays_the_positions_out_as_a_table_in_both_languages() -> None:
    fake = build_demo()
    preview = (await actions.prepare_finalize(fake_client(fake), "invoice", DRAFT_INVOICE)).preview
    table = _fact(preview, "Positions")
    assert isinstance(table, Table)
    german = [Words("de").text(c) for c in table.columns]
    assert german == ["Pos.", "Menge", "Bezeichnung", "Einzelpreis", "USt.", "Netto"]
    assert table.right == (0, 1, 3, 4, 5)
    assert len(table.rows) == 3
    model = render(preview)
    assert "Finalize invoice draft (id 700041): it gets its number and status open" in model
    assert "    Pos. | Quantity | Name | Unit price | VAT | Net\n" in model
    assert (
        "    1 | 4 | ⟦Einbauschrank nach Maß (je laufender Meter)⟧ | 1150.00 EUR | 19 % | "
        "4600.00 EUR\n"
    ) in model
    person = render(preview, "de", "person")
    assert "Rechnungsentwurf (ID 700041) abschließen" in person
    assert "    Pos. | Menge | Bezeichnung | Einzelpreis | USt. | Netto\n" in person
    assert "| 1.150,00 € | 19 % | 4.600,00 €\n" in person
    assert "Kopftext: „Vielen Dank für Ihren Auftrag." in person
    assert "Fällig am: 08.12.2026 (14 Tage)" in person
    assert "Brutto: 6.052,34 €" in person
    assert " (invoice)" not in model and "(Rechnung)" not in person  # no word pairs any more


async def test_the_sums_stand_under_the_positions() -> None:
    fake = build_demo()
    preview = (await actions.prepare_finalize(fake_client(fake), "invoice", DRAFT_INVOICE)).preview
    labels = [f.label.en for f in preview.facts]
    assert labels.index("Positions") < labels.index("Net") < labels.index("Gross")


async def test_a_draft_position_text_follows_its_name_after_a_dash() -> None:
    fake = build_demo()
    line = Line("Theke", Decimal(1), Decimal("100.00"), Decimal(7), text="Eiche massiv")
    draft = Draft("invoice", CUSTOMER, dt.date(2026, 11, 27), (line,))
    prepared = await drafts.prepare_create(fake_client(fake), draft, today=fake.today)
    model = render(prepared.preview)
    assert "| ⟦Theke⟧ \u2013 ⟦Eiche massiv⟧ | 100.00 EUR | 7 % |" in model
    assert "USt. 7 %: 7,00 €" in render(prepared.preview, "de", "person")
    assert "While it is a draft it can be deleted again." in model


async def test_what_can_be_undone_is_said_and_what_cannot_is_marked() -> None:
    fake = build_demo()
    client = fake_client(fake)
    deleted = (await drafts.prepare_delete(client, "invoice", DRAFT_INVOICE)).preview
    assert deleted.irreversible is True and deleted.undo is None
    opened = (await resets.prepare_reset(client, "invoice", PAID_INVOICE, "open")).preview
    assert opened.undo is not None and not opened.irreversible
    emailed = await actions.prepare_email(
        client, "invoice", OPEN_INVOICE, actions.Email("a@example.com", "Rechnung", "Hallo\nda")
    )
    assert emailed.preview.irreversible is True
    assert "Text der E-Mail:\n    „Hallo\n    da“" in render(emailed.preview, "de", "person")


@pytest.mark.parametrize("rate", [7, 7.0, "7", "7.0"])
def test_a_tax_rate_is_taken_as_a_number_or_a_string(rate: object) -> None:
    given = {"name": "Theke", "quantity": "1", "unit_price": "10.00", "tax_rate": rate}
    position = msgspec.convert(given, PositionInput)
    line = Line("Theke", Decimal(1), Decimal("10.00"), position.tax_rate)
    assert checked_line(line, 0).tax_rate == Decimal(7)
    assert f"{checked_line(line, 0).tax_rate:f}" == "7"  # sent as sevDesk writes it


@pytest.mark.parametrize("rate", ["30.5", "7.125", "-7"])
def test_a_tax_rate_that_is_no_vat_rate_is_refused_naming_the_position(rate: str) -> None:
    """8 or 7.5 pass here: which rates fit is the tax rule's check (and the buyer's country's)."""
    line = Line("Theke", Decimal(1), Decimal("10.00"), Decimal(rate))
    with pytest.raises(ToolInputError, match=r"positions\[2\]\.tax_rate must be a VAT rate"):
        checked_line(line, 2)
