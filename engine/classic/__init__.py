"""Classic, turn-based Machiavelli (seeds 000, 003, 004; RULINGS-CLASSIC C1–C31), beside the
real-time flow and sharing only its cards, meld validity, command schema and errors.

Modules, one a part of the rulings: ``jokers`` (C8–C11, C17's worth), ``checks`` (C16),
``turn`` (the turn as a transaction, C13–C20, C22–C26), ``absence`` (C31), ``match``
(C21, C26–C28, the match around the hands), ``view`` (what a seat sees), ``model`` (data).
"""
