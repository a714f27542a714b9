"""One bounded Hypothesis run with a fresh seed per run of the suite (issue 10).

The rest of the suite is derandomized (``tests/conftest.py``), so it finds the same examples
every time; this run explores new ones. It prints its seed; when it finds a failure the
output holds Hypothesis's ``@reproduce_failure`` blob of the unshrunk example (the run does not
shrink, so it stays bounded), and what it found is a real bug, in the engine or in a check: pin
it with a regression test or a case in ``tests/cases/``. Reproduce and shrink with::

    MACHIAVELOX_HYPOTHESIS=shrink python -m pytest tests/test_engine_properties_rules.py \
        "tests/test_engine_properties.py::TestEngineStateMachine" --hypothesis-seed=SEED
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

TARGETS = ["tests/test_engine_properties_rules.py",
           "tests/test_engine_properties.py::TestEngineStateMachine"]


def test_a_fresh_seed_finds_no_fault(repo_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed = random.SystemRandom().randrange(2**32)
    with capsys.disabled():
        print(f"\nfresh Hypothesis seed: {seed}")
    env = dict(os.environ, MACHIAVELOX_HYPOTHESIS="fresh")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
         f"--hypothesis-seed={seed}", *TARGETS],
        cwd=repo_root, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (
        f"fresh Hypothesis seed {seed} found a fault (reproduce: see this module's doc):\n"
        f"{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}")
