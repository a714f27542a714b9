"""Deals and the journal: what makes a table's game again (STYLE 6).

:class:`DealOptions` (chosen at creation) resolve to a :class:`DealSpec` once the seats are
taken; the spec plus the game's :class:`JournalEntry` list (every engine call that produced
events, with its game time in seconds) replays the game exactly (:func:`replay`).
:class:`EventLog` keeps the last batches in memory for replay on reconnection;
:func:`stored_event` is an event as the store keeps it; :func:`hand_result` a seat's result in
the ranking's history (R20).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from engine import cards as C
from engine.classic.game import ClassicGame
from engine.classic.model import Play
from engine.game import Game, GameResult, HandRecord
from engine.hand import Command, Event, Hand
from engine.melds import is_valid
from engine.rules import RuleSet
from engine.variants import find_variant

from .frames import Batch

#: Seats at a Machiavelox table (``engine.variants``: it is played by three).
SEATS = find_variant("machiavelox").seats[1]

#: A command in the journal: the real-time flow's, or a classic one (``as``, ``from``).
AnyCommand = Command | Play


class SeatState(Protocol):
    @property
    def connected(self) -> bool: ...


class TableGame(Protocol):
    """What a table needs of its game (:class:`engine.game.Game` for Machiavelox,
    :class:`engine.classic.game.ClassicGame` for the classic presets)."""

    @property
    def phase(self) -> Any: ...
    @property
    def seats(self) -> Mapping[str, SeatState]: ...
    @property
    def hand_no(self) -> int: ...
    @property
    def hand(self) -> Any: ...
    @property
    def long(self) -> bool: ...
    @property
    def result(self) -> GameResult | None: ...
    @property
    def history(self) -> list[HandRecord]: ...

    def apply(self, cmd: Any, now: float) -> dict[str, int]: ...
    def tick(self, now: float) -> None: ...
    def next_deadline(self) -> float | None: ...
    def drain_events(self) -> list[tuple[int | None, Event]]: ...


def is_classic(variant: str) -> bool:
    """True for a classic preset's name (``engine.variants``), False for Machiavelox."""
    return variant != "machiavelox"


# ---------------------------------------------------------------------------- deals


@dataclass(frozen=True)
class DealOptions:
    """How a table will deal, chosen at creation. ``variant``: ``machiavelox`` or a classic
    preset (``engine.variants``), ``size`` its number of seats (3 for Machiavelox, 2–6
    classic). ``position`` (tests only) is a conformance ``start`` block (the classic one for
    a classic table, ``engine.scenario_classic``) plus ``players``: the placeholder names its
    keys use, given to the seats in join order (default ``["A", "B", "C", ...]``)."""

    seed: int
    rules: RuleSet
    long: bool = False
    position: dict[str, Any] | None = None
    variant: str = "machiavelox"
    size: int = SEATS

    def check(self) -> None:
        """Raise ``ValueError`` when the position cannot be set up."""
        if self.position is not None:
            placeholders = position_players(self.position, self.size)
            if is_classic(self.variant):
                ClassicGame(placeholders, self.seed, self.rules, position=self.position)
                return
            hand = _hand_from_position(placeholders, self.position, self.rules)
            for mid, cards in hand.table().items():
                if not is_valid(cards, self.rules):
                    raise ValueError(f"position.table meld {mid} ({' '.join(C.names(cards))})"
                                     " is not a valid run or set")

    def resolve(self, seats: list[str]) -> DealSpec:
        """The deal for these seat names (in join order)."""
        position = None
        if self.position is not None:
            names = dict(zip(position_players(self.position, self.size), seats))
            position = _rename_position(self.position, names, self.size)
        return DealSpec(tuple(seats), self.seed, self.rules, self.long, position, self.variant)


def position_players(position: dict[str, Any], size: int = SEATS) -> list[str]:
    players = position.get("players") or [chr(ord("A") + i) for i in range(size)]
    if not isinstance(players, list) or len(players) != size or len(set(players)) != size:
        raise ValueError(f"position.players lists {size} distinct names")
    return [str(p) for p in players]


def _rename_position(position: dict[str, Any], names: dict[str, str],
                     size: int = SEATS) -> dict[str, Any]:
    out = dict(position)
    out["players"] = [names[p] for p in position_players(position, size)]
    for key in ("hands", "stocks"):
        if position.get(key):
            out[key] = {names.get(p, p): v for p, v in position[key].items()}
    for key in ("drew", "laid", "first_turn", "unopened"):
        if position.get(key):
            out[key] = [names.get(p, p) for p in position[key]]
    if isinstance(position.get("turn"), str):
        out["turn"] = names.get(position["turn"], position["turn"])
    return out


