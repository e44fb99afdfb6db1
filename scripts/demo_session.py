"""A short, readable MCP session against the demo books, over the real stdio transport.

``make demo`` runs it: it starts ``mcp-server-sevdesk --demo`` as a subprocess with the
``write`` and ``commit`` tiers on (``external`` stays off), speaks MCP 2026-07-28 to it line by
line (a tiny scripted client, no SDK) and prints, in plain lines, what a bookkeeper would see:

1. a few reads (the company, overdue invoices, drafts waiting);
2. one approval: a draft invoice is finalized; the server answers with the preview as a form
   (an elicitation), the script shows it and approves it as the person would, and the invoice
   is read back: numbered and open, as the preview said;
3. a dry run: the preview of a cancellation, nothing changes and nobody is asked;
4. a refusal: sending by e-mail needs the ``external`` tier, which is off.

Then it prints how to add the server to Claude Desktop and Claude Code with a command that
exists after ``make demo`` (this venv's ``mcp-server-sevdesk``).
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process

CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}}}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": CAPABILITIES,
    "io.modelcontextprotocol/clientInfo": {"name": "demo-session", "version": "1"},
}
DEMO_ENV = {"SEVDESK_ALLOW": "read,write,commit"}  # external (sending) stays off
FENCE_NOTE = (
    "Text in ⟦ ⟧ comes from third parties (names, texts in sevDesk or from a bank): the server "
    "fences it so the model reads it as data, never as instructions."
)
MAX_ROWS = 5
WRAP = 96

Send = Callable[[bytes], Awaitable[None]]
Receive = Callable[[], Awaitable[bytes]]


class StdioClient:
    """Sends one request at a time and reads the answer with the same id."""

    def __init__(self, send: Send, receive: Receive) -> None:
        self._send = send
        self._receive = receive
        self._buffer = b""
        self._next_id = 0

    @classmethod
    def of_process(cls, process: Process) -> StdioClient:
        """:returns: a client speaking to ``process`` over its stdin and stdout."""
        assert process.stdin is not None
        assert process.stdout is not None
        return cls(process.stdin.send, process.stdout.receive)

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """:returns: the answer to one request (notifications in between are skipped)."""
        self._next_id += 1
        message = {
            "jsonrpc": "2.0",
            "id": self._next_id,
            "method": method,
            "params": {**params, "_meta": META},
        }
        await self._send(json.dumps(message).encode() + b"\n")
        while True:
            answer = json.loads(await self._line())
            if answer.get("id") == self._next_id:
                return dict(answer)

    async def _line(self) -> bytes:
        while b"\n" not in self._buffer:
            with anyio.fail_after(30):
                self._buffer += await self._receive()
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line


@dataclass
class Transcript:
    """What the session did, for the test of ``make demo``: every tool answer by step, and the
    elicitations the server sent (their messages are the previews a person approved)."""

    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    elicitations: list[dict[str, Any]] = field(default_factory=list)
    finalized_id: int | None = None


# ---- printing --------------------------------------------------------------------------------


def heading(title: str) -> None:
    """Print a step's title."""
    print(f"\n\033[1m=== {title}\033[0m")


def say(text: str, indent: str = "  ") -> None:
    """Print ``text`` wrapped, each paragraph indented."""
    for paragraph in text.splitlines() or [""]:
        print(textwrap.fill(paragraph, WRAP, initial_indent=indent, subsequent_indent=indent))


def boxed(text: str) -> None:
    """Print what a person is shown (a preview), each line wrapped, marked by a bar."""
    for line in text.rstrip().splitlines():
        lead = "    │ " + " " * (len(line) - len(line.lstrip()))
        print(textwrap.fill(line.strip(), WRAP, initial_indent=lead, subsequent_indent=lead + "  "))


def money(value: Any) -> str:
    """:returns: an amount as ``1234.50 EUR``, from ``{"amount", "currency"}`` or a string."""
    if isinstance(value, dict):
        return f"{value.get('amount')} {value.get('currency', '')}".strip()
    return str(value)


def document_line(doc: dict[str, Any]) -> str:
    """:returns: one document as a line: number (or draft id), contact, amounts, status."""
    name = doc.get("number") or f"draft {doc.get('id')}"
    line = f"{name}  {doc.get('contact_name', '')}  {money(doc.get('gross'))}  {doc.get('status')}"
    if doc.get("days_overdue"):
        line += f", {doc['days_overdue']} days overdue (open {money(doc.get('open'))})"
    return line


def rows(lines: list[str], total: int | None = None) -> None:
    """Print up to :data:`MAX_ROWS` lines, and how many more there are."""
    for line in lines[:MAX_ROWS]:
        print(textwrap.fill(line, WRAP, initial_indent="    - ", subsequent_indent="      "))
    more = (total if total is not None else len(lines)) - min(len(lines), MAX_ROWS)
    if more > 0:
        say(f"… and {more} more", "    ")


