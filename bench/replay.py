"""Replay benchmark (issue 17, point 7): the cost of building a finished hand's replay.

Prints figures; asserts nothing. Run: ``python bench/replay.py`` (a few seconds).

For each recorded long game of ``tests/recorded`` (three random bots, real deals, every hand
to its end) and each of its hands: the frames, the replay's JSON size (compact, as FastAPI
sends it, and gzipped), and the time ``server.replay.build_replay`` takes (median of 5), beside
the time of what the API serves (``encode_replay``: the same, as gzipped JSON), and the
baseline of replaying the whole game's journal through the engine alone
(``server.journal.replay``, no views), so the cost of the views shows apart from the engine's.
"""

from __future__ import annotations

import functools
import gzip
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from recorded_games import FILE  # noqa: E402

from engine.rules import MACHIAVELOX  # noqa: E402
from server.durable import entry_from, options_dict, options_from  # noqa: E402
from server.journal import DealOptions, DealSpec, JournalEntry, replay  # noqa: E402
from server.replay import (  # noqa: E402
    HandNotOver,
    NoSuchHand,
    Source,
    build_replay,
    encode_replay,
)


def source_of(game: dict[str, Any]) -> Source:
    rules = MACHIAVELOX.with_timers(**game["timers"]) if game.get("timers") else MACHIAVELOX
    options = DealOptions(seed=game["seed"], rules=rules, long=True)
    entries: list[tuple[int, list[dict[str, Any]]]] = []
    for version, step in enumerate(game["steps"], start=2):
        entry: dict[str, Any] = {"t": step[1]}
        if step[0] == "cmd":
            entry["c"] = step[2]
        entries.append((version, [entry]))
    meta = {"code": "BENCH", "mode": "long", "options": options_dict(options),
            "seats": [[f"p{i}", p] for i, p in enumerate(game["players"])], "bots": {}}
    return Source(meta, entries)


def timed(fn: Callable[[], object], n: int = 5) -> float:
    runs = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main() -> None:
    games = [g for g in json.load(gzip.open(FILE)) if g.get("start") == "game"]
    print(f"{'game':<14}{'hand':>5}{'frames':>8}{'KiB':>9}{'gz KiB':>8}{'build ms':>10}"
          f"{'served ms':>11}{'engine ms':>11}")
    for game in games:
        source = source_of(game)
        spec = options_from(source.meta["options"]).resolve(game["players"])
        journal = [entry_from(v, d) for v, items in source.entries for d in items]
        engine_ms = 1000 * timed(functools.partial(_engine_only, spec, journal))
        hand = 1
        while True:
            try:
                got = build_replay("BENCH", source, hand)
            except (NoSuchHand, HandNotOver):
                break
            text = json.dumps(got, separators=(",", ":"))
            build_ms = 1000 * timed(functools.partial(build_replay, "BENCH", source, hand))
            served_ms = 1000 * timed(functools.partial(encode_replay, "BENCH", source, hand))
            packed = encode_replay("BENCH", source, hand)
            print(f"{game['name']:<14}{hand:>5}{len(got['frames']):>8}"
                  f"{len(text) / 1024:>9.1f}{len(packed) / 1024:>8.1f}"
                  f"{build_ms:>10.1f}{served_ms:>11.1f}{engine_ms:>11.1f}")
            hand += 1


def _engine_only(spec: DealSpec, journal: list[JournalEntry]) -> int:
    return sum(1 for _ in replay(spec, journal))


if __name__ == "__main__":
    main()
