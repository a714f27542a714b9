"""The engine's data (R6–R20): commands, events, actions, plays, holds, players, freezes,
tie-breaks and results, as plain dataclasses; the rules that change them are in the layers
stacked by :class:`~engine.hand.Hand`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

# Where a card is. ("hand", p) ("staging", p) ("stock", p) ("meld", id) ("removed",) ("out",)
Loc = tuple[Any, ...]

class Phase(StrEnum):
    """Where a hand is (§7–§10): the one place its phase is kept.

    ``playing`` (everyone plays at once), ``frozen`` (a Stop!, §9, R16: :attr:`Hand.freeze`
    holds its details), ``tiebreak`` (§10.2, R19: :attr:`Hand.tiebreak`), ``over``
    (:attr:`Hand.result`)."""

    PLAYING = "playing"
    FROZEN = "frozen"
    TIEBREAK = "tiebreak"
    OVER = "over"


# The phases as plain module names: looking a member up on an Enum class costs about 0.2 µs in
# Python 3.11, and the hand asks for its phase several times a command.
PLAYING, FROZEN, TIEBREAK, OVER = Phase.PLAYING, Phase.FROZEN, Phase.TIEBREAK, Phase.OVER


PlayStatus = Literal["open", "confirmed", "final", "fallen", "void"]
PlayerStatus = Literal["active", "eliminated", "left"]



@dataclass(frozen=True)
class Command:
    """A player's command (R6). Cards are faces in R1 notation; melds are ids.

    ``to`` is a meld id or ``"new"`` (drop, move). Unused fields stay ``None``.
    """

    player: str
    do: str
    card: str | None = None
    cards: tuple[str, ...] | None = None
    meld: int | None = None
    to: int | str | None = None


@dataclass
class Event:
    """Something that happened, for the log and for the views.

    ``t`` is seconds since the hand began; ``seq`` counts events from 1 (the
    version number). ``data`` holds only strings, numbers, lists and None.
    ``private`` holds what only ``player`` may see (the card they drew).
    """

    seq: int
    t: float
    kind: str
    player: str | None
    data: dict[str, Any]
    private: dict[str, Any] = field(default_factory=dict)

    def as_dict(self, *, with_private: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {"seq": self.seq, "t": self.t, "kind": self.kind, "player": self.player}
        d.update(self.data)
        if with_private:
            d.update(self.private)
        return d


@dataclass(eq=False)
class Action:
    """One card changing place (R6)."""

    seq: int
    play: int
    player: str
    kind: Literal["own", "move", "split"]
    card: int
    src: Loc
    dst: int
    owner: str | None  # own cards: whose hand the card goes back to
    lay: bool = False
    undone: bool = False
    final: bool = False

    def touches(self) -> tuple[int, ...]:
        if self.src[0] == "meld":
            return (self.src[1], self.dst)
        return (self.dst,)


@dataclass(eq=False)
class Play:
    """A play (§5, R7): numbered from 1 in the order plays open."""

    id: int
    player: str
    opened_ms: int
    deadline_ms: int | None
    status: PlayStatus = "open"
    staged_ever: bool = False
    suspended_ms: int | None = None  # time left when a freeze suspended it
    in_freeze: bool = False  # the Stop! caller's play during their freeze
    actions: list[Action] = field(default_factory=list)
    deps: set[int] = field(default_factory=set)
    confirmed_ms: int | None = None
    confirmed_order: int | None = None  # 1, 2, … in the order plays were confirmed (R15)

    def standing(self) -> list[Action]:
        return [a for a in self.actions if not a.undone]

    def own_down(self) -> bool:
        return any(a.kind == "own" and not a.undone for a in self.actions)


@dataclass(eq=False)
class Hold:
    """A held table card (§6, R12)."""

    player: str
    card: int
    meld: int
    deadline_ms: int


@dataclass
class PlayerState:
    name: str
    status: PlayerStatus = "active"
    connected: bool = True
    absence_deadline_ms: int | None = None
    absence_waiting: bool = False  # disconnected, but the count does not run now (R18)
    drew: bool = False
    laid: bool = False  # met before the hand, or a surviving lay (R15)
    stop_used: bool = False
    play: int | None = None
    pending_draws: int = 0


@dataclass
class Freeze:
    """A Stop! freeze (§9, R16)."""

    caller: str
    started_ms: int
    deadline_ms: int
    marker: int  # first action seq of the freeze
    inactivity_left_ms: int | None
    #: The table as it was at the instant of the Stop! (``StopRules._capture``): what a failed
    #: freeze whose work is wounded goes back to (§9, R16).
    at_stop: Any = field(default=None, repr=False)


@dataclass
class Tiebreak:
    """A tie-break (§10.2, R19)."""

    players: list[str]
    deadline_ms: int
    candidates: list[int] = field(default_factory=list)  # plays, in confirmation order


@dataclass
class Result:
    """How the hand ended (§8–§12, R20).

    ``end``: ``out``, ``silence``, ``tiebreak``, ``draw``, ``survivor`` or
    ``abandoned``; ``winner`` is None for a draw or an abandoned hand.
    """

    end: str
    winner: str | None
    scores: dict[str, int]
    reasons: dict[str, str]
    #: Each score's terms, so a client can show and translate them: keys among
    #: ``base``, ``stock`` (negative), ``opponents``, ``bonus``, ``pile`` (negative,
    #: a draw), ``floor`` (what lifts a draw to −15), ``pile_from_others``, ``outside``
    #: (tie-break), ``penalty`` (negative). The terms add up to the score.
    breakdown: dict[str, dict[str, int]] = field(default_factory=dict)
