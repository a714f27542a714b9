"""Property: no frame to a seat or a spectator ever names a card that seat may not see.

Random games are played against a real :class:`server.tables.Table` (its commands, dedup,
fan-out, reconnection and replay code) with no sockets and no event loop timing: the table's
clock is injected and advanced by the test, so a seed replays its game exactly (checked).
Three seats send random, legal-ish commands (repeated ids, drops, reconnections with and
without a last version, resyncs), spectators come and go, and the short clocks make plays
time out, holds expire, draws forced, Stop! freezes end and silences go to a tie-break.

Every frame is checked when the table builds it, against the engine's own state at that
moment (``game.hand``, not ``engine.view``): what a seat may see is its own hand, every meld,
every staging area, the removed cards and, in a tie-break, the tied players' hands (the pile,
face up, §10.2), plus anything it could see earlier in the same hand. Every string of the
frame, under any key, in any list of any size, in messages too, is scanned for card faces;
one this seat may not see is a leak. A face of which both copies are hidden (a stock card,
the card another player drew, a hand) is always caught; a face with one copy in sight
cannot be told from its twin, and such a leak is caught through the other faces of the same
hand or stock. Besides, the view's own hand is the engine's hand, the other hands and the
stocks appear as counts that match, and a ``chain_undo`` notice reaches only its player.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pytest

from engine import cards as C
from engine.game import Game
from engine.melds import is_valid
from engine.rules import MACHIAVELOX
from engine.view import game_view
from server.changes import apply_frame
from server.connection import Connection
from server.inbox import Attach, Detach, Join, Resync, Submit
from server.journal import DealOptions, replay
from server.protocol import CommandIn, ErrorOut, ResumeIn, parse_client
from server.sessions import Sessions
from server.settings import Settings
from server.tables import Table

TIMERS = {"play": 1.0, "hold": 0.4, "inactivity": 1.5, "freeze": 1.0, "absence": 1.2,
          "tiebreak": 1.0, "pause": 0.5}
STEPS = 1500
#: (seed, mode, stock size): small stocks run out, so silences end hands, some in a tie-break.
TABLES = [(11, "single", 12), (12, "long", 12), (13, "long", 3), (14, "long", 2)]
#: A card face as the protocol writes it, anywhere in a string.
FACE = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9AJQK])[SHDC](?![A-Za-z0-9])")

Frame = dict[str, Any]


# ---------------------------------------------------------------------------- random deals

FACES = [C.format_face(C.face_of(c)) for c in C.full_deck(2, 0)]
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["S", "H", "D", "C"]


def valid(faces: list[str]) -> bool:
    """Whether these faces form a valid meld (R3)."""
    return _valid(tuple(sorted(faces)))


@functools.lru_cache(maxsize=65536)
def _valid(faces: tuple[str, ...]) -> bool:
    copies: Counter[tuple[int, int]] = Counter()
    ids = []
    for f in faces:
        face = C.parse_face(f)
        if copies[face] >= 2:
            return False
        ids.append(C.card_id(face, copies[face]))
        copies[face] += 1
    return is_valid(ids, MACHIAVELOX)


def random_position(rng: random.Random, stock: int = 12) -> dict[str, Any]:
    """A stacked position with melds on the table and some ready-made melds in the hands, so
    that random play lays, adds, moves and rearranges (a fresh deal has an empty table)."""
    left = Counter(FACES)

    def run(length: int) -> list[str]:
        while True:
            suit, start = rng.choice(SUITS), rng.randrange(13)
            faces = [RANKS[(start + i) % 13] + suit for i in range(length)]
            if all(left[f] >= 1 for f in faces):
                left.subtract(faces)
                return faces

    def pick(n: int) -> list[str]:
        pool = list(left.elements())
        chosen = rng.sample(pool, n)
        left.subtract(chosen)
        return chosen

    table = [run(rng.randint(3, 6)) for _ in range(4)]
    names = ["A", "B", "C"]
    hands = {p: run(3) + pick(6) for p in names}
    stocks = {p: pick(stock) for p in names}
    return {"table": table, "hands": hands, "stocks": stocks, "removed": pick(2)}


# ---------------------------------------------------------------------------- random clients


def smart_command(rng: random.Random, mine: list[str], staged: list[str],
                  melds: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A command likely to be accepted: lay, stage towards a meld, add, place, rearrange."""
    for k in (3, 4):
        for combo in combinations(staged[:8], k):
            if valid(list(combo)):
                return {"do": "lay", "cards": list(combo)}
    options: list[dict[str, Any]] = []
    if not staged:
        for m in melds:
            for card in mine:
                if valid(m["cards"] + [card]):
                    options.append({"do": "add", "card": card, "meld": m["id"]})
    for m in melds:
        for card in staged:
            if valid(m["cards"] + [card]):
                options.append({"do": "place", "card": card, "meld": m["id"]})
    if staged:
        for src in melds:
            for card in src["cards"]:
                rest = list(src["cards"])
                rest.remove(card)
                if len(rest) >= 3 and not valid(rest):
                    continue
                for dst in melds:
                    if dst["id"] != src["id"] and valid(dst["cards"] + [card]):
                        options.append({"do": "move", "card": card, "meld": src["id"],
                                        "to": dst["id"]})
                options.append({"do": "move", "card": card, "meld": src["id"], "to": "new"})
    if options:
        return rng.choice(options)
    for combo in combinations(mine[:14], 3):
        if valid(list(combo)):
            return {"do": "stage", "card": combo[0]}
    return None


