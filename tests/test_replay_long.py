"""Replays of the later hands of a long game (issue 17, point 7), in process: a recorded long
game of ``tests/recorded`` (three random bots, real deals) made into a table's replay source.

Hand 2 of a long game starts at its own deal (the seed the game derives for hand 2, not the
first hand's cards), holds only that hand's events, ends with its result, and a hand the game
never dealt is refused.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from recorded_games import FILE

from engine import cards as C
from engine.game import Game
from engine.hand import Hand
from engine.rules import MACHIAVELOX
from server.durable import options_dict
from server.journal import DealOptions
from server.replay import NoSuchHand, Source, build_replay


def long_game(name: str) -> dict[str, Any]:
    return next(g for g in json.load(gzip.open(FILE)) if g["name"] == name)


def source_of(game: dict[str, Any]) -> tuple[Source, DealOptions]:
    rules = MACHIAVELOX.with_timers(**game["timers"]) if game.get("timers") else MACHIAVELOX
    options = DealOptions(seed=game["seed"], rules=rules, long=True)
    entries: list[tuple[int, list[dict[str, Any]]]] = []
    for version, step in enumerate(game["steps"], start=2):
        entries.append((version, [{"t": step[1]} | ({"c": step[2]} if step[0] == "cmd" else {})]))
    players = game["players"]
    meta = {"code": "LONG42", "mode": "long", "options": options_dict(options),
            "seats": [[f"id-{p}", p] for p in players],
            "bots": {f"id-{players[1]}": ["casual", None]}}
    return Source(meta, entries), options


def test_hand_two_of_a_long_game_replays_from_its_own_deal() -> None:
    game = long_game("long game 4")
    source, options = source_of(game)
    got = build_replay("LONG42", source, 2)
    players = game["players"]
    seed = Game(players, options.seed, options.rules, long=True).hand_seed(2)
    deal = Hand.deal(players, seed, options.rules)
    assert got["dealt"] == {p: [C.name(c) for c in deal.hands[p]] for p in players}
    assert got["hand"] == 2 and got["mode"] == "long" and got["bots"] == [players[1]]
    frames = got["frames"]
    dealt = [e for e in frames[0]["events"] if e["kind"] == "hand_dealt"]
    assert dealt and dealt[0]["hand"] == 2
    assert {e["hand"] for f in frames for e in f["events"]} <= {2, None}
    assert frames[-1]["view"]["result"] is not None
    assert got["result"] == frames[-1]["view"]["result"]
    assert all(f["view"]["result"] is None for f in frames[:-1])
    assert [f["t"] for f in frames] == sorted(f["t"] for f in frames)
    with pytest.raises(NoSuchHand):
        build_replay("LONG42", source, 40)
