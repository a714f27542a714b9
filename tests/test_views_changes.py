"""Views as changes (issue 19): the state a client builds from the frames equals the full view,
for every seat and a spectator at every version.

The recorded games (``tests/recorded/games.json.gz``: bot hands from real deals, busy and
crowded positions, Stop!s, tie-breaks, long games of several hands) and random engine games
(random commands on busy positions, ``test_server_hidden_info.random_position``) are played
through a :class:`server.frames.ViewFeed`, as a table's task does: after every call that made
events, each seat's ``update`` text is applied (``server.changes.apply_frame``) to the view
that seat holds, and the result must equal ``engine.view.game_view`` for that seat, exactly.
Now and then a seat takes a snapshot instead (a reconnection), a fresh view between two
batches, as the server sends it, and goes on from there; the other seats' changes must still
hold (the clocks, ``t`` and ``game_t``, are the only things a snapshot may see move).

The browser's applier (``web/changes.js``) runs on the same frames under ``node
--test`` (``tests/js/changes.test.mjs``): :func:`write_fixture` writes them with the views
they must give, and :func:`test_the_browser_applier_builds_the_same_views` runs node on it
(skipped where there is no ``node``; ``scripts/test.sh`` installs Debian's ``nodejs``).
"""

from __future__ import annotations

import itertools
import json
import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from recorded_games import cmd_of, start_of
from test_engine_recorded import GAMES
from test_server_hidden_info import pick_command, random_position

from engine.errors import Refused
from engine.game import Game
from engine.hand import Command, Hand
from engine.rules import MACHIAVELOX
from engine.view import game_view
from server.changes import apply_frame, full_events
from server.frames import Batch, ViewFeed, events_for
from server.protocol import TableSummary

HERE = Path(__file__).resolve().parent
SUMMARY = TableSummary(code="T", mode="single", url="/t/T", seats=[], online=[], phase="hand")
#: Games whose frames the node test replays, and how many of their steps (every kind: a deal,
#: a crowded meld, a busy table, a long game through its pause into its second hand).
NODE_GAMES = {"bots, deal 5": None, "crowded meld 3": None, "busy table 3": None,
              "long game 3": 900}


def as_game(start: Hand | Game, record: dict[str, Any]) -> Game:
    if isinstance(start, Game):
        return start
    return Game(list(record["players"]), record.get("seed") or 0, start.rules, first_hand=start)


def recorded_steps(record: dict[str, Any]) -> Iterator[tuple[float, Command | None]]:
    for step in record["steps"]:
        if step[0] == "tick":
            yield step[1], None
        else:
            yield step[1], cmd_of(step[2])


def random_steps(seed: int, players: list[str], game: Game, n: int
                 ) -> Iterator[tuple[float, Command | None]]:
    """Random commands (``test_server_hidden_info.pick_command``) from each seat's own view."""
    rng = random.Random(seed)
    now = 0.0
    for _ in range(n):
        now += rng.random() * 0.3
        if rng.random() < 0.1:
            yield now, None
            continue
        p = rng.choice(players)
        cmd = pick_command(rng, p, game_view(game, p))  # type: ignore[arg-type]
        fields = {k: (tuple(v) if k == "cards" else v) for k, v in cmd.items() if k != "do"}
        yield now, Command(p, cmd["do"], **fields)


