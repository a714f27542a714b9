"""Why a play failed, in a stable code (issue 17): ``engine.melds.explain`` per rule of §3
(R3–R5, C6, C7), the ``wounds`` of ``play_ended`` and ``chain_undo`` (R8–R10), the fallen
cards split by where they went back, and the order an invalid meld is shown in.

The expected codes and parameters are written from the rules, not read from the code: a set
is 3 or 4 cards of one rank in distinct suits (§3.2); a run is 3 or more cards of one suit in
sequence, K–A–2 continuous only in Machiavelox (§3.1, R3); the classic ace rules (C6) and
joker caps (C7, R5) per rule set.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from enginehelpers import do, events, position
from recorded_games import run
from test_engine_recorded import GAMES

from engine import cards as C
from engine.melds import WHY_CODES, explain, is_valid
from engine.rules import CLASSIC, CLASSIC_DUTCH, CLASSIC_ITALIAN, MACHIAVELOX, RuleSet
from engine.view import hand_view

RULES = {r.name: r for r in (MACHIAVELOX, CLASSIC, CLASSIC_ITALIAN, CLASSIC_DUTCH)}


def ids(text: str) -> list[int]:
    """Physical ids for faces written in order (a second copy of a face is the other pack's)."""
    seen: Counter[tuple[int, int]] = Counter()
    out = []
    for f in text.split():
        face = C.parse_face(f)
        out.append(C.card_id(face, seen[face]))
        seen[face] += 1
    return out


# (rule set, cards in the order built, the code and parameters the rule gives)
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("machiavelox", "5H 6H", {"why": "too_short", "need": 3}),                  # §3: 3 or more
    ("machiavelox", "10S 10H 10S", {"why": "set_duplicate_suit", "card": "10S"}),  # §3.2
    ("machiavelox", "10S 10H 9S", {"why": "set_mixed_ranks", "card": "9S"}),   # §3.2: one rank
    ("machiavelox", "9S 9H 9D 9C 9S", {"why": "set_too_big", "most": 4}),       # §3.2: 3 or 4
    ("machiavelox", "5H 6H 7S", {"why": "run_mixed_suits", "card": "7S"}),     # §3.1: one suit
    ("machiavelox", "5H 6H 8H", {"why": "run_gap", "suit": "H", "missing": ["7"]}),         # §3.1: sequence
    ("machiavelox", "3C 8C 4C", {"why": "run_gap", "suit": "C",
                                     "missing": ["5", "6", "7"]}),
    ("machiavelox", "5H 6H 6H", {"why": "run_duplicate", "card": "6H"}),       # a rank once
    ("classic", "KH AH 2H", {"why": "run_ace_wrap", "card": "AH"}),            # C6: no wrap
    ("classic_dutch", "QH KH AH", {"why": "run_ace_high", "card": "AH"}),      # C6: ace low
    ("classic_dutch", "KD AD 2D", {"why": "run_ace_wrap", "card": "AD"}),
    ("classic_dutch", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
     {"why": "run_too_long", "most": 13}),                                      # A..K at most
    ("classic", "JK JK 5H", {"why": "too_few_real", "need": 2}),               # C7: 2 real
    ("classic_italian", "JK JK 5H 6H", {"why": "too_many_jokers", "most": 1}),  # C7: 1 joker
    ("classic", "5H JK 9H", {"why": "run_gap", "suit": "H", "missing": ["6", "7", "8"]}),
]


@pytest.mark.parametrize(("rules", "cards", "want"), CASES,
                         ids=[f"{r}:{c}" for r, c, _ in CASES])
def test_each_rule_of_a_meld_has_its_code(rules: str, cards: str, want: dict[str, Any]) -> None:
    assert explain(ids(cards), RULES[rules]) == want


@pytest.mark.parametrize(("rules", "cards"), [
    ("machiavelox", "KH AH 2H"), ("machiavelox", "QC KC AC"), ("classic", "QH KH AH"),
    ("classic", "5H JK 7H"), ("machiavelox", "7S 7H 7D"), ("classic_dutch", "AS 2S 3S")])
def test_a_valid_meld_has_no_reason(rules: str, cards: str) -> None:
    assert explain(ids(cards), RULES[rules]) is None


def test_the_codes_cover_every_rule_and_explain_agrees_with_is_valid() -> None:
    """explain() is None exactly when is_valid() holds (one definition of validity), gives a
    known code with exactly its parameters, and over random melds reaches every code that
    the rule sets can give."""
    rng = random.Random(17)
    seen: set[str] = set()
    for _ in range(2500):
        rules: RuleSet = rng.choice(list(RULES.values()))
        pool = C.full_deck(rules.packs, rules.jokers)
        if rng.random() < 0.5:  # one suit or one rank, most of the time
            suit = rng.randrange(4)
            pool = [c for c in pool if C.is_joker(c) or C.suit_of(c) == suit]
        n = rng.choice([2, 3, 3, 4, 4, 5, 6, 13, 14])
        cards = rng.sample(pool, min(n, len(pool)))
        why = explain(cards, rules)
        assert (why is None) == is_valid(cards, rules), (C.names(cards), rules.name, why)
        if why is not None:
            assert why["why"] in WHY_CODES
            assert set(why) == {"why", *WHY_CODES[why["why"]]}, why
            seen.add(why["why"])
    assert seen >= set(WHY_CODES) - {"not_a_meld", "run_too_long", "set_too_big"}, seen


