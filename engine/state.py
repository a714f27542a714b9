"""The state of one hand: every container the rules work on, and the event outbox (R6).

The rules live in layers above it, one module per section of the rules
(``docs/rules.md``); :class:`~engine.hand.Hand` stacks them.
"""

from __future__ import annotations

from typing import Any

from .graph import DependencyGraph
from .model import (
    PLAYING,
    Action,
    Event,
    Freeze,
    Hold,
    Loc,
    Play,
    PlayerState,
    Result,
    Tiebreak,
)
from .rules import MACHIAVELOX, RuleSet
from .timeunits import ms, sec


class HandState:
    """What a hand holds: cards and where they are, plays, holds, clocks, players."""

    def __init__(self, players: list[str], rules: RuleSet = MACHIAVELOX) -> None:
        if len(players) != len(set(players)) or not players:
            raise ValueError("players must be distinct names")
        self.rules = rules
        self.players: dict[str, PlayerState] = {p: PlayerState(p) for p in players}
        self.order = list(players)
        self.hands: dict[str, list[int]] = {p: [] for p in players}
        self.staging: dict[str, list[int]] = {p: [] for p in players}
        self.stocks: dict[str, list[int]] = {p: [] for p in players}
        self.melds: dict[int, list[int]] = {}
        self.removed: list[int] = []
        self.loc: dict[int, Loc] = {}
        self.arrival: dict[int, int] = {}
        self._arrivals = 0
        self.next_meld = 1
        self.plays: dict[int, Play] = {}
        self._open: list[int] = []  # open play ids in opening order
        self.graph = DependencyGraph(self.plays)  # R9–R11
        self.holds: dict[str, Hold] = {}
        self.reserved: dict[int, int] = {}  # card -> play id (ping-pong, R13)
        self._pp: dict[int, tuple[set[int], int, set[str]]] = {}  # card -> (melds, returns, movers)
        self.phase = PLAYING
        self.freeze: Freeze | None = None
        self.tiebreak: Tiebreak | None = None
        self.result: Result | None = None
        self.now_ms = 0
        self.inactivity_deadline_ms: int | None = ms(rules.inactivity)
        self.seed: int | None = None
        self._events: list[Event] = []
        self.version = 0
        self._chain_touched = False
        # Whose hand a card in a staging area goes back to (the tie-break pile, R19).
        self._pile_owner: dict[int, str] = {}
        self._confirmations = 0

    @property
    def actions(self) -> list[Action]:
        """Every action so far, oldest first (the graph's)."""
        return self.graph.actions

    @property
    def card_stack(self) -> dict[int, list[Action]]:
        """Each card's live actions, oldest first (R10's card edges)."""
        return self.graph.card_stack

    @property
    def meld_log(self) -> dict[int, list[Action]]:
        """Each meld's live actions, oldest first."""
        return self.graph.meld_log

    def _emit(self, kind: str, player: str | None, data: dict[str, Any],
              private: dict[str, Any] | None = None) -> None:
        self.version += 1
        self._events.append(Event(self.version, sec(self.now_ms), kind, player, data, private or {}))
