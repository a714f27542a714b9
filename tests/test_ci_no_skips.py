"""Under CI=true no test passes by skipping (issue 25): a missing ``../shared`` or tool is a
failure with a sentence. Checked on the real suite, in a subprocess, with the shared folder
pointed at a path that does not exist."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO_ROOT

TARGET = "tests/test_engine_conformance.py::test_there_are_public_cases"


def run(ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER")}
    env["MACHIAVELOX_SHARED_DIR"] = str(REPO_ROOT / "no-such-shared-folder")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-rA", TARGET], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_without_ci_a_missing_shared_folder_skips() -> None:
    proc = run(None)
    assert proc.returncode == 0 and "1 skipped" in proc.stdout, proc.stdout


def test_under_ci_a_missing_shared_folder_fails_with_a_sentence() -> None:
    proc = run("true")
    # a skip in a fixture is reported as an error of the test's setup, one in the test as a failure
    assert proc.returncode == 1 and ("1 error" in proc.stdout or "1 failed" in proc.stdout), proc.stdout
    assert "CI=true: this test must run here, but it could not" in proc.stdout
    assert "the shared rules and conformance cases are not at" in proc.stdout
