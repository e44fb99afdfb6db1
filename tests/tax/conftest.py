"""Fixtures of the tax tests: the tax year of known VAT figures, a client on it."""

from __future__ import annotations

import pytest

from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.tax_year import TAX_YEAR_TOKEN, TaxYearFacts, build_tax_year
from sevdesk_mcp.sevdesk.client import SevdeskClient
from tests.demo_account import fake_client


@pytest.fixture
def year() -> tuple[FakeSevdesk, TaxYearFacts]:
    """The tax year, fresh for each test."""
    return build_tax_year()


@pytest.fixture
def client(year: tuple[FakeSevdesk, TaxYearFacts]) -> SevdeskClient:
    """A client on the tax year."""
    return fake_client(year[0], token=TAX_YEAR_TOKEN)