def structured(answer: dict[str, Any]) -> dict[str, Any]:
    """:returns: the structured result of a tool answer (empty for an error)."""
    result = answer.get("result", {})
    data = result.get("structuredContent") if isinstance(result, dict) else None
    return data if isinstance(data, dict) else {}


def error_text(answer: dict[str, Any]) -> str | None:
    """:returns: what a refused call says (a protocol error or a tool error), else ``None``."""
    if "error" in answer:
        return str(answer["error"].get("message"))
    result = answer.get("result", {})
    if result.get("isError"):
        return " ".join(c.get("text", "") for c in result.get("content", []))
    return None


# ---- the session -----------------------------------------------------------------------------


class Session:
    """The scripted conversation, one method a step."""

    def __init__(self, client: StdioClient) -> None:
        self.client = client
        self.log = Transcript()

    async def tool(self, step: str, name: str, **arguments: Any) -> dict[str, Any]:
        """:returns: the answer to one tool call, recorded under ``step``."""
        answer = await self.client.call("tools/call", {"name": name, "arguments": arguments})
        self.log.answers[step] = answer
        return answer

    async def run(self) -> Transcript:
        """Run every step; :returns: the transcript."""
        await self.connect()
        await self.reads()
        draft = await self.drafts()
        if draft is not None:
            await self.approve_finalize(draft)
            await self.dry_run(draft)
        await self.refusal(draft)
        return self.log

    async def connect(self) -> None:
        """Discover the server and its tools."""
        discover = await self.client.call("server/discover", {})
        info = discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]
        print(f"Connected to {info['name']} {info['version']} over stdio (MCP 2026-07-28).")
        tools = (await self.client.call("tools/list", {}))["result"]["tools"]
        print(
            f"{len(tools)} tools offered. For this demo the write and commit tiers are on "
            "(SEVDESK_ALLOW=read,write,commit); external (sending) is off."
        )
        say(FENCE_NOTE, "")

    async def reads(self) -> None:
        """The company and its overdue invoices."""
        heading("Which company is this?  (sevdesk_account_info)")
        account = structured(await self.tool("account", "sevdesk_account_info"))
        say(
            f"{account.get('company')}, account {account.get('account_id')}; today in the demo "
            f"books: {account.get('today')}"
        )
        heading("Which invoices are overdue?  (sevdesk_search_documents overdue_only)")
        found = structured(
            await self.tool("overdue", "sevdesk_search_documents", overdue_only=True, limit=5)
        )
        docs = found.get("documents", [])
        rows([document_line(d) for d in docs], found.get("total_matches"))

    async def drafts(self) -> dict[str, Any] | None:
        """:returns: the first draft invoice waiting to be finalized, if any."""
        heading("Which invoice drafts are waiting?  (sevdesk_search_documents status=draft)")
        found = structured(
            await self.tool("drafts", "sevdesk_search_documents", status="draft", limit=5)
        )
        docs: list[dict[str, Any]] = found.get("documents", [])
        rows([document_line(d) for d in docs], found.get("total_matches"))
        return docs[0] if docs else None

    async def approve_finalize(self, draft: dict[str, Any]) -> None:
        """Finalize ``draft``: show the preview the server asks about, approve it, read back."""
        arguments = {"kind": "invoice", "document_id": draft["id"]}
        heading(f"Finalize draft {draft['id']}  (sevdesk_finalize_document, tier commit)")
        first = await self.tool("finalize_ask", "sevdesk_finalize_document", **arguments)
        result = first.get("result", {})
        if result.get("resultType") != "input_required":
            say(f"Expected a question for the person, got: {error_text(first) or 'a result'}")
            return
        responses = self.answer_forms(result["inputRequests"])
        retry = {"inputResponses": responses, "requestState": result["requestState"]}
        answer = await self.client.call(
            "tools/call", {"name": "sevdesk_finalize_document", "arguments": arguments, **retry}
        )
        self.log.answers["finalize_done"] = answer
        self.print_write(answer)
        self.log.finalized_id = draft["id"]
        await self.read_back(draft["id"])

    def answer_forms(self, requests: dict[str, Any]) -> dict[str, Any]:
        """Show each form the server sent and fill it in as the person would: every yes/no
        field on. :returns: the ``inputResponses``."""
        responses: dict[str, Any] = {}
        for key, request in requests.items():
            params = request.get("params", {})
            self.log.elicitations.append(params)
            say("The server does not finalize yet. It asks the person, with this preview:")
            boxed(str(params.get("message", "")))
            schema = params.get("requestedSchema", {}).get("properties", {})
            content = {k: True for k, v in schema.items() if v.get("type") == "boolean"}
            say(f"The scripted client approves: {json.dumps(content)}")
            responses[key] = {"action": "accept", "content": content}
        return responses

    def print_write(self, answer: dict[str, Any]) -> None:
        """Print a write tool's outcome in one or two lines."""
        refused = error_text(answer)
        if refused:
            say(f"Refused: {refused}")
            return
        data = structured(answer)
        say(f"Outcome: {data.get('status')}")
        if data.get("note"):
            say(str(data["note"]))

    async def read_back(self, document_id: int) -> None:
        """Read the finalized invoice back from sevDesk (here: the demo books)."""
        heading(f"Read it back  (sevdesk_get_document {document_id})")
        data = structured(
            await self.tool(
                "read_back", "sevdesk_get_document", kind="invoice", document_id=document_id
            )
        )
        doc = data.get("document", {})
        say(document_line(doc) + (", enshrined (locked)" if doc.get("enshrined") else ""))

    async def dry_run(self, draft: dict[str, Any]) -> None:
        """Preview a cancellation of the invoice without changing anything."""
        heading("A dry run: what would cancelling it do?  (sevdesk_cancel_invoice dryRun)")
        answer = await self.tool(
            "dry_run", "sevdesk_cancel_invoice", invoice_id=draft["id"], dryRun=True
        )
        self.print_write(answer)
        preview = text_result(answer).get("preview")
        if isinstance(preview, dict):
            say("Its preview, as the model reads it (not asked, not done):")
            boxed(preview_text(preview))

    async def refusal(self, draft: dict[str, Any] | None) -> None:
        """Try to send an invoice by e-mail: the ``external`` tier is off."""
        heading("Send it by e-mail?  (sevdesk_send_document_email, tier external: off)")
        answer = await self.tool(
            "refusal",
            "sevdesk_send_document_email",
            kind="invoice",
            document_id=draft["id"] if draft else 1,
            to_email="buchhaltung@example.com",
        )
        refused = error_text(answer)
        say(f"Refused: {refused}" if refused else "Not refused: the external tier is on?")
        say(
            "Tools of a tier that is off are not even offered to the model; SEVDESK_ALLOW "
            "(or the bundle's checkboxes) turns them on."
        )


