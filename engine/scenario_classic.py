"""Classic conformance cases (``../shared/conformance/README.md``, "Classic cases").

:func:`run_classic_case` runs one parsed case through :class:`~engine.classic.ClassicMatch`
and returns ``(passed, name, first difference)``, like :func:`engine.scenario.run_case`, which
hands it every case whose ``rules`` is a classic preset. A malformed case fails saying why.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from . import cards as C
from .classic.jokers import face_text, parse_joker
from .classic.match import ClassicMatch
from .classic.model import Play
from .commands import CLASSIC_OPTIONAL, CLASSIC_SPECS
from .errors import Refused
from .rules import OptionsRefused, table_rules
from .timeunits import ms, sec


class CaseError(Exception):
    """A classic case that does not follow the format."""


Token = tuple[str, str | None]  # ("7H", None) a real card; ("JK", "7H"|None) a joker


def _token(text: Any) -> Token:
    try:
        joker, face = parse_joker(text)
    except C.NotationError as e:
        raise CaseError(str(e)) from None
    if joker or face is None:
        return ("JK", None if face is None else face_text(face))
    return (face_text(face), None)


def _actual(match: ClassicMatch, cards: list[int]) -> list[Token]:
    hand = match.hand
    faces = hand.faces if hand is not None else {}
    out: list[Token] = []
    for c in cards:
        if C.is_joker(c):
            f = faces.get(c)
            out.append(("JK", None if f is None else face_text(f)))
        else:
            out.append((C.name(c), None))
    return out


def _matches(got: list[Token], want: list[Token]) -> bool:
    """Multisets where ``JK=7H`` matches only a joker standing for 7H and ``JK`` any joker."""
    if Counter(t for t in got if t[0] != "JK") != Counter(t for t in want if t[0] != "JK"):
        return False
    jokers = Counter(t[1] for t in got if t[0] == "JK")
    plain = 0
    for t in want:
        if t[0] != "JK":
            continue
        if t[1] is None:
            plain += 1
        elif jokers[t[1]] > 0:
            jokers[t[1]] -= 1
        else:
            return False
    return sum(jokers.values()) == plain


def _fmt(tokens: list[Token]) -> str:
    return "[" + " ".join(sorted(a if b is None else f"{a}={b}" for a, b in tokens)) + "]"


def _player_list(value: Any, players: list[str], key: str) -> list[str]:
    if not isinstance(value, list) or any(p not in players for p in value):
        raise CaseError(f"{key!r} must list players of the case")
    return list(value)


def check(match: ClassicMatch, block: dict[str, Any]) -> str | None:
    """Compare a match with a classic ``check``/``expect`` block: the first difference."""
    hand = match.hand
    players = match.players
    for key, want in block.items():
        if key == "until":
            continue
        if key in ("options_refused",):
            if want:
                return "the table was accepted, expected it refused"
            continue
        if hand is None:
            return "no hand"
        if key == "table":
            if not isinstance(want, list):
                raise CaseError("'table' must be a list of melds")
            got = [_actual(match, cs) for cs in hand.melds.values()]
            exp = [[_token(t) for t in m] for m in want]
            left = list(got)
            for m in exp:
                hit = next((g for g in left if _matches(g, m)), None)
                if hit is None:
                    return (f"table is {sorted(_fmt(g) for g in got)}, expected "
                            f"{sorted(_fmt(e) for e in exp)}")
                left.remove(hit)
            if left:
                return (f"table is {sorted(_fmt(g) for g in got)}, expected "
                        f"{sorted(_fmt(e) for e in exp)}")
        elif key == "melds":
            for mid, cards in want.items():
                got_m = _actual(match, hand.melds.get(int(mid), []))
                exp_m = [_token(t) for t in cards]
                if not _matches(got_m, exp_m):
                    return f"meld {mid} is {_fmt(got_m)}, expected {_fmt(exp_m)}"
        elif key == "hands":
            for p, cards in want.items():
                if p not in players:
                    raise CaseError(f"unknown player {p!r} in hands")
                got_h = _actual(match, hand.hands.get(p, []))  # not dealt in: no cards
                exp_h = [_token(t) for t in cards]
                if not _matches(got_h, exp_h):
                    return f"hands of {p} is {_fmt(got_h)}, expected {_fmt(exp_h)}"
        elif key == "counts":
            for p, n in want.items():
                if p not in players:
                    raise CaseError(f"unknown player {p!r} in counts")
                got_n = len(hand.hands.get(p, []))
                if got_n != n:
                    return f"{p} holds {got_n} cards, expected {n}"
        elif key in ("stock", "loose", "passes"):
            got_v = {"stock": len(hand.stock), "loose": len(hand.loose),
                     "passes": hand.passes}[key]
            if got_v != want:
                return f"{key} is {got_v}, expected {want}"
        elif key == "turn":
            if hand.turn != want:
                return f"turn is {hand.turn}, expected {want}"
        elif key == "deadline":
            d = match.turn_deadline_ms()
            got_d = None if d is None else sec(d)
            if (got_d is None) != (want is None) or (
                    want is not None and d != ms(float(want))):
                return f"deadline is {got_d}, expected {want}"
        elif key == "opened":
            exp_o = sorted(set(_player_list(want, players, key)))
            got_o = sorted(p for p in hand.seats if p not in hand.unopened
                           or match.rules.opening <= 0)
            if got_o != exp_o:
                return f"opened is {got_o}, expected {exp_o}"
        elif key == "result":
            diff = _check_result(match, want)
            if diff:
                return diff
        elif key == "match":
            diff = _check_match(match, want)
            if diff:
                return diff
        else:
            raise CaseError(f"unknown check key {key!r}")
    return None


_SHAPES: dict[str, tuple[type, ...]] = {
    "table": (list,), "melds": (dict,), "hands": (dict,), "counts": (dict,), "stock": (int,),
    "loose": (int,), "passes": (int,), "turn": (str, type(None)),
    "deadline": (int, float, type(None)), "opened": (list,), "result": (dict, type(None)),
    "match": (dict,), "until": (int, float), "options_refused": (bool,),
}


def validate_block(block: Any, players: list[str], where: str) -> None:
    """A classic ``check``/``expect`` block's shape, before anything runs. Raises
    :class:`CaseError` naming ``where``."""
    if not isinstance(block, dict):
        raise CaseError(f"{where} must be an object")
    for key, raw in block.items():
        shape = _SHAPES.get(key)
        if shape is None:
            raise CaseError(f"{where}: unknown check key {key!r}")
        if not isinstance(raw, shape) or (isinstance(raw, bool) and bool not in shape):
            raise CaseError(f"{where}: {key!r} has the wrong shape")
        want: Any = raw
        if key == "table":
            for m in want:
                if not isinstance(m, list):
                    raise CaseError(f"{where}: 'table' lists melds (lists of cards)")
                for t in m:
                    _token(t)
        elif key in ("melds", "hands"):
            for k, cards in want.items():
                if key == "melds" and not str(k).lstrip("-").isdigit():
                    raise CaseError(f"{where}: 'melds' maps meld ids to lists of cards")
                if key == "hands" and k not in players:
                    raise CaseError(f"{where}: unknown player {k!r} in hands")
                if not isinstance(cards, list):
                    raise CaseError(f"{where}: {key!r} maps to lists of cards")
                for t in cards:
                    _token(t)
        elif key == "counts":
            if any(p not in players or not isinstance(n, int) for p, n in want.items()):
                raise CaseError(f"{where}: 'counts' maps players to numbers of cards")
        elif key == "match" and not isinstance(want.get("totals", {}), dict):
            raise CaseError(f"{where}: match 'totals' maps players to totals")
        elif key == "result" and want is not None and not isinstance(want.get("scores", {}),
                                                                     dict):
            raise CaseError(f"{where}: result 'scores' maps players to points")


def _check_result(match: ClassicMatch, want: Any) -> str | None:
    res = match.last_result
    if want is None:
        return None if res is None else f"result is {res.end} (winner {res.winner}), expected none yet"
    if not isinstance(want, dict):
        raise CaseError("'result' must be an object or null")
    if res is None:
        return "no hand has ended, expected a result"
    for k, v in want.items():
        if k == "scores":
            for p, s in v.items():
                if res.scores.get(p) != s:
                    return f"score of {p} is {res.scores.get(p)}, expected {s} ({res.scores})"
        elif k in ("end", "winner"):
            got = res.end if k == "end" else res.winner
            if got != v:
                return f"result {k} is {got!r}, expected {v!r}"
        else:
            raise CaseError(f"unknown result key {k!r}")
    return None


def _check_match(match: ClassicMatch, want: Any) -> str | None:
    if not isinstance(want, dict):
        raise CaseError("'match' must be an object")
    got: dict[str, Any] = {"hand": match.hand_no, "dealer": match.dealer, "over": match.over,
                           "winner": match.winner}
    for k, v in want.items():
        if k == "totals":
            for p, total in v.items():
                if match.totals.get(p) != total:
                    return f"total of {p} is {match.totals.get(p)}, expected {total}"
        elif k in got:
            if got[k] != v:
                return f"match {k} is {got[k]!r}, expected {v!r}"
        else:
            raise CaseError(f"unknown match key {k!r}")
    return None


def _play(step: dict[str, Any]) -> Play:
    do = step.get("do")
    spec = CLASSIC_SPECS.get(str(do))
    if spec is None or do == "deal":
        raise CaseError(f"unknown command {do!r}")
    missing = [f for f in spec.fields if f not in step]
    if missing:
        raise CaseError(f"command {do!r} needs {', '.join(missing)}")
    if "p" not in step:
        raise CaseError(f"command {do!r} names no player ('p')")
    for name in ("as", "from"):
        if name in step and name not in CLASSIC_OPTIONAL.get(str(do), ()):
            raise CaseError(f"command {do!r} does not take '{name}'")
    cards = step.get("cards")
    if cards is not None and not isinstance(cards, list):
        raise CaseError("'cards' must be a list of cards")
    return Play(player=str(step["p"]), do=str(do), card=step.get("card"),
                cards=tuple(cards) if cards is not None else None, meld=step.get("meld"),
                to=step.get("to"), as_=step.get("as"), source=step.get("from"))


def build_match(case: dict[str, Any]) -> ClassicMatch | None:
    """The match a classic case starts from, or None when its table is refused (C1)."""
    players = case.get("players")
    if not isinstance(players, list) or not players or not all(isinstance(p, str) for p in players):
        raise CaseError("'players' must list 2 to 6 names")
    options = case.get("options") or {}
    if not isinstance(options, dict):
        raise CaseError("'options' must be an object")
    try:
        rules = table_rules(str(case["rules"]), len(players), options)
    except OptionsRefused as e:
        if e.code in ("unknown_option", "unknown_preset"):
            raise CaseError(e.message) from None
        if (case.get("expect") or {}).get("options_refused"):
            return None
        raise CaseError(f"the table is refused ({e.code}): {e.message}") from None
    meta = case.get("match") or {}
    if not isinstance(meta, dict):
        raise CaseError("'match' must be an object")
    hand_no = meta.get("hand", 1)
    if isinstance(hand_no, bool) or not isinstance(hand_no, int) or hand_no < 1:
        raise CaseError("match 'hand' must be a whole number from 1")
    totals = meta.get("totals")
    if totals is not None and (not isinstance(totals, dict) or any(
            isinstance(v, bool) or not isinstance(v, int) for v in totals.values())):
        raise CaseError("match 'totals' maps players to whole numbers")
    seed = case.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise CaseError("'seed' must be a whole number")
    start = case.get("start")
    if start is None:
        if "seed" not in case:
            raise CaseError("the case has neither a start position nor a seed")
        return ClassicMatch.deal_first(players, seed, rules, hand_no=hand_no, totals=totals)
    if not isinstance(start, dict):
        raise CaseError("'start' must be an object")
    return ClassicMatch.from_position(
        players, rules, seed=seed, hand_no=hand_no, totals=totals,
        table=start.get("table", []), hands=start.get("hands"), stock=start.get("stock", []),
        turn=start.get("turn"), first_turn=start.get("first_turn", []),
        unopened=start.get("unopened", []), passes=start.get("passes", 0))


def run_classic_case(case: dict[str, Any]) -> tuple[bool, str, str]:
    """Run one parsed classic case: ``(passed, name, first difference or "")``."""
    name = str(case.get("name", "?"))
    try:
        try:
            match = build_match(case)
        except KeyError as e:
            raise CaseError(f"the case has no {e}") from None
        except (ValueError, TypeError) as e:
            raise CaseError(str(e)) from None
        expect = case.get("expect") or {}
        if not isinstance(expect, dict):
            raise CaseError("'expect' must be an object")
        if match is None:
            if case.get("steps"):
                raise CaseError("a case whose table is refused has no steps")
            return True, name, ""
        if expect.get("options_refused"):
            return False, name, "the table was accepted, expected it refused"
        validate_block(expect, match.players, "expect")
        steps = case.get("steps", [])
        if not isinstance(steps, list):
            raise CaseError("'steps' must be a list")
        plan: list[tuple[float, dict[str, Any], Play | None]] = []
        last_t = 0.0
        for i, step in enumerate(steps):
            if not isinstance(step, dict):
                raise CaseError(f"step {i + 1} must be an object")
            t = step.get("t", last_t)
            if isinstance(t, bool) or not isinstance(t, (int, float)) or t < last_t:
                raise CaseError(f"step {i + 1}: 't' must be seconds that never go back")
            last_t = float(t)
            if "check" in step:
                validate_block(step["check"], match.players, f"step {i + 1}'s check")
                plan.append((last_t, step, None))
            elif step.get("deal"):
                plan.append((last_t, step, Play("", "deal")))
            else:
                plan.append((last_t, step, _play(step)))
    except CaseError as e:
        return False, name, f"malformed case: {e}"
    try:
        for i, (t, step, cmd) in enumerate(plan):
            match.tick(t)
            where = f"at t={t:g} (step {i + 1})"
            if cmd is None:
                diff = check(match, step["check"])
                if diff:
                    return False, name, f"{where}: {diff}"
                continue
            who = "deal" if cmd.do == "deal" else f"{cmd.player} {cmd.do}"
            try:
                match.apply(cmd, t)
            except Refused as e:
                if not step.get("refused"):
                    return False, name, f"{where}: {who} refused: {e.code}: {e.message}"
                if "error" in step and step["error"] != e.code:
                    return False, name, f"{where}: {who} refused with {e.code}, expected {step['error']}"
                continue
            if step.get("refused"):
                return False, name, f"{where}: {who} was accepted, expected a refusal"
        if "until" in expect:
            match.tick(float(expect["until"]))
        diff = check(match, expect)
        if diff:
            return False, name, f"at the end: {diff}"
        return True, name, ""
    except CaseError as e:
        return False, name, f"malformed case: {e}"
    except Exception as e:  # an engine fault is a failure that says why, never a traceback
        return False, name, f"engine error: {type(e).__name__}: {e}"
