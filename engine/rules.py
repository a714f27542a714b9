"""Rule sets: variants are configuration, not branches (R5, R23).

A :class:`RuleSet` is a frozen dataclass; :func:`find_rules` looks one up by
name. Every duration is in seconds and is a field, so tests and a quick local
game can shorten the clocks (R23).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any


class AceMode(StrEnum):
    """How the ace sits in a run (R5)."""

    WRAP = "wrap"  # K-A-2 is continuous (Machiavelox, §3.1)
    LOW_OR_HIGH = "low_or_high"  # A-2-3 or Q-K-A, A..K..A at most, never wrapping (seed 000)
    LOW_ONLY = "low_only"  # A-2-3 only (seed 004)


@dataclass(frozen=True)
class RuleSet:
    """One variant's parameters.

    Durations are seconds. ``longest_run`` is the length above which a
    confirmed run is auto-split (R4); ``None`` means never (classic).
    """

    name: str
    packs: int = 2
    jokers: int = 0
    ace_mode: AceMode = AceMode.WRAP
    longest_run: int | None = 10
    most_jokers_per_meld: int = 0
    fewest_real_cards: int = 3
    removed_cards: int = 2
    players: int = 3
    stock_size: int = 34
    play: float = 40.0
    hold: float = 10.0
    inactivity: float = 120.0
    freeze: float = 180.0
    absence: float = 90.0
    tiebreak: float = 120.0
    pause: float = 60.0
    target: int = 150
    win_base: int = 50
    empty_stock_bonus: int = 10
    penalty: int = 15

    def with_timers(self, **seconds: float) -> RuleSet:
        """A copy with some durations replaced (keys: play, hold, inactivity,
        freeze, absence, tiebreak, pause). Raises ``ValueError`` for an unknown
        key or a duration that is not positive."""
        allowed = {"play", "hold", "inactivity", "freeze", "absence", "tiebreak", "pause"}
        for key, value in seconds.items():
            if key not in allowed:
                raise ValueError(f"unknown timer '{key}': one of {sorted(allowed)}")
            if not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"timer '{key}' must be a positive number of seconds")
        changes: dict[str, Any] = {k: float(v) for k, v in seconds.items()}
        return replace(self, **changes)


MACHIAVELOX = RuleSet(name="machiavelox")

# Classic turn-based Machiavelli (seed 000): two packs and four jokers, ace at
# either end but no wrap, at least two real cards per meld, no auto-split.
CLASSIC = RuleSet(
    name="classic",
    jokers=4,
    ace_mode=AceMode.LOW_OR_HIGH,
    longest_run=None,
    most_jokers_per_meld=2,
    fewest_real_cards=2,
    removed_cards=0,
)

# Italian house rules (seed 003): at most one joker per meld by habit.
CLASSIC_ITALIAN = replace(CLASSIC, name="classic_italian", most_jokers_per_meld=1)

# Dutch house rules (seed 004): aces low only, no jokers by default.
CLASSIC_DUTCH = replace(
    CLASSIC, name="classic_dutch", jokers=0, ace_mode=AceMode.LOW_ONLY, most_jokers_per_meld=0,
    fewest_real_cards=3,
)

RULE_SETS: dict[str, RuleSet] = {
    r.name: r for r in (MACHIAVELOX, CLASSIC, CLASSIC_ITALIAN, CLASSIC_DUTCH)
}


def find_rules(name: str) -> RuleSet:
    """The rule set called ``name``. Raises ``KeyError`` with the known names."""
    try:
        return RULE_SETS[name]
    except KeyError:
        raise KeyError(f"unknown rule set '{name}': known are {sorted(RULE_SETS)}") from None
