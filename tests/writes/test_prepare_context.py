"""A ``prepare`` wrapped in ``WithContext`` gets the books' today and the call's file access in
one context object (the enshrining DATEV export needs both); ``reads_files`` makes the tool
declare that it reads local files."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from sevdesk_mcp.config import load_config
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.safety.preview import Preview, fact, say
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.tools import definitions
from sevdesk_mcp.tools.write_flow import PrepareContext, WithContext, define_write_tool
from tests.demo_account import DEMO_URL
from tests.finance.helpers import call
from tests.write_fixtures import CHANGE
from tests.writes.helpers import ALL, write_app, writes
from tests.writes.tool_helpers import facts

pytestmark = pytest.mark.anyio
NAME = "sevdesk_test_prepare_context"


class Input(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    dryRun: bool = False


class Output(msgspec.Struct, frozen=True, kw_only=True):
    done: bool


async def _prepare(args: Input, client: SevdeskPort, context: PrepareContext) -> Prepared[None]:
    facts = [
        fact("Today", "Heute", context.today.isoformat()),
        fact("Output", "Ausgabe", str(context.files.output_dir)),
    ]
    return Prepared(
        Preview(action=say("Show what prepare got", "Zeig, was prepare bekam"), facts=facts), None
    )


async def _execute(args: Input, plan: None, client: SevdeskPort, progress: Progress) -> Output:
    return Output(done=True)


WITH_CONTEXT = define_write_tool(
    name=NAME,
    title="Prepare with context (test)",
    description="Test fixture: a prepare that gets today and the file access.",
    toolset="testing",
    tier=Tier.WRITE,
    annotations=CHANGE,
    input=Input,
    output=Output,
    prepare=WithContext(_prepare, reads_files=True),
    execute=_execute,
    locks=lambda a: (),
)


async def test_prepare_gets_the_books_today_and_the_file_access(tmp_path: Path) -> None:
    assert WITH_CONTEXT.local_files == "read"
    fake = build_demo()
    env = {**ALL, "SEVDESK_OUTPUT_DIR": str(tmp_path)}
    config = load_config({**env, "SEVDESK_API_URL": DEMO_URL})
    factory = ServerFactory(config, catalog_tools=(*definitions.ALL_TOOLS, WITH_CONTEXT))
    dry = await call(write_app(fake, env, factory), NAME, dryRun=True)
    assert facts(dry["preview"]) == {"Today": fake.today.isoformat(), "Output": str(tmp_path)}
    assert writes(fake) == []
