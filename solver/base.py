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
    ``placed`` are the hand cards put down; ``moved`` the table cards that end in
    a meld other than the one they started in; ``optimal`` is False when the
    budget ran out first (then this is the best found so far); ``plan`` the steps
    that carry it out (see the module documentation).
    """

    melds: list[list[int]]
    placed: list[int]
    moved: int
    optimal: bool
    plan: list[Step]
    ids: list[int] = field(default_factory=list)

    def table(self) -> dict[int, list[int]]:
        """The new table as id → cards."""
        return dict(zip(self.ids, self.melds))
