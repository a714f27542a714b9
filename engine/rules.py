"""Rule sets: variants are configuration, not branches (R5, R23, C1–C3).

A :class:`RuleSet` is a frozen dataclass; :func:`find_rules` looks one up by name. Every
duration is in seconds and is a field, so tests and a quick local game can shorten the clocks
(R23).

Classic tables (C1, C2) are a preset plus options: :func:`table_rules` builds one, and refuses
an impossible combination with :class:`OptionsRefused` (a ``ValueError`` with a stable
``code``, ``docs/errors.md`` "Classic"). Option names are C1's; :data:`OPTION_FIELDS` maps
each to its field (``ace`` → ``ace_mode``, ``max_jokers`` → ``most_jokers_per_meld``,
``min_real`` → ``fewest_real_cards``, ``hand`` → ``hand_size``; the others keep their name).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any


class AceMode(StrEnum):
    """How the ace sits in a run (R5, C6)."""

    WRAP = "wrap"  # K-A-2 is continuous (Machiavelox, §3.1)
    LOW_OR_HIGH = "low_or_high"  # A-2-3 or Q-K-A, A..K..A at most, never wrapping (seed 000)
    LOW = "low"  # A-2-3 only (seed 004)
    LOW_ONLY = "low"  # the old name of LOW: an alias (the same member), kept for old callers


class FreedJoker(StrEnum):
    """What a joker freed from the table may do (C11, C12)."""

    REPLAY = "replay"  # it must go back down this turn (000, 003)
    KEEP = "keep"  # the holder of its card may swap it into the hand (004)


class Scoring(StrEnum):
    """Who scores a hand (C26)."""

    WINNER = "winner"  # the winner scores every other hand (000, 003)
    PENALTY = "penalty"  # each other player scores their own hand (004)


class CardValues(StrEnum):
    """Card values in a hand (C25): ``high`` ace 11 (000, 003), ``low`` ace 1 (004)."""

    HIGH = "high"
    LOW = "low"


class MatchEnd(StrEnum):
    """When a classic match ends (C27)."""

    TARGET = "target"
    DEALS = "deals"
    THRESHOLD = "threshold"
    SINGLE = "single"


class StockOut(StrEnum):
    """What an empty stock does (C23, C24)."""

    PASS = "pass"  # players pass; n passes in a row: a dead hand
    FEWEST = "fewest"  # the hand ends at once; the fewest points in hand win


#: The durations a test may shorten (``RuleSet.with_timers``), seconds: Machiavelox's clocks
#: and a classic table's (the turn clock C20, absence C31, the pause between hands).
MACHIAVELOX_TIMERS = ("play", "hold", "inactivity", "freeze", "absence", "tiebreak", "pause")
CLASSIC_TIMERS = ("clock", "absence", "pause")


@dataclass(frozen=True)
class RuleSet:
    """One variant's parameters.

    Durations are seconds. ``longest_run`` is the length above which a confirmed run is
    auto-split (R4); ``None`` means never (classic). ``most_jokers_per_meld`` is ``None`` for
    no cap (C7). The classic fields (C1) are read only by the turn-based flow
    (``engine.classic``); ``target`` is the match target of both (§13 150, C27 100).
    """

    name: str
    packs: int = 2
    jokers: int = 0
    ace_mode: AceMode = AceMode.WRAP
    longest_run: int | None = 10
    most_jokers_per_meld: int | None = 0
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
    # Classic (C1, C2): the turn-based flow only.
    hand_size: int = 13
    freed_joker: FreedJoker = FreedJoker.REPLAY
    opening: int = 0
    clock: float | None = None
    first_turn_out: bool = True
    scoring: Scoring = Scoring.WINNER
    values: CardValues = CardValues.HIGH
    match: MatchEnd = MatchEnd.TARGET
    deals: int = 3
    threshold: int = 100
    max_hands: int | None = None
    stock_out: StockOut = StockOut.PASS
    fewest_players: int = 2
    most_players: int = 6
    most_players_two_packs: int = 6  # C2: classic_dutch seats 6 only with 3 packs

    def with_timers(self, allowed: Collection[str] = MACHIAVELOX_TIMERS, /,
                    **seconds: float) -> RuleSet:
        """A copy with some durations replaced (keys: ``allowed``, Machiavelox's clocks by
        default; a classic table's are :data:`CLASSIC_TIMERS`). Raises ``ValueError`` for an
        unknown key or a duration that is not a positive number."""
        for key, value in seconds.items():
            if key not in allowed:
                raise ValueError(f"unknown timer '{key}': one of {', '.join(allowed)}")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"timer '{key}' must be a positive number of seconds")
        changes: dict[str, Any] = {k: float(v) for k, v in seconds.items()}
        return replace(self, **changes)


MACHIAVELOX = RuleSet(name="machiavelox")

# Classic turn-based Machiavelli, seed 000 (C2): two packs and four jokers, thirteen cards,
# the ace at either end but no wrap, two real cards in a meld with a joker and no other cap
# (C7), a freed joker replayed, no opening minimum, going out on the first turn allowed,
# winner's scoring with high values, a match to 100 with a 40-hand cap, passes at an empty
# stock. No auto-split and no removed cards (those are Machiavelox's).
CLASSIC = RuleSet(
    name="classic",
    jokers=4,
    ace_mode=AceMode.LOW_OR_HIGH,
    longest_run=None,
    most_jokers_per_meld=None,
    fewest_real_cards=2,
    removed_cards=0,
    target=100,
    max_hands=40,
)

# Italian house rules, seed 003 (C2): one joker a meld, nobody goes out on the first turn,
# three deals; no 40-hand cap (C3).
CLASSIC_ITALIAN = replace(
    CLASSIC, name="classic_italian", most_jokers_per_meld=1, first_turn_out=False,
    match=MatchEnd.DEALS, deals=3, max_hands=None,
)

# Dutch rules, seed 004 (C2): no jokers by default, aces low only, a swapped joker is kept,
# a two-minute turn clock (C3), penalty scoring with low values to a threshold of 100, the
# fewest points win at an empty stock; 2–5 players, 6 only with three packs.
CLASSIC_DUTCH = replace(
    CLASSIC, name="classic_dutch", jokers=0, ace_mode=AceMode.LOW, most_jokers_per_meld=None,
    fewest_real_cards=2, freed_joker=FreedJoker.KEEP, clock=120.0, scoring=Scoring.PENALTY,
    values=CardValues.LOW, match=MatchEnd.THRESHOLD, threshold=100, max_hands=None,
    stock_out=StockOut.FEWEST, most_players_two_packs=5,
)

RULE_SETS: dict[str, RuleSet] = {
    r.name: r for r in (MACHIAVELOX, CLASSIC, CLASSIC_ITALIAN, CLASSIC_DUTCH)
}

#: The classic presets (C2), by name.
CLASSIC_PRESETS: dict[str, RuleSet] = {r.name: r for r in (CLASSIC, CLASSIC_ITALIAN, CLASSIC_DUTCH)}


def find_rules(name: str) -> RuleSet:
    """The rule set called ``name``. Raises ``KeyError`` with the known names."""
    try:
        return RULE_SETS[name]
    except KeyError:
        raise KeyError(f"unknown rule set '{name}': known are {sorted(RULE_SETS)}") from None


# ---------------------------------------------------------------------------- tables (C1)

#: C1's option names → RuleSet fields.
OPTION_FIELDS: dict[str, str] = {
    "packs": "packs", "jokers": "jokers", "hand": "hand_size", "ace": "ace_mode",
    "max_jokers": "most_jokers_per_meld", "min_real": "fewest_real_cards",
    "freed_joker": "freed_joker", "opening": "opening", "clock": "clock",
    "absence": "absence", "pause": "pause", "first_turn_out": "first_turn_out",
    "scoring": "scoring", "values": "values", "match": "match", "target": "target",
    "deals": "deals", "threshold": "threshold", "max_hands": "max_hands",
    "stock_out": "stock_out",
}

OPTIONS_CODES: dict[str, str] = {
    "unknown_preset": "There is no such classic preset: classic, classic_italian or classic_dutch.",
    "unknown_option": "There is no such table option.",
    "bad_option": "That value is not allowed for this table option.",
    "too_few_players": "A classic table needs at least 2 players.",
    "too_many_players": "Too many players for this table.",
    "no_stock": "That deal leaves no stock: fewer cards each, or more packs.",
    "target_with_penalty": "A match to a target needs winner's scoring, not penalty points.",
}


class OptionsRefused(ValueError):
    """A classic table that C1 does not allow. ``code`` is one of :data:`OPTIONS_CODES`
    (``docs/errors.md``, "Classic"); ``message`` a sentence naming the option."""

    def __init__(self, code: str, message: str | None = None) -> None:
        self.code = code
        self.message = message or OPTIONS_CODES[code]
        super().__init__(f"{code}: {self.message}")


_CHOICES: dict[str, tuple[Any, ...]] = {
    "packs": (2, 3), "jokers": (0, 2, 4, 6), "hand": (5, 7, 10, 13, 15),
    "min_real": (2, 3), "first_turn_out": (True, False),
}
_ENUMS: dict[str, type[StrEnum]] = {
    "ace": AceMode, "freed_joker": FreedJoker, "scoring": Scoring, "values": CardValues,
    "match": MatchEnd, "stock_out": StockOut,
}
# Whole numbers ≥ lowest; ``None`` allowed where the option has a "none".
_COUNTS: dict[str, tuple[int, bool]] = {
    "max_jokers": (1, True), "opening": (0, False), "target": (1, False), "deals": (1, False),
    "threshold": (1, False), "max_hands": (1, True),
}
_SECONDS: dict[str, bool] = {"clock": True, "absence": False, "pause": False}

#: What a server table plays (``playable``): C1 takes any positive duration and any count, but
#: a turn clock or a pause of a millisecond dealt and ended hands by the thousand, unattended,
#: at full CPU and without end (a tester's finding, issue 16), and an opening above what the
#: largest hand is worth (15 cards of 10), or a match to millions, plays on without end between
#: bots. The engine and its cases keep C1 as ruled; a server refuses these at creation.
PLAYABLE_SECONDS: dict[str, float] = {"clock": 10.0, "absence": 10.0, "pause": 5.0}
PLAYABLE_COUNTS: dict[str, int] = {"opening": 150, "target": 10000, "deals": 100,
                                   "threshold": 10000, "max_hands": 1000}


def playable(options: Mapping[str, Any]) -> None:
    """Raise :class:`OptionsRefused` (``bad_option``) for a chosen option outside what a server
    table plays (:data:`PLAYABLE_SECONDS` floors, :data:`PLAYABLE_COUNTS` ceilings); call it
    after :func:`table_rules` accepted ``options`` (so their types are right)."""
    for key, value in options.items():
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if key in PLAYABLE_SECONDS and value < PLAYABLE_SECONDS[key]:
            raise OptionsRefused("bad_option", f"Option '{key}' takes a number of seconds from "
                                 f"{PLAYABLE_SECONDS[key]:g} to 86400 at a table, not {value!r}.")
        if key in PLAYABLE_COUNTS and value > PLAYABLE_COUNTS[key]:
            raise OptionsRefused("bad_option", f"Option '{key}' takes a whole number up to "
                                 f"{PLAYABLE_COUNTS[key]} at a table, not {value!r}.")


def _option_value(key: str, value: Any) -> Any:
    """``value`` for option ``key`` as the field holds it. Raises :class:`OptionsRefused`
    (``bad_option``) naming the option and what it takes."""
    def bad(takes: str) -> OptionsRefused:
        return OptionsRefused("bad_option", f"Option '{key}' takes {takes}, not {value!r}.")

    if key in _CHOICES:
        choices = _CHOICES[key]
        if type(value) is not type(choices[0]) or value not in choices:  # 2.0 is not 2
            raise bad(" or ".join(str(c).lower() for c in choices))
        return value
    if key in _ENUMS:
        enum = _ENUMS[key]
        allowed = [m.value for m in enum if not (enum is AceMode and m is AceMode.WRAP)]
        if not isinstance(value, str) or value not in allowed:
            raise bad(" or ".join(dict.fromkeys(allowed)))
        return enum(value)
    if key in _COUNTS:
        lowest, nullable = _COUNTS[key]
        if value is None and nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
            raise bad(f"a whole number from {lowest}" + (" or null" if nullable else ""))
        return value
    nullable = _SECONDS[key]
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 86400:
        raise bad("a number of seconds above 0" + (" or null" if nullable else ""))
    return float(value)


def table_rules(preset: str | RuleSet, players: int,
                options: Mapping[str, Any] | None = None) -> RuleSet:
    """The rules of a classic table (C1): ``preset`` (a name or a preset of
    :data:`CLASSIC_PRESETS`) with ``options`` (C1's names) for ``players`` seats.

    Raises :class:`OptionsRefused` for an unknown preset or option, a value outside C1's, too
    few or too many players for the preset (C2: Dutch 6 only with 3 packs), more jokers than
    2 a pack, a deal that leaves no stock, or ``match: target`` with penalty scoring."""
    if isinstance(preset, str):
        base = CLASSIC_PRESETS.get(preset)
        if base is None:
            raise OptionsRefused("unknown_preset", f"There is no classic preset '{preset}': "
                                 f"one of {', '.join(CLASSIC_PRESETS)}.")
    else:
        base = preset
    changes: dict[str, Any] = {}
    for key, value in (options or {}).items():
        if key not in OPTION_FIELDS:
            raise OptionsRefused("unknown_option", f"There is no table option '{key}': "
                                 f"one of {', '.join(OPTION_FIELDS)}.")
        changes[OPTION_FIELDS[key]] = _option_value(key, value)
    rules = replace(base, **changes)
    if rules.jokers > 2 * rules.packs:
        raise OptionsRefused("bad_option", f"{rules.jokers} jokers with {rules.packs} packs: "
                             "at most 2 jokers a pack.")
    if isinstance(players, bool) or not isinstance(players, int) or players < rules.fewest_players:
        raise OptionsRefused("too_few_players",
                             f"A classic table needs at least {rules.fewest_players} players.")
    most = rules.most_players if rules.packs > 2 else rules.most_players_two_packs
    if players > most:
        more = " (6 need 3 packs)" if rules.packs == 2 and most < rules.most_players else ""
        raise OptionsRefused("too_many_players", f"{players} players is too many for "
                             f"{rules.name} with {rules.packs} packs: at most {most}{more}.")
    if players * rules.hand_size >= rules.packs * 52 + rules.jokers:
        raise OptionsRefused("no_stock", f"{players} hands of {rules.hand_size} leave no stock "
                             f"from {rules.packs * 52 + rules.jokers} cards.")
    if rules.match is MatchEnd.TARGET and rules.scoring is Scoring.PENALTY:
        raise OptionsRefused("target_with_penalty")
    return rules

