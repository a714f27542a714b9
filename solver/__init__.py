"""The solver: the best legal rearrangement of the table with a hand (issue 7; its own
package since issue 14; classic tables, jokers and the opening minimum since issue 15).

:func:`solve` takes the table (a list of melds, ids 1..n, or a dict id → cards)
and a hand (physical card ids, as in :mod:`engine.cards`) and returns a
:class:`Solution`: a partition of *every* table card plus a subset of the hand
into valid melds under the :class:`~engine.rules.RuleSet` that

1. puts down the most hand cards (``objective="points"``: the most worth,
   below), and among those
2. moves the fewest table cards.

"Moved" is defined by a matching: each new meld may inherit the id of at most
one old meld and each old meld passes its id to at most one new meld; a table
card is moved when the meld it ends in does not carry the id of the meld it
started in. ``moved`` = table cards − the best such matching's cards kept
together, so a meld left whole or merely extended costs nothing, and ``moved``
is exactly the number of ``move`` commands in the plan.

Classic rules (C4–C9, C17), all read from the rule set:

* ``packs`` (each face exists that many times; 3 packs give card ids up to 155),
  ``jokers``; ``ace_mode`` (``low_or_high``: A-2-3 or Q-K-A and A…K…A, never
  K-A-2; ``low``: the ace low only; ``wrap``: Machiavelox); sets of 3–4 cards
  of one rank whose real cards are of different suits, however many packs (C5).
* C7: a meld with a joker holds at least ``fewest_real_cards`` real cards and at
  most ``most_jokers_per_meld`` jokers (``None``: no cap).
* C8/C9: ``Solution.joker_faces`` names the face (``"7H"``) every joker in a run
  of the new table stands for, for a bot to name it (``JK=7H``); a joker in a set
  has none. A joker that stays in its meld keeps the face it had (given by
  ``joker_faces=``, else C8's default: the run starting as low as it can); a
  new one sits as low as it can (C8's default), or, for the points and for the
  opening, where it is worth most.
* C17, the opening: with ``rules.opening`` > 0 and ``opened=False`` only new
  melds of hand cards worth ≥ ``opening`` in all are laid (worth: A 1, 2–10
  their number, J Q K 10, a joker the card it stands for, in a set the set's
  rank); the table is left exactly as it is (same ids, same cards); when no
  such play exists the answer is a draw: ``placed == []``, ``draw`` True, and
  ``optimal`` True when that is proved.
* ``objective="points"``: the most worth (C17's values) of the new table over
  the old, instead of the most cards; ``Solution.worth`` is that difference
  under either objective (with no table: the worth of the melds laid).

Method: two integer programs solved by HiGHS (``highspy``).

* Templates (cached per meld rules: packs, jokers, ace mode, run limit, joker
  cap, fewest real cards): every run window per suit and length from 3 to
  ``rules.longest_run`` (no longer: a longer run is auto-split at confirmation,
  R4; with no limit, up to 13 cards for ``low``, 14 for ``low_or_high``, 13 ×
  packs for ``wrap``), windows following the ace mode; every set of 3–4
  distinct suits per rank, with its jokers; and the *joker runs*: a window with
  its jokers at fixed places, one template per (real faces, joker count). Only
  joker runs that no cut splits into two valid runs are listed (lengths up to
  8 with 4 jokers, 10 with 6): any valid run is such joker runs and runs
  without jokers side by side, so no optimum of the first aim is lost (the
  cut may cost moves, see below). Classic: 3,437 templates, 2,856 of them joker
  runs; one-joker-a-meld Italian 903.
* Runs without jokers are a flow per suit over the rank positions (see
  :func:`flow._build_flow`): much smaller and with a tighter relaxation than
  one variable per run window; sets and joker runs are template counts, the
  jokers one more row (the table's jokers must all stay down). Runs that
  inherit an old id (phase 2) are template copies ``z[t, m]``.
  (``tplmodel``: one variable per window, jokers in any slot: used only for a
  run limit under 5, and by the tests as a check on the flow model.)
* Each table face is used exactly as often as it lies on the table, each hand
  face at most as often as it is in hand.
* Phase 1 maximises the cards (or worth) put down, with the opening's worth
  as a row when it applies. If the greedy, move-free baseline already reaches
  that, it is the answer (0 moves is the least).
* Phase 2 fixes the phase-1 optimum and maximises the table cards kept
  together: a binary ``z[t, m]`` is a meld of template t that inherits old meld
  m's id, worth the cards of m it can hold (one or more); each old id goes to
  at most one meld. A run that inherits an id is only offered with at most
  four cards beyond the old meld's (see ``_match_arrays``: a longer run can
  always be cut so that this holds, keeping the same cards together); a joker
  run only when it keeps two cards or more of a meld that held a joker, or is
  that meld's cards but one. With jokers in play, only melds that keep all of
  an old meld's cards but one (or all) inherit its id, so that phase 2 fits a
  budget of 0.1 s far more often; when it is not reached, the phase-1 melds get
  the old ids of their best matching (``realize._rematch``).
* Each integer program: the relaxation first (phase 1's with jokers by column
  generation from the joker runs with at most one joker), usually tight, often
  integral; then, with jokers, a dive (fix the most fractional column up,
  solve again) for a good answer quickly; then exact reduced-cost fixing
  (:func:`highs._solve_ip`).

What is optimal: without jokers, a solution with ``optimal=True`` is exactly
lexicographically optimal — most hand cards, then fewest moved, with
``moved`` as defined above over every matching — among all partitions into
valid melds no longer than ``rules.longest_run`` (the tests check this against
brute force on small positions). With jokers the first aim (cards, worth, the
opening) is still exact (``tests/test_solver_classic.py`` checks it against an
exhaustive search), but ``moved`` is only near-minimal: a long joker run is cut
into a joker run and a run without jokers, and joker runs inherit ids only as
said above (the reported ``moved`` is always the true count for the answer
returned). ``gain_optimal`` says the first aim is proved even when ``optimal``
is not. A table meld longer than ``rules.longest_run`` (left long because a
card in it was on trial) is treated as needing its split.

Time: ``budget`` seconds measured with ``clock`` (injectable; the only clock
read here), model building included. The clock is checked before each phase,
after building each model, between rounds of column generation and dive steps
(with jokers), and inside HiGHS (MIP interrupt callback); HiGHS also gets the
remaining time as its own limit (with jokers, 60 % of it for a branch-and-bound
run, whose root may overrun, and 80 % for a relaxation), and the last 12 ms (or
12 % of the budget) are kept back for placing the cards and planning (more on a
busy machine, where that work waits for the processor). With
jokers phase 2 starts only with 1.5 times phase 1's time still left. When the budget runs out, the best answer found so
far is returned with ``optimal=False``: at worst the greedy baseline (the table
as it is, plus the cards that can be added or laid without moving anything).
Python work between checks (building a model, placing the cards) is not
interrupted, so a solve may overrun its budget by that much (a few ms; bench
figures in ``bench/README.md``: classic with four jokers in play, p99 within
~10–20 ms of a 100 ms budget on the project machine). The first solve under new
meld rules builds their templates (about 0.1–0.2 s for classic, not counted in
the budget): call :func:`templates` (or ``bots.banner.quiet_first_solve``) once
beforehand where that matters.

The plan is an ordered list of engine-level steps (card ids, meld ids; the
Machiavelox commands: a classic turn maps them onto ``lay``/``add``/``move``
with the jokers' faces from ``joker_faces``):

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
