"""C1–C3: a classic table is a preset plus options; impossible tables are refused.

Every expected value is C2's table, read column by column (RULINGS-CLASSIC.md).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from engine.melds import is_valid
from engine.rules import (
    CLASSIC,
    CLASSIC_DUTCH,
    CLASSIC_ITALIAN,
    OPTION_FIELDS,
    AceMode,
    CardValues,
    FreedJoker,
    MatchEnd,
    OptionsRefused,
    Scoring,
    StockOut,
    find_rules,
    playable,
    table_rules,
)


def _row(r: Any) -> tuple[Any, ...]:
    return (r.packs, r.jokers, r.hand_size, r.ace_mode, r.most_jokers_per_meld,
            r.fewest_real_cards, r.freed_joker, r.opening, r.clock, r.first_turn_out,
            r.scoring, r.values, r.match, r.max_hands, r.stock_out)


class TestPresets:
    """C2: the three presets, option by option."""

    def test_classic_is_seed_000(self) -> None:
        assert _row(CLASSIC) == (2, 4, 13, AceMode.LOW_OR_HIGH, None, 2, FreedJoker.REPLAY, 0,
                                 None, True, Scoring.WINNER, CardValues.HIGH, MatchEnd.TARGET,
                                 40, StockOut.PASS)
        assert CLASSIC.target == 100

    def test_italian_is_seed_003(self) -> None:
        assert _row(CLASSIC_ITALIAN) == (2, 4, 13, AceMode.LOW_OR_HIGH, 1, 2, FreedJoker.REPLAY,
                                         0, None, False, Scoring.WINNER, CardValues.HIGH,
                                         MatchEnd.DEALS, None, StockOut.PASS)
        assert CLASSIC_ITALIAN.deals == 3

    def test_dutch_is_seed_004(self) -> None:
        assert _row(CLASSIC_DUTCH) == (2, 0, 13, AceMode.LOW, None, 2, FreedJoker.KEEP, 0,
                                       120.0, True, Scoring.PENALTY, CardValues.LOW,
                                       MatchEnd.THRESHOLD, None, StockOut.FEWEST)
        assert CLASSIC_DUTCH.threshold == 100

    def test_presets_by_name(self) -> None:
        for r in (CLASSIC, CLASSIC_ITALIAN, CLASSIC_DUTCH):
            assert find_rules(r.name) is r
            assert r.longest_run is None and r.removed_cards == 0

    def test_low_is_the_new_name_of_low_only(self) -> None:
        assert AceMode("low") is AceMode.LOW is AceMode.LOW_ONLY

    def test_no_joker_cap_in_classic_one_in_italian(self) -> None:
        from engine import cards as C
        five = [C.card_id((5, 1), 0), C.card_id((0, -1), 0), C.card_id((0, -1), 1),
                C.card_id((0, -1), 2), C.card_id((9, 1), 0)]  # 5H JK JK JK 9H
        assert is_valid(five, CLASSIC)
        assert not is_valid(five, CLASSIC_ITALIAN)
        assert not is_valid(five, table_rules("classic", 2, {"max_jokers": 2}))


class TestOptions:
    """C1: options override the preset by their C1 names."""

    def test_every_option_name_maps_to_a_field(self) -> None:
        for field in OPTION_FIELDS.values():
            assert hasattr(CLASSIC, field)

    def test_overrides(self) -> None:
        r = table_rules("classic_dutch", 3, {"jokers": 2, "opening": 36, "clock": None,
                                             "ace": "low_or_high", "match": "single",
                                             "scoring": "winner"})
        assert (r.jokers, r.opening, r.clock, r.ace_mode, r.match, r.scoring) == (
            2, 36, None, AceMode.LOW_OR_HIGH, MatchEnd.SINGLE, Scoring.WINNER)
        assert r.freed_joker is FreedJoker.KEEP  # untouched options stay the preset's

    def test_no_options_is_the_preset(self) -> None:
        assert table_rules("classic", 4) == CLASSIC
        assert table_rules(CLASSIC_ITALIAN, 2, {}) == CLASSIC_ITALIAN

    def test_six_dutch_players_need_three_packs(self) -> None:
        with pytest.raises(OptionsRefused) as e:
            table_rules("classic_dutch", 6)
        assert e.value.code == "too_many_players" and "3 packs" in e.value.message
        r = table_rules("classic_dutch", 6, {"packs": 3, "hand": 15})
        assert r.packs == 3
        assert table_rules("classic_dutch", 5).packs == 2

    @pytest.mark.parametrize("preset, players, options, code", [
        ("classic", 7, {}, "too_many_players"),
        ("classic_italian", 1, {}, "too_few_players"),
        ("classic", 2, {"packs": 4}, "bad_option"),
        ("classic", 2, {"jokers": 3}, "bad_option"),
        ("classic", 2, {"jokers": 6}, "bad_option"),  # 2 a pack at most: 6 needs 3 packs
        ("classic", 2, {"hand": 12}, "bad_option"),
        ("classic", 2, {"ace": "wrap"}, "bad_option"),  # Machiavelox's, not a C1 value
        ("classic", 2, {"min_real": 1}, "bad_option"),
        ("classic", 2, {"max_jokers": 0}, "bad_option"),
        ("classic", 2, {"clock": 0}, "bad_option"),
        ("classic", 2, {"first_turn_out": 1}, "bad_option"),
        # 2.0 == 2 in Python, but a float pack count crashed the deal (t15):
        ("classic", 2, {"packs": 2.0}, "bad_option"),
        ("classic", 2, {"hand": 13.0}, "bad_option"),
        ("classic", 2, {"jokers": 4.0}, "bad_option"),
        ("classic", 2, {"opening": -1}, "bad_option"),
        ("classic", 2, {"opening": True}, "bad_option"),
        ("classic", 2, {"absence": None}, "bad_option"),
        ("classic", 2, {"lunch": 3}, "unknown_option"),
        ("poker", 2, {}, "unknown_preset"),
        ("classic", 2, {"scoring": "penalty"}, "target_with_penalty"),
    ])
    def test_refused(self, preset: str, players: int, options: dict[str, Any],
                     code: str) -> None:
        with pytest.raises(OptionsRefused) as e:
            table_rules(preset, players, options)
        assert e.value.code == code
        assert isinstance(e.value, ValueError) and e.value.message

    @pytest.mark.parametrize("options", [
        # Floors: a millisecond clock or pause dealt hands by the thousand, unattended.
        {"clock": 9.9}, {"absence": 9}, {"pause": 4.5},
        # Ceilings: an opening no hand is worth, or a match to millions, never ends.
        {"opening": 151}, {"opening": 10**12}, {"target": 10001},
        {"match": "deals", "deals": 101}, {"threshold": 10001}, {"max_hands": 1001},
    ])
    def test_a_server_table_refuses_what_never_ends(self, options: dict[str, Any]) -> None:
        """C1 as ruled takes these (the engine, a conformance case); a server table does not
        (``playable``, docs/rules-classic.md)."""
        table_rules("classic_dutch" if "threshold" in options else "classic", 2, options)
        with pytest.raises(OptionsRefused) as e:
            playable(options)
        assert e.value.code == "bad_option" and any(f"'{k}'" in e.value.message for k in options)

    def test_a_server_table_takes_its_floors_and_ceilings(self) -> None:
        playable({"clock": 10, "absence": 10, "pause": 5, "opening": 150, "target": 10000,
                  "deals": 100, "max_hands": 1000, "threshold": 10000})
        playable({"clock": None, "max_hands": None})

    def test_a_deal_that_leaves_no_stock(self) -> None:
        # Within C1's bounds (6 players, 15 cards, 104 cards at least) a stock always remains:
        # 6 × 15 = 90 leaves 14. The check guards a preset given as a RuleSet with more seats.
        assert table_rules("classic", 6, {"hand": 15, "jokers": 0}).hand_size == 15
        wide = replace(CLASSIC, name="t_wide", most_players=8, most_players_two_packs=8)
        assert table_rules(wide, 7, {"hand": 15}).hand_size == 15  # 105 of 108: 3 left
        with pytest.raises(OptionsRefused) as e:
            table_rules(wide, 8, {"hand": 15})  # 120 of 108
        assert e.value.code == "no_stock"
        with pytest.raises(OptionsRefused) as e:
            table_rules(wide, 8, {"hand": 13, "jokers": 0})  # 104 of 104: nothing left
        assert e.value.code == "no_stock"


class TestVariants:
    """The classic presets are variants beside Machiavelox (engine/variants.py)."""

    def test_find_variant(self) -> None:
        from engine.classic.match import MATCH_COMMANDS, TURN_COMMANDS, ClassicMatch
        from engine.classic.turn import ClassicHand
        from engine.commands import CLASSIC_SPECS
        from engine.variants import find_variant

        for name, rules in (("classic", CLASSIC), ("classic_italian", CLASSIC_ITALIAN),
                            ("classic_dutch", CLASSIC_DUTCH)):
            v = find_variant(name)
            assert v.flow is ClassicMatch and v.rules is rules and v.seats == (2, 6)
            assert set(v.commands) == set(CLASSIC_SPECS) == TURN_COMMANDS | MATCH_COMMANDS
        for do in TURN_COMMANDS:  # one handler a command of the schema
            assert hasattr(ClassicHand, "_cmd_" + do), do
        for do in MATCH_COMMANDS - {"deal"}:
            assert hasattr(ClassicMatch, "_cmd_" + do), do
