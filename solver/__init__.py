"""The solver: the best legal rearrangement of the table with a hand (issue 7; its own package since issue 14).

:func:`solve` takes the table (a list of melds, ids 1..n, or a dict id → cards)
and a hand (physical card ids, as in :mod:`engine.cards`) and returns a
:class:`Solution`: a partition of *every* table card plus a subset of the hand
into valid melds under the :class:`~engine.rules.RuleSet` that

1. puts down the most hand cards, and among those
2. moves the fewest table cards.

"Moved" is defined by a matching: each new meld may inherit the id of at most
one old meld and each old meld passes its id to at most one new meld; a table
card is moved when the meld it ends in does not carry the id of the meld it
started in. ``moved`` = table cards − the best such matching's cards kept
together, so a meld left whole or merely extended costs nothing, and ``moved``
is exactly the number of ``move`` commands in the plan.

Method: two integer programs solved by HiGHS (``highspy``).

* Templates (cached per rule set): every run window per suit and length from 3
  to ``rules.longest_run`` (no longer: a longer run is auto-split at
  confirmation, R4; with no limit, up to 13 cards for ``low_only``, 14 for
  ``low_or_high``, 13 × packs for ``wrap``), windows following the ace mode;
  and every set of 3–4 distinct suits per rank.
* Without jokers (Machiavelox, and any classic position with no joker in
  play), runs that inherit no old id are a flow per suit over the rank
  positions (see :func:`_build_flow`): much smaller and with a tighter
  relaxation than one variable per run window. Sets are template counts.
  With jokers in play, every meld is a template count ``x_t``; sets are
  enumerated with their real suits and joker count, and a run template gets
  integer "a joker fills face f" variables, at most
  ``min(most_jokers_per_meld, length − fewest_real_cards)`` per copy.
* Each table face is used exactly as often as it lies on the table, each hand
  face at most as often as it is in hand.
* Phase 1 maximises the cards put down. If the greedy, move-free baseline
  already reaches that number, it is the answer (0 moves is the least).
* Phase 2 fixes the cards put down at the phase-1 optimum and maximises the
  table cards kept together: a binary ``z[t, m]`` is a meld of template t
  that inherits old meld m's id, worth the cards of m it can hold (one or
  more); each old id goes to at most one meld. A run that inherits an id is
  only offered with at most four cards beyond the old meld's (see
  ``_problem``: a longer run can always be cut so that this holds, keeping the
  same cards together). Phase 2 first solves the relaxation (usually tight,
  often integral), then the integer program over only the ``z`` columns whose
  reduced cost leaves them able to beat the best known answer (exact
  reduced-cost fixing, :func:`_solve_ip`; phase 1 is solved the same way).

What is optimal: without jokers, a solution with ``optimal=True`` is exactly
lexicographically optimal — most hand cards, then fewest moved, with
``moved`` as defined above over every matching — among all partitions into
valid melds no longer than ``rules.longest_run`` (the tests check this against
brute force on small positions). With jokers, the number of hand cards is
still exact, but the weight of a run template that inherits an id counts the
old meld's real cards only (a table joker may be counted as moved that a
cleverer arrangement would have left in place), so ``moved`` is then only
near-minimal (the reported ``moved`` is always the true count for the answer
returned). A table meld longer than ``rules.longest_run`` (left long because
a card in it was on trial) is treated as needing its split.

Time: ``budget`` seconds measured with ``clock`` (injectable; the only clock
read here). The clock is checked before each phase and inside HiGHS (MIP
interrupt callback); HiGHS also gets the remaining time as its own limit.
When the budget runs out, the best answer found so far is returned with
``optimal=False``: at worst the greedy baseline (the table as it is, plus the
cards that can be added or laid without moving anything). Python work between
checks (building a model, placing the cards) is not interrupted, so a solve may
overrun its budget by that much (a few milliseconds). With jokers in play the
template model is far larger: solves typically take 0.1–0.6 s (bench: 2 jokers
in a classic hand), and HiGHS's root processing of such a model does not stop
promptly at its time limit, so the budget may be overrun by up to ~0.1 s.

The plan is an ordered list of engine-level steps (card ids, meld ids):

* nothing moved: ``("add", card, meld)`` for cards that extend a meld, then
  ``("stage", card)``… and ``("lay", [cards])`` for melds of hand cards only;
* otherwise one declared play: ``("stage", card)`` for every card put down,
  then ``("move", card, from_meld, to_meld | "new")``, then ``("lay", [cards])``
  for melds of hand cards only, then ``("place", card, meld)``.

New melds get the ids the engine will give them, counting from
``next_meld_id``. (A plan that moves table cards but puts none down only comes
from a table that was not valid to begin with; outside a Stop! freeze the
engine refuses such moves, ``not_declared``.) :func:`plan_commands` turns a plan into
:class:`~engine.hand.Command` objects. The solver does no I/O itself; note that
HiGHS prints a one-line banner to the process's standard output the first time
a solver object is made in a process (``bench/solver.py`` shows how to swallow
it).
"""

from __future__ import annotations

from .base import Clock, Solution, Step
from .core import melds_from_hand, solve
from .plans import plan_commands
from .templates import templates

__all__ = ['Clock', 'Solution', 'Step', 'melds_from_hand', 'plan_commands', 'solve', 'templates']
