"""The most common passwords, refused at registration (issue 27): ``common-passwords.txt``
beside this module, package data (its source and licence are in its header).

A password is common when its case-folded form is on the list ("Password1" and "PASSWORD1"
are "password1"). No online breach service is asked: the server may run without a network.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

LIST_FILE = "common-passwords.txt"


@cache
def common_passwords() -> frozenset[str]:
    """The list, read once: its entries, case-folded (comments and blank lines left out)."""
    text = files(__package__).joinpath(LIST_FILE).read_text("utf-8")
    return frozenset(line.strip().casefold() for line in text.splitlines()
                     if line.strip() and not line.startswith("#"))


def is_common(password: str) -> bool:
    """Whether ``password`` (already NFC, as the API gives it) is on the list, in any case."""
    return password.casefold() in common_passwords()
