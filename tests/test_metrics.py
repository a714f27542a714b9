"""Observability (issue 5): ``GET /metrics`` (Prometheus text) counts what happens at real tables,
and table log lines name the table, the hand and the seat (as text and as JSON)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import httpx
import pytest
from serverhelpers import LiveServer, Player, run, seated

from server.logs import JsonFormatter, TableLog
from server.settings import Settings

#: The chain undo of tests/test_server_play.py (§5.5): B's 8C needs A's 7C; A cancels.
POSITION = {
    "table": [["4C", "5C", "6C"], ["9H", "10H", "JH"]],
    "hands": {"A": ["7C", "2S", "QD"], "B": ["8C", "3H"], "C": ["5S", "5D"]},
    "stocks": {"A": ["KH"], "B": ["KS"], "C": []},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(secret="test", test_deals=True, resume_wait=0)) as s:
        yield s


def scrape(server: LiveServer) -> dict[str, float]:
    """Every sample of ``/metrics`` by its name with labels."""
    r = httpx.get(f"{server.url}/metrics", trust_env=False)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    out = {}
    for line in r.text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


def test_metrics_follow_a_hand(server: LiveServer) -> None:
    before = scrape(server)
    for name in ("machiavelox_live_hands", "machiavelox_tables",
                 'machiavelox_connections{kind="table"}', 'machiavelox_connections{kind="agora"}',
                 'machiavelox_commands_total{outcome="ack"}', "machiavelox_command_seconds_count",
                 "machiavelox_chain_undos_total", "machiavelox_agora_waiting"):
        assert name in before, name

    async def go() -> None:
        a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
        during = scrape(server)
        assert during["machiavelox_live_hands"] == before["machiavelox_live_hands"] + 1
        assert during['machiavelox_connections{kind="table"}'] == \
            before['machiavelox_connections{kind="table"}'] + 3
        await a.ok("add", card="2S", meld=2)
        await a.ok("add", card="7C", meld=1)
        await b.ok("add", card="8C", meld=1)
        refused = await a.command("take", card="QD", meld=1)
        assert refused["type"] == "refused"
        await a.ok("cancel")
        await b.next(lambda f: f["type"] == "update" and any(
            e["kind"] == "chain_undo" for e in f["events"]))
        after = scrape(server)
        assert after['machiavelox_commands_total{outcome="ack"}'] - \
            during['machiavelox_commands_total{outcome="ack"}'] == 4
        assert after['machiavelox_commands_total{outcome="refused"}'] - \
            during['machiavelox_commands_total{outcome="refused"}'] == 1
        assert after["machiavelox_command_seconds_count"] - \
            during["machiavelox_command_seconds_count"] == 5
        assert after["machiavelox_command_seconds_sum"] > during["machiavelox_command_seconds_sum"]
        assert after["machiavelox_chain_undos_total"] == during["machiavelox_chain_undos_total"] + 1
        for p in (a, b, c):
            await p.close()
    run(go())
    end = scrape(server)
    assert end['machiavelox_connections{kind="table"}'] == \
        before['machiavelox_connections{kind="table"}']


def test_each_app_counts_for_itself() -> None:
    with LiveServer(Settings(secret="other")) as other:
        assert scrape(other)['machiavelox_commands_total{outcome="ack"}'] == 0


def test_table_log_lines_name_the_table_hand_and_seat(server: LiveServer,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="machiavelox.table")

    async def go() -> str:
        a, b, c = await seated(server, ["A", "B", "C"], position=POSITION)
        await a.ok("draw")
        for p in (a, b, c):
            await p.close()
        return str(a.code)
    code = run(go())
    lines = [r for r in caplog.records if getattr(r, "table", None) == code]
    command = next(r for r in lines if "command do=draw" in r.getMessage())
    assert command.getMessage().startswith(f"table={code} hand=1 seat=A command do=draw")
    assert command.hand == 1 and command.seat == "A"  # type: ignore[attr-defined]
    seat_taken = next(r for r in lines if "seat taken" in r.getMessage())
    assert f"table={code} hand=- seat=" in seat_taken.getMessage()
    data = json.loads(JsonFormatter().format(command))
    assert data["table"] == code and data["hand"] == 1 and data["seat"] == "A"
    assert data["do"] == "draw" and data["outcome"] == "ack" and data["level"] == "DEBUG"


def test_json_lines_carry_the_fields() -> None:
    log = TableLog("K7QX2M")
    log.hand = 2
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("machiavelox.table")
    handler = Keep()
    logger.addHandler(handler)
    old = logger.level
    logger.setLevel(logging.INFO)
    try:
        log.info("seat reconnected", seat="Ada", conn=7)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
    (record,) = records
    assert record.getMessage() == "table=K7QX2M hand=2 seat=Ada seat reconnected conn=7"
    data = json.loads(JsonFormatter().format(record))
    assert {k: data[k] for k in ("table", "hand", "seat", "event", "conn")} == {
        "table": "K7QX2M", "hand": 2, "seat": "Ada", "event": "seat reconnected", "conn": 7}


def test_a_player_needs_nothing_to_scrape(server: LiveServer) -> None:
    async def go() -> None:
        p = await Player(server, "Scraper").login()
        async with p.http() as c:
            r = await c.get("/metrics")
            assert r.status_code == 200 and "machiavelox_live_hands" in r.text
    run(go())


class TestGcPacer:
    """server.gctune: the collector policies that keep stop-the-world pauses short. (Live
    servers of other tests change the process's collector too: each test starts from an
    enabled, unfrozen collector and puts back what it found.)"""

    @pytest.fixture(autouse=True)
    def _collector(self) -> Iterator[None]:
        import gc

        was = gc.isenabled()
        gc.enable()
        gc.unfreeze()
        yield
        gc.unfreeze()
        if was:
            gc.enable()
        else:
            gc.disable()

    def test_paced_freezes_survivors_and_a_full_pass_frees_cycles(self) -> None:
        import asyncio
        import gc

        from server.gctune import GcPacer

        async def go() -> None:
            pacer = GcPacer(0.05, 0.0, "paced")
            pacer.start()
            try:
                assert gc.get_freeze_count() > 0 and gc.isenabled()

                class Node:
                    pass
                a, b = Node(), Node()
                a.other, b.other = b, a  # type: ignore[attr-defined]
                await asyncio.sleep(0.12)  # frozen with everything else
                del a, b
                assert pacer.full() >= 2
            finally:
                await pacer.close()
            assert gc.get_freeze_count() == 0 and gc.isenabled()
        run(go())

    def test_manual_turns_automatic_collection_off_until_closed(self) -> None:
        import asyncio
        import gc

        from server.gctune import GcPacer

        async def go() -> None:
            pacer = GcPacer(0.02, 600.0, "manual", manual_limit=10)
            pacer.start()
            try:
                assert not gc.isenabled()
                junk = [[i] for i in range(100)]  # noqa: F841 - grows the tracked count
                for _ in range(100):  # bounded: 2 s at most
                    if pacer.full_collections:
                        break
                    await asyncio.sleep(0.02)
                assert pacer.full_collections >= 1  # the growth guard collected
            finally:
                await pacer.close()
            assert gc.isenabled()
        run(go())

    def test_cpython_leaves_the_collector_alone(self) -> None:
        import gc

        from server.gctune import GcPacer

        async def go() -> None:
            pacer = GcPacer(5.0, 600.0, "cpython")
            pacer.start()
            assert gc.get_freeze_count() == 0 and gc.isenabled()
            await pacer.close()
        run(go())
