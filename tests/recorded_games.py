"""Recorded games (issue 14): seeds and timed commands with every event they made, as the
engine produced them before the kernel refactoring. ``tests/test_engine_recorded.py`` replays
them and must get the same events, byte for byte (JSON, key order included), and the same
refusals (code and sentence).

Recording (only ever from a trusted engine; the file is then committed)::

    python tests/recorded_games.py        # writes tests/recorded/games.json.gz

Games: complete hands of three random bots from real deals (every way a hand ends), busy
positions with random commands (nonsense included), the crowded-meld workload (judging,
holds through undos), Stop! freezes, and long games of several hands through ``Game``.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FILE = HERE / "recorded" / "games.json.gz"
if str(HERE.parent) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(HERE.parent))
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from engine.errors import Refused  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.hand import Command, Hand  # noqa: E402
from engine.rules import MACHIAVELOX  # noqa: E402

FIELDS = ("card", "cards", "meld", "to")
# How often each kind of random command is chosen (rarely leave or Stop!, often play).
WEIGHTS = {"draw": 20, "stage": 10, "stage_meld": 30, "stage_more": 40, "unstage": 5, "lay": 40,
           "add": 30, "add_any": 8, "place": 25, "place_any": 6, "take": 10, "move": 30,
           "move_any": 6, "drop": 15, "drop_any": 3, "end": 8, "cancel": 10, "stop": 1,
           "give_up": 2, "disconnect": 1, "reconnect": 20, "leave": 0, "garbage": 4,
           "stray": 10}
BAG = [k for k, w in WEIGHTS.items() for _ in range(w)]


def cmd_json(cmd: Command) -> dict[str, Any]:
    d: dict[str, Any] = {"p": cmd.player, "do": cmd.do}
    for f in FIELDS:
        v = getattr(cmd, f)
        if v is not None:
            d[f] = list(v) if f == "cards" else v
    return d


def cmd_of(d: dict[str, Any]) -> Command:
    return Command(d["p"], d["do"], card=d.get("card"),
                   cards=tuple(d["cards"]) if "cards" in d else None,
                   meld=d.get("meld"), to=d.get("to"))


def start_of(game: dict[str, Any]) -> Hand | Game:
    """The hand or game a recorded game starts from."""
    rules = MACHIAVELOX.with_timers(**game["timers"]) if game.get("timers") else MACHIAVELOX
    if game["start"] == "deal":
        return Hand.deal(game["players"], game["seed"], rules)
    if game["start"] == "game":
        return Game(game["players"], game["seed"], rules, long=game["mode"] == "long")
    pos = game["position"]
    return Hand.from_position(game["players"], table=pos["table"], hands=pos.get("hands"),
                              stocks=pos.get("stocks"), removed=pos.get("removed", []),
                              drew=pos.get("drew", []), laid=pos.get("laid", []), rules=rules)


def _drain(obj: Hand | Game) -> list[str]:
    if isinstance(obj, Game):
        return [json.dumps([n, e.as_dict()]) for n, e in obj.drain_events()]
    return [json.dumps(e.as_dict()) for e in obj.drain_events()]


def run(game: dict[str, Any]) -> list[str]:
    """Replay a recorded game's steps: one line per event and per refusal, in order."""
    obj = start_of(game)
    out = _drain(obj)
    for step in game["steps"]:
        if step[0] == "tick":
            obj.tick(step[1])
        else:
            try:
                obj.apply(cmd_of(step[2]), step[1])
            except Refused as e:
                out.append(json.dumps(["refused", e.code, e.message]))
        out.extend(_drain(obj))
    return out


# ---------------------------------------------------------------------------------- recording


def _record_hands() -> list[dict[str, Any]]:
    from test_engine_properties import HAND_SEEDS, QUICK, play_hand

    games = []
    timers = {k: getattr(QUICK, k) for k in ("play", "hold", "inactivity", "freeze", "absence",
                                             "tiebreak")}
    for seed in HAND_SEEDS:
        _, log, _ = play_hand(seed)
        steps = [["tick", t] if kind == "tick" else ["cmd", t, cmd_json(cmd)]
                 for kind, t, cmd in log if kind == "tick" or cmd is not None]
        games.append({"name": f"bots, deal {seed}", "start": "deal", "seed": seed,
                      "players": ["A", "B", "C"], "timers": timers, "steps": steps})
    return games


