"""Limits found by trying to break the server as a new user would: one token cannot fill the
server with empty tables, a stacked test position must be a legal table, and a table says
whether the agora matched it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from server.settings import Settings
from server.testing import LiveServer


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(secret="test", test_deals=True, max_waiting_tables_per_player=3)) as s:
        yield s


@pytest.fixture()
def http(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, trust_env=False, timeout=10) as c:
        yield c


def token(http: httpx.Client, name: str) -> dict[str, str]:
    r = http.post("/api/session", json={"name": name})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def test_one_player_cannot_flood_the_server_with_waiting_tables(http: httpx.Client) -> None:
    ada, bob, cy = token(http, "Ada"), token(http, "Bob"), token(http, "Cy")
    codes = []
    for _ in range(3):
        r = http.post("/api/tables", json={"mode": "single"}, headers=ada)
        assert r.status_code == 200, r.text
        codes.append(r.json()["code"])
    r = http.post("/api/tables", json={"mode": "single"}, headers=ada)
    assert r.status_code == 429 and r.json()["code"] == "too_many_waiting_tables"
    assert "3 tables waiting" in r.json()["message"]
    # Another player is not affected.
    assert http.post("/api/tables", json={"mode": "single"}, headers=bob).status_code == 200
    # Once one of Ada's tables fills and is dealt, she may open another.
    for who in (bob, cy):
        assert http.post(f"/api/tables/{codes[0]}/join", headers=who).status_code == 200
    assert http.get(f"/api/tables/{codes[0]}").json()["phase"] == "hand"
    assert http.post("/api/tables", json={"mode": "single"}, headers=ada).status_code == 200


def test_a_stacked_position_with_an_invalid_meld_is_refused(http: httpx.Client) -> None:
    ada = token(http, "Dee")
    bad = {"table": [["4C", "5C", "9C"]], "hands": {"A": ["7C"]}}
    r = http.post("/api/tables", json={"mode": "single", "position": bad}, headers=ada)
    assert r.status_code == 422 and r.json()["code"] == "bad_field"
    assert "4C 5C 9C" in r.json()["message"]
    good = {"table": [["4C", "5C", "6C"]], "hands": {"A": ["7C"]}}
    r = http.post("/api/tables", json={"mode": "single", "position": good}, headers=ada)
    assert r.status_code == 200, r.text


def test_a_friendly_table_says_it_is_not_an_agora_table(http: httpx.Client) -> None:
    r = http.post("/api/tables", json={"mode": "long"}, headers=token(http, "Eve"))
    info = http.get(f"/api/tables/{r.json()['code']}").json()
    assert info["agora"] is False and info["mode"] == "long"


def test_the_table_summary_names_the_bot_seats(http: httpx.Client) -> None:
    ada = token(http, "Flo")
    code = http.post("/api/tables", json={"mode": "single"}, headers=ada).json()["code"]
    r = http.post(f"/api/tables/{code}/bots", json={"level": "casual", "count": 1}, headers=ada)
    assert r.status_code == 200, r.text
    info = http.get(f"/api/tables/{code}").json()
    assert info["bots"] == r.json()["bots"] and len(info["bots"]) == 1
    assert "Flo" in info["seats"] and "Flo" not in info["bots"]
