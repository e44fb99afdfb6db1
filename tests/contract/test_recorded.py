"""Replaying recorded answers against the fake sevDesk: same request, same shape.

Each recording (``scripts/record_fixtures.py``) holds a GET request and sevDesk's sanitized
answer. The fake, served on 127.0.0.1, gets the same request; its answer must have the same
status and shape (envelope, keys, scalar kinds: string, number, bool; ``live/shape.py``), not
the same values. ``tests/contract/recordings`` is a sample recorded from the fake's demo
company with planted personal data, so the path runs in every suite;
``SEVDESK_RECORDINGS=<folder>`` replays a recording of a real account against the demo
company (an id it does not hold is replaced by the first id of the same list).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from live.planted import PLANTED, planted_demo
from live.recording import first_id
from live.sample import record_sample
from live.session import Answer, LiveSession, LiveSettings
from live.shape import differences

from sevdesk_mcp.fake import FakeSevdesk, build_demo, serve_fake

SAMPLE = Path(__file__).parent / "recordings"
VOLATILE = ("recorded_at", "api_root")  # when and on which port the sample was recorded


def recordings(folder: Path) -> dict[str, dict[str, Any]]:
    return {
        p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))
    }


def fake_answer(session: LiveSession, request: dict[str, Any]) -> Answer:
    """The fake's answer to a recorded request; an id the fake does not hold is replaced by
    the first id of the same list."""
    path, query = request["path"], request["query"]
    answer = session.get(path, query)
    segments = path.strip("/").split("/")
    if answer.status != 404 or not any(s.isdigit() for s in segments):
        return answer
    ident = first_id(session.get(f"/{segments[0]}", {"limit": "1"}).body)
    if ident is None:
        return answer
    return session.get("/" + "/".join(str(ident) if s.isdigit() else s for s in segments), query)


def replay(files: dict[str, dict[str, Any]], fake: FakeSevdesk) -> dict[str, list[str]]:
    """:returns: the differences of each recording that differs from the fake's answer."""
    found = {}
    with serve_fake(fake) as url, LiveSession(LiveSettings(url=url, token=fake.token)) as session:
        for name, record in files.items():
            answer = fake_answer(session, record["request"])
            diffs = differences(record["body"], answer.body)
            if answer.status != record["status"]:
                diffs.insert(0, f"status: recorded {record['status']}, the fake {answer.status}")
            if diffs:
                found[name] = diffs
    return found


def test_the_shipped_sample_has_the_shape_of_the_fake() -> None:
    files = recordings(SAMPLE)
    assert len(files) >= 30
    assert replay(files, planted_demo()) == {}


def test_the_sample_is_what_the_recorder_makes_of_the_planted_demo(tmp_path: Path) -> None:
    assert record_sample(tmp_path) == 0
    fresh, shipped = recordings(tmp_path), recordings(SAMPLE)
    assert fresh.keys() == shipped.keys()
    for record in (*fresh.values(), *shipped.values()):
        for key in VOLATILE:
            record["provenance"].pop(key)
    assert fresh == shipped
    text = "\n".join(p.read_text(encoding="utf-8") for p in tmp_path.glob("*.json"))
    assert all(value not in text for value in PLANTED.values())


def test_a_recording_of_another_shape_is_reported() -> None:
    files = recordings(SAMPLE)
    invoice = files["invoice-id.json"]["body"]["objects"][0]
    invoice["sumNet"] = 3262  # a number where sevDesk sends a string (Q4)
    invoice["paidAmount"] = "3881.78"  # a string where sevDesk sends a number (Q4)
    del invoice["currency"]
    invoice["newField"] = "1"
    files["part-id-getstock.json"]["status"] = 500
    found = replay(
        {k: files[k] for k in ("invoice-id.json", "part-id-getstock.json")}, planted_demo()
    )
    assert found["invoice-id.json"] == [
        "$.objects[].newField: recorded, missing in the fake's answer",
        "$.objects[].currency: sent by the fake, not in the recording",
        "$.objects[].paidAmount: recorded string, the fake sends number",
        "$.objects[].sumNet: recorded number, the fake sends string",
    ]
    assert found["part-id-getstock.json"] == ["status: recorded 500, the fake 200"]


def test_an_unknown_id_is_replaced_by_the_first_of_its_list() -> None:
    files = recordings(SAMPLE)
    record = files["contact-id.json"]
    record["request"]["path"] = "/Contact/999999"
    assert replay({"contact-id.json": record}, build_demo()) == {}


@pytest.mark.skipif(
    not os.environ.get("SEVDESK_RECORDINGS"),
    reason="SEVDESK_RECORDINGS is not set: point it at a folder made by "
    "scripts/record_fixtures.py to replay a real account's recording against the fake",
)
def test_a_real_recording_has_the_shape_of_the_fake() -> None:
    folder = Path(os.environ["SEVDESK_RECORDINGS"])
    files = recordings(folder)
    assert files, f"{folder} holds no recordings (*.json)"
    found = replay(files, build_demo())
    assert found == {}, "\n".join(f"{name}: {d}" for name, diffs in found.items() for d in diffs)