class Replayer:
    """One game through a :class:`ViewFeed`: every seat's frames, applied and checked."""

    def __init__(self, game: Game, seed: int, keep: bool = False) -> None:
        self.game = game
        self.feed = ViewFeed()
        self.rng = random.Random(seed)
        self.seats: list[str | None] = [*game.players, None]
        self.state: dict[str | None, tuple[int | None, Any]] = {s: (None, None) for s in self.seats}
        self.version = 0
        self.checked = 0
        self.changes = 0
        self.snapshots = 0
        self.compact = 0
        self.keep = keep
        #: Per seat, for the node test: ``[frame, view after it]`` in order.
        self.frames: dict[str, list[list[Any]]] = {str(s): [] for s in self.seats}
        self.batch()

    def receive(self, seat: str | None, text: str, batch: Batch | None = None) -> None:
        frame = json.loads(text)
        version, view = self.state[seat]
        ok, new = apply_frame(view, version, frame)
        assert ok, (seat, version, frame)
        self.state[seat] = (frame["version"], new)
        want = game_view(self.game, seat)
        assert new == want, (seat, frame["version"], frame)
        self.checked += 1
        self.changes += "set" in frame
        events = None
        if batch is not None:
            # The events leave out the t and hand the view says; put back, they are whole.
            events = events_for([batch], seat)
            assert full_events(frame["events"], new) == events, (seat, frame)
            self.compact += sum(1 for e in frame["events"] if "t" not in e or "hand" not in e)
        if self.keep:
            self.frames[str(seat)].append([frame, want, events])

    def batch(self) -> None:
        batch = self.game.drain_events()
        if not batch:
            return
        self.version += 1
        texts = self.feed.updates(self.version, batch, self.game, set(self.seats))
        for seat in self.seats:
            self.receive(seat, texts[seat], batch)

    def play(self, steps: Iterator[tuple[float, Command | None]]) -> Replayer:
        for now, cmd in steps:
            if self.rng.random() < 0.03:
                # A seat reconnects: the table brings the clocks to now (the tick may make a
                # batch), sends a snapshot, and changes from it afterwards.
                self.game.tick(now)
                self.batch()
                seat = self.rng.choice(self.seats)
                self.receive(seat, self.feed.snapshot(self.version, self.game, seat, SUMMARY))
                self.snapshots += 1
            if cmd is None:
                self.game.tick(now)
            else:
                try:
                    self.game.apply(cmd, now)
                except Refused:
                    pass
            self.batch()
        return self


def replay_recorded(record: dict[str, Any], keep: bool = False, steps: int | None = None
                    ) -> Replayer:
    game = as_game(start_of(record), record)
    return Replayer(game, len(record["steps"]), keep).play(
        itertools.islice(recorded_steps(record), steps))


