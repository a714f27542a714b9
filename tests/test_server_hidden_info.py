"""Property: no frame of a random game ever shows another seat's hand or any stock order.

Several tables play at once, each with three clients sending random, legal-ish commands (and
malformed ones, repeated ids, drops and reconnections) and a spectator, on short clocks so that
plays time out, holds expire, draws are forced and Stop! freezes end. Afterwards the table's
journal is replayed in a fresh engine (``server.tables.replay``), which gives the true hands,
stocks and events at every version, and every frame each client received is checked against
that truth:

* the view's own hand is exactly the seat's true hand (None for a spectator); every other seat
  appears only as counts, which match;
* no list anywhere in a frame is a run of five or more cards of a stock in stock order, nor a
  whole stock; no other seat's hand appears (a ``hand`` list elsewhere than the own hand, or
  a list of cards other than face-up ones equal to another seat's hand of six or more);
* an event's private fields (the card drawn) reach its player only; a ``chain_undo`` notice
  reaches only the player it names; a live update carries exactly the events of its version.

Seeds are fixed, so a failure replays; the run is bounded in commands and seconds.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
from collections import Counter
from collections.abc import Iterator
from itertools import combinations
from typing import Any

import pytest
from serverhelpers import Frame, LiveServer, Player, run, seated

from engine import cards as C
from engine.game import Game
from engine.melds import is_valid
from engine.rules import MACHIAVELOX
from server.frames import events_for
from server.settings import Settings
from server.tables import DealSpec, JournalEntry, Table, replay

TIMERS = {"play": 1.0, "hold": 0.4, "inactivity": 1.5, "freeze": 1.0, "absence": 1.2,
          "tiebreak": 1.0, "pause": 0.5}
COMMANDS_PER_PLAYER = 150
TABLES = [(11, "single"), (12, "long"), (13, "single")]
STOCK_RUN = 5  # a list this long in stock order would give the stock away
# Lists of face-up cards (the table, staging areas, cards that went back from them): they may
# hold what is now in someone's hand, since everybody saw those cards go there.
PUBLIC_CARD_LISTS = {"cards", "staging", "removed", "on_trial", "held", "staged_back", "fell",
                     "cards_back", "players"}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(Settings(test_deals=True, resume_wait=0.1, secret="test")) as s:
        yield s


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


def random_position(rng: random.Random) -> dict[str, Any]:
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
    stocks = {p: pick(12) for p in names}
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


async def random_client(p: Player, rng: random.Random) -> None:
    last: tuple[dict[str, Any], Frame] | None = None
    for n in range(COMMANDS_PER_PLAYER):
        if p.game is not None and p.game["phase"] == "over":
            break
        r = rng.random()
        if r < 0.02:  # drop and come back, resuming from the last version or not
            await p.close()
            await p.connect(last_version=p.version if rng.random() < 0.7 else None)
            continue
        if r < 0.05 and last is not None:  # a repeated id gets the same reply, applied once
            msg, reply = last
            await p.send(msg)
            again = await p.next(lambda f, cid=msg["id"]: f["type"] in ("ack", "refused")
                                 and f.get("id") == cid)
            assert again == reply, (msg, reply, again)
            continue
        if r < 0.06:
            await p.send(rng.choice(['{"type": "command"', '{"type": 5}', "[]"]))
            await p.next(lambda f: f["type"] == "error")
            continue
        cmd = pick_command(rng, p.seat or "", p.game)
        msg = {"type": "command", "id": f"{p.name}-{n}", **cmd}
        await p.send(msg)
        reply = await p.next(lambda f, cid=msg["id"]: f["type"] in ("ack", "refused", "error")
                             and f.get("id") == cid)
        assert reply["type"] in ("ack", "refused"), reply
        last = (msg, reply)
        await asyncio.sleep(rng.random() * 0.012)


# ---------------------------------------------------------------------------- the truth


class Truth:
    """The true state at every version, from the journal replayed in a fresh engine."""

    def __init__(self, spec: DealSpec, journal: list[JournalEntry]) -> None:
        self.spec = spec
        self.hands: dict[int, dict[str, Counter[str]]] = {}
        self.hand_no: dict[int, int] = {}
        self.stock_runs: dict[int, set[tuple[str, ...]]] = {}
        self.stocks: dict[int, list[tuple[str, ...]]] = {}
        self.batches: dict[int, list[Any]] = {}
        self.final: Game | None = None
        for version, game, batch in replay(spec, journal):
            hand = game.hand
            assert hand is not None
            self.hand_no[version] = game.hand_no
            self.hands[version] = {p: Counter(C.names(hand.hands[p])) for p in hand.order}
            stocks = [tuple(C.names(hand.stocks[p])) for p in hand.order]
            self.stocks[version] = stocks
            self.stock_runs[version] = {s[i:i + STOCK_RUN] for s in stocks
                                        for i in range(max(0, len(s) - STOCK_RUN + 1))}
            self.batches[version] = batch
            self.final = game


def lists_in(obj: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], list[Any]]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from lists_in(v, path + (str(k),))
    elif isinstance(obj, list):
        yield path, obj
        for i, v in enumerate(obj):
            yield from lists_in(v, path + (str(i),))


def check_frame(frame: Frame, seat: str | None, truth: Truth) -> int:
    """Check one frame sent to ``seat``; the number of game views checked."""
    if frame["type"] not in ("snapshot", "update"):
        return 0
    if frame["version"] == 0:  # before the deal: nothing dealt, nothing to hide
        assert frame["game"] is None
        return 0
    version = frame["version"]
    text = json.dumps(frame)
    checked = 0
    game = frame.get("game")
    if game is not None:
        hv = game["hand"]
        assert hv["you"] == seat
        true_hands = truth.hands[version]
        assert game["hand_no"] == truth.hand_no[version]
        if seat is None:
            assert hv["hand"] is None
        else:
            assert Counter(hv["hand"]) == true_hands[seat], (seat, version)
        for p, stock in zip(hv["players"], truth.stocks[version]):
            assert p["hand_count"] == sum(true_hands[p["name"]].values())
            assert p["stock_count"] == len(stock)
            assert set(p) == {"name", "status", "connected", "hand_count", "stock_count",
                              "staging", "open_play", "stop_used", "drew", "laid",
                              "absent_until", "pending_draws"}
        checked = 1
    runs = truth.stock_runs[version]
    for path, items in lists_in(frame):
        if path[-1:] == ("hand",) and path != ("game", "hand", "hand"):
            raise AssertionError(f"a hand list at {path} in a frame to {seat}")
        if len(items) >= STOCK_RUN and all(isinstance(x, str) for x in items):
            for i in range(len(items) - STOCK_RUN + 1):
                assert tuple(items[i:i + STOCK_RUN]) not in runs, (path, items, text[:200])
        if items and all(isinstance(x, str) for x in items):
            for stock in truth.stocks[version]:
                assert len(stock) < 2 or tuple(items) != stock, (path, items)
            if path[-1] in PUBLIC_CARD_LISTS or "pile" in path:
                continue  # face-up cards (a tie-break pile is face up too, §10.2)
            others = {p: h for p, h in truth.hands[version].items() if p != seat}
            for p, h in others.items():
                if sum(h.values()) >= 6:
                    assert Counter(items) != h, f"{p}'s hand at {path} in a frame to {seat}"
    for e in frame.get("events", []):
        if e["kind"] == "chain_undo":
            assert e["player"] == seat, e
        if e["kind"] in ("drew", "forced_draw") and e["player"] != seat:
            assert "card" not in e, e
        for key in ("stock", "stocks"):
            v = e.get(key)
            assert v is None or isinstance(v, int) or (
                isinstance(v, dict) and all(isinstance(x, int) for x in v.values())), e
    if frame["type"] == "update" and not frame.get("replay"):
        assert frame["events"] == events_for([truth.batches[version]], seat)
    # Private fields of other seats' events never appear.
    for e in frame.get("events", []):
        if e["player"] != seat:
            for _hand_no, true_event in truth.batches.get(version, []):
                if true_event.seq == e["seq"] and true_event.kind == e["kind"]:
                    assert not set(true_event.private) & set(e), e
    return checked


async def random_table(server: LiveServer, seed: int, mode: str) -> tuple[Table, list[Player]]:
    rng = random.Random(seed)
    players = await seated(server, [f"P{seed}a", f"P{seed}b", f"P{seed}c"], mode=mode,
                           seed=seed, timers=TIMERS, position=random_position(rng))
    spectator = Player(server, f"W{seed}")
    await spectator.connect(players[0].code)
    await asyncio.gather(*(random_client(p, random.Random(rng.random())) for p in players))
    await asyncio.sleep(0.1)
    return server.table(players[0].code), players + [spectator]


def test_no_frame_of_random_games_shows_hidden_cards(server: LiveServer) -> None:
    async def go() -> list[tuple[Table, list[Player]]]:
        results = list(await asyncio.gather(*(random_table(server, s, m) for s, m in TABLES)))
        await asyncio.gather(*(p.close() for _, clients in results for p in clients))
        return results

    results = run(go(), timeout=90)
    total_frames = total_views = 0
    for table, clients in results:
        spec, journal, live = server.table_call(table.code, lambda t: (
            t.spec, list(t.journal), {p: Counter(C.names(t.game.hand.hands[p]))
                                      for p in t.game.hand.order}))
        head = server.table_call(table.code, lambda t: t.events.head)
        truth = Truth(spec, journal)
        assert max(truth.hands) == head
        # The replay reached the live state: the journal is complete.
        assert truth.hands[head] == live
        for p in clients:
            for frame in p.frames:
                total_views += check_frame(frame, p.seat, truth)
                total_frames += 1
        kinds = Counter(e.kind for b in truth.batches.values() for _, e in b)
        print(f"\ntable {table.code} ({table.mode}): {head} versions, "
              f"{len(journal)} journal entries, events: {dict(kinds.most_common(12))}")
    print(f"checked {total_frames} frames, {total_views} game views")
    assert total_views > 1000