def pick_command(rng: random.Random, me: str, game: dict[str, Any] | None) -> dict[str, Any]:
    """A random command that the rules may or may not allow, from what the seat sees."""
    if game is None or game["hand"] is None:
        return {"do": "draw"}
    if game["phase"] == "pause":
        return {"do": rng.choice(["ready"] * 8 + ["draw", "leave_game"])}
    hand_view = game["hand"]
    mine = hand_view["hand"] or []
    me_view = next((p for p in hand_view["players"] if p["name"] == me), None)
    staged = me_view["staging"] if me_view else []
    melds = [m for m in hand_view["table"]]
    meld_ids = [m["id"] for m in melds] + [999]
    table_cards = [(c, m["id"]) for m in melds for c in m["cards"]]
    if rng.random() < 0.45:
        smart = smart_command(rng, mine, staged, melds)
        if smart is not None:
            return smart
    r = rng.random()
    if r < 0.16:
        return {"do": "draw"}
    if r < 0.32 and mine:
        return {"do": "stage", "card": rng.choice(mine)}
    if r < 0.36 and staged:
        return {"do": "unstage", "card": rng.choice(staged)}
    if r < 0.44 and len(staged) >= 3:
        return {"do": "lay", "cards": rng.sample(staged, rng.randint(3, len(staged)))}
    if r < 0.54 and mine and melds:
        return {"do": "add", "card": rng.choice(mine), "meld": rng.choice(meld_ids)}
    if r < 0.60 and table_cards:
        card, mid = rng.choice(table_cards)
        return {"do": "take", "card": card, "meld": mid}
    if r < 0.64:
        return {"do": "drop", "to": rng.choice(meld_ids[:-1] + ["new"])}
    if r < 0.72 and table_cards:
        card, mid = rng.choice(table_cards)
        return {"do": "move", "card": card, "meld": mid, "to": rng.choice(meld_ids[:-1] + ["new"])}
    if r < 0.80 and staged and melds:
        return {"do": "place", "card": rng.choice(staged), "meld": rng.choice(meld_ids)}
    if r < 0.86:
        return {"do": "end"}
    if r < 0.90:
        return {"do": "cancel"}
    if r < 0.905:
        return {"do": "stop"}
    if r < 0.91:
        return {"do": "give_up"}
    if r < 0.92:
        return {"do": "add", "card": "ZZ", "meld": 1}
    if r < 0.921:
        return {"do": "leave"}
    return {"do": rng.choice(["draw", "end", "ready"])}


# ---------------------------------------------------------------------------- what a seat sees


