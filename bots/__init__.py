"""Bots: players that see only what a seat sees and speak the players' protocol (issue 7).

* :mod:`bots.brain`: the decisions, a pure function of the seat's view (``engine.view``),
  at two levels (``casual``, ``shark``); it reads the view with :mod:`bots.position` and
  plans with :mod:`bots.plans` (the shark's going out, and the hint a player may ask for);
* :mod:`bots.classic_brain` and :mod:`bots.classic_plans`: the same two levels at a classic
  table (issue 16), from the seat's classic view (``engine.classic.view``): a whole turn planned
  and sent step by step, and the classic hint;
* :mod:`bots.pace`: how long a bot waits before each command, ``"human"`` (a person's times
  by level) or ``"none"`` (a fixed reaction, for tests and the league) (issue 17);
* :mod:`bots.client`: a bot as a protocol client (a websocket, or the server's in-process
  link for bot seats), paced, resuming after a dropped connection; :mod:`bots.http`: its
  HTTP helpers;
* ``python -m bots URL CODE [--level shark] [--pace human|none]``: one bot takes a free seat
  at a table.
"""

from .brain import LEVELS, Brain, suggest

__all__ = ["LEVELS", "Brain", "suggest"]
