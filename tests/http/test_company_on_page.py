"""The local approval page names the account it approves for (issue 39): the name start-up
learned (``GET /SevClient``, or the demo company), asked when the pages are first made."""

from __future__ import annotations

from sevdesk_mcp.cli.demo import demo_company
from sevdesk_mcp.cli.run import AccountName, pages_in
from sevdesk_mcp.config import Config
from sevdesk_mcp.http.local.approval_page import ApprovalSite
from sevdesk_mcp.http.pages import PageServer


def test_the_pages_name_the_account_learned_after_they_were_wired() -> None:
    name = AccountName()
    pages = pages_in(Config(language="de"), name)
    name.value = "Tischlerei Weber GmbH"  # start-up read it after wiring the factory
    made = pages()
    try:
        assert isinstance(made.site, ApprovalSite) and made.site.company == "Tischlerei Weber GmbH"
    finally:
        assert isinstance(made.server, PageServer)
        made.server.stop()


def test_the_demo_names_its_company() -> None:
    assert demo_company() == "Holzwerk Sonnenberg GmbH"  # the demo books' SevClient name
