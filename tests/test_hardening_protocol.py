"""Issue 12, attack 1: ids and strings exactly as the protocol says, through the parser and a
real server. A lone surrogate, a 2**70 or a 5000-digit number is a ``bad_field`` error (never
a reply that cannot be encoded); a table under a stream of them keeps answering its players."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import pytest
from serverhelpers import NO_PROXY, LiveServer, run, seated
from websockets.asyncio.client import connect

from server.protocol import (
    ID_INT_MAX,
    AckOut,
    CommandIn,
    ErrorOut,
    HintIn,
    dump_reply,
    parse_client,
)
from server.settings import Settings

POSITION = {
    "table": [["4C", "5C", "6C"]],
    "hands": {"A": ["7C", "9D", "KD"], "B": ["8C", "3H"], "C": ["2S"]},
    "stocks": {"A": ["KH", "2D", "3D", "4D", "5D"], "B": ["KS"], "C": ["QS"]},
    "drew": ["B", "C"],
}

SURROGATE = '{"type": "command", "id": "\\ud800", "do": "draw"}'


def parse(obj: object) -> object:
    return parse_client(obj if isinstance(obj, str) else json.dumps(obj))


class TestIds:
    @pytest.mark.parametrize("cid", ["c1", "x" * 64, "é ü 漢", 0, -1, ID_INT_MAX, -ID_INT_MAX])
    def test_a_printable_string_up_to_64_or_an_integer_within_2_53_is_an_id(self, cid: object) -> None:
        assert isinstance(parse({"type": "command", "id": cid, "do": "draw"}), CommandIn)
        assert isinstance(parse({"type": "hint", "id": cid}), HintIn)

    @pytest.mark.parametrize("cid", ["", "x" * 65, "a\nb", "\x00", "\u200b", "tab\there",
                                     ID_INT_MAX + 1, -ID_INT_MAX - 1, 2**70, 1.5, True, None,
                                     [1], {"a": 1}])
    def test_anything_else_is_bad_field_without_an_echoed_id(self, cid: object) -> None:
        for msg in ({"type": "command", "id": cid, "do": "draw"}, {"type": "hint", "id": cid}):
            out = parse(msg)
            assert isinstance(out, ErrorOut) and out.code == "bad_field", out
            assert out.id is None
            assert out.message == ('The field "id" must be a text of 1 to 64 printable '
                                   'characters, or a whole number from -2**53 to 2**53.')

    def test_a_lone_surrogate_is_refused_in_an_id_a_card_and_a_list_of_cards(self) -> None:
        assert isinstance(parse_client(SURROGATE), ErrorOut)
        for raw in ('{"type": "hint", "id": "\\udfff"}',
                    '{"type": "command", "id": "a", "do": "stage", "card": "\\ud800"}',
                    '{"type": "command", "id": "a", "do": "lay", "cards": ["7C", "\\ud83d"]}'):
            out = parse_client(raw)
            assert isinstance(out, ErrorOut) and out.code == "bad_field", raw
            dump_reply(out).encode("utf-8")  # every error can be sent

    def test_huge_numbers_anywhere_are_errors_not_exceptions(self) -> None:
        for raw in ('{"type": "command", "id": 1' + "0" * 5000 + ', "do": "draw"}',
                    '{"type": "command", "id": "a", "do": "add", "card": "7C", "meld": 1e400}',
                    '{"type": "command", "id": "a", "do": "add", "card": "7C", "meld": '
                    + str(2**64) + "}",
                    '{"type": "resume", "last_version": ' + str(2**60) + "}",
                    "[" * 50000 + "]" * 50000):
            out = parse_client(raw, max_bytes=1 << 20)
            assert isinstance(out, ErrorOut), raw[:60]

    def test_a_reply_that_cannot_be_encoded_becomes_an_error_frame(self) -> None:
        # Built past validation (model_construct), as a bug elsewhere could.
        text = dump_reply(AckOut.model_construct(type="ack", id="\ud800", version=3))
        frame = json.loads(text)
        assert frame["type"] == "error" and frame["code"] == "bad_field" and "id" not in frame


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    settings = Settings(test_deals=True, resume_wait=0, secret="test", message_burst=200)
    with LiveServer(settings) as s:
        yield s


class TestNobodyFreezesATable:
    def test_a_tokenless_stream_of_bad_ids_does_not_delay_a_seated_player(
            self, server: LiveServer) -> None:
        """The attack: 40 lone-surrogate commands from a spectator socket used to cost the
        table 0.5 s each (19 s for a seated player's command)."""
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            url = f"{server.ws_url}/ws/{a.code}"
            async with connect(url, **NO_PROXY) as spy:
                for _ in range(40):
                    await spy.send(SURROGATE)
                    await spy.send('{"type": "hint", "id": "\\ud800"}')
                t0 = time.perf_counter()
                reply = await a.command("draw", timeout=3)
                assert reply["type"] == "ack"
                assert time.perf_counter() - t0 < 1.0
                errors = 0
                while errors < 80:
                    frame = json.loads(await asyncio.wait_for(spy.recv(), 3))
                    if frame["type"] == "error":
                        assert frame["code"] == "bad_field" and "id" not in frame
                        errors += 1
        run(go())

    def test_a_seated_bad_id_is_an_error_and_the_same_command_with_a_good_id_applies_once(
            self, server: LiveServer) -> None:
        async def go() -> None:
            a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
            before = len(a.hand or [])
            await a.send(SURROGATE)
            err = await a.next(lambda f: f["type"] == "error")
            assert err["code"] == "bad_field"
            assert (await a.command("draw", id="d1"))["type"] == "ack"
            again = await a.command("draw", id="d1")
            assert again["type"] == "ack"
            assert len(a.hand or []) == before + 1
            acks = [f for f in a.frames if f["type"] == "ack" and f["id"] == "d1"]
            assert len(acks) == 2 and acks[0] == acks[1]
        run(go())