def in_sight(game: Game, seat: str | None) -> set[int]:
    """The cards ``seat`` sees now, from the engine's state: its hand, the melds, every staging
    area, the removed cards and, in a tie-break, the pile (the tied players' hands)."""
    hand = game.hand
    if hand is None:
        return set()
    cards = set(hand.removed)
    for meld in hand.melds.values():
        cards.update(meld)
    for p in hand.order:
        cards.update(hand.staging[p])
    if hand.tiebreak is not None:
        for p in hand.tiebreak.players:
            cards.update(hand.hands[p])
    if seat in hand.hands:
        cards.update(hand.hands[seat])
    return cards


def faces_in(obj: Any) -> Iterator[str]:
    """Every card face written anywhere in ``obj``: keys, values, list items, sentences."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from faces_in(k)
            yield from faces_in(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from faces_in(v)
    elif isinstance(obj, str):
        yield from FACE.findall(obj)


@dataclass
class Checker:
    """Checks each frame as the table builds it, with the game as it is at that moment."""

    table: Table
    #: (seat, hand number) -> the faces that seat has had in sight during that hand.
    seen: dict[tuple[str | None, int], set[str]] = field(default_factory=dict)
    frames: int = 0
    views: int = 0
    faces: int = 0
    #: Per connection: ``(version, view)`` built from its frames (``server.changes``).
    states: dict[int, tuple[int | None, Frame | None]] = field(default_factory=dict)
    applied: int = 0

    def look(self, seat: str | None) -> set[str]:
        """Bring what every seat (and a spectator) had in sight up to now, connected or not
        (a replay on reconnection shows what happened meanwhile); the faces ``seat`` may
        name in this hand."""
        game = self.table.game
        if game is None or game.hand is None:
            return set()
        for who in [*game.hand.order, None]:
            known = self.seen.setdefault((who, game.hand_no), set())
            known.update(C.name(c) for c in in_sight(game, who))
        return self.seen.setdefault((seat, game.hand_no), set())

    def check(self, conn: Connection, text: str) -> None:
        seat = conn.seat
        frame = json.loads(text)
        self.frames += 1
        game = self.table.game
        known = self.look(seat)
        if frame["type"] == "update":
            for e in frame["events"]:
                if e["kind"] == "chain_undo":
                    assert e["player"] == seat, (seat, e)  # addressed to its player (§5.5)
                # An update's events leave out the hand the view names (server.frames).
                hand_no = e.get("hand", game.hand_no if game is not None else None)
                allowed = self.seen.get((seat, hand_no), set()) if hand_no is not None else set()
                self.assert_sees(seat, e, allowed, f"event {e}")
            rest = {k: v for k, v in frame.items() if k != "events"}
        else:
            rest = frame
        self.assert_sees(seat, rest, known, f"{frame['type']} frame")
        if frame["type"] not in ("snapshot", "update"):
            return
        version, state = self.states.get(conn.id, (None, None))
        ok, view = apply_frame(state, version, frame)
        if not ok:
            # Only the update a resync's clock tick makes before the welcome may find no state.
            assert state is None, (seat, version, frame)
            return
        if frame.get("replay"):
            return  # events only: the snapshot follows
        self.states[conn.id] = (frame["version"], view)
        if view is not None and game is not None:
            # The view built from changes is the full view, for every seat at every version.
            assert view == game_view(game, seat), (seat, frame)
            self.applied += 1
        if view is not None and game is not None and game.hand is not None:
            self.check_view(seat, view, game)

    def assert_sees(self, seat: str | None, obj: Any, known: set[str], where: str) -> None:
        for face in faces_in(obj):
            self.faces += 1
            if face not in known:
                raise AssertionError(f"{face} in a frame to {seat or 'a spectator'}, who may "
                                     f"not see it ({where})")

    def check_view(self, seat: str | None, view: dict[str, Any], game: Game) -> None:
        hand = game.hand
        assert hand is not None
        hv = view["hand"]
        assert hv["you"] == seat
        if seat is None:
            assert hv["hand"] is None
        else:
            assert Counter(hv["hand"]) == Counter(C.names(hand.hands[seat])), seat
        for p in hv["players"]:
            assert p["hand_count"] == len(hand.hands[p["name"]])
            assert p["stock_count"] == len(hand.stocks[p["name"]])
        self.views += 1


# ---------------------------------------------------------------------------- the clients


class Socket:
    """What a :class:`Connection` needs of a websocket: a scope with a transport abort."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] = {"machiavelox.abort": self.abort}
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True


