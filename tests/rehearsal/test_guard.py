"""The guard of a rehearsal: only plain reads reach the real account; every write endpoint the
server knows (``sevdesk/endpoints.py``) and every GET with a side effect is refused before
anything is sent, and counted."""

from __future__ import annotations

import httpx
import pytest

from sevdesk_mcp.errors import RehearsalRefusedError, WriteRefusedError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.rehearsal.guard import Guard
from sevdesk_mcp.rehearsal.transport import Rehearsal
from sevdesk_mcp.sevdesk.endpoints import ENDPOINTS, Endpoint
from tests.demo_account import DEMO_URL

pytestmark = pytest.mark.anyio


class Recorder(httpx.AsyncBaseTransport):
    """Stands for the network: records every request that reaches it."""

    def __init__(self) -> None:
        self.reached: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.reached.append(f"{request.method} {request.url.path}")
        return httpx.Response(200, json={"objects": []}, request=request)


def _url(template: str, query: dict[str, str] | None = None) -> httpx.URL:
    return httpx.URL(DEMO_URL + template.replace("{id}", "7"), params=query or {})


WRITES = [e for e in ENDPOINTS if e.method != "GET"]
SIDE_EFFECT_GETS = [
    ("/Invoice/{id}/getPdf", {}),
    ("/CreditNote/{id}/getPdf", {"preventSendBy": "false"}),
    ("/SevSequence/Factory/getByType", {"objectType": "Invoice", "type": "RE"}),
    ("/SevSequence/Factory/getByType", {"objectType": "Invoice", "useNextNumber": "true"}),
    ("/Export/createDatevCsvZipExportJob", {"enshrineDocuments": "true"}),
]
PLAIN_READS = [
    *(
        (e.template, {})
        for e in ENDPOINTS
        if e.method == "GET" and not e.template.endswith(("getPdf", "getByType"))
    ),
    ("/Invoice/{id}/getPdf", {"preventSendBy": "true"}),
    ("/SevSequence/Factory/getByType", {"objectType": "Invoice", "useNextNumber": "false"}),
    ("/Export/createDatevCsvZipExportJob", {"enshrineDocuments": "false"}),
]


def _body(template: str) -> JsonObject:
    if template.endswith("saveVoucher"):
        return {"voucher": {"status": 50}}  # even a draft: the guard sends no write at all
    return {"name": "x"}


@pytest.mark.parametrize("endpoint", WRITES, ids=lambda e: f"{e.method} {e.template}")
async def test_every_write_endpoint_is_refused_before_it_is_sent(endpoint: Endpoint) -> None:
    network = Recorder()
    guard = Guard(network)
    method, template = endpoint.method, endpoint.template
    request = httpx.Request(method, _url(template), json=_body(template))
    with pytest.raises(RehearsalRefusedError) as refused:
        await guard.handle_async_request(request)
    assert network.reached == []
    assert guard.refused == 1
    message = str(refused.value)
    assert method in message and template.replace("{id}", "7") in message
    assert "never writes to sevDesk" in message and "\n" not in message
    assert isinstance(refused.value, WriteRefusedError)


@pytest.mark.parametrize(("template", "query"), SIDE_EFFECT_GETS)
async def test_a_get_that_changes_data_is_refused(template: str, query: dict[str, str]) -> None:
    network = Recorder()
    guard = Guard(network)
    with pytest.raises(RehearsalRefusedError):
        await guard.handle_async_request(httpx.Request("GET", _url(template, query)))
    assert network.reached == [] and guard.refused == 1


@pytest.mark.parametrize(("template", "query"), PLAIN_READS)
async def test_plain_reads_pass(template: str, query: dict[str, str]) -> None:
    network = Recorder()
    guard = Guard(network)
    response = await guard.handle_async_request(httpx.Request("GET", _url(template, query)))
    assert response.status_code == 200
    assert network.reached == [f"GET /api/v1{template.replace('{id}', '7')}"]
    assert guard.refused == 0


async def test_the_real_transport_of_a_rehearsal_refuses_writes_and_counts_them() -> None:
    network = Recorder()
    rehearsal = Rehearsal(network)
    real = rehearsal.real_transport()
    with pytest.raises(RehearsalRefusedError):
        await real.handle_async_request(httpx.Request("PUT", _url("/Invoice/7/sendBy")))
    assert network.reached == [] and rehearsal.upstream_refused() == 1
    await real.handle_async_request(httpx.Request("GET", _url("/Invoice/7")))
    assert network.reached == ["GET /api/v1/Invoice/7"]


def test_the_write_table_is_the_servers_whole_list() -> None:
    methods = {e.method for e in WRITES}
    assert methods == {"POST", "PUT", "DELETE"} and len(WRITES) > 40


BYPASSES = [  # each passed the guard as a "plain read" while it blocked known-bad requests only
    ("/Export/createDatevCsvZipExportJob", [("enshrineDocuments", "yes")]),
    ("/Export/createDatevCsvZipExportJob", [("enshrineDocuments[]", "1")]),
    ("/Export/datevCSV", [("enshrine", "on")]),
    ("/Invoice/7/getPdf;x", [("preventSendBy", "0")]),
    ("/Invoice/7/getPdf.pdf", [("preventSendBy", "0")]),
    ("/Invoice/7/getPdf%20", [("preventSendBy", "0")]),
    ("/Invoice/7/sendBy", []),
    ("/Invoice/Factory/createInvoiceFromOrder", []),
    ("/Invoice/7/getpdf", [("preventSendBy", "true")]),  # not the table's spelling
    ("/Invoice/7/getPdf", [("preventSendBy", "false"), ("preventSendBy", "true")]),
    ("/Invoice/7/getPdf", [("preventSendBy", "true"), ("preventSendBy", "false")]),
    ("/NotAnEndpoint/7", []),
    ("/%49nvoice/7", []),  # percent-encoded: what is sent is not what was classified
    ("/Invoice%2F7", []),
]


@pytest.mark.parametrize(("path", "query"), BYPASSES)
async def test_only_known_reads_pass(path: str, query: list[tuple[str, str]]) -> None:
    network = Recorder()
    guard = Guard(network)
    request = httpx.Request("GET", httpx.URL(DEMO_URL + path, params=query))
    with pytest.raises(RehearsalRefusedError) as refused:
        await guard.handle_async_request(request)
    assert network.reached == [] and guard.refused == 1
    message = str(refused.value)
    assert "reads only the endpoints the server knows" in message and "\n" not in message


async def test_a_get_with_a_body_is_refused() -> None:
    network = Recorder()
    guard = Guard(network)
    request = httpx.Request("GET", _url("/Invoice/{id}"), json={"status": 1000})
    with pytest.raises(RehearsalRefusedError):
        await guard.handle_async_request(request)
    assert network.reached == [] and guard.refused == 1


async def test_a_rehearsal_reads_only_the_endpoint_table() -> None:
    network = Recorder()
    rehearsal = Rehearsal(network)
    with pytest.raises(RehearsalRefusedError) as refused:
        await rehearsal.handle_async_request(httpx.Request("GET", _url("/NotAnEndpoint/{id}")))
    message = str(refused.value)
    assert (
        "GET /NotAnEndpoint/7" in message and "reads only the endpoints the server knows" in message
    )
    assert "\n" not in message
    assert "GET /api/v1/NotAnEndpoint/7" not in network.reached


async def test_closing_twice_closes_the_real_transport_once() -> None:
    class Counting(Recorder):
        closed = 0

        async def aclose(self) -> None:
            self.closed += 1

    network = Counting()
    guard = Guard(network)
    await guard.aclose()
    await guard.aclose()
    assert network.closed == 1
