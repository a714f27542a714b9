"""Conformance cases (``../shared/conformance/README.md``): run one, report the first difference.

Pure: the caller reads the file and hands over the parsed case. :func:`run_case`
returns ``(passed, name, message)`` and never raises for a malformed case: a
malformed case is a failure that says why.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from . import cards as C
from .commands import COMMANDS, needs
from .errors import Refused
from .hand import Command, Hand
from .rules import CLASSIC_PRESETS, find_rules


class CaseError(Exception):
    """A case that does not follow the format."""


def _faces(cards: list[int]) -> Counter[str]:
    return Counter(C.name(c) for c in cards)


def _norm(faces: list[str]) -> Counter[str]:
    try:
        return Counter(C.format_face(C.parse_face(f)) for f in faces)
    except C.NotationError as e:
        raise CaseError(str(e)) from None


def _fmt(c: Counter[str]) -> str:
    return "[" + " ".join(sorted(c.elements())) + "]"




def command_from_step(step: dict[str, Any]) -> Command:
    """A case step (``{"p": "A", "do": "add", "card": "7C", "meld": 1}``) as a Command."""
    do = step.get("do")
    if do not in COMMANDS:
        raise CaseError(f"unknown command {do!r}")
    missing = [f for f in needs(str(do)) if f not in step]
    if missing:
        raise CaseError(f"command {do!r} needs {', '.join(missing)}")
    if "p" not in step:
        raise CaseError(f"command {do!r} names no player ('p')")
    cards = step.get("cards")
    if cards is not None and not isinstance(cards, list):
        raise CaseError("'cards' must be a list of cards")
    return Command(
        player=str(step.get("p")), do=do, card=step.get("card"),
        cards=tuple(cards) if cards is not None else None,
        meld=step.get("meld"), to=step.get("to"),
    )


def check(hand: Hand, expect: dict[str, Any]) -> str | None:
    """Compare a hand with a case's ``check``/``expect`` block: the first difference, or None."""
    for key, want in expect.items():
        if key == "until":
            continue
        if key == "table":
            got = sorted(_fmt(_faces(cs)) for cs in hand.table().values())
            exp = sorted(_fmt(_norm(m)) for m in want)
            if got != exp:
                return f"table is {got}, expected {exp}"
        elif key == "melds":
            for mid, cards in want.items():
                got_c = _faces(hand.melds.get(int(mid), []))
                if got_c != _norm(cards):
                    return f"meld {mid} is {_fmt(got_c)}, expected {_fmt(_norm(cards))}"
        elif key in ("hands", "staging"):
            for p, cards in want.items():
                if p not in hand.players:
                    raise CaseError(f"unknown player {p!r} in {key}")
                # In a tie-break a hand holds the pile cards that came from p (R19).
                src = hand.hands[p] if key == "hands" else hand.staging[p]
                got_c = _faces(src)
                if got_c != _norm(cards):
                    return f"{key} of {p} is {_fmt(got_c)}, expected {_fmt(_norm(cards))}"
        elif key == "stocks":
            for p, n in want.items():
                if len(hand.stocks[p]) != n:
                    return f"stock of {p} has {len(hand.stocks[p])} cards, expected {n}"
        elif key == "open":
            got_s = sorted(set(hand.open_players()))
            if got_s != sorted(set(want)):
                return f"open plays are {got_s}, expected {sorted(set(want))}"
        elif key == "frozen_by":
            got_f = hand.freeze.caller if hand.freeze else None
            if got_f != want:
                return f"frozen_by is {got_f}, expected {want}"
        elif key in ("eliminated", "left"):
            status = key
            got_s = sorted(p for p, ps in hand.players.items() if ps.status == status)
            if got_s != sorted(set(want)):
                return f"{key} is {got_s}, expected {sorted(set(want))}"
        elif key == "tiebreak":
            got_s = sorted(hand.tiebreak.players) if hand.tiebreak else []
            if got_s != sorted(set(want)):
                return f"tiebreak is {got_s}, expected {sorted(set(want))}"
        elif key == "result":
            res = hand.result
            if want is None:
                if res is not None:
                    return f"result is {res.end} (winner {res.winner}), expected none yet"
                continue
            if res is None:
                return "the hand has not ended, expected a result"
            got_r = {"end": res.end, "winner": res.winner, "scores": res.scores}
            for k, v in want.items():
                if k == "scores":
                    for p, s in v.items():
                        if res.scores.get(p) != s:
                            return f"score of {p} is {res.scores.get(p)}, expected {s} ({got_r})"
                elif got_r.get(k) != v:
                    return f"result {k} is {got_r.get(k)!r}, expected {v!r}"
        else:
            raise CaseError(f"unknown check key {key!r}")
    return None


def build_hand(case: dict[str, Any]) -> Hand:
    """The hand a case starts from: its position, or a deal from its seed."""
    rules = find_rules(case.get("rules", "machiavelox"))
    if case.get("timers"):
        rules = rules.with_timers(**case["timers"])
    players = list(case.get("players") or [])
    if not players:
        raise CaseError("the case names no players")
    start = case.get("start")
    if start is None:
        if "seed" not in case:
            raise CaseError("the case has neither a start position nor a seed")
        return Hand.deal(players, int(case["seed"]), rules)
    return Hand.from_position(
        players, table=start.get("table", []), hands=start.get("hands"),
        stocks=start.get("stocks"), removed=start.get("removed", []),
        drew=start.get("drew", []), laid=start.get("laid", []), rules=rules)


CHECK_KEYS = frozenset({"table", "melds", "hands", "staging", "stocks", "open", "frozen_by",
                        "eliminated", "left", "tiebreak", "result"})


