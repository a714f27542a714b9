"""Fair grouping for the agora (issue 18): which three waiting players play together.

Pure (no I/O, the time passed in): :func:`choose_group` reads the queue as the store lists it,
with each player's skill estimate ``mu`` (``server.rating``; a new player has the model's
default) and their last group, and answers three player ids or None (wait).

* The longest-waiting player is served first: each waiting player, oldest first, is an
  *anchor*; the group is the anchor and the two others closest in ``mu``.
* Close ratings first, widening with waiting time: two players may meet when their ``mu``
  differ by at most the larger of their windows, :func:`window`: :data:`BASE_WINDOW` plus
  :data:`WIDEN_PER_SECOND` per second waited, and anyone after :data:`ANYONE_AFTER` seconds.
* Not the same three twice in a row when others wait: a group that is any member's last group
  is skipped while more than three players wait.
* One seat per player: the queue holds each player id once (the store's queue is keyed by it,
  and a logged-in player's id is their account's), and a group is three distinct ids.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

#: Players per agora hand.
GROUP = 3
#: The window (in ``mu``) of a player who has just joined.
BASE_WINDOW = 2.0
#: How much the window grows per second waited.
WIDEN_PER_SECOND = 0.5
#: Seconds after which a waiting player may be matched with anyone.
ANYONE_AFTER = 20.0
#: Candidates per anchor looked at (the closest), so that a long queue costs little.
NEAREST = 8


@dataclass(frozen=True)
class Waiting:
    """A queued player as the grouping sees them: ``since`` (seconds, the clock of ``now``),
    ``mu`` (their skill estimate) and ``last`` (their last group's sorted ids, ``a,b,c``)."""

    player_id: str
    mu: float
    since: float
    last: str | None = None


def window(waited: float) -> float:
    """How far (in ``mu``) a player who waited ``waited`` seconds may be matched."""
    if waited >= ANYONE_AFTER:
        return math.inf
    return BASE_WINDOW + WIDEN_PER_SECOND * max(0.0, waited)


def group_key(player_ids: Sequence[str]) -> str:
    """A group's key, as kept for "last group": its sorted ids joined by ``,``."""
    return ",".join(sorted(player_ids))


def choose_group(waiting: Sequence[Waiting], now: float) -> list[str] | None:
    """Three player ids to match (anchor first, then by closeness), or None: nobody may be
    grouped yet. ``waiting`` is in queue order (first come first); ids are distinct."""
    if len(waiting) < GROUP:
        return None
    others_wait = len(waiting) > GROUP
    for anchor in waiting:
        reach = window(now - anchor.since)
        near = sorted(
            (w for w in waiting if w.player_id != anchor.player_id
             and abs(w.mu - anchor.mu) <= max(reach, window(now - w.since))),
            key=lambda w: abs(w.mu - anchor.mu))[:NEAREST]
        pairs = sorted(combinations(near, 2),
                       key=lambda p: abs(p[0].mu - anchor.mu) + abs(p[1].mu - anchor.mu))
        for a, b in pairs:
            # The two others must also be within reach of each other.
            if abs(a.mu - b.mu) > max(window(now - a.since), window(now - b.since), reach):
                continue
            trio = [anchor, a, b]
            key = group_key([w.player_id for w in trio])
            if others_wait and any(w.last == key for w in trio):
                continue
            return [w.player_id for w in trio]
    return None