def _hand_from_position(players: list[str], position: dict[str, Any], rules: RuleSet) -> Hand:
    return Hand.from_position(
        players, table=position.get("table", []), hands=position.get("hands"),
        stocks=position.get("stocks"), removed=position.get("removed", []),
        drew=position.get("drew", []), laid=position.get("laid", []), rules=rules)


@dataclass(frozen=True)
class DealSpec:
    """Everything that, with the journal, makes a game again: seats, seed, rules, mode and,
    for a stacked test deal, the first hand's position (keyed by seat names)."""

    players: tuple[str, ...]
    seed: int
    rules: RuleSet
    long: bool
    position: dict[str, Any] | None = None
    variant: str = "machiavelox"

    def new_game(self) -> TableGame:
        """The variant's game: :class:`Game` or :class:`ClassicGame` (the one seam where
        the variant decides; everything after goes through :class:`TableGame`)."""
        if is_classic(self.variant):
            return ClassicGame(list(self.players), self.seed, self.rules, position=self.position)
        first = None
        if self.position is not None:
            first = _hand_from_position(list(self.players), self.position, self.rules)
        return Game(list(self.players), self.seed, self.rules, long=self.long, first_hand=first)


@dataclass(frozen=True)
class JournalEntry:
    """One call into the engine that produced events: ``apply(command, now)``, or
    ``tick(now)`` when ``command`` is None. ``now``: seconds since the game began."""

    version: int
    now: float
    command: AnyCommand | None
    #: The client's command id (``CommandIn.id``): None for the server's own calls.
    ref: int | str | None = None


def replay(spec: DealSpec, entries: list[JournalEntry]
           ) -> Iterator[tuple[int, TableGame, Batch]]:
    """Rebuild a game from its journal, yielding ``(version, game, batch)`` after each version
    (version 1 is the deal) with the events that version logged. The same game object is
    yielded each time, mutated."""
    game = spec.new_game()
    yield 1, game, game.drain_events()
    for version, group in itertools.groupby(entries, key=lambda e: e.version):
        for e in group:
            if e.command is None:
                game.tick(e.now)
            else:
                try:
                    game.apply(e.command, e.now)
                except Exception:  # noqa: BLE001, S110 - Refused, or an engine failure the live game met too
                    pass
        yield version, game, game.drain_events()


# ---------------------------------------------------------------------------- the event log


class EventLog:
    """The last ``maxlen`` event batches, numbered from 1 (the version). In memory; the
    next issue adds a Redis implementation of the same three members."""

    def __init__(self, maxlen: int) -> None:
        self._batches: deque[Batch] = deque(maxlen=maxlen)
        self.head = 0  # the version of the newest batch (0: none yet)

    def append(self, batch: Batch) -> int:
        """Store a batch; its version."""
        self._batches.append(batch)
        self.head += 1
        return self.head

    def truncate(self, head: int) -> None:
        """Forget the batches after version ``head`` (a roll-back, ``server.durable``)."""
        while self.head > head and self._batches:
            self._batches.pop()
            self.head -= 1
        self.head = min(self.head, head)

    def since(self, version: int) -> list[Batch] | None:
        """The batches after ``version``, oldest first; None when some are no longer kept
        (or ``version`` is from the future: another table or a restarted server)."""
        if version > self.head or version < 0:
            return None
        oldest = self.head - len(self._batches) + 1
        if version + 1 < oldest:
            return None
        start = version + 1 - oldest
        return list(itertools.islice(self._batches, start, None))


def stored_event(hand_no: int | None, event: Event) -> dict[str, Any]:
    """An event as the store keeps it: its public fields and ``hand`` (as in ``frames``), and
    what only its player may see under ``"private"`` (absent when nothing is private)."""
    d = event.as_dict(with_private=False)
    d.setdefault("hand", hand_no)
    if event.private:
        d["private"] = dict(event.private)
    return d


def hand_result(seat: str, winner: str | None, reasons: dict[str, str]) -> str:
    """A seat's result in the ranking's history: ``won``, ``draw``, ``eliminated``, ``left``
    or ``lost`` (from the hand's winner and its score reasons, R20)."""
    if winner == seat:
        return "won"
    reason = reasons.get(seat, "")
    if reason.startswith("draw"):
        return "draw"
    if reason in ("eliminated", "left"):
        return reason
    return "lost"
