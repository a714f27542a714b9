"""The websocket protocol through a real server: acks, refusals, dedup, malformed input,
spectators, resume with replay or snapshot, and the close codes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from serverhelpers import NO_PROXY, LiveServer, Player, run, seated, updates_with
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from engine.errors import MESSAGES
from server.settings import Settings

POSITION = {
    "table": [["4C", "5C", "6C"]],
    "hands": {"A": ["7C", "9D", "KD"], "B": ["8C", "3H"], "C": ["2S"]},
    "stocks": {"A": ["KH", "2D", "3D"], "B": ["KS"], "C": ["QS"]},
    "drew": ["A", "B", "C"],
}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    settings = Settings(test_deals=True, resume_wait=0.2, log_size=6, secret="test")
    with LiveServer(settings) as s:
        yield s


def stock(game: dict, seat: str) -> int:
    return next(p["stock_count"] for p in game["hand"]["players"] if p["name"] == seat)


class TestCommands:
    def test_an_accepted_command_is_acked_after_its_update(self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            await a.send({"type": "command", "id": "c1", "do": "draw"})
            update = await a.next()
            ack = await a.next()
            assert update["type"] == "update" and [e["kind"] for e in update["events"]] == ["drew"]
            assert ack == {"type": "ack", "id": "c1", "version": update["version"], "made": {}}
            for p in (a, b, c):
                await p.close()
        run(go())

    def test_the_ack_names_the_meld_a_command_opened(self, server: LiveServer) -> None:
        """Issue 14: a move to a new meld is acknowledged with the new meld's id, so a client
        need not guess it from the events; other commands make nothing."""
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            assert (await a.ok("stage", card="KD"))["made"] == {}
            reply = await a.ok("move", card="6C", meld=1, to="new")
            assert reply["made"] == {"meld": 2}
            for p in (a, b, c):
                await p.close()
        run(go())

    def test_a_refusal_carries_the_engine_code_and_sentence(self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            reply = await a.command("take", card="4C", meld=1)
            assert reply == {"type": "refused", "id": reply["id"], "code": "not_declared",
                             "message": MESSAGES["not_declared"]}
            reply = await a.command("add", card="QH", meld=1)
            assert reply["code"] == "card_not_in_hand" and "QH" in reply["message"]
            reply = await b.command("ready")
            assert reply["code"] == "not_in_pause"
            for p in (a, b, c):
                await p.close()
        run(go())

    def test_a_repeated_id_is_applied_once_and_answered_the_same(self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            cmd = {"type": "command", "id": "dup", "do": "draw"}
            for _ in range(3):
                await a.send(cmd)
            replies = [await a.next(lambda f: f["type"] in ("ack", "refused")) for _ in range(3)]
            assert replies[0]["type"] == "ack" and replies == [replies[0]] * 3
            await a.at_version(replies[0]["version"])
            assert stock(a.game, "A") == 2 and len(a.hand) == 4
            assert len(a.events("drew")) == 1
            # A refusal is remembered too: the same id stays refused after the state changed.
            first = await a.command("take", id="r1", card="4C", meld=1)
            await a.ok("stage", card="9D")
            again = await a.command("take", id="r1", card="4C", meld=1)
            assert first == again and again["code"] == "not_declared"
            # Ids are per seat: B may use "dup" for its own command.
            assert (await b.command("draw", id="dup"))["type"] == "ack"
            for p in (a, b, c):
                await p.close()
        run(go())

    def test_malformed_input_gets_an_error_and_the_socket_stays_open(self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            cases = [
                ("not json", "bad_json"),
                ("[1, 2]", "bad_json"),
                (b"\xff\xfe", "bad_json"),
                ('{"type": "dance"}', "unknown_type"),
                ('{"id": "x"}', "unknown_type"),
                ('{"type": "command", "id": "m1", "do": "add", "card": "7C", "meld": "one"}',
                 "bad_field"),
                ('{"type": "command", "id": "m2", "do": "add", "card": "7C"}', "bad_field"),
                ('{"type": "command", "id": "m3", "do": "disconnect"}', "bad_field"),
                ('{"type": "command", "do": "draw"}', "bad_field"),
                ('{"type": "resume", "last_version": -1}', "bad_field"),
                ("x" * 20000, "too_large"),
            ]
            for raw, code in cases:
                await a.send(raw)
                err = await a.next(lambda f: f["type"] == "error")
                assert err["code"] == code, (raw[:40], err)
                assert err["message"]
            errs = [f for f in a.frames if f["type"] == "error"]
            assert [e.get("id") for e in errs[5:8]] == ["m1", "m2", "m3"]
            await a.send({"type": "ping"})
            assert await a.next() == {"type": "pong"}
            assert (await a.command("draw"))["type"] == "ack"
            for p in (a, b, c):
                await p.close()
        run(go())


class TestSeatsAndSpectators:
    def test_a_spectator_sees_no_hand_and_cannot_play(self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            anon = Player(server, "anon")  # no token at all
            welcome = await anon.connect(a.code)
            assert welcome["seat"] is None
            snap = await anon.next(lambda f: f["type"] == "snapshot")
            assert snap["game"]["hand"]["hand"] is None
            assert [p["hand_count"] for p in snap["game"]["hand"]["players"]] == [3, 2, 1]
            reply = await anon.command("draw")
            assert reply["code"] == "not_seated"
            ack = await a.ok("draw")
            await anon.at_version(ack["version"])
            assert "card" not in anon.events("drew")[0]
            for p in (a, b, c, anon):
                await p.close()
        run(go())

    def test_commands_before_the_deal_are_refused(self, server: LiveServer) -> None:
        async def go() -> None:
            a = await Player(server, "Early").login()
            await a.create()
            await a.connect()
            snap = await a.next(lambda f: f["type"] == "snapshot")
            assert snap["game"] is None and snap["table"]["phase"] == "waiting"
            assert snap["table"]["seats"] == ["Early"] and snap["table"]["online"] == ["Early"]
            assert (await a.command("draw"))["code"] == "not_started"
            b = await Player(server, "Late").login()
            await b.join(a.code)
            table = await a.next(lambda f: f["type"] == "table")
            assert table["table"]["seats"] == ["Early", "Late"]
            await a.close()
        run(go())

    def test_unknown_table_and_bad_token_close_with_codes(self, server: LiveServer) -> None:
        async def go() -> None:
            a = await Player(server, "Host").login()
            code = await a.create()
            for url, close_code in ((f"{server.ws_url}/ws/NOSUCH", 4404),
                                    (f"{server.ws_url}/ws/{code}?token=forged", 4401)):
                async with connect(url, **NO_PROXY, open_timeout=5) as ws:
                    with pytest.raises(ConnectionClosed) as info:
                        await ws.recv()
                    assert info.value.rcvd is not None and info.value.rcvd.code == close_code
        run(go())


class TestResume:
    def test_a_client_too_far_behind_gets_a_snapshot_only(self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            await c.close()
            seen = c.version
            for card in ("9D", "KD", "9D", "KD"):  # 8 batches: more than the 6 kept
                await a.ok("stage", card=card)
                await a.ok("unstage", card=card)
            await c.connect(last_version=seen)
            first = await c.next(lambda f: f["type"] in ("update", "snapshot"))
            assert first["type"] == "snapshot" and first["game"]["hand"]["you"] == "C"
            assert first["version"] > seen + 6
            await c.next(updates_with("reconnected"))
            for p in (a, b, c):
                await p.close()
        run(go())

    def test_resume_later_in_the_stream_and_from_the_future(self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            start = a.version
            await a.ok("draw")
            await a.ok("draw")
            await a.send({"type": "resume", "last_version": start})
            w = await a.next(lambda f: f["type"] == "welcome")
            replay = await a.next()
            assert replay["type"] == "update" and replay["replay"] is True
            assert [e["kind"] for e in replay["events"]] == ["drew", "drew"]
            assert all("card" in e for e in replay["events"])  # A's own draws, re-filtered for A
            assert (await a.next())["type"] == "snapshot"
            await a.send({"type": "resume", "last_version": w["version"] + 100})
            await a.next(lambda f: f["type"] == "welcome")
            assert (await a.next())["type"] == "snapshot"
            # The same missed batches, filtered for B, hide A's cards.
            await b.send(json.dumps({"type": "resume", "last_version": start}))
            await b.next(lambda f: f["type"] == "welcome")
            replay_b = await b.next()
            assert replay_b["replay"] and not any("card" in e for e in replay_b["events"])
            for p in (a, b, c):
                await p.close()
        run(go())

    def test_last_version_in_the_url_skips_the_wait(self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            await b.close()
            seen = b.version
            await a.ok("draw")
            url = f"{server.ws_url}/ws/{a.code}?token={b.token}&last_version={seen}"
            async with connect(url, **NO_PROXY, open_timeout=5) as ws:
                frames = [json.loads(await ws.recv()) for _ in range(3)]
            assert [f["type"] for f in frames] == ["welcome", "update", "snapshot"]
            assert frames[1]["replay"] is True
            for p in (a, c):
                await p.close()
        run(go())


def test_a_flooding_client_is_read_more_slowly() -> None:
    settings = Settings(secret="test", resume_wait=0, message_rate=500, message_burst=20)
    with LiveServer(settings) as server:
        async def go() -> float:
            p = await Player(server, "Flood").login()
            await p.create()
            await p.connect()
            loop = asyncio.get_running_loop()
            start = loop.time()
            for _ in range(220):
                await p.send({"type": "ping"})
            for _ in range(220):
                assert (await p.next(lambda f: f["type"] == "pong"))["type"] == "pong"
            await p.close()
            return loop.time() - start
        elapsed = run(go())
    # 20 at once, then 200 at 500 a second: at least 0.4 s.
    assert elapsed >= 0.38, elapsed


def test_bad_fields_are_explained_in_words_not_validator_internals() -> None:
    from server.protocol import ErrorOut, parse_client

    for raw, field in [('{"type":"command","id":1.5,"do":"draw"}', "id"),
                       ('{"type":"command","id":"a","do":"drop","to":"NEW"}', "to"),
                       ('{"type":"command","id":"a","do":"add","card":7,"meld":1}', "card")]:
        out = parse_client(raw)
        assert isinstance(out, ErrorOut) and out.code == "bad_field"
        assert out.message.startswith(f'The field "{field}" must be'), out.message
        assert "Input should" not in out.message and ".int" not in out.message
