"""The classic flow's data (C13–C31): its command, a hand's result, a turn's snapshot."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ClassicCommand:
    """A classic command (C13–C15, C31; ``engine.commands.CLASSIC_SPECS``).

    Cards are faces in R1 notation, jokers ``JK`` or ``JK=7H`` (C4, C8). ``meld`` is a meld
    id, or ``"loose"`` for a loose joker (``move``); ``to`` a meld id or ``"new"``; ``as_`` a
    face for a joker (``move``'s ``as``); ``source`` the meld a freeing card leaves
    (``free``'s ``from``; None: the hand). Unused fields stay None."""

    player: str
    do: str
    card: str | None = None
    cards: tuple[str, ...] | None = None
    meld: int | str | None = None
    to: int | str | None = None
    as_: str | None = None
    source: int | None = None


#: The old name ("play" means R4's play in the real-time flow): an alias until the server
#: and the bots move to ClassicCommand (issue 26, item 5).
Play = ClassicCommand


@dataclass
class HandResult:
    """How a classic hand ended (C22–C26, C31).

    ``end``: ``out``, ``dead``, ``stock_out``, ``survivor`` or ``abandoned``; ``winner``
    None for a dead hand, a stock-out tie, or an abandoned hand. ``scores`` are the hand's
    points by player (winner's gain, or penalty points, C26); ``values`` each hand's worth
    in cards (C25)."""

    end: str
    winner: str | None
    scores: dict[str, int]
    values: dict[str, int] = field(default_factory=dict)


@dataclass
class Snapshot:
    """The position at a turn's start (C14, C18, C20): what ``reset`` and the clock's restore
    give back, and what ``draw``/``pass`` compare with."""

    melds: dict[int, list[int]]
    faces: dict[int, int | None]
    hand: list[int]
    next_meld: int
