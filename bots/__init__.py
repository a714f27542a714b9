"""Bots: players that see only what a seat sees and speak the players' protocol (issue 7).

* :mod:`bots.brain`: the decisions, a pure function of the seat's view (``engine.view``),
  at two levels (``casual``, ``shark``), and the hint a player may ask for;
* :mod:`bots.client`: a bot as a protocol client (a websocket, or the server's in-process
  link for bot seats), with its reaction time, resuming after a dropped connection;
* ``python -m bots URL CODE [--level shark]``: one bot takes a free seat at a table.
"""

from .brain import LEVELS, Brain, suggest

__all__ = ["LEVELS", "Brain", "suggest"]
