"""Variants as a flow and a rule set (issue 14): what a table needs to know of its game.

:func:`find_variant` returns, for a variant's name, the flow that plays one hand (a class
with ``deal``, ``apply``, ``tick``, ``next_deadline``, ``drain_events``), its rule set, the
commands it takes (``engine.commands``) and how many seats it has. Machiavelox is the
real-time flow (:class:`~engine.hand.Hand`); the turn-based classic flow is added beside it
(seeds 000, 003, 004), not inside it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .commands import SPECS, CommandSpec
from .hand import Hand
from .rules import MACHIAVELOX, RuleSet


@dataclass(frozen=True)
class Variant:
    """One way to play: ``flow`` plays a hand under ``rules``; ``seats`` is (fewest, most)."""

    name: str
    flow: type[Hand]
    rules: RuleSet
    commands: dict[str, CommandSpec]
    seats: tuple[int, int]


VARIANTS: dict[str, Variant] = {
    "machiavelox": Variant("machiavelox", Hand, MACHIAVELOX, dict(SPECS),
                           (MACHIAVELOX.players, MACHIAVELOX.players)),
}


def find_variant(name: str) -> Variant:
    """The variant called ``name``. Raises ``KeyError`` naming the known ones."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise KeyError(f"unknown variant '{name}': known are {sorted(VARIANTS)}") from None
