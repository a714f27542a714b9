"""The solver: shared names (see ``solver/__init__.py``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

JOKER = 52  # the face key of a joker
NFACES = 52
Step = tuple[Any, ...]
Clock = Callable[[], float]
TableIn = Mapping[int, Sequence[int]] | Sequence[Sequence[int]]
IntArray = npt.NDArray[np.int64]


@dataclass
class Solution:
    """The answer of :func:`solve`.

    ``melds`` is the whole new table; ``ids[i]`` is the id ``melds[i]`` has after
    the plan (an old id it inherits, or the id the engine will give a new meld).
    ``placed`` are the hand cards put down (empty: nothing can be, or for an
    unopened player nothing reaches the opening minimum: draw, C14, C17);
    ``moved`` the table cards that end in a meld other than the one they started
    in; ``optimal`` is False when the budget ran out first (then this is the best
    found so far); ``gain_optimal`` is True when at least the first aim (the most
    cards, or worth, put down) is proved; ``plan`` the steps that carry it out
    (see the module documentation). ``joker_faces``: for every joker in a run of
    the new table, the face it stands for in R1 notation (``"7H"``, C8; a joker in
    a set has none, C9). ``worth``: C17's worth of the new table less that of the
    old (a joker counts the card it stands for; with no table, the worth of the
    melds laid, as the opening minimum counts it).
    """

    melds: list[list[int]]
    placed: list[int]
    moved: int
    optimal: bool
    plan: list[Step]
    ids: list[int] = field(default_factory=list)
    joker_faces: dict[int, str] = field(default_factory=dict)
    worth: int = 0
    gain_optimal: bool = False

    @property
    def draw(self) -> bool:
        """Nothing from the hand goes down: the player draws (or passes, C14, C15)."""
        return not self.placed

    def table(self) -> dict[int, list[int]]:
        """The new table as id → cards."""
        return dict(zip(self.ids, self.melds))
