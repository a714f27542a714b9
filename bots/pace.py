"""A bot's pace: how long it waits before each command (issue 17).

Two paces (:data:`PACES`):

* ``"none"``: a fixed reaction time between two commands (``reaction`` seconds, ±20 %
  jitter when it is not 0), nothing else. Tests and the league (``bench/league.py``) run so.
* ``"human"``: the times of a person at a card table, by level (:data:`HUMAN`). Before a
  decision the bot *reacts* (it looks at the table and its hand: casual 3–8 s, shark 1.5–5 s,
  counted from its last command or from the change that woke it up); before a new play it
  *thinks* in proportion to the cards the play puts down and the table cards it moves; between
  two steps of one play (staging, moving, placing a card) it takes a person's *step* time; and
  it draws like a person: only when it has nothing to play (the brain decides that), and never
  in bursts: two draws are at least a *draw gap* apart (casual 6–14 s, shark 2.5–6 s).

Every delay is drawn from the pace's own ``random.Random(seed)``, so a run with the same seed
waits the same times (nothing here sleeps: the client does, :mod:`bots.client`). ``scale``
divides every delay (``bench/league.py --time-scale``, which shrinks the server's clocks by
the same factor). Delays are in seconds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

PACES = ("human", "none")


@dataclass(frozen=True)
class Tempo:
    """A level's human times, each a ``(low, high)`` range of seconds drawn uniformly.

    ``react``: before a decision; ``step``: between two commands of one play; ``think_card``:
    added before a new play per hand card it puts down beyond the first, and per table card it
    moves; ``draw_gap``: at least this long between two draws (§4: one card at a time)."""

    react: tuple[float, float]
    step: tuple[float, float]
    think_card: tuple[float, float]
    draw_gap: tuple[float, float]


#: The human pace of each level (``bots.brain.LEVELS``).
HUMAN: dict[str, Tempo] = {
    "casual": Tempo(react=(3.0, 8.0), step=(1.2, 2.5), think_card=(0.5, 1.2),
                    draw_gap=(6.0, 14.0)),
    "shark": Tempo(react=(1.5, 5.0), step=(0.6, 1.4), think_card=(0.2, 0.5),
                   draw_gap=(2.5, 6.0)),
}


class Pace:
    """The delays of one bot. ``Pace("none", reaction=0.8)`` or ``Pace("human", "casual",
    seed=7)``; raises ``ValueError`` for an unknown pace or level, or a negative reaction or
    a scale that is not above 0."""

    def __init__(self, pace: str = "none", level: str = "casual", *, reaction: float = 0.0,
                 seed: int | None = None, scale: float = 1.0) -> None:
        if pace not in PACES:
            raise ValueError(f"unknown pace {pace!r}: one of {PACES}")
        if pace == "human" and level not in HUMAN:
            raise ValueError(f"unknown level {level!r}: one of {tuple(HUMAN)}")
        if reaction < 0 or not scale > 0:
            raise ValueError("reaction must be at least 0 and scale above 0")
        self.pace = pace
        self.level = level
        self.reaction = reaction
        self.scale = scale
        self.tempo = HUMAN[level] if pace == "human" else None
        self.rng = random.Random(seed)

    @property
    def human(self) -> bool:
        return self.tempo is not None

    def _draw(self, span: tuple[float, float]) -> float:
        return self.rng.uniform(*span) / self.scale

    def react(self) -> float:
        """Seconds to wait before a decision (from the last command, or the change that woke
        the bot up)."""
        if self.tempo is None:
            return self.reaction * self.rng.uniform(0.8, 1.2) if self.reaction > 0 else 0.0
        return self._draw(self.tempo.react)

    def step(self) -> float:
        """Seconds between two commands of one play."""
        if self.tempo is None:
            return self.react()
        return self._draw(self.tempo.step)

    def think(self, cards: int, moved: int = 0) -> float:
        """Seconds of thought before a new play that puts ``cards`` hand cards down and moves
        ``moved`` table cards (0 at pace none: the reaction already passed)."""
        if self.tempo is None:
            return 0.0
        return sum(self._draw(self.tempo.think_card) for _ in range(max(0, cards - 1) + moved))

    def draw_gap(self) -> float:
        """Seconds at least between two draws (0 at pace none)."""
        if self.tempo is None:
            return 0.0
        return self._draw(self.tempo.draw_gap)

    def step_time(self) -> float:
        """The most one step of a play takes at this pace, plus a round trip (0.05 s): what the
        brain counts per step to judge whether a play fits in its 40 s (``Brain.step_time``)."""
        if self.tempo is None:
            return self.reaction * 1.2 + 0.05
        return self.tempo.step[1] / self.scale + 0.05
