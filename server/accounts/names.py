"""Name skeletons: two account names are the same name when their skeletons are equal.

``skeleton(name)``: NFKC, case folding, the combining marks dropped (``é`` is ``e``), then each
character mapped to an ASCII look-alike with the ``confusables`` library (Unicode's
confusables data: Cyrillic ``А`` is ``a``, fullwidth ``Ａ`` is ``a``, ``0`` is ``o``), then a
few ASCII look-alikes folded together (``l``/``1``/``|`` as ``i``: a capital ``I`` casefolds to
``i`` and looks like ``l``; ``rn`` as ``m``; ``vv`` as ``w``), then NFKC again. Characters that
show nothing are dropped first (``server.sessions.INVISIBLE``: Unicode's default-ignorable code points that
``str.isprintable`` lets through, such as the variation selectors, the combining grapheme joiner
and the Hangul fillers, plus the blank Braille pattern), so ``Alice`` followed by a Hangul
filler is ``Alice``.

``confusables.normalize`` is called one character at a time and the first of its letter forms
kept: on a whole name it returns every combination of every character's forms, which grows
exponentially (ten ``1`` give 1,048,576 forms and 3.4 s; a 24-character name would hang the
event loop). One form per character keeps it linear; a character's forms are cached.
"""

from __future__ import annotations

import unicodedata
import warnings
from functools import lru_cache

from ..sessions import visible

with warnings.catch_warnings():
    # confusables 1.2 has regex strings with invalid escapes ("\*"): Python warns when it
    # compiles the module (DeprecationWarning, SyntaxWarning from 3.12), which the suite's
    # warnings-as-errors would turn into an import failure.
    warnings.simplefilter("ignore", DeprecationWarning)
    warnings.simplefilter("ignore", SyntaxWarning)
    import confusables  # type: ignore[import-untyped]

#: ASCII look-alikes folded after the per-character mapping (see the module docstring).
_ASCII_FOLD = str.maketrans({"l": "i", "1": "i", "|": "i", "!": "i", "0": "o", "5": "s"})
_PAIRS = (("rn", "m"), ("vv", "w"))


@lru_cache(maxsize=4096)
def _char_form(char: str) -> str:
    """One ASCII look-alike of ``char`` (lower case), or ``char`` when it has none."""
    if char.isascii():
        return char
    forms: list[str] = confusables.normalize(char, prioritize_alpha=True)
    letters = sorted((f for f in forms if f.isascii() and f.isalpha()), key=lambda f: (len(f), f))
    if letters:
        return letters[0]
    ascii_forms = sorted((f for f in forms if f.isascii()), key=lambda f: (len(f), f))
    return ascii_forms[0] if ascii_forms else char


def skeleton(name: str) -> str:
    """The skeleton of a (cleaned) display name: equal skeletons are one name for accounts."""
    folded = visible(unicodedata.normalize("NFKC", visible(name))).casefold()
    bare = "".join(c for c in unicodedata.normalize("NFD", folded) if not unicodedata.combining(c))
    mapped = "".join(_char_form(c) for c in bare).casefold().translate(_ASCII_FOLD)
    for pair, into in _PAIRS:
        mapped = mapped.replace(pair, into)
    return " ".join(unicodedata.normalize("NFKC", mapped).split())
