"""Judging one meld for one play (§5.4, R8): the judged meld and the smallest put-back set.

Pure functions over a hand's action graph; :class:`~engine.hand.Hand` calls them.

*Taking an action back* follows the order of actions (R8): a card is in the
judged meld at most once, where the newest of its live actions that is not
taken back put it. If every live action of the card is taken back, the card is
where its oldest live action found it. So a removal taken back after the card
has already come back brings in nothing, and a card the judged play itself
moved out is not in the meld.

The smallest set of open actions to *put back* (un-take-back) so the meld is
valid or empty is searched exactly, in R8's tie-break order: fewest actions,
then the set whose newest action is oldest, then whose next-newest is oldest,
and so on (colexicographic order on action numbers). Two reductions keep it
exact and small:

* per card, only one put-back action matters: putting back several actions of
  one card leaves it where the newest of them put it, which that action alone
  does; so a smallest set holds at most one action per card, the oldest that
  changes whether the card is in the meld;
* every real card of a valid meld shares a suit (a run) or a rank (a set), so
  the search runs once per suit and rank among the cards involved: cards of
  another suit or rank must be out (forced), which bounds what is left free.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from . import cards as C
from .melds import is_valid
from .rules import RuleSet

if TYPE_CHECKING:  # pragma: no cover
    from .hand import Action

Loc = tuple[Any, ...]


def location(stack: Sequence[Action], current: Loc, taken_back: Collection[Action]) -> Loc:
    """Where a card is with ``taken_back`` actions taken back (R8).

    ``stack`` is the card's live actions, oldest first (R10's card edges);
    ``current`` its location now. Returns a location tuple like ``("meld", 3)``.
    """
    for a in reversed(stack):
        if a not in taken_back:
            return ("meld", a.dst)
    if stack:
        return stack[0].src
    return current


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
    # One flip per card: the oldest other action that, put back alone, changes its presence.
    flip: dict[int, Action] = {}
    for a in sorted(others, key=lambda x: x.seq):
        c = a.card
        if c in flip:
            continue
        if (location(stacks.get(c, ()), locs[c], all_back - {a}) == here) != present[c]:
            flip[c] = a
    fixed_in = [c for c, p in present.items() if p and c not in flip]
    flippable = sorted(flip, key=lambda c: flip[c].seq)  # oldest flip first

    def keys_of(c: int) -> list[tuple[str, int]]:
        if C.is_joker(c):
            return []
        return [("suit", C.suit_of(c)), ("rank", C.rank_of(c))]

    keys: dict[tuple[str, int], None] = {}
    for c in list(present):
        for k in keys_of(c):
            keys[k] = None
    if not keys:
        keys[("any", 0)] = None

    def matches(c: int, key: tuple[str, int]) -> bool:
        if key[0] == "any" or C.is_joker(c):
            return True
        return (C.suit_of(c) if key[0] == "suit" else C.rank_of(c)) == key[1]

    # Per key: the flips it forces (cards in the meld that must go) and the free ones.
    plans: list[tuple[list[int], list[int], list[int]]] = []  # (forced, free, fixed)
    for key in keys:
        if any(not matches(c, key) for c in fixed_in):
            continue
        forced = [c for c in flippable if present[c] and not matches(c, key)]
        free = [c for c in flippable if matches(c, key)]
        plans.append((forced, free, [c for c in fixed_in]))

    best: tuple[tuple[int, ...], list[int]] | None = None  # (seqs newest first, flipped cards)
    for size in range(1, len(flippable) + 1):
        for forced, free, fixed in plans:
            need = size - len(forced)
            if need < 0 or need > len(free):
                continue
            kept = [c for c in free if present[c]]
            for idx in _colex(len(free), need):
                chosen = set(free[i] for i in idx)
                cards = fixed + [c for c in kept if c not in chosen] + [
                    c for c in chosen if not present[c]]
                if not valid_or_empty(cards, rules):
                    continue
                flipped = forced + [free[i] for i in idx]
                order = tuple(sorted((flip[c].seq for c in flipped), reverse=True))
                if best is None or order < best[0]:
                    best = (order, flipped)
                break  # the first valid set of this size is this key's best (colex order)
        if best is not None:
            return sorted((flip[c] for c in best[1]), key=lambda x: x.seq)
    return None
