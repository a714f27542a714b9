"""Under CI=true no test passes by skipping (issue 25): a missing ``../shared`` or tool is a
failure with a sentence. Checked on the real suite, in a subprocess, with the shared folder
pointed at a path that does not exist."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT

TARGET = "tests/test_engine_conformance.py::test_there_are_public_cases"
BROWSER_FILE = "tests/test_web_accounts.py"


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
    assert "../shared" in proc.stdout and "install what it needs" not in proc.stdout


def run_without_playwright(ci: str | None, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """A browser test file run where ``import playwright`` fails (a package of that name that
    raises ImportError comes first on the path), as on a machine where it was never installed."""
    fake = tmp_path / "playwright"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        'raise ModuleNotFoundError("No module named \'playwright\'", name="playwright")\n')
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER")}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-rA", BROWSER_FILE], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_without_ci_a_missing_playwright_skips_the_browser_tests(tmp_path: Path) -> None:
    proc = run_without_playwright(None, tmp_path)
    # 5: no test was collected (the one file skipped whole); in the whole suite the run passes
    assert proc.returncode == 5 and "1 skipped" in proc.stdout, proc.stdout


def test_under_ci_a_missing_playwright_fails_the_run(tmp_path: Path) -> None:
    # The hole the fresh tester found: importorskip at import skipped 24 browser files, exit 0.
    proc = run_without_playwright("true", tmp_path)
    assert proc.returncode != 0, proc.stdout
    assert "CI=true: this test must run here, but it could not" in proc.stdout, proc.stdout
    assert "playwright" in proc.stdout and "install what it needs" in proc.stdout, proc.stdout
    assert "../shared" not in proc.stdout, proc.stdout
