"""The preview as data (issue 39): one preview, read by the model in English with machine forms
and fences, by a person in German or English with their formats; the digest binds the data."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec
import pytest

from sevdesk_mcp.safety import locale
from sevdesk_mcp.safety.preview import (
    Change,
    Day,
    Fact,
    Lines,
    Moment,
    Preview,
    Quoted,
    Said,
    Table,
    Words,
    amount,
    digest,
    fact,
    percent,
    quoted,
    render,
    say,
    shown,
)

UTC = dt.UTC
POSITIONS = Table(
    columns=(say("Name", "Bezeichnung"), say("Net", "Netto")),
    rows=((Quoted("Beratung"), amount(Decimal("1000"))),),
    right=(1,),
)
PREVIEW = Preview(
    action=say(
        "Finalize invoice draft {0} for {1}",
        "Rechnungsentwurf {0} für {1} abschließen",
        "700041",
        quoted("Weber ⟦GmbH⟧"),
    ),
    facts=[
        fact("Gross", "Brutto", amount(Decimal("1150"))),
        fact("Date", "Datum", Day(dt.date(2026, 11, 24))),
        Fact(say("Positions", "Positionen"), POSITIONS),
        fact("Header", "Betreff", Change(None, Quoted("Angebot"))),
        fact("Lines", "Zeilen", Lines((Quoted("one"), Quoted("two")))),
        fact("Expires", "Läuft ab", Moment(dt.datetime(2026, 12, 1, 14, 5, 1, tzinfo=UTC))),
    ],
    warnings=[say("It is sent at once.", "Sie wird sofort versandt.")],
    irreversible=True,
)


def test_the_model_reads_english_machine_forms_and_fences() -> None:
    assert render(PREVIEW).splitlines() == [
        "WARNING: It is sent at once.",
        "WARNING: This cannot be undone.",
        "Finalize invoice draft 700041 for ⟦Weber (GmbH)⟧",
        "Gross: 1150.00 EUR",
        "Date: 2026-11-24",
        "Positions:",
        "    Name | Net",
        "    ⟦Beratung⟧ | 1000.00 EUR",
        "Header: (empty) → ⟦Angebot⟧",
        "Lines:",
        "    ⟦one⟧",
        "    ⟦two⟧",
        "Expires: 2026-12-01T15:05:01+01:00",
    ]
    assert render(PREVIEW, "de") == render(PREVIEW)  # the model always reads English


def test_a_german_person_reads_german_words_formats_and_quotation_marks() -> None:
    lines = render(PREVIEW, "de", "person").splitlines()
    assert lines[:3] == [
        "ACHTUNG: Sie wird sofort versandt.",
        "ACHTUNG: Das lässt sich nicht rückgängig machen.",
        "Rechnungsentwurf 700041 für „Weber ⟦GmbH⟧“ abschließen",
    ]
    assert "Brutto: 1.150,00 €" in lines and "Datum: 24.11.2026" in lines
    assert "Betreff: (leer) → „Angebot“" in lines
    assert "Läuft ab: 01.12.2026, 15:05 Uhr MEZ" in lines
    assert lines[lines.index("Positionen:") + 1 :][:2] == [
        "    Bezeichnung | Netto",
        "    „Beratung“ | 1.000,00 €",
    ]


def test_an_english_person_reads_english_formats() -> None:
    lines = render(PREVIEW, "en", "person").splitlines()
    assert "Gross: €1,150.00" in lines and "Date: 24 Nov 2026" in lines
    assert "Expires: 1 Dec 2026, 15:05 CET" in lines


def test_the_digest_binds_the_data_in_both_languages() -> None:
    same = msgspec.json.decode(msgspec.json.encode(PREVIEW), type=Preview)
    assert same == PREVIEW and digest(same) == digest(PREVIEW)
    german_only = msgspec.structs.replace(
        PREVIEW, warnings=[say("It is sent at once.", "Sie wird später versandt.")]
    )
    assert digest(german_only) != digest(PREVIEW)


def test_shown_is_the_models_form_with_the_old_shape() -> None:
    form = msgspec.to_builtins(shown(PREVIEW))
    assert form["action"] == "Finalize invoice draft 700041 for ⟦Weber (GmbH)⟧"
    assert form["facts"][0] == {"label": "Gross", "value": "1150.00 EUR"}
    assert form["facts"][4] == {"label": "Lines", "value": "⟦one⟧\n⟦two⟧"}
    assert form["irreversible"] is True and "undo" not in form


def test_third_party_text_is_cleaned_and_blank_text_is_none() -> None:
    assert quoted("  pay\u202e now\n") == Quoted("pay now")
    assert quoted("") == quoted(None) == Said("(none)", "(keine Angabe)")
    assert render(Preview(action=say("{0} and {1}", "{0} und {1}", 3, "x"))) == "3 and x"


def test_amounts_days_and_moments_as_a_person_reads_them() -> None:
    assert locale.amount(Decimal("-1234567.005"), "EUR", "de") == "-1.234.567,01 €"
    assert locale.amount(Decimal("-1234567.005"), "EUR", "en") == "-€1,234,567.01"
    assert locale.amount(Decimal("5"), "SEK", "de") == "5,00 SEK"
    assert locale.amount(Decimal("5"), "CHF", "en") == "5.00 CHF"
    summer = dt.datetime(2026, 7, 1, 14, 5, tzinfo=UTC)
    assert locale.moment(summer, "de") == "01.07.2026, 16:05 Uhr MESZ"
    assert locale.as_lang("de-DE,de;q=0.9") == "de" and locale.as_lang("fr") == "en"


@pytest.mark.parametrize(
    ("value", "de", "en"),
    [
        ("5.5", "5,5", "5.5"),
        ("19", "19", "19"),
        ("25.50", "25,5", "25.5"),
        ("1.0712", "1,0712", "1.0712"),
        ("1200", "1.200", "1,200"),
        ("-7.5", "-7,5", "-7.5"),
    ],
)
def test_a_rate_or_quantity_reads_as_a_german_or_english_person_writes_it(
    value: str, de: str, en: str
) -> None:
    piece = percent(Decimal(value))
    assert Words("de").text(piece) == f"{de} %"
    assert Words("en").text(piece) == f"{en} %"
    assert Words("de", "model").text(piece) == f"{Decimal(value).normalize():f} %"