def preview_text(preview: dict[str, Any]) -> str:
    """:returns: a preview as the model reads it in a result's text (warnings, the action, then
    each fact as ``label: value``)."""
    lines = [f"WARNING: {w}" for w in preview.get("warnings", [])]
    if preview.get("irreversible"):
        lines.append("WARNING: This cannot be undone.")
    lines.append(str(preview.get("action", "")))
    lines += [f"{f['label']}: {f['value']}" for f in preview.get("facts", [])]
    return "\n".join(lines)


def text_result(answer: dict[str, Any]) -> dict[str, Any]:
    """:returns: the text content of a tool answer as the model reads it (empty for an error)."""
    result = answer.get("result", {})
    content = result.get("content") if isinstance(result, dict) else None
    if not content or result.get("isError"):
        return {}
    data = json.loads(content[0].get("text", "{}"))
    return data if isinstance(data, dict) else {}


# ---- how to add the server -------------------------------------------------------------------


def server_command() -> list[str]:
    """:returns: the command that starts this server, as installed by ``make demo``: the venv's
    ``mcp-server-sevdesk`` by its absolute path, else this Python with ``-m sevdesk_mcp``."""
    folder = Path(sys.executable).parent
    for name in ("mcp-server-sevdesk", "mcp-server-sevdesk.exe"):
        if (folder / name).is_file():
            return [str((folder / name).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "sevdesk_mcp"]


def how_to_add(command: list[str]) -> str:
    """:returns: the snippets for Claude Desktop and Claude Code, on the demo books."""
    desktop = {
        "mcpServers": {
            "sevdesk": {"command": command[0], "args": [*command[1:], "--stdio", "--demo"]}
        }
    }
    shell = " ".join(_quoted(part) for part in command)
    return f"""
How to add the server to your client, on the demo books first (no token needed):

  Claude Desktop (claude_desktop_config.json):
{textwrap.indent(json.dumps(desktop, indent=2), "    ")}

  Claude Code:
    claude mcp add sevdesk -- {shell} --stdio --demo

For your own books, drop --demo and give your sevDesk API token (sevDesk: Settings > Users >
API token) as "env": {{"SEVDESK_API_TOKEN": "<your token>"}} (Claude Code: --env
SEVDESK_API_TOKEN=<your token>). It stays read-only until SEVDESK_ALLOW says more; every
setting: {shell} --help, and docs/configuration.md.
"""


def _quoted(part: str) -> str:
    """:returns: ``part`` quoted for a shell line when it holds a space or a quote."""
    return f'"{part}"' if any(c in part for c in " \t'\"") else part


async def main() -> int:
    """Run the session against a fresh demo server; :returns: its exit status."""
    command = [sys.executable, "-m", "sevdesk_mcp", "--demo", "--stdio"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEVDESK_")} | DEMO_ENV
    async with await anyio.open_process(command, env=env, stderr=None) as process:
        await Session(StdioClient.of_process(process)).run()
        assert process.stdin is not None
        await process.stdin.aclose()
        with anyio.fail_after(10):
            status = await process.wait()
    print(how_to_add(server_command()))
    return status


if __name__ == "__main__":
    sys.exit(anyio.run(main))
