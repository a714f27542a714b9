"""HiGHS, under the solver, prints a one-line banner to standard output the first time a
solver is made in a process. :func:`quiet_first_solve` makes that first solve happen with file
descriptor 1 pointed at ``/dev/null``, so a command's own output (the demo's link, a
benchmark's figures) stays clean. The engine cannot do this itself: it does no I/O."""

from __future__ import annotations

import os
import sys

from engine import cards as C
from engine.rules import MACHIAVELOX, RuleSet
from solver import solve


def quiet_first_solve(rules: RuleSet = MACHIAVELOX) -> None:
    """Solve a trivial position once with standard output silenced (also warms the caches)."""
    sys.stdout.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        solve([], [C.card_id((r, 0), 0) for r in (3, 4, 5)], rules)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)
