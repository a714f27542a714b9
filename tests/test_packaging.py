"""Packaging and deployment: what an install, the image and CI really do.

* a regular (non-editable) install in a fresh venv serves the page and its scripts;
* the Dockerfile's build steps, run here on the build context its .dockerignore leaves, give
  a venv that serves the page with no source tree beside it (the run stage keeps the venv
  only); hadolint has no finding;
* uv.lock matches pyproject.toml (CI installs from it);
* docker-compose.yml keeps Redis's data in a volume and starts the server on a healthy Redis;
* .ci/run passes its arguments to scripts/test.sh.

There is no Docker engine here: the image is checked by running its recipe, not by building it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import tomllib
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
WEB = REPO_ROOT / "web"


def tool(name: str) -> str:
    """A command of the test extra: beside this interpreter, else on PATH."""
    candidate = Path(sysconfig.get_path("scripts")) / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} not found: install the test extra (bash scripts/test.sh does)")
    return found


def uv_env() -> dict[str, str]:
    """The environment for uv: never download a Python; the user's cache (fast re-installs)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "VIRTUAL_ENV"))}
    env.update(UV_PYTHON_DOWNLOADS="never", UV_LINK_MODE="copy")
    return env


def tracked_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, check=True,
                         capture_output=True, text=True).stdout
    return [p for p in out.split("\0") if p and (REPO_ROOT / p).is_file()]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def assert_serves_the_page(venv: Path, cwd: Path) -> None:
    """``machiavelox serve --host --port`` from ``venv`` answers /, /t/{code} and the client's
    files, byte for byte those of the checkout, and refuses a common password (its list is
    package data)."""
    port = free_port()
    # Nothing from the test run may reach the installed code: no PYTHONPATH, no settings.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MACHIAVELOX_", "PYTHON", "VIRTUAL_ENV"))}
    env["MACHIAVELOX_SECRET"] = "test"
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import engine, solver, server, bots; print(server.__file__)"],
                           cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout
    site = Path(where.strip()).resolve()
    assert site.is_relative_to(venv.resolve()), f"server is imported from {site}, not the venv"
    proc = subprocess.Popen([str(venv / "bin" / "machiavelox"), "serve", "--host", "127.0.0.1",
                             "--port", str(port)], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, trust_env=False, timeout=5) as http:
            deadline = time.monotonic() + 30
            while True:
                assert proc.poll() is None, proc.communicate()[0]
                try:
                    if http.get("/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline, "the server did not answer /healthz"
                time.sleep(0.2)
            for path in ("/", "/t/ABCDEF"):
                page = http.get(path)
                assert page.status_code == 200, (path, page.text[:200])
                assert page.content == (WEB / "index.html").read_bytes()
            for name in ("app.js", "i18n.js", "lang/it.js", "style.css", "favicon.svg"):
                r = http.get(f"/static/{name}")
                assert r.status_code == 200, (name, r.status_code)
                assert r.content == (WEB / name).read_bytes(), name
            # The list of common passwords is package data too (server/accounts/common.py).
            r = http.post("/api/accounts", json={"name": "Packaged", "password": "iloveyou"})
            assert (r.status_code, r.json()["code"]) == (422, "common_password"), r.text
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate(timeout=10)


# ---------------------------------------------------------------------------- installs


@pytest.mark.slow
def test_a_regular_install_in_a_fresh_venv_serves_the_page(tmp_path: Path) -> None:
    """From a copy of the tracked files, installed as a wheel (no link back to the source),
    the source copy deleted before serving."""
    source = tmp_path / "source"
    for rel in tracked_files():
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / rel, source / rel)
    venv = tmp_path / "venv"
    uv = tool("uv")
    env = uv_env()
    subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True,
                   env=env)
    constraints = tmp_path / "constraints.txt"
    subprocess.run([uv, "export", "--quiet", "--frozen", "--no-dev", "--no-emit-project",
                    "--no-hashes", "-o", str(constraints)], cwd=REPO_ROOT, check=True, env=env)
    subprocess.run([uv, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"),
                    "-c", str(constraints), str(source)], check=True, env=env)
    shutil.rmtree(source)
    assert_serves_the_page(venv, tmp_path)


