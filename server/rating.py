"""The agora's skill rating (R22 as implemented, issue 18): OpenSkill's Plackett–Luce model.

A counted agora hand is a three-player free-for-all. Its result maps to places
(:func:`hand_ranks`, ours), and the places update each player's rating with the library
(:func:`rate`, OpenSkill's): a rating is ``mu`` (the skill estimate) and ``sigma`` (its
uncertainty); a new player starts at the model's defaults (25, 25/3).

Places from a hand's results (``HandScore.result``, ``server.journal.hand_result``, R20):

* ``won`` first; in a draw (R19, no winner) the tied players (``draw``) share the first place;
* ``lost`` (scored 0: neither won nor tied nor penalised) next, tied with each other;
* ``eliminated`` and ``left`` (−15) last, tied with each other.

Places are dense (1, 2, 3 with no gaps), lower is better, as OpenSkill reads them. A hand where
everybody has the same place (all departed) changes ratings only by the model's tie update.

The public ranking orders by the conservative rating ``mu − 3·sigma`` (:func:`conservative`);
a player with fewer than :data:`PROVISIONAL_GAMES` rated hands is *provisional* (marked in the
ranking: their rating still moves a lot).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

#: Rated hands below which a player is marked provisional.
PROVISIONAL_GAMES = 10

#: Where each result stands (lower is better) before the places are made dense.
_ORDER = {"won": 0, "draw": 0, "lost": 1, "eliminated": 2, "left": 2}

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Rating:
    """A player's rating: ``mu``, ``sigma`` and the number of rated hands ``games``."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    def to_dict(self) -> dict[str, Any]:
        return {"mu": self.mu, "sigma": self.sigma, "games": self.games}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Rating:
        return cls(float(d["mu"]), float(d["sigma"]), int(d.get("games", 0)))


def initial() -> Rating:
    """A new player's rating (the model's defaults, no games)."""
    return Rating(MODEL.mu, MODEL.sigma, 0)


def conservative(mu: float, sigma: float) -> float:
    """The ranking's order: ``mu − 3·sigma`` (a rating the player is very likely above)."""
    return mu - 3.0 * sigma


def hand_ranks(results: Sequence[str]) -> list[int]:
    """Places (1 best, dense) for a hand's results in seat order (see the module docstring).

    Raises ``ValueError`` for a result that is not ``won``, ``draw``, ``lost``,
    ``eliminated`` or ``left``."""
    try:
        order = [_ORDER[r] for r in results]
    except KeyError as e:
        raise ValueError(f"unknown hand result {e.args[0]!r}") from None
    levels = sorted(set(order))
    return [levels.index(o) + 1 for o in order]


def no_show_ranks(present: Sequence[bool]) -> list[int]:
    """Places for a match abandoned before its deal (the grace ran out): whoever did not come
    is last, the others tied first."""
    return hand_ranks(["lost" if p else "left" for p in present])


def rate(before: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The ratings after one hand among ``before`` (seat order) with these places (the
    library's Plackett–Luce update, one team per player); each player's ``games`` + 1. Fewer
    than two players (no contest): the ratings as they were."""
    if len(before) < 2:
        return list(before)
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = MODEL.rate(teams, ranks=[float(x) for x in ranks])
    return [Rating(team[0].mu, team[0].sigma, r.games + 1) for team, r in zip(after, before)]
