"""The page's pure parts under node's own test runner (``node --test tests/js``, no npm):
what a drop means (drop.js), following a hint step by step (hint.js), the hand order
(cards.js), the modules' imports (no cycles, every imported name exported). Skipped where
there is no ``node`` (``scripts/test.sh`` installs Debian's ``nodejs``)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def test_the_pages_pure_parts_pass_their_node_tests() -> None:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("no node here (scripts/test.sh installs Debian's nodejs)")
    # Without MVX_FRAMES the recorded-frames test of changes.test.mjs skips (test_views_changes.py runs it).
    proc = subprocess.run([node, "--test", str(HERE / "js")], capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    passed = re.search(r"^# pass (\d+)$", proc.stdout, re.MULTILINE)
    assert passed and int(passed.group(1)) >= 15, proc.stdout[-2000:]
