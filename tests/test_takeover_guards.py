"""Two guarantees of a take-over (issue 13), with real parts: a real redis-server, the old
owner a real ``python -m server serve`` process killed with SIGKILL, the new owner a real
uvicorn in this process (:class:`LiveServer`, so that its table can be looked at), and real
websocket clients.

1. A command whose ack was lost with its process (the client cannot know whether it
   arrived: it resends it, same id, to the new owner) is answered with the very ack the old
   owner sent, and is applied once: one journal entry in Redis, one effect on the game
   (``server.durable.load_record`` rebuilds the dedup cache from the journal).
2. The new owner resumes game time at the old owner's last lease renewal (``gt``, which
   every renewal writes, ``server.lease``), not at its last journal entry, when the renewal
   is later: the clocks are not rewound (a hold that had run for seconds does not get them
   back; ``server.durable.restore``).

Under ``CI=true`` a missing redis-server fails these tests (``tests/conftest.py``)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from typing import Any, cast

import pytest
import redis
from clusterhelpers import BASE_ENV, SECRET, Node
from conftest import free_port
from serverhelpers import LiveServer, Player, run

from server.settings import Settings

#: Seconds of a lease: a dead owner's table is free this long after its last renewal (sent
#: every third of it).
LEASE = 1.0


class Endpoint:
    """What :class:`Player` needs of a server: its HTTP and websocket addresses."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ws_url = "ws" + url.removeprefix("http")


@pytest.fixture(scope="module")
def prefix() -> str:
    return f"tkg{uuid.uuid4().hex[:8]}:"


@pytest.fixture(scope="module")
def new_owner(redis_url: str, prefix: str) -> Iterator[LiveServer]:
    """The process that takes the tables over: a uvicorn in this process, on the same Redis
    and key prefix, with the same secret (the players' tokens hold on both)."""
    settings = Settings(secret=SECRET, test_deals=True, resume_wait=0, redis_url=redis_url,
                        redis_prefix=prefix, lease_seconds=LEASE, replicas=3,
                        store_timeout=3.0)
    with LiveServer(settings) as server:
        yield server
    with redis.Redis.from_url(redis_url, decode_responses=True) as r:
        keys = list(r.scan_iter(match=prefix + "*", count=500))
        if keys:
            r.delete(*keys)


@pytest.fixture
def old_owner(redis_url: str, prefix: str) -> Iterator[Node]:
    """The table's first owner: ``python -m server serve`` on the same Redis (killed by the
    test; killed here in any case)."""
    node = Node(free_port(), {**BASE_ENV, "MACHIAVELOX_REDIS_URL": redis_url,
                              "MACHIAVELOX_REDIS_PREFIX": prefix,
                              "MACHIAVELOX_LEASE_SECONDS": str(LEASE),
                              "MACHIAVELOX_LOG_LEVEL": "WARNING"})
    node.start()
    try:
        node.wait_ready(30)
        yield node
    finally:
        node.kill()
        node.log.unlink(missing_ok=True)


async def seated_on(node: Node, position: dict[str, Any], **create: Any) -> list[Player]:
    """Players A, B and C at a new table of ``node``, each connected, the deal seen by all."""
    server = cast(LiveServer, Endpoint(node.url))
    players = [await Player(server, n).login() for n in ("A", "B", "C")]
    code = await players[0].create("single", position=position, **create)
    await players[0].connect(code)
    for p in players[1:]:
        await p.join(code)
        await p.connect(code)
    last = await players[-1].next(lambda f: f["type"] == "snapshot" and f["game"] is not None)
    for p in players:
        await p.at_version(last["version"])
        p.drain()
    return players


async def kill(node: Node, players: list[Player]) -> None:
    """SIGKILL the owner (no release of its lease, no last write), then close the sockets
    it had (the proxy would have cut them)."""
    await asyncio.to_thread(node.kill)
    for p in players:
        await p.close()


def table_record(redis_url: str, prefix: str, code: str
                 ) -> tuple[dict[str, str], list[tuple[int, dict[str, Any]]]]:
    """The table's hash in Redis, and its journal: ``(version, entry)`` in log order."""
    with redis.Redis.from_url(redis_url, decode_responses=True) as r:
        h = r.hgetall(f"{prefix}tbl:{code}")
        log_id = json.loads(h["meta"])["log_id"]
        entries = [(int(sid.partition("-")[0]), e)
                   for sid, fields in r.xrange(f"{prefix}log:{log_id}")
                   for e in json.loads(fields.get("j") or "[]")]
    return h, entries


def stock_of(game: dict[str, Any], seat: str) -> int:
    return int(next(p["stock_count"] for p in game["hand"]["players"] if p["name"] == seat))


DEDUP_POSITION = {
    "table": [["4C", "5C", "6C"]],
    "hands": {"A": ["7H", "8H", "9H", "KD"], "B": ["8C", "3H"], "C": ["2S"]},
    "stocks": {"A": ["KH", "2D", "3D"], "B": ["KS"], "C": ["QS"]},
    "drew": ["A", "B", "C"],
}


