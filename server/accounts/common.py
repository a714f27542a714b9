"""The most common passwords, refused at registration (issue 27): ``common-passwords.txt``
beside this module, package data (its source and licence are in its header).

A password is common when its :func:`key` is a listed password's: white space and characters
that show nothing left out, then the account names' skeleton (``server.accounts.names``: case
folded, accents dropped, look-alikes such as Cyrillic ``а``, fullwidth ``ａ`` or ``0`` for ``o``
mapped), so " Pass word", "ｐａｓｓｗｏｒｄ", "pаssword" and "passw0rd" are "password". No
online breach service is asked: the server may run without a network.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from importlib.resources import files

from .names import skeleton

LIST_FILE = "common-passwords.txt"


def visible(password: str) -> str:
    """``password`` without white space, control and format characters (zero-width space, soft
    hyphen...) and lone combining marks: what shows of it."""
    return "".join(c for c in password if not c.isspace()
                   and unicodedata.category(c) not in ("Cc", "Cf", "Mn", "Me"))


def key(password: str) -> str:
    """What a password is compared with the list by (see the module docstring)."""
    return skeleton(visible(password))


@cache
def common_passwords() -> frozenset[str]:
    """The list, read once: its entries' keys (comments and blank lines left out)."""
    text = files(__package__).joinpath(LIST_FILE).read_text("utf-8")
    return frozenset(key(line.strip()) for line in text.splitlines()
                     if line.strip() and not line.startswith("#"))


def is_common(password: str) -> bool:
    """Whether ``password`` (already NFC, as the API gives it) is, or looks like, a listed one."""
    return key(password) in common_passwords()
