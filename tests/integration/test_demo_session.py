"""``make demo``'s session (scripts/demo_session.py): one approval with its preview, a dry run, a
refusal of a tier that is off, and a client snippet with a command that exists.

The session runs once in process against demo books the test holds (so the books are read back
directly), and once as ``make demo`` runs it. The preview's wording is not asserted: only that a
person was asked, about this document and its amount, and that the books end as it said.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from tests.demo_account import demo_app
from tests.wire import open_wire

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "demo_session.py"
OPEN = 200  # sevDesk's status of a finalized, unpaid invoice
DRAFT = 100


@functools.cache
def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo_session", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def amount_forms(value: str) -> tuple[str, str, str]:
    """``4399.43`` as the model reads it, as English (``4,399.43``) and German (``4.399,43``)
    write it for a person."""
    whole, cents = value.split(".")
    grouped = f"{int(whole):,}"
    return value, f"{grouped}.{cents}", f"{grouped.replace(',', '.')},{cents}"


async def run_session(fake: FakeSevdesk) -> Any:
    demo = load_script()
    async with open_wire(demo_app(demo.DEMO_ENV, fake)) as wire:

        async def receive() -> bytes:
            return json.dumps(await wire.recv()).encode() + b"\n"

        return await demo.Session(demo.StdioClient(wire.send_raw, receive)).run()


@pytest.mark.anyio
async def test_the_session_approves_one_preview_and_the_books_end_as_it_said(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake = build_demo()
    drafts = {i.id: i for i in fake.store.invoices if i.status == DRAFT}
    log = await run_session(fake)
    printed = capsys.readouterr().out

    invoice_id = log.finalized_id
    assert invoice_id in drafts
    gross = log.answers["drafts"]["result"]["structuredContent"]["documents"][0]["gross"]
    # a person was asked once, with a preview naming this document's amount, and approved
    assert len(log.elicitations) == 1
    form = log.elicitations[0]
    assert any(a in form["message"] for a in amount_forms(_amount(gross)))
    assert any(p.get("type") == "boolean" for p in form["requestedSchema"]["properties"].values())
    assert log.answers["finalize_ask"]["result"]["resultType"] == "input_required"
    done = log.answers["finalize_done"]["result"]
    assert not done.get("isError"), done
    assert done["structuredContent"]["status"] == "done"
    # the books: numbered and open, as the preview said; the read-back agrees with them
    invoice = fake.store.invoices.get(invoice_id)
    assert invoice.status == OPEN
    assert invoice.invoiceNumber
    read_back = log.answers["read_back"]["result"]["structuredContent"]["document"]
    assert (read_back["number"], read_back["status"]) == (invoice.invoiceNumber, "open")
    # the dry run changed nothing; the tier that is off refused
    assert log.answers["dry_run"]["result"]["structuredContent"]["status"] == "dry_run"
    assert fake.store.invoices.get(invoice_id).status == OPEN
    assert "error" in log.answers["refusal"] or log.answers["refusal"]["result"]["isError"]
    # readable: the fences explained once, nothing cut mid-object
    assert "⟦ ⟧" in printed
    assert "shortened" not in printed
    assert invoice.invoiceNumber in printed


def _amount(money: Any) -> str:
    """The decimal of a money value as a result gives it: ``{"amount": …}`` or ``"… EUR"``."""
    return str(money["amount"]) if isinstance(money, dict) else str(money).split()[0]


def test_make_demo_runs_and_prints_a_command_that_exists_with_demo() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT)],
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard only
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    snippet = proc.stdout[proc.stdout.index("claude_desktop_config.json") :]
    desktop = json.loads(snippet[snippet.index("{") : snippet.index("\n  Claude Code")])
    server = desktop["mcpServers"]["sevdesk"]
    assert Path(server["command"]).is_absolute()
    assert Path(server["command"]).is_file()
    assert "--demo" in server["args"]
    assert "claude mcp add sevdesk -- " + server["command"] in proc.stdout
