"""Time units (R23): the engine counts in integer milliseconds, callers speak seconds.

``ms(40.1) == 40100`` exactly, so 0.1 + 40 is 40.1 (conformance README: times have at most
three decimals and are exact).
"""

from __future__ import annotations


def ms(seconds: float) -> int:
    """Seconds (a float with at most three decimals) as integer milliseconds."""
    return int(round(seconds * 1000))


def sec(millis: int) -> float:
    """Integer milliseconds as seconds."""
    return millis / 1000
