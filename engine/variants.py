"""Variants as a flow and a rule set (issue 14): what a table needs to know of its game.

:func:`find_variant` returns, for a variant's name, the flow that plays one hand (a class
with ``apply``, ``tick``, ``next_deadline``, ``drain_events``), its rule set, the
commands it takes (``engine.commands``) and how many seats it has. Machiavelox is the
real-time flow (:class:`~engine.hand.Hand`, one hand); the turn-based classic flow
(:class:`~engine.classic.match.ClassicMatch`, a whole match: seeds 000, 003, 004, C1–C31) is
beside it, not inside it: ``classic``, ``classic_italian`` and ``classic_dutch`` are its
presets (C2), each for 2 to 6 seats (``engine.rules.table_rules`` refuses a table its
preset does not allow, such as six Dutch players with two packs).
"""

from __future__ import annotations

from dataclasses import dataclass

from .classic.match import ClassicMatch
from .commands import CLASSIC_SPECS, SPECS, CommandSpec
from .hand import Hand
from .rules import CLASSIC_PRESETS, MACHIAVELOX, RuleSet


@dataclass(frozen=True)
class Variant:
    """One way to play: ``flow`` plays a hand under ``rules``; ``seats`` is (fewest, most)."""

    name: str
    flow: type[Hand] | type[ClassicMatch]
    rules: RuleSet
    commands: dict[str, CommandSpec]
    seats: tuple[int, int]


VARIANTS: dict[str, Variant] = {
    "machiavelox": Variant("machiavelox", Hand, MACHIAVELOX, dict(SPECS),
                           (MACHIAVELOX.players, MACHIAVELOX.players)),
    **{name: Variant(name, ClassicMatch, rules, dict(CLASSIC_SPECS),
                     (rules.fewest_players, rules.most_players))
       for name, rules in CLASSIC_PRESETS.items()},
}


def find_variant(name: str) -> Variant:
    """The variant called ``name``. Raises ``KeyError`` naming the known ones."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise KeyError(f"unknown variant '{name}': known are {sorted(VARIANTS)}") from None