@pytest.mark.parametrize("record", GAMES, ids=[g["name"] for g in GAMES])
def test_a_recorded_game_builds_every_seats_view_from_changes(record: dict[str, Any]) -> None:
    r = replay_recorded(record)
    assert r.changes > 0.9 * r.checked  # changes, not whole views, almost always
    assert r.compact > r.checked  # events without the t and hand their update's view says
    assert r.checked >= 4 * min(50, len(record["steps"]) // 4)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_random_game_builds_every_seats_view_from_changes(seed: int) -> None:
    rng = random.Random(seed)
    position = random_position(rng)
    players = ["A", "B", "C"]
    rules = MACHIAVELOX.with_timers(play=2.0, hold=0.5, inactivity=6.0, pause=0.5)
    hand = Hand.from_position(players, table=position["table"], hands=position["hands"],
                              stocks=position["stocks"], removed=position["removed"], rules=rules)
    game = Game(players, seed, rules, long=True, first_hand=hand)
    r = Replayer(game, seed)
    r.play(random_steps(seed, players, game, 1500))
    print(f"\nrandom game {seed}: {r.checked} views checked, {r.snapshots} snapshots, "
          f"hand {game.hand_no} {game.phase}")
    assert r.checked > 4 * 150 and r.snapshots > 0


def test_changes_are_smaller_than_views_and_the_same_for_every_seat() -> None:
    """The shared part is one text for all: every seat's update differs from the spectator's
    only by its private events and its ``mine``; and no update carries a whole view."""
    record = next(g for g in GAMES if g["name"] == "busy table 2")
    game = as_game(start_of(record), record)
    feed = ViewFeed()
    seats: set[str | None] = {*game.players, None}
    feed.updates(1, game.drain_events(), game, seats)
    version, sizes = 1, []
    for now, cmd in recorded_steps(record):
        try:
            game.tick(now) if cmd is None else game.apply(cmd, now)
        except Refused:
            pass
        batch = game.drain_events()
        if not batch:
            continue
        version += 1
        texts = feed.updates(version, batch, game, seats)
        spectator = json.loads(texts[None])
        for seat in game.players:
            frame = json.loads(texts[seat])
            assert "game" not in frame
            assert (frame["set"], frame.get("hand")) == (spectator["set"], spectator.get("hand"))
            assert set(frame) - set(spectator) <= {"mine"}
        sizes.append((len(texts[None]), len(json.dumps(game_view(game, None)))))
    assert sum(a for a, _ in sizes) * 4 < sum(b for _, b in sizes)


def write_fixture(path: Path) -> int:
    """The frames of :data:`NODE_GAMES` for every seat with the views they must give and the
    whole events of updates (null for snapshots), as JSON (``{game: {seat: [[frame, view,
    events], ...]}}``); the number of frames."""
    out: dict[str, Any] = {}
    n = 0
    for record in GAMES:
        if record["name"] in NODE_GAMES:
            r = replay_recorded(record, keep=True, steps=NODE_GAMES[record["name"]])
            out[record["name"]] = r.frames
            n += r.checked
    path.write_text(json.dumps(out))
    return n


def test_the_browser_applier_builds_the_same_views(tmp_path: Path) -> None:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("no node here (scripts/test.sh installs Debian's nodejs)")
    fixture = tmp_path / "frames.json"
    frames = write_fixture(fixture)
    assert frames > 1000
    proc = subprocess.run([node, "--test", str(HERE / "js")], capture_output=True, text=True,
                          timeout=120, env={"MVX_FRAMES": str(fixture), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert f"frames {frames}" in proc.stdout, proc.stdout[-2000:]


def test_a_bot_that_sees_a_gap_asks_for_a_snapshot_and_goes_on_from_it() -> None:
    """``bots.client.BotPlayer`` (the league's bots and the server's bot seats): an update
    that does not follow its view is not applied; the bot sends one ``resume`` with the
    version of the view it holds, and takes the snapshot that answers it."""
    import asyncio

    from bots.brain import Brain
    from bots.client import BotPlayer, Closed

    game = {"phase": "hand", "game_t": 1.0, "hand": None}
    frames = [
        {"type": "welcome", "seat": "A", "code": "T", "version": 5},
        {"type": "snapshot", "version": 5, "game": game, "table": {}},
        {"type": "update", "version": 6, "set": {"game_t": 2.0}, "events": []},
        {"type": "update", "version": 8, "set": {"game_t": 4.0}, "events": []},  # 7 missed
        {"type": "update", "version": 9, "set": {"game_t": 5.0}, "events": []},
        {"type": "snapshot", "version": 9, "game": {**game, "game_t": 5.5}, "table": {}},
        {"type": "update", "version": 10, "set": {"game_t": 6.0}, "events": []},
    ]

    class Link:
        def __init__(self) -> None:
            self.sent: list[dict[str, Any]] = []
            self.queue = [json.dumps(f) for f in frames]

        async def send(self, text: str) -> None:
            self.sent.append(json.loads(text))

        async def recv(self) -> str:
            if not self.queue:
                raise Closed("end")
            return self.queue.pop(0)

        async def close(self) -> None:
            pass

    bot = BotPlayer(Brain("casual"))
    link = Link()

    async def go() -> None:
        try:
            await bot._read(link, asyncio.Event())  # type: ignore[arg-type]
        except Closed:
            pass

    bot._awaiting_snapshot = True
    asyncio.run(go())
    assert link.sent == [{"type": "resume", "last_version": 6}]
    assert bot.game == {**game, "game_t": 6.0} and bot.game_version == 10