def test_a_command_resent_after_a_take_over_gets_its_first_ack_and_runs_once(
        redis_url: str, prefix: str, old_owner: Node, new_owner: LiveServer) -> None:
    """Ada draws (a command that would run again: her stock holds three cards) and lays a
    meld (an ack that names the meld it made); her owner process is killed. She
    sends both again, same ids, to the process that took the table over: the same two acks,
    nothing applied again (one journal entry each, the stock one card down, no new version).
    """
    async def go() -> None:
        players = await seated_on(old_owner, DEDUP_POSITION)
        a = players[0]
        code = a.code or ""
        drew = await a.ok("draw", id="lost-draw")
        for card in ("7H", "8H", "9H"):
            await a.ok("stage", card=card)
        laid = await a.ok("lay", cards=["7H", "8H", "9H"], id="lost-lay")
        assert laid["made"] == {"meld": 2}, laid
        assert stock_of(a.game or {}, "A") == 2
        await kill(old_owner, players)

        a2 = Player(new_owner, "A")
        a2.token = a.token
        await a2.connect(code)  # the new owner takes the table over from Redis
        snap = await a2.next(lambda f: f["type"] == "snapshot", timeout=10)
        assert stock_of(snap["game"], "A") == 2
        head = await new_owner.atable_call(code, lambda t: t.events.head)
        _, before = await asyncio.to_thread(table_record, redis_url, prefix, code)

        for cid, ack, fields in (("lost-draw", drew, {"do": "draw"}),
                                 ("lost-lay", laid, {"do": "lay", "cards": ["7H", "8H", "9H"]})):
            again = await a2.command(id=cid, **fields)
            assert again == ack, (f"{cid} sent again to the new owner was answered {again}, "
                                  f"not with its first ack {ack}")

        assert await new_owner.atable_call(code, lambda t: t.events.head) == head
        await asyncio.sleep(0.2)  # an update a second run would bring
        assert not [f for f in a2.drain() if f["type"] == "update"]
        stock, melds = await new_owner.atable_call(code, lambda t: (
            len(t.game.hand.stocks["A"]), sorted(t.game.hand.table())))  # type: ignore[union-attr]
        assert stock == 2 and melds == [1, 2], (stock, melds)
        _, after = await asyncio.to_thread(table_record, redis_url, prefix, code)
        for cid, ack in (("lost-draw", drew), ("lost-lay", laid)):
            applied = [v for v, e in after if e.get("id") == cid]
            assert applied == [ack["version"]], (cid, applied)
        assert [e for _, e in after if "id" in e] == [e for _, e in before if "id" in e]
        await a2.close()
    run(go(), timeout=30)


HOLD_POSITION = {
    "table": [["4C", "5C", "6C", "7C"]],
    "hands": {"A": ["9D"], "B": ["3H"], "C": ["2S"]},
    "stocks": {"A": ["KH"], "B": ["KS"], "C": ["QS"]},
    "drew": ["A", "B", "C"],
}
#: The hold clock (seconds), and how long the old owner idles (renewing) before it dies.
HOLD = 4.0
IDLE = 2.5


def test_a_take_over_resumes_at_the_last_renewal_not_the_last_journal_entry(
        redis_url: str, prefix: str, old_owner: Node, new_owner: LiveServer) -> None:
    """Ada holds a card (a 4 s hold clock); nothing is journalled for 2.5 s while her owner
    process renews its lease; then it is killed. The process that takes the table over
    resumes game time at the last renewal, not at the hold (the last journal entry): the
    snapshot's clock reads the renewal's time, and the hold has about 1.5 s left, not 4."""
    async def go() -> None:
        players = await seated_on(old_owner, HOLD_POSITION, timers={"hold": HOLD})
        a = players[0]
        code = a.code or ""
        await a.ok("stage", card="9D")
        await a.ok("take", card="7C", meld=1)
        await asyncio.sleep(IDLE)  # the owner renews its lease: nothing to journal
        await kill(old_owner, players)

        h, entries = await asyncio.to_thread(table_record, redis_url, prefix, code)
        renewed, journalled = float(h["gt"]), max(float(e["t"]) for _, e in entries)
        assert renewed - journalled >= IDLE - 1.0, (
            f"the old owner renewed at game time {renewed}, its last journal entry is at "
            f"{journalled}: too close to tell the two apart")

        a2 = Player(new_owner, "A")
        a2.token = a.token
        await a2.connect(code)  # the new owner takes the table over from Redis
        snap = await a2.next(lambda f: f["type"] == "snapshot", timeout=10)
        game = snap["game"]
        assert renewed - 0.01 <= game["game_t"] <= renewed + 1.0, (
            f"game time resumed at {game['game_t']}: the last renewal was at {renewed}, the "
            f"last journal entry at {journalled}")
        holds = game["hand"]["holds"]
        assert [x["card"] for x in holds] == ["7C"], holds
        left = holds[0]["until"] - game["hand"]["t"]
        expected = HOLD - (renewed - journalled)
        assert expected - 1.0 <= left <= expected + 0.01, (
            f"the hold has {left:.3f} s left after the take-over, {expected:.3f} s expected")
        now = await new_owner.atable_call(code, lambda t: t._now())
        assert renewed - 0.01 <= now <= renewed + 1.5, (now, renewed)
        await a2.close()
    run(go(), timeout=30)