def _record_random(name: str, position: dict[str, Any], seed: int, n: int,
                   commands: Any, stage_first: bool = False) -> dict[str, Any]:
    rng = random.Random(seed)
    players = ["A", "B", "C"]
    game = {"name": name, "start": "position", "players": players, "position": position,
            "steps": []}
    h = start_of(game)
    assert isinstance(h, Hand)
    t = 0.0
    if stage_first:
        for p in players:
            c = Command(p, "stage", card=position["hands"][p][-1])
            game["steps"].append(["cmd", t, cmd_json(c)])
            h.apply(c, t)
    for _ in range(n):
        if h.result is not None:
            break
        t = round(t + rng.choice([0.0, 0.1, 0.2, 0.5, 1.0, 3.0]), 3)
        cands = commands(h)
        kind = rng.choice([k for k in BAG if k in cands] or sorted(cands))
        cmd = rng.choice(cands[kind])
        game["steps"].append(["cmd", t, cmd_json(cmd)])
        try:
            h.apply(cmd, t)
        except Refused:
            pass
    game["steps"].append(["tick", t + 400.0])
    return game


def _record_positions() -> list[dict[str, Any]]:
    from test_engine_properties import BUSY_TABLE, busy_position, candidates
    from test_engine_properties_rules import crowded_commands

    games = []
    for seed in (1, 2, 3, 4):
        h = busy_position(seed)
        pos = {"table": [m.split() for m in BUSY_TABLE],
               "hands": {p: [n for n in _names(h.hands[p])] for p in h.order},
               "stocks": {p: _names(h.stocks[p]) for p in h.order},
               "removed": _names(h.removed), "drew": ["A", "B", "C"],
               "laid": [p for p in h.order if h.players[p].laid]}
        games.append(_record_random(f"busy table {seed}", pos, seed, 400, candidates))
    crowded = {"table": [m.split() for m in
                         "3H 4H 5H 6H 7H 8H 9H | 9S 9D 9C | 5S 6S 7S | 10H JH QH".split("|")],
               "hands": {"A": ["2H", "10S", "KD", "4S"], "B": ["KH", "8S", "2D", "9H"],
                         "C": ["AH", "4D", "3S", "QS"]},
               "drew": ["A", "B", "C"], "laid": ["A", "B", "C"]}
    for seed in (1, 2, 3, 4, 5, 6):
        games.append(_record_random(f"crowded meld {seed}", crowded, seed, 150,
                                    crowded_commands, stage_first=True))
    return games


def _names(cards: list[int]) -> list[str]:
    from engine import cards as C
    return C.names(cards)


def _record_long_games() -> list[dict[str, Any]]:
    """Long games through Game: the random bots of the property tests play each hand on short
    clocks; in the pause everyone says ready (or not: then the pause runs out)."""
    from test_engine_properties import QUICK, Bot

    games = []
    timers = {k: getattr(QUICK, k) for k in ("play", "hold", "inactivity", "freeze", "absence",
                                             "tiebreak")} | {"pause": 3.0}
    for seed in (3, 4):
        rng = random.Random(seed)
        game = {"name": f"long game {seed}", "start": "game", "seed": seed, "mode": "long",
                "players": ["A", "B", "C"], "timers": timers, "steps": []}
        g = start_of(game)
        assert isinstance(g, Game)
        bots = {p: Bot(p, rng) for p in ("A", "B", "C")}
        t = 0.0
        for _ in range(6000):
            if g.result is not None:
                break
            t = round(t + rng.choice([0.0, 0.05, 0.2, 0.5, 1.0]), 3)
            game["steps"].append(["tick", t])
            g.tick(t)
            p = rng.choice(["A", "B", "C"])
            h = g.hand
            if g.phase == "pause" or h is None or h.result is not None:
                cmd = Command(p, "ready" if rng.random() < 0.5 else "draw")
            else:
                cmd = bots[p].next(h)
            game["steps"].append(["cmd", t, cmd_json(cmd)])
            try:
                g.apply(cmd, t)
            except Refused:
                bots[p].plan = []
        games.append(game)
    return games


def record() -> list[dict[str, Any]]:
    games = _record_hands() + _record_positions() + _record_long_games()
    for g in games:
        g["lines"] = run(g)
    return games


if __name__ == "__main__":
    games = record()
    FILE.parent.mkdir(exist_ok=True)
    with gzip.open(FILE, "wt", encoding="utf-8") as f:
        json.dump(games, f)
    total = sum(len(g["lines"]) for g in games)
    print(f"recorded {len(games)} games, {total} events and refusals, into {FILE}")
