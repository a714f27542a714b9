"""A classic match behind a server table (C13–C31): :class:`ClassicGame` gives
:class:`~engine.classic.match.ClassicMatch` the interface a table needs of
:class:`engine.game.Game`, so that the table's task, journal, replay and restore are the same
for both variants.

What it adds to the match, nothing of the rules:

* ``phase``: ``"hand"`` while a hand is played, ``"pause"`` between hands (C31, R21),
  ``"over"`` once the match ended (C27);
* ``seats``: by name, each with ``connected`` (the match's C31 connection state);
* ``hand_no``, ``hand`` (the :class:`~engine.classic.turn.ClassicHand` or None), ``long``
  (a match of several hands: its ``match`` option is not ``single``);
* ``apply(command, now)`` taking an :class:`engine.model.Command` (the server's connection
  events, old journal entries) or a :class:`~engine.classic.model.ClassicCommand`; ``tick(now)``;
  ``next_deadline()``; ``drain_events()`` as ``(hand number, event)`` pairs;
* ``history`` (one :class:`engine.game.HandRecord` a hand, ``seed`` -1, no reasons) and
  ``result`` (:class:`engine.game.GameResult`, reason ``single``, ``end`` or ``left``).

Sans-I/O: ``now`` is seconds since the match began; randomness only from the seed.
"""

from __future__ import annotations

from typing import Any

from .. import cards as C
from ..game import GamePhase, GameResult, HandRecord
from ..model import Command, Event
from ..rules import MatchEnd, RuleSet
from .match import ClassicMatch, stack_deck
from .model import ClassicCommand
from .turn import ClassicHand


class ClassicSeat:
    """One seat as a table sees it: its name and whether the match counts it connected."""

    def __init__(self, match: ClassicMatch, name: str) -> None:
        self._match = match
        self.name = name

    @property
    def connected(self) -> bool:
        return self._match.connected[self.name]


def as_play(cmd: Command | ClassicCommand) -> ClassicCommand:
    """The classic command of ``cmd`` (a :class:`Command` has no ``as``/``from``)."""
    if isinstance(cmd, ClassicCommand):
        return cmd
    return ClassicCommand(cmd.player, cmd.do, card=cmd.card, cards=cmd.cards, meld=cmd.meld,
                          to=cmd.to)


class ClassicGame:
    """A classic match for a table: ``players`` in seat order (seat 0 starts hand 1, C21).

    ``position`` (stacked test deals) is a classic conformance ``start`` block keyed by the
    players' names (``table``, ``hands``, ``stock``, ``turn``, ``first_turn``, ``unopened``,
    ``passes``), and may stack later hands too: ``decks``, ``{"2": [faces], ...}``, the top
    of that hand's deck (:func:`~engine.classic.match.stack_deck`; without it a hand is dealt
    from the seed). Raises ``ValueError`` for a position the match refuses
    (:meth:`ClassicMatch.from_position`) or a deck it cannot stack."""

    def __init__(self, players: list[str], seed: int, rules: RuleSet, *,
                 position: dict[str, Any] | None = None) -> None:
        self.players = list(players)
        self.seed = seed
        self.rules = rules
        self.long = rules.match is not MatchEnd.SINGLE
        if position is None:
            self.match = ClassicMatch.deal_first(self.players, seed, rules)
        else:
            self.match = ClassicMatch.from_position(
                self.players, rules, seed=seed, table=position.get("table", []),
                hands=position.get("hands"), stock=position.get("stock", []),
                turn=position.get("turn"), first_turn=position.get("first_turn", []),
                unopened=position.get("unopened", []), passes=position.get("passes", 0))
            self.match.stacked = stacked_decks(position.get("decks"), rules)
        self.seats = {p: ClassicSeat(self.match, p) for p in self.players}
        self.history: list[HandRecord] = []
        self._scored: object | None = None
        self._tag = self.match.hand_no

    # ------------------------------------------------------------------ state

    @property
    def phase(self) -> GamePhase:
        m = self.match
        if m.over:
            return GamePhase.OVER
        if m.hand is None or m.hand.result is not None:
            return GamePhase.PAUSE
        return GamePhase.HAND

    @property
    def hand_no(self) -> int:
        return self.match.hand_no

    @property
    def hand(self) -> ClassicHand | None:
        return self.match.hand

    @property
    def result(self) -> GameResult | None:
        m = self.match
        if not m.over:
            return None
        if not self.long:
            reason = "single"
        else:
            reason = "left" if sum(m.in_match.values()) < 2 else "end"
        return GameResult(m.winner, False, dict(m.totals), reason)

    # ------------------------------------------------------------------ the engine calls

    def apply(self, cmd: Command | ClassicCommand, now: float) -> dict[str, int]:
        """:meth:`ClassicMatch.apply` (raises ``Refused``, changing nothing)."""
        try:
            return self.match.apply(as_play(cmd), now)
        finally:
            self._note()

    def tick(self, now: float) -> None:
        self.match.tick(now)
        self._note()

    def next_deadline(self) -> float | None:
        return self.match.next_deadline()

    def drain_events(self) -> list[tuple[int | None, Event]]:
        """The events since the last drain, each with the number of the hand it belongs to
        (a ``hand_started`` opens its hand's number)."""
        out: list[tuple[int | None, Event]] = []
        for e in self.match.drain_events():
            if e.kind == "hand_started" and isinstance(e.data.get("hand"), int):
                self._tag = e.data["hand"]
            out.append((self._tag, e))
        return out

    def _note(self) -> None:
        """Keep the record of a hand that just ended."""
        res = self.match.last_result
        if res is None or res is self._scored:
            return
        self._scored = res
        self.history.append(HandRecord(self.match.hand_no, -1, res.end, res.winner,
                                       dict(res.scores), {}))


def stacked_decks(decks: Any, rules: RuleSet) -> dict[int, list[str]]:
    """A position's ``decks`` (tests only) by hand number (2 or more), each checked against a
    full deck of ``rules``. Raises ``ValueError`` for anything else."""
    if decks is None:
        return {}
    if not isinstance(decks, dict):
        raise ValueError("decks maps hand numbers to lists of cards")
    out: dict[int, list[str]] = {}
    for key, faces in decks.items():
        try:
            n = int(key)
        except (TypeError, ValueError):
            raise ValueError(f"decks: '{key}' is not a hand number") from None
        if n < 2 or not isinstance(faces, list) or not all(isinstance(f, str) for f in faces):
            raise ValueError(f"decks: hand {key} takes a list of cards (hand 2 or later)")
        try:
            stack_deck(C.full_deck(rules.packs, rules.jokers), faces)
        except C.NotationError as e:
            raise ValueError(f"decks: hand {key}: {e}") from None
        out[n] = list(faces)
    return out