# ------------------------------------------------------------------ through the engine


def test_a_failed_play_says_why_per_wounded_meld_and_splits_what_fell() -> None:
    """§5.4, R9: A declares, moves 7C from the run into the set of nines and places 9C there
    too: the set holds a 7. Its two actions there fall, 9C back to A's hand and 7C back to
    the run; the play is void because nothing of A's stays down."""
    h = position("4C 5C 6C 7C | 9H 9S 9D", A="9C 2H KS", B="KD", C="QD")
    do(h, 0, "A stage 9C", "A stage 2H", "A move 7C 1 2", "A place 9C 2")
    events(h)
    do(h, 1, "A end")
    (ended,) = events(h, "play_ended")
    assert ended["outcome"] == "void"
    assert ended["wounds"] == [{"meld": 2, "cards": ["9S", "9H", "9D", "7C", "9C"],
                                "why": "set_mixed_ranks", "card": "7C"}]
    assert ended["fell_hand"] == ["9C"] and ended["fell_table"] == ["7C"]
    assert sorted(ended["fell"]) == ["7C", "9C"] and ended["staged_back"] == ["2H"]


def test_a_set_with_a_suit_twice_names_the_card() -> None:
    h = position("10S 10H 10D", A="10S 2H", B="KD", C="QD")
    do(h, 0, "A stage 10S", "A stage 2H", "A place 10S 1")
    events(h)
    do(h, 1, "A end")
    (ended,) = events(h, "play_ended")
    assert ended["wounds"] == [{"meld": 1, "cards": ["10S", "10H", "10D", "10S"],
                                "why": "set_duplicate_suit", "card": "10S"}]
    assert ended["fell_hand"] == ["10S"] and ended["fell_table"] == []


def test_a_declared_play_with_no_own_card_down_says_so() -> None:
    """R9, §5.3: a play that staged and rearranged the table but brought none of its own
    cards down is undone whole, for that reason and not for a wounded meld."""
    h = position("4C 5C 6C 7C 8C | 9H 9S 9D 9C", A="2H KS", B="KD", C="QD")
    do(h, 0, "A stage 2H", "A move 9C 2 1")  # both melds stay valid
    events(h)
    do(h, 1, "A end")
    (ended,) = events(h, "play_ended")
    assert ended["outcome"] == "void"
    assert ended["wounds"] == [{"meld": None, "cards": [], "why": "no_own_card"}]
    assert ended["fell_table"] == ["9C"] and ended["fell_hand"] == []


def test_a_chain_undo_carries_the_reason_of_the_play_that_failed() -> None:
    """§5.5, R10: A's 8C stood only on B's 7C; B's play fails (JH in a club run), so 7C goes
    back and A's play falls whole: A's notice says why B's play failed."""
    h = position("4C 5C 6C", A="8C 9H 9S 9D 2S", B="7C JH KD", C="QD")
    do(h, 0, "B stage 7C", "B stage JH", "B stage KD", "B place 7C 1", "B place JH 1",
       "A stage 8C", "A place 8C 1")
    events(h)
    do(h, 1, "B end")
    evs = events(h)
    (chain,) = [e for e in evs if e["kind"] == "chain_undo" and e["player"] == "A"]
    assert chain["cause_player"] == "B" and chain["cards_back"] == ["8C"]
    assert chain["wounds"] == [{"meld": 1, "cards": ["4C", "5C", "6C", "7C", "JH", "8C"],
                                "why": "run_mixed_suits", "card": "JH"}]


def test_a_play_the_final_sweep_brings_down_says_why() -> None:
    """R10's sweep (``test_engine_rules_chain`` TestChainUndo's joint support): B's play Q
    took 9C out of the nines, which X and Y refilled; A cancels, X and Y fall, and Q, left
    with 9S 9H, falls for its own wounded meld: its play_fallen says so."""
    h = position("9S 9H 9C | 4C 5C 6C | 10H JH QH | 10C JC QC KC | 4D 5D 6D",
                 A="2S 7C", B="9D 8C 8C KD", C="9C 3C KS QD")
    do(h, 0, "A add 2S 3", "A add 7C 2")
    do(h, 1, "B stage 9D", "B stage 8C", "B place 8C 2", "B place 9D 1")
    do(h, 2, "B stage 8C", "B move 9C 1 4")
    do(h, 3, "C stage 9C", "C stage 3C", "C place 3C 2", "C place 9C 1")
    do(h, 5, "B place 8C 4")
    events(h)
    do(h, 6, "A cancel")
    fallen = {e["play"]: e for e in events(h, "play_fallen")}
    assert fallen[2]["wounds"] == [] and fallen[4]["wounds"] == []  # they fell by the chain
    assert fallen[3]["cause"] == 3
    assert fallen[3]["wounds"] == [{"meld": 1, "cards": ["9S", "9H"], "why": "too_short",
                                    "need": 3}]


