"""Fixtures shared by the whole suite."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, settings

# Hypothesis (issue 10): the suite is derandomized, so a run is reproducible; the fresh-seed
# run (tests/test_engine_fresh_seed.py) sets MACHIAVELOX_HYPOTHESIS=fresh for a new seed and
# reports what it finds unshrunk (shrinking a long state machine run took over 5 minutes);
# MACHIAVELOX_HYPOTHESIS=shrink reruns a seed with shrinking, to reduce what it found.
settings.register_profile("derandomized", derandomize=True, print_blob=True)
settings.register_profile("fresh", derandomize=False, print_blob=True, database=None,
                          phases=[Phase.explicit, Phase.reuse, Phase.generate])
settings.register_profile("shrink", derandomize=False, print_blob=True, database=None)
settings.load_profile({"fresh": "fresh", "shrink": "shrink"}.get(
    os.environ.get("MACHIAVELOX_HYPOTHESIS", ""), "derandomized"))

REPO_ROOT = Path(__file__).resolve().parents[1]
# The public rules and conformance cases beside the checkout (MACHIAVELOX_SHARED_DIR elsewhere).
SHARED_DIR = Path(os.environ.get("MACHIAVELOX_SHARED_DIR") or REPO_ROOT.parent / "shared")
# Under CI=true nothing may pass by skipping: a test that cannot run (no ../shared, no
# redis-server, chromium, node or haproxy) fails, saying what is missing (issue 25).
IN_CI = os.environ.get("CI", "").lower() in ("true", "1", "yes")


def _must_run(reason: str) -> str:
    """The failure's sentence under ``CI=true`` for a test (or a test module) that skipped."""
    reason = reason.removeprefix("Skipped: ")
    remedy = ("put the shared rules beside the checkout (../shared) or set "
              "MACHIAVELOX_SHARED_DIR" if "shared" in reason
              else "install what it needs (bash scripts/test.sh does)")
    return f"CI=true: this test must run here, but it could not: {reason}. Fix: {remedy}."


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under ``CI=true`` a skipped test is reported failed, with the skip's own sentence."""
    outcome = yield
    rep = outcome.get_result()
    if IN_CI and rep.skipped and not hasattr(rep, "wasxfail"):
        reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        rep.outcome = "failed"
        rep.longrepr = _must_run(reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    """Under ``CI=true`` a module that skips as it is imported (``pytest.importorskip`` of a
    missing Playwright, say) is a collection error with the same sentence, not a quiet skip of
    every test in it."""
    outcome = yield
    rep = outcome.get_result()
    if IN_CI and rep.skipped:
        reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        rep.outcome = "failed"
        rep.longrepr = _must_run(reason)


# Tests that take seconds each (long random runs, process restarts, fresh installs), by node id
# prefix: `-m "not slow"` leaves them out (the lowest-versions run in scripts/test.sh does).
SLOW = (
    "tests/test_engine_properties.py::TestEngineStateMachine",
    "tests/test_engine_properties_rules.py::test_judging_and_holds_on_one_crowded_meld",
    "tests/test_solver.py::test_tiny_positions_match_brute_force",
    "tests/test_agora_restart.py::",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``browser`` every test that drives Chromium, ``slow`` those listed in ``SLOW``."""
    for item in items:
        if "chromium_browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def no_running_loop_outside_browser_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """Playwright's sync API, once the session's Chromium is up, leaves its event loop set as
    running in this thread; a test after it (on the same xdist worker) that calls
    ``asyncio.run`` would fail with "cannot be called from a running event loop". Outside the
    browser tests (any using a ``..._browser`` fixture: the session's Chromium or a module's
    own, tests/test_bots_web.py), hide that loop for the test and put it back after."""
    if any(name.endswith("browser") for name in request.fixturenames):
        yield
        return
    loop = asyncio._get_running_loop()
    if loop is None:
        yield
        return
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(loop)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The root of this checkout."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ``shared/`` folder that sits beside the checkout (rules, conformance cases).

    Skips the test when it is absent.
    """
    if not SHARED_DIR.is_dir():
        pytest.skip(f"the shared rules and conformance cases are not at {SHARED_DIR}")
    return SHARED_DIR


# ---------------------------------------------------------------------------- stores (issue 5)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def stop_process(proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    """SIGTERM ``proc`` and wait ``timeout`` seconds for it, then SIGKILL it."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


class RedisServer:
    """A real ``redis-server`` subprocess on a free port of 127.0.0.1, persisting nothing."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    #: Start again on the same port (a restart clients reconnect to), once it has one.
    keep_port = False

    def args(self) -> list[str]:
        """The server's options beyond its port (persisting nothing, here)."""
        return ["--save", "", "--appendonly", "no", "--protected-mode", "yes"]

    def start(self, attempts: int = 3, timeout: float = 10.0) -> None:
        for _ in range(attempts):
            if not (self.keep_port and self.port):
                self.port = free_port()
            self.proc = subprocess.Popen(
                [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", *self.args(),
                 "--loglevel", "warning"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                if _redis_answers(self.port):
                    return
                time.sleep(0.02)
            self.stop()  # the port was taken meanwhile, or it is slow: try another
            self.port = 0
        raise RuntimeError("redis-server did not answer PING")

    def stop(self) -> None:
        if self.proc is None:
            return
        stop_process(self.proc)
        self.proc = None


def _started_redis() -> Iterator[RedisServer]:
    """Start a ``redis-server`` (skip when the binary is not installed: ``bash scripts/test.sh``
    installs it), yield it, and stop it, resuming it first if a test froze it (SIGSTOP)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (bash scripts/test.sh installs it)")
    server = RedisServer(binary)
    server.start()
    try:
        yield server
    finally:
        if server.proc is not None:
            os.kill(server.proc.pid, signal.SIGCONT)
        server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A ``redis-server`` for the whole session."""
    yield from _started_redis()


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A ``redis-server`` of one test alone (the test may freeze, stop or kill it)."""
    yield from _started_redis()


@pytest.fixture(scope="session")
def redis_url(redis_server: RedisServer) -> str:
    return redis_server.url


StoreFactory = Callable[[], AbstractAsyncContextManager[Any]]


@pytest.fixture(params=["memory", "redis"])
def new_store(request: pytest.FixtureRequest) -> StoreFactory:
    """``async with new_store() as store``: an empty store, once in memory and once on a real
    Redis (each under its own key prefix, deleted afterwards). Open it inside the test's
    event loop."""
    from server.store import MemoryStore

    if request.param == "memory":
        @contextlib.asynccontextmanager
        async def memory() -> AsyncIterator[Any]:
            yield MemoryStore()
        return memory

    url = request.getfixturevalue("redis_url")

    @contextlib.asynccontextmanager
    async def on_redis() -> AsyncIterator[Any]:
        from server.store.redis_store import RedisStore

        prefix = f"t{uuid.uuid4().hex[:10]}:"
        store = RedisStore.from_url(url, prefix=prefix)
        try:
            yield store
        finally:
            keys = [k async for k in store.r.scan_iter(match=prefix + "*", count=500)]
            if keys:
                await store.r.delete(*keys)
            await store.close()
    return on_redis


def run_async(coro: Any, timeout: float = 30.0) -> Any:
    """Run a test coroutine in a fresh event loop, failing it after ``timeout`` seconds."""
    async def bounded() -> Any:
        return await asyncio.wait_for(coro, timeout)
    return asyncio.run(bounded())
