"""Judging one meld for one play (§5.4, R8): the judged meld and the smallest put-back set.

Pure functions over a hand's action graph; :mod:`engine.wounds` judges a play's melds with them.

*Taking an action back* follows the order of actions (R8): a card is in the
judged meld at most once, where the newest of its live actions that is not
taken back put it. Taking back an action also takes back its play's later
actions of the same card, wherever they went (turn 3: the card is judged where it
was before that play first moved it, so a twin another play added in its place
leans on that play). If every live action of the card is taken back, the card is
where its oldest live action found it. So a removal taken back after the card has
already come back brings in nothing, and a card the judged play itself moved out
is not in the meld.

The smallest set of open actions to *put back* (un-take-back) so the meld is
valid or empty is searched exactly, in R8's tie-break order: fewest actions,
then the set whose newest action is oldest, then whose next-newest is oldest,
and so on (colexicographic order on action numbers). Two reductions keep it
exact and small:

* per card, one smallest set matters: whether a card is in the meld is yes or no,
  so a smallest set changes each card it touches by that card's own smallest flip
  (fewest of its actions, then colex). That is one action, the oldest that changes
  the card's presence, except where turn 3 hides a play's later action behind its
  earlier one (putting back the later alone does nothing): then a card's flip can take
  two or more, and the search weighs cards by the actions they cost;
* every real card of a valid meld shares a suit (a run) or a rank (a set), so
  the search runs once per suit and rank among the cards involved: cards of
  another suit or rank must be out (forced), which bounds what is left free.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from functools import lru_cache
from typing import Any

from . import cards as C
from .melds import is_valid, windows
from .model import Action
from .rules import AceMode, RuleSet

Loc = tuple[Any, ...]


def location(stack: Sequence[Action], current: Loc, taken_back: Collection[Action]) -> Loc:
    """Where a card is with ``taken_back`` actions taken back (R8).

    ``stack`` is the card's live actions, oldest first (R10's card edges);
    ``current`` its location now. Returns a location tuple like ``("meld", 3)``.
    """
    back = _taken_back_with_later(stack, taken_back)
    for a in reversed(stack):
        if a not in back:
            return ("meld", a.dst)
    if stack:
        return stack[0].src
    return current


def _taken_back_with_later(stack: Sequence[Action], taken_back: Collection[Action]) -> set[Action]:
    """The card's actions taken back once each taken-back action also takes back its
    play's later actions of the same card (R8, turn 3: the card is judged where it was
    before that play first moved it, so a twin added in its place depends on that play)."""
    cut: set[int] = set()
    back: set[Action] = set()
    for a in stack:
        if a in taken_back or a.play in cut:
            cut.add(a.play)
            back.add(a)
    return back


def judged_cards(
    mid: int,
    candidates: Collection[int],
    stacks: dict[int, list[Action]],
    locs: dict[int, Loc],
    taken_back: Collection[Action],
) -> list[int]:
    """The cards of meld ``mid`` with ``taken_back`` taken back, in order (R8).

    ``candidates`` are the cards that may be in it: its cards now and the cards
    of the live actions that touch it."""
    here: Loc = ("meld", mid)
    return [c for c in candidates
            if location(stacks.get(c, ()), locs[c], taken_back) == here]


def valid_or_empty(cards: Sequence[int], rules: RuleSet) -> bool:
    """True when ``cards`` are no cards or a valid meld (R8: an empty meld is in order)."""
    return not cards or is_valid(cards, rules)


def _colex(n: int, k: int, hi: int | None = None) -> Iterator[tuple[int, ...]]:
    """The k-subsets of range(hi or n) in colexicographic order (largest member smallest first)."""
    top = n if hi is None else hi
    if k == 0:
        yield ()
        return
    for m in range(k - 1, top):
        for rest in _colex(n, k - 1, m):
            yield rest + (m,)


def smallest_put_back(
    mid: int,
    candidates: Collection[int],
    stacks: dict[int, list[Action]],
    locs: dict[int, Loc],
    others: Sequence[Action],
    rules: RuleSet,
) -> list[Action] | None:
    """The smallest set of ``others`` to put back so meld ``mid`` is valid or empty (R8).

    ``others`` are the live actions of other open plays on the meld, all taken
    back to start with. Returns the set in action order (``[]`` when nothing is
    needed), or ``None`` when no set makes the meld valid or empty (wounded).
    Ties are broken as R8 says; the search is exact for any number of actions.
    """
    all_back = set(others)
    here: Loc = ("meld", mid)
    present: dict[int, bool] = {}
    for c in candidates:
        present[c] = location(stacks.get(c, ()), locs[c], all_back) == here
    if valid_or_empty([c for c, p in present.items() if p], rules):
        return []
    # One flip per card: the smallest set of its other actions that, put back, changes its
    # presence (R8's order: fewest, then colex). Usually one action; two or more only when
    # turn 3's closure hides a later action of a play behind its earlier one.
    by_card: dict[int, list[Action]] = {}
    for a in sorted(others, key=lambda x: x.seq):
        if a.card in present:
            by_card.setdefault(a.card, []).append(a)
    flip: dict[int, list[Action]] = {}
    for c, acts in by_card.items():
        f = _card_flip(acts, stacks.get(c, ()), locs[c], all_back, here, present[c])
        if f is not None:
            flip[c] = f
    fixed_in = [c for c, p in present.items() if p and c not in flip]
    flippable = sorted(flip, key=lambda c: flip[c][0].seq)  # oldest flip first
    seq_of = {c: flip[c][0].seq for c in flippable}
    weighted = any(len(f) > 1 for f in flip.values())
    best: tuple[int, tuple[int, ...], list[int]] | None = None  # (size, seqs newest first, cards)

    def key(flipped: list[int]) -> tuple[int, tuple[int, ...]]:
        order = tuple(sorted((a.seq for c in flipped for a in flip[c]), reverse=True))
        return len(order), order

    def offer(flipped: list[int]) -> None:
        nonlocal best
        k = key(flipped)
        if best is None or k < best[:2]:
            best = (k[0], k[1], flipped)

    if not fixed_in:  # everything in it put back out: an empty meld is in order
        offer([c for c in flippable if present[c]])
    reals = [c for c in present if not C.is_joker(c)]
    jokers = len(reals) < len(present)
    for rank in sorted({C.rank_of(c) for c in reals}):
        plan = _plan(fixed_in, flippable, present, _same(C.rank_of, rank))
        if plan is not None:
            found = _weighted(plan, present, key, rules) if weighted else _subsets(plan, present, rules)
            if found is not None:
                offer(found)
    for suit in sorted({C.suit_of(c) for c in reals}):
        plan = _plan(fixed_in, flippable, present, _same(C.suit_of, suit))
        if plan is None:
            continue
        if weighted:
            found = _weighted(plan, present, key, rules)
        elif jokers:
            found = _subsets(plan, present, rules)
        else:
            found = _windows(plan, present, seq_of, rules)
        if found is not None:
            offer(found)
    if not reals:  # only jokers: no suit or rank to go by
        plan = ([], flippable, fixed_in)
        found = _weighted(plan, present, key, rules) if weighted else _subsets(plan, present, rules)
        if found is not None:
            offer(found)
    if best is None:
        return None
    return sorted((a for c in best[2] for a in flip[c]), key=lambda x: x.seq)


def _card_flip(acts: list[Action], stack: Sequence[Action], loc: Loc, all_back: set[Action],
               here: Loc, present: bool) -> list[Action] | None:
    """The smallest set of ``acts`` (one card's other open actions on the meld, oldest
    first) whose putting back changes whether the card is ``here``, in R8's order; None
    if none does. Past 8 actions only sets of one or two are tried (a card moved that
    often by open plays is rare; the search is then conservative, never wrong)."""
    top = len(acts) if len(acts) <= 8 else 2
    for k in range(1, top + 1):
        for idx in _colex(len(acts), k):
            put = {acts[i] for i in idx}
            if (location(stack, loc, all_back - put) == here) != present:
                return [acts[i] for i in idx]
    return None


def _weighted(plan: Plan, present: dict[int, bool],
              key: Callable[[list[int]], tuple[int, tuple[int, ...]]], rules: RuleSet) -> list[int] | None:
    """:func:`_subsets` when some card's flip takes several actions: every subset of the
    free cards by size, the best by ``key`` (actions put back, then colex on them), until
    no larger subset can beat it. Bounded at 2**16 subsets (then the best found)."""
    forced, free, fixed = plan
    kept = [c for c in free if present[c]]
    best: tuple[tuple[int, tuple[int, ...]], list[int]] | None = None
    tried = 0
    for need in range(len(free) + 1):
        if best is not None and need + len(forced) > best[0][0]:
            break
        for idx in _colex(len(free), need):
            tried += 1
            if tried > 1 << 16:
                return None if best is None else best[1]
            chosen = {free[i] for i in idx}
            cards = fixed + [c for c in kept if c not in chosen] + [
                c for c in chosen if not present[c]]
            if valid_or_empty(cards, rules):
                flips = forced + [free[i] for i in idx]
                k = key(flips)
                if best is None or k < best[0]:
                    best = (k, flips)
    return None if best is None else best[1]


def _same(key: Callable[[int], int], value: int) -> Callable[[int], bool]:
    """A test for cards whose ``key`` (rank or suit) is ``value``."""
    return lambda c: key(c) == value


Plan = tuple[list[int], list[int], list[int]]  # (forced flips, free flippable cards, fixed cards)


def _plan(fixed_in: list[int], flippable: list[int], present: dict[int, bool],
          matches: Callable[[int], bool]) -> Plan | None:
    """The cards one suit or rank forces out, leaves free and keeps; None if a fixed card
    of another suit or rank rules it out. Jokers match every suit and rank."""
    def ok(c: int) -> bool:
        return C.is_joker(c) or matches(c)

    if not all(ok(c) for c in fixed_in):
        return None
    forced = [c for c in flippable if present[c] and not ok(c)]
    free = [c for c in flippable if ok(c)]
    return forced, free, fixed_in


def _subsets(plan: Plan, present: dict[int, bool], rules: RuleSet) -> list[int] | None:
    """The first valid set of flips in R8's order (fewest, then colex), trying subsets of
    the free cards: a set has at most 8 cards of one rank (two packs) plus jokers."""
    forced, free, fixed = plan
    kept = [c for c in free if present[c]]
    for need in range(len(free) + 1):
        for idx in _colex(len(free), need):
            chosen = {free[i] for i in idx}
            cards = fixed + [c for c in kept if c not in chosen] + [
                c for c in chosen if not present[c]]
            if valid_or_empty(cards, rules):
                return forced + [free[i] for i in idx]
    return None


@lru_cache(maxsize=256)
def _needs(n: int, mode: AceMode) -> tuple[dict[int, int], ...]:
    """How many cards of each rank each run window of length ``n`` needs (cached)."""
    return tuple(dict(Counter(w)) for w in windows(n, mode))


def _windows(plan: Plan, present: dict[int, bool], seq_of: dict[int, int],
             rules: RuleSet) -> list[int] | None:
    """The best set of flips that leaves one suit's cards a valid run (no jokers).

    A run is a window of ranks (``melds.windows``): per rank it needs so many cards; the
    fixed cards must fit, kept cards count first, then the oldest flips fill or empty each
    rank, which is R8's tie-break order within a window. Bounded by the windows, not by
    the number of actions."""
    forced, free, fixed = plan
    fixed_r: Counter[int] = Counter(C.rank_of(c) for c in fixed)
    kept_r: dict[int, list[int]] = {}
    add_r: dict[int, list[int]] = {}
    for c in free:  # free is oldest flip first
        (kept_r if present[c] else add_r).setdefault(C.rank_of(c), []).append(c)
    kept_total = sum(len(v) for v in kept_r.values())
    lo, hi = max(3, len(fixed)), len(fixed) + len(free)
    now = len(fixed) + kept_total
    best: tuple[int, tuple[int, ...], list[int]] | None = None
    # Each flip changes the meld's size by one: a run of n cards costs at least |n - now|.
    for n in sorted(range(lo, hi + 1), key=lambda n: (abs(n - now), n)):
        if best is not None and abs(n - now) > best[0]:
            break
        for need in _needs(n, rules.ace_mode):
            if any(need.get(r, 0) < k for r, k in fixed_r.items()):
                continue
            cost = 0
            kept_in = 0
            feasible = True
            for r, w in need.items():
                x = w - fixed_r[r]
                k = len(kept_r.get(r, ()))
                kept_in += k
                if k >= x:
                    cost += k - x
                elif k + len(add_r.get(r, ())) >= x:
                    cost += x - k
                else:
                    feasible = False
                    break
            if not feasible:
                continue
            cost += kept_total - kept_in  # present cards of ranks outside the window go
            if best is not None and cost > best[0]:
                continue
            flips: list[int] = []
            for r, pool in kept_r.items():
                x = need.get(r, 0) - fixed_r[r]
                flips += pool[: max(0, len(pool) - max(0, x))]
            for r, w in need.items():
                x = w - fixed_r[r] - len(kept_r.get(r, ()))
                if x > 0:
                    flips += add_r[r][:x]
            order = tuple(sorted((seq_of[c] for c in flips), reverse=True))
            if best is None or (cost, order) < best[:2]:
                cards = fixed + [c for c in free if present[c] != (c in flips)]
                if is_valid(cards, rules):
                    best = (cost, order, flips)
    if best is None:
        return None
    return forced + best[2]