@dataclass
class Client:
    name: str
    seat: str | None
    player_id: str | None
    conn: Connection | None = None
    version: int = 0
    game: dict[str, Any] | None = None
    state_version: int | None = None
    replies: dict[Any, str] = field(default_factory=dict)
    last: str | None = None
    sent: int = 0


@dataclass
class Run:
    """One game: the frames every client got, the table, and what was checked."""

    table: Table
    checker: Checker
    received: list[tuple[str, str]]
    kinds: Counter[str]


class Driver:
    """Plays one table from a seed: time, commands and clients all come from ``rng``."""

    def __init__(self, seed: int, mode: str, stock: int) -> None:
        self.rng = random.Random(seed)
        self.now = 0.0
        rules = MACHIAVELOX.with_timers(**TIMERS)
        options = DealOptions(seed=seed, rules=rules, long=mode == "long",
                              position=random_position(self.rng, stock))
        settings = Settings(test_deals=True, secret="test", outbound_queue=100_000)
        self.table = Table(f"T{seed}", mode, options, settings,  # type: ignore[arg-type]
                           clock=lambda: self.now)
        self.checker = Checker(self.table)
        self.sessions = Sessions("test", 3600)
        self.clients: list[Client] = []
        self.received: list[tuple[str, str]] = []
        send = self.table._send

        def checked_send(conn: Connection, text: str) -> None:
            self.checker.check(conn, text)
            send(conn, text)
        self.table._send = checked_send  # type: ignore[method-assign]

    async def settle(self) -> None:
        """Store and send what the last item produced; each client reads its frames."""
        await self.table._deliver()
        for c in self.clients:
            while c.conn is not None and not c.conn.queue.empty():
                text = c.conn.queue.get_nowait()
                self.received.append((c.name, text))
                frame = json.loads(text)
                if frame["type"] in ("welcome", "snapshot", "update"):
                    c.version = max(c.version, frame["version"])
                if frame["type"] in ("snapshot", "update"):
                    ok, view = apply_frame(c.game, c.state_version, frame)
                    if ok and not frame.get("replay"):
                        c.game, c.state_version = view, frame["version"]
                if frame["type"] in ("ack", "refused"):
                    previous = c.replies.setdefault(frame["id"], text)
                    assert previous == text, (c.name, previous, text)  # a repeat, answered alike

    async def handle(self, item: Any) -> None:
        self.checker.look(None)
        self.table._handle(item)
        await self.settle()

    async def join(self, name: str) -> Client:
        token, session = self.sessions.issue(name)
        fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        await self.handle(Join(session, fut))
        client = Client(name, fut.result(), session.player_id)
        self.clients.append(client)
        return client

    async def watch(self, name: str) -> Client:
        client = Client(name, None, None)
        self.clients.append(client)
        await self.connect(client, None)
        return client

    async def connect(self, c: Client, last_version: int | None) -> None:
        c.conn = Connection(Socket(), c.seat, c.player_id, 100_000,  # type: ignore[arg-type]
                            self.table.tlog)
        await self.handle(Attach(c.conn, last_version))

    async def drop(self, c: Client) -> None:
        assert c.conn is not None
        conn, c.conn = c.conn, None
        await self.handle(Detach(conn))

    async def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass, ticking the table at each deadline on the way (as its task
        does when it wakes up)."""
        target = self.now + seconds
        while self.table.game is not None:
            deadline = self.table.game.next_deadline()
            if deadline is None or self.table.time.t0 + deadline > target:
                break
            self.now = max(self.now, self.table.time.t0 + deadline)
            self.checker.look(None)
            self.table._tick()
            await self.settle()
        self.now = target

    async def message(self, c: Client, text: str) -> None:
        """A text from the client, as the websocket endpoint passes it on."""
        assert c.conn is not None
        parsed = parse_client(text)
        if isinstance(parsed, CommandIn):
            await self.handle(Submit(c.conn, parsed))
        elif isinstance(parsed, ResumeIn):
            await self.handle(Resync(c.conn, parsed.last_version))
        else:
            assert isinstance(parsed, ErrorOut), parsed  # answered by the endpoint itself

    async def step(self, c: Client) -> None:
        rng = self.rng
        r = rng.random()
        if c.conn is None:
            await self.connect(c, c.version if rng.random() < 0.7 else None)
        elif r < 0.01:
            await self.drop(c)
        elif r < 0.05:
            await self.message(c, json.dumps({"type": "resume", "last_version": rng.choice(
                [c.version, max(0, c.version - rng.randint(1, 30)), None])}))
        elif r < 0.08 and c.last is not None:
            await self.message(c, c.last)  # a repeated id: the same reply, applied once
        elif r < 0.084 and c.seat is not None:
            await self.message(c, json.dumps({"type": "command", "id": f"stop-{r}", "do": "stop"}))
        else:
            cmd = pick_command(rng, c.seat or "", c.game)
            c.sent += 1
            cid: Any = f"{c.name}-{c.sent}" if rng.random() < 0.8 else c.sent
            c.last = json.dumps({"type": "command", "id": cid, **cmd})
            await self.message(c, c.last)

    async def play(self) -> Run:
        seats = [await self.join(n) for n in ("A", "B", "C")]
        for c in seats:
            await self.connect(c, None)
        await self.watch("W1")
        for n in range(STEPS):
            await self.advance(self.rng.random() * 0.08)
            game = self.table.game
            if game is not None and game.phase == "over":
                break
            if n % 150 == 75:
                await self.watch(f"W{n}")
            await self.step(self.rng.choice(self.clients))
            for c in self.clients:  # a dropped client is back within a few steps
                if c.conn is None and self.rng.random() < 0.2:
                    await self.connect(c, c.version if self.rng.random() < 0.7 else None)
        await self.advance(3.0)
        kinds = Counter(e.kind for b in self.table.events._batches for _, e in b)
        return Run(self.table, self.checker, self.received, kinds)


def play(seed: int, mode: str, stock: int) -> Run:
    async def go() -> Run:
        return await Driver(seed, mode, stock).play()
    return asyncio.run(go())


@functools.cache
def played(seed: int, mode: str, stock: int) -> Run:
    """:func:`play`, once per module run: the tests below look at the same games."""
    return play(seed, mode, stock)


# ---------------------------------------------------------------------------- the tests


@pytest.mark.parametrize(("seed", "mode", "stock"), TABLES)
def test_no_frame_names_a_card_its_seat_may_not_see(seed: int, mode: str, stock: int) -> None:
    run = played(seed, mode, stock)
    table, checker = run.table, run.checker
    assert table.game is not None
    # The journal replays the live game: what was checked is the game that was played.
    spec = table.spec
    assert spec is not None
    *_, (version, replayed, _batch) = replay(spec, table.journal)
    assert version == table.events.head
    assert replayed.hand is not None and table.game.hand is not None
    assert {p: C.names(h) for p, h in replayed.hand.hands.items()} == \
        {p: C.names(h) for p, h in table.game.hand.hands.items()}
    print(f"\ntable {table.code} ({mode}, stocks of {stock}): {table.events.head} versions, "
          f"{checker.frames} frames, {checker.views} views, {checker.faces} faces checked; "
          f"events: {dict(run.kinds.most_common(14))}")
    assert checker.views > 200
    assert checker.applied >= checker.views
    assert run.kinds["drew"] + run.kinds["forced_draw"] > 5


def test_the_random_games_reach_what_they_must_check() -> None:
    """Draws, tie-breaks (whose pile is face up) and chain undos all happen in these games."""
    kinds: Counter[str] = Counter()
    for seed, mode, stock in TABLES:
        kinds += played(seed, mode, stock).kinds
    for kind in ("drew", "forced_draw", "tiebreak_started", "chain_undo", "hand_ended",
                 "stop", "took"):
        assert kinds[kind] > 0, (kind, kinds)


def test_a_seed_replays_its_game_frame_for_frame() -> None:
    seed, mode, stock = TABLES[1]
    first, second = played(seed, mode, stock), play(seed, mode, stock)
    assert first.received == second.received
    assert first.table.journal == second.table.journal
