"""Frames of a classic table (issue 16): what a batch costs to send when every update carries
the seat's whole classic view (``server.variant.ClassicFeed``), beside a Machiavelox table's
views as changes (``server.frames.ViewFeed``) in the same run.

Prints figures; asserts nothing. Run: ``python bench/classic_frames.py [--turns 300]``.

Classic: a real deal of six seats (``classic``, seed 7) where each turn is a ``draw`` (the
stock of 30 cards lasts 30 turns; then ``pass``), plus a spectator: per batch the time of
``ClassicFeed.updates`` for the seven sockets and the bytes of one seat's update. Machiavelox:
three seats and a spectator, each seat drawing in turn from its own stock, ``ViewFeed.updates``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from engine.classic.game import ClassicGame  # noqa: E402
from engine.classic.model import Play  # noqa: E402
from engine.errors import Refused  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.hand import Command  # noqa: E402
from engine.rules import MACHIAVELOX, table_rules  # noqa: E402
from server.frames import ViewFeed  # noqa: E402
from server.variant import ClassicFeed  # noqa: E402


def measure(turns: int, game: Any, feed: Any, seats: list[str], command: Any
            ) -> tuple[list[float], list[int]]:
    """(µs per batch for every socket, bytes of the first seat's update)."""
    watchers: set[str | None] = {*seats, None}
    times: list[float] = []
    sizes: list[int] = []
    version = 1
    feed.updates(version, game.drain_events(), game, watchers)
    now = 0.0
    for i in range(turns):
        now += 0.5
        try:
            game.apply(command(i, now), now)
        except Refused:
            continue
        batch = game.drain_events()
        if not batch:
            continue
        version += 1
        t0 = time.perf_counter()
        texts = feed.updates(version, batch, game, watchers)
        times.append((time.perf_counter() - t0) * 1e6)
        sizes.append(len(texts[seats[0]].encode()))
    return times, sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=300)
    args = parser.parse_args()

    names = [f"P{i}" for i in range(6)]
    classic = ClassicGame(names, 7, table_rules("classic", 6, {"match": "single"}))

    def classic_turn(i: int, now: float) -> Play:
        p = classic.match.hand.turn if classic.match.hand is not None else names[0]
        do = "draw" if classic.match.hand is not None and classic.match.hand.stock else "pass"
        return Play(str(p), do)

    three = ["A", "B", "C"]
    machiavelox = Game(three, 7, MACHIAVELOX)

    def mx_turn(i: int, now: float) -> Command:
        return Command(three[i % 3], "draw")

    rows = [("classic, 6 seats + spectator, whole views", classic, ClassicFeed(), names,
             classic_turn),
            ("machiavelox, 3 seats + spectator, changes", machiavelox, ViewFeed(), three,
             mx_turn)]
    print(f"{args.turns} turns each; per batch: updates for every socket, one seat's bytes")
    for label, game, feed, seats, command in rows:
        times, sizes = measure(args.turns, game, feed, seats, command)
        if not times:
            print(f"{label}: no batch")
            continue
        q = statistics.quantiles(times, n=100) if len(times) > 1 else times * 99
        print(f"{label}: {len(times)} batches, p50 {statistics.median(times):.0f} µs, "
              f"p99 {q[98]:.0f} µs; update {statistics.median(sizes):.0f} B median, "
              f"{max(sizes)} B max")


if __name__ == "__main__":
    main()
