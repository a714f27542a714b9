"""A short stacked hand with a chain undo, played by three real websocket clients: the hand
the replay tests watch again (issue 17, point 7).

A adds 2S to the heart run (its play stays open) and 7C to the club run, B extends it with 8C, A cancels: B's play falls in a chain undo
(§5.5) and 8C goes back to B. Then C calls Stop! (§9), stages 10C JC QC and lays them: C is
out and the hand is over.
"""

from __future__ import annotations

from typing import Any

import httpx
from serverhelpers import LiveServer, Player, seated, updates_with

POSITION = {
    "table": [["4C", "5C", "6C"], ["9H", "10H", "JH"], ["5H", "6H", "7H", "8H"]],
    "hands": {"A": ["7C", "2S", "QD"], "B": ["8C", "3H"], "C": ["10C", "JC", "QC"]},
    "stocks": {"A": ["KH", "2D"], "B": ["KS"], "C": []},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}


async def start_hand(server: LiveServer) -> list[Player]:
    """The three players at a new stacked table, dealt, connected."""
    return await seated(server, ["A", "B", "C"], position=POSITION, timers={"play": 30})


async def chain_undo(a: Player, b: Player) -> None:
    await a.ok("add", card="2S", meld=2)  # A's play stays open (the run is not valid yet)
    await a.ok("add", card="7C", meld=1)
    await b.ok("add", card="8C", meld=1)
    await a.ok("cancel")
    await b.next(updates_with("chain_undo"))


async def go_out(c: Player, everyone: list[Player]) -> dict[str, Any]:
    """C goes out; the last ack, once every player has it."""
    await c.ok("stop")
    for card in ("10C", "JC", "QC"):
        await c.ok("stage", card=card)
    last = await c.ok("lay", cards=["10C", "JC", "QC"])
    for p in everyone:
        await p.at_version(last["version"])
    return last


async def play_short_hand(server: LiveServer) -> tuple[str, list[Player]]:
    """The whole hand; its table code and players (still connected)."""
    a, b, c = await start_hand(server)
    await chain_undo(a, b)
    await go_out(c, [a, b, c])
    return a.code or "", [a, b, c]


async def get_replay(server: LiveServer, code: str, hand: int = 1) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url, timeout=10, trust_env=False) as http:
        return await http.get(f"/api/tables/{code}/hands/{hand}/replay")