def test_pyproject_lists_every_python_package_and_maps_the_client() -> None:
    """``[tool.setuptools] packages`` is a list (the client needs a package-dir mapping, which
    package discovery does not follow): a new package folder must join it, or an install
    would leave it out. The client is ``web/`` at the top level, as ``machiavelox_web``."""
    conf = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    st = conf["tool"]["setuptools"]
    found = {str(p.parent.relative_to(REPO_ROOT)).replace("/", ".")
             for top in ("engine", "solver", "server", "bots")
             for p in (REPO_ROOT / top).rglob("__init__.py")}
    assert found <= set(st["packages"]), sorted(found - set(st["packages"]))
    assert st["package-dir"] == {"machiavelox_web": "web"} and "machiavelox_web" in st["packages"]
    assert (REPO_ROOT / "web" / "index.html").is_file() and not (REPO_ROOT / "server" / "web").exists()


def build_context() -> set[str]:
    """The files ``docker build .`` sends, by .dockerignore (docker-py's own matcher)."""
    from docker.utils.build import exclude_paths

    lines = (REPO_ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    patterns = [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]
    return {p for p in exclude_paths(str(REPO_ROOT), patterns, dockerfile="Dockerfile")
            if (REPO_ROOT / p).is_file()}


def test_the_build_context_holds_every_file_the_package_needs() -> None:
    context = build_context()
    needed = [p for p in tracked_files()
              if p.split("/")[0] in ("engine", "solver", "server", "bots", "web")
              or p in ("pyproject.toml", "uv.lock", "README.md")]
    missing = sorted(set(needed) - context)
    assert not missing, f".dockerignore leaves these out of the image: {missing}"
    assert not {p for p in context if p.startswith((".venv", "tests/", ".git/"))}


def stages() -> list[list[dict[str, Any]]]:
    """The Dockerfile's instructions, by stage (dockerfile-parse)."""
    from dockerfile_parse import DockerfileParser

    parser = DockerfileParser(path=str(REPO_ROOT / "Dockerfile"))
    out: list[list[dict[str, Any]]] = []
    for ins in parser.structure:
        if ins["instruction"] == "COMMENT":
            continue
        if ins["instruction"] == "FROM":
            out.append([])
        if out:
            out[-1].append(ins)
    return out


def env_pairs(value: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in shlex.split(value))


@pytest.mark.slow
def test_the_image_recipe_run_here_serves_the_page(tmp_path: Path) -> None:
    """The build stage's COPY, ENV, WORKDIR and RUN steps in a folder standing for /app (uv
    from the test extra standing for the copied uv binary), then only what the run stage
    copies from it is kept: the page must still be served."""
    build, run = stages()[0], stages()[-1]
    assert len(stages()) == 2
    context = build_context()
    root = tmp_path / "image"
    workdir = root
    env = uv_env()
    env["PATH"] = f"{Path(tool('uv')).parent}{os.pathsep}{env['PATH']}"
    for ins in build[1:]:
        kind, value = ins["instruction"], ins["value"]
        if kind == "COPY":
            args = shlex.split(value)
            if args[0].startswith("--from="):
                assert args[1] == "/uv", args  # the uv binary of uv's image
                continue
            *sources, dest = args
            target = workdir / dest
            for src in sources:
                src = src.rstrip("/")
                files = [p for p in context if p == src or p.startswith(src + "/")]
                assert files, f"COPY {src}: not in the build context"
                for rel in files:
                    inside = Path(rel).name if rel == src else Path(src).name + rel[len(src):]
                    to = (target / inside) if dest.endswith("/") else (
                        target if rel == src else target / rel[len(src) + 1:])
                    to.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(REPO_ROOT / rel, to)
        elif kind == "ENV":
            # The cache settings only change how fast this goes here: keep uv's cache.
            env.update({k: v for k, v in env_pairs(value).items()
                        if k not in ("UV_NO_CACHE", "UV_COMPILE_BYTECODE")})
        elif kind == "WORKDIR":
            assert value.startswith("/app"), value
            workdir = root / value[len("/app"):].lstrip("/")
            workdir.mkdir(parents=True, exist_ok=True)
        elif kind == "RUN":
            proc = subprocess.run(value, shell=True, cwd=workdir, env=env, capture_output=True,
                                  text=True, timeout=300)
            assert proc.returncode == 0, f"RUN {value}:\n{proc.stdout}{proc.stderr}"
        else:
            pytest.fail(f"the test does not know what {kind} does in the build stage")
    kept = []
    for ins in run:
        if ins["instruction"] == "COPY":
            args = shlex.split(ins["value"])
            assert args[0] == "--from=build", args  # the run stage takes its files from build
            assert all(a.startswith("/app/") for a in args[1:]), args
            kept.append(root / args[1][len("/app/"):])
    assert kept
    for path in root.iterdir():
        if path not in kept:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    venv = root / ".venv"
    assert venv in kept, "the run stage must take the venv"
    assert_serves_the_page(venv, tmp_path)


def test_dockerfile_passes_hadolint() -> None:
    proc = subprocess.run([tool("hadolint"), "Dockerfile"], cwd=REPO_ROOT, check=False,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"hadolint findings:\n{proc.stdout}{proc.stderr}"


def test_the_base_images_are_pinned() -> None:
    """A rebuild months later gets the same Python: every FROM names a full version."""
    for stage in stages():
        image = stage[0]["value"].split()[0]
        name, _, tag = image.partition(":")
        assert tag and tag[0].isdigit() and tag.count(".") >= 2, image


# ---------------------------------------------------------------------------- the lock


def test_the_lock_matches_pyproject() -> None:
    proc = subprocess.run([tool("uv"), "lock", "--check", "--offline"], cwd=REPO_ROOT,
                          env=uv_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"uv.lock is stale: run `uv lock`\n{proc.stderr}"


def test_a_stale_lock_is_caught(tmp_path: Path) -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    first = project["project"]["dependencies"][0]
    shutil.copy2(REPO_ROOT / "uv.lock", tmp_path / "uv.lock")
    text = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(text.replace(f'"{first}"', f'"{first},<999"'))
    (tmp_path / "README.md").write_text("")
    proc = subprocess.run([tool("uv"), "lock", "--check", "--offline"], cwd=tmp_path,
                          env=uv_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0, proc.stderr


# ---------------------------------------------------------------------------- compose


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    with open(REPO_ROOT / "docker-compose.yml", encoding="utf-8") as f:
        data = yaml.safe_load(f)
    assert isinstance(data, dict)
    return data


def test_compose_keeps_redis_data_in_a_named_volume(compose: dict[str, Any]) -> None:
    """Rankings and finished hands live in Redis: they must outlive the container."""
    redis = compose["services"]["redis"]
    command = " ".join(redis["command"]) if isinstance(redis["command"], list) else redis["command"]
    assert "--appendonly yes" in command or "--save" in command, command
    mounts = [str(v).split(":") for v in redis.get("volumes", [])]
    named = [m[0] for m in mounts if len(m) >= 2 and m[1] == "/data"]
    assert named, "redis's /data is not on a volume"
    assert named[0] in (compose.get("volumes") or {}), f"volume {named[0]} is not declared"


def test_compose_server_uses_the_redis_service_once_healthy(compose: dict[str, Any]) -> None:
    server, redis = compose["services"]["server"], compose["services"]["redis"]
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"
    assert redis["healthcheck"]["test"]
    url = server["environment"]["MACHIAVELOX_REDIS_URL"]
    assert url.startswith("redis://redis:"), url
    assert server["environment"]["MACHIAVELOX_HOST"] == "0.0.0.0"  # reachable from the host
    assert server["build"] == "."


# ---------------------------------------------------------------------------- CI scripts


@pytest.mark.parametrize("script", ["scripts/test.sh", ".ci/run"])
def test_shell_scripts_parse(script: str) -> None:
    proc = subprocess.run(["bash", "-n", script], cwd=REPO_ROOT, check=False,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr


def test_ci_run_passes_its_arguments_to_the_test_script(tmp_path: Path) -> None:
    (tmp_path / ".ci").mkdir()
    (tmp_path / "scripts").mkdir()
    shutil.copy2(REPO_ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    (tmp_path / "scripts" / "test.sh").write_text('printf "<%s>" "$@"\n')
    out = subprocess.run(["bash", str(tmp_path / ".ci" / "run"), "-k", "two words", "-x"],
                         check=True, capture_output=True, text=True, timeout=30).stdout
    assert out == "<-k><two words><-x>"


def test_readme_documents_the_serve_options_and_python() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    help_text = subprocess.run([sys.executable, "-m", "server", "serve", "--help"], check=True,
                               capture_output=True, text=True, cwd=REPO_ROOT).stdout
    serve_lines = [ln for ln in readme.splitlines() if "machiavelox serve" in ln]
    for option in ("--host", "--port"):
        assert option in help_text, option
        assert any(option in ln for ln in serve_lines), f"README: machiavelox serve {option}"
    requires = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"][
        "requires-python"]
    assert f"Python {requires.removeprefix('>=')}" in readme