def test_the_recorded_games_split_every_fallen_card() -> None:
    """Across recorded games (bots, busy tables, a crowded meld): what fell is exactly own
    cards back to a hand plus table cards back to a meld, and a play with reasons lost
    cards."""
    plays = wounded = 0
    some = {"bots, deal 0", "bots, deal 5", "busy table 1", "busy table 3", "crowded meld 1"}
    for game in [g for g in GAMES if g["name"] in some]:
        for line in run(game):
            if '"play_ended"' not in line:
                continue
            e = json.loads(line)
            e = e[1] if isinstance(e, list) else e
            if not isinstance(e, dict) or e["kind"] != "play_ended":
                continue
            plays += 1
            assert Counter(e["fell"]) == Counter(e["fell_hand"] + e["fell_table"]), e
            for w in e["wounds"]:
                wounded += 1
                assert w["why"] in WHY_CODES or w["why"] == "no_own_card", w
                assert e["fell"], e
    assert plays > 200 and wounded > 10, (plays, wounded)


# ------------------------------------------------------------------ the order built


def test_an_invalid_run_is_shown_in_the_order_it_was_built() -> None:
    """A lays 7H 5H 6H (shown 5H 6H 7H, run order R4) and adds 9H: while that play is open
    the meld is invalid and shows 5H 6H 7H 9H, as the players saw it grow."""
    h = position("", A="7H 5H 6H 9H 2S", B="KD", C="QD")
    do(h, 0, "A stage 7H", "A stage 5H", "A stage 6H", "A lay 7H 5H 6H")
    assert hand_view(h, None)["table"][0]["cards"] == ["5H", "6H", "7H"]
    do(h, 1, "A add 9H 1")
    meld = hand_view(h, None)["table"][0]
    assert (meld["cards"], meld["valid"]) == (["5H", "6H", "7H", "9H"], False)


def test_a_card_moved_into_a_run_comes_after_it() -> None:
    h = position("7H 5H 6H | 2C 3C 4C", A="9H 2S KS", B="KD", C="QD")
    do(h, 0, "A stage 2S", "A move 4C 2 1")
    meld = hand_view(h, None)["table"][0]
    assert (meld["cards"], meld["valid"]) == (["5H", "6H", "7H", "4C"], False)


def test_a_meld_losing_a_card_keeps_the_order_it_was_shown_in() -> None:
    h = position("8C 4C 6C 5C 7C", A="2S KS", B="KD", C="QD")
    assert hand_view(h, None)["table"][0]["cards"] == ["4C", "5C", "6C", "7C", "8C"]
    do(h, 0, "A stage 2S", "A move 6C 1 new")
    assert hand_view(h, None)["table"][0]["cards"] == ["4C", "5C", "7C", "8C"]


# ------------------------------------------------------------------ laid_final (R15, R11)


def _me(h: Any, p: str) -> dict[str, Any]:
    return next(x for x in hand_view(h, p)["players"] if x["name"] == p)


def _depending_lay() -> Any:
    """A's lay is in a play that stands on B's open 7C (R8): confirmed, not final."""
    h = position("4C 5C 6C", A="8C 9H 9S 9D 2S", B="7C KD QS", C="JS", laid="BC")
    do(h, 0, "B stage 7C", "B stage KD", "B place 7C 1",
       "A stage 8C", "A stage 9H", "A stage 9S", "A stage 9D", "A place 8C 1",
       "A lay 9H 9S 9D")
    return h


def test_laid_is_pending_until_the_play_is_final_then_final() -> None:
    h = _depending_lay()
    a = _me(h, "A")
    assert (a["laid"], a["laid_final"]) == (True, False)  # R15 holds, but it can still fall
    do(h, 1, "B unstage KD")  # B's play ends, confirmed and final: A's play is final (R11)
    a = _me(h, "A")
    assert (a["laid"], a["laid_final"]) == (True, True)
    do(h, 2, "A stage 2S", "A cancel")  # a final lay never falls: nothing takes it back
    assert (_me(h, "A")["laid"], _me(h, "A")["laid_final"]) == (True, True)


def test_a_pending_lay_that_falls_is_laid_no_more() -> None:
    h = _depending_lay()
    do(h, 1, "B cancel")  # B's 7C goes back; A's play stood on it and falls whole (R10)
    a = _me(h, "A")
    assert (a["laid"], a["laid_final"]) == (False, False)
    assert a["hand_count"] == 5


def test_a_lay_before_the_hand_is_final_from_the_start() -> None:
    h = position("4C 5C 6C", A="8C", B="KD", C="QD", laid="A")
    assert (_me(h, "A")["laid"], _me(h, "A")["laid_final"]) == (True, True)
    assert (_me(h, "B")["laid"], _me(h, "B")["laid_final"]) == (False, False)