def _validate_block(block: Any, players: list[str], where: str) -> None:
    """A ``check`` or ``expect`` block's shape (conformance README, "What check and expect
    may hold"). Raises :class:`CaseError` naming ``where``."""
    if not isinstance(block, dict):
        raise CaseError(f"{where} must be an object")
    for key, want in block.items():
        if key == "until":
            if not isinstance(want, (int, float)) or isinstance(want, bool):
                raise CaseError(f"{where}: 'until' must be a number of seconds")
            continue
        if key not in CHECK_KEYS:
            raise CaseError(f"{where}: unknown check key {key!r}")
        if key == "table":
            if not isinstance(want, list) or not all(isinstance(m, list) for m in want):
                raise CaseError(f"{where}: 'table' must be a list of melds (lists of cards)")
            for m in want:
                _norm(m)
        elif key in ("melds", "hands", "staging", "stocks"):
            if not isinstance(want, dict):
                raise CaseError(f"{where}: {key!r} must be an object")
            for k, v in want.items():
                if key == "melds":
                    if not str(k).lstrip("-").isdigit() or not isinstance(v, list):
                        raise CaseError(f"{where}: 'melds' maps meld ids to lists of cards")
                    _norm(v)
                elif k not in players:
                    raise CaseError(f"unknown player {k!r} in {key}")
                elif key == "stocks":
                    if not isinstance(v, int) or isinstance(v, bool):
                        raise CaseError(f"{where}: 'stocks' counts cards (integers)")
                else:
                    if not isinstance(v, list):
                        raise CaseError(f"{where}: {key!r} of {k} must be a list of cards")
                    _norm(v)
        elif key in ("open", "eliminated", "left", "tiebreak"):
            if not isinstance(want, list):
                raise CaseError(f"{where}: {key!r} must be a list of players")
        elif key == "result" and want is not None and not isinstance(want, dict):
            raise CaseError(f"{where}: 'result' must be an object or null")


def validate_case(case: Any) -> tuple[Hand, list[tuple[float, dict[str, Any], Command | None]]]:
    """Check a whole case against the format before anything runs.

    Returns the starting hand and the steps as ``(t, step, command or None for a check)``.
    Raises :class:`CaseError` for anything malformed: bad structure, unknown command, rule
    set, check key or card, a third copy of a face, time going back."""
    if not isinstance(case, dict):
        raise CaseError("a case is a JSON object")
    try:
        hand = build_hand(case)
    except CaseError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError, C.NotationError) as e:
        raise CaseError(str(e).strip("'\"")) from None
    players = list(hand.players)
    steps = case.get("steps", [])
    if not isinstance(steps, list):
        raise CaseError("'steps' must be a list")
    out: list[tuple[float, dict[str, Any], Command | None]] = []
    last_t = 0.0
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            raise CaseError(f"step {i + 1} must be an object")
        raw_t = step.get("t", last_t)
        if not isinstance(raw_t, (int, float)) or isinstance(raw_t, bool):
            raise CaseError(f"step {i + 1}: 't' must be a number of seconds")
        t = float(raw_t)
        if t < last_t:
            raise CaseError(f"step {i + 1}: time goes back ({t} < {last_t})")
        last_t = t
        if "check" in step:
            _validate_block(step["check"], players, f"step {i + 1}'s check")
            out.append((t, step, None))
        else:
            out.append((t, step, command_from_step(step)))
    expect = case.get("expect", {}) or {}
    _validate_block(expect, players, "expect")
    return hand, out


def _where(e: BaseException) -> str:
    """``file:line`` of the innermost frame of the engine that raised ``e``."""
    tb = e.__traceback__
    last = ""
    while tb is not None:
        code = tb.tb_frame.f_code
        if "/engine/" in code.co_filename.replace("\\", "/"):
            last = f"{code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno}"
        tb = tb.tb_next
    return last or "?"


def run_case(case: Any) -> tuple[bool, str, str]:
    """Run one parsed case: ``(passed, name, first difference or "")``.

    A malformed case fails with ``malformed case: <why>`` before anything runs; anything
    the engine raises while running it (other than a refusal) fails with
    ``engine error: <Type>: <message> (<file>:<line>)``."""
    name = str(case.get("name", "?")) if isinstance(case, dict) else "?"
    if isinstance(case, dict) and isinstance(case.get("rules"), str) and (
            case["rules"] in CLASSIC_PRESETS):
        from .scenario_classic import run_classic_case  # the classic flow, only when asked
        return run_classic_case(case)
    try:
        hand, steps = validate_case(case)
    except CaseError as e:
        return False, name, f"malformed case: {e}"
    try:
        for i, (t, step, cmd) in enumerate(steps):
            hand.tick(t)
            if cmd is None:
                diff = check(hand, step["check"])
                if diff:
                    return False, name, f"at t={t} (step {i + 1}): {diff}"
                continue
            refused_expected = bool(step.get("refused"))
            try:
                hand.apply(cmd, t)
            except Refused as e:
                if not refused_expected:
                    return False, name, f"at t={t} (step {i + 1}): {cmd.player} {cmd.do} refused: {e.code}: {e.message}"
                continue
            if refused_expected:
                return False, name, f"at t={t} (step {i + 1}): {cmd.player} {cmd.do} was accepted, expected a refusal"
        expect = case.get("expect", {}) or {}
        if "until" in expect:
            hand.tick(float(expect["until"]))
        diff = check(hand, expect)
        if diff:
            return False, name, f"at the end: {diff}"
        return True, name, ""
    except Exception as e:  # an engine fault is a failure that says why, never a traceback
        return False, name, f"engine error: {type(e).__name__}: {e} ({_where(e)})"
