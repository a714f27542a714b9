"""A real cluster for the durability tests (issue 13): a redis-server that persists every write
(``appendonly yes``, ``appendfsync always``), several ``python -m server serve`` processes on
it, and HAProxy in front with the very config docker compose mounts (``deploy/haproxy.cfg``).
Everything listens on 127.0.0.1; every wait is bounded."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from conftest import RedisServer, free_port, stop_process

REPO = Path(__file__).resolve().parent.parent
HAPROXY_CFG = REPO / "deploy" / "haproxy.cfg"
SECRET = "cluster-test-secret"

#: Settings of every server process of a test cluster: short leases, quick clocks allowed.
BASE_ENV = {
    "MACHIAVELOX_SECRET": SECRET, "MACHIAVELOX_REPLICAS": "3", "MACHIAVELOX_TEST_DEALS": "1",
    "MACHIAVELOX_LEASE_SECONDS": "2", "MACHIAVELOX_RESUME_WAIT": "0",
    "MACHIAVELOX_LOG_LEVEL": "WARNING", "MACHIAVELOX_TRUSTED_PROXIES": "127.0.0.1",
    "MACHIAVELOX_SESSIONS_PER_IP_PER_MINUTE": "1000", "MACHIAVELOX_TABLES_PER_IP": "1000",
    "MACHIAVELOX_TABLES_PER_SESSION": "1000", "MACHIAVELOX_SOCKETS_PER_IP": "1000",
    "MACHIAVELOX_SOCKETS_PER_IP_PER_MINUTE": "10000", "MACHIAVELOX_COMMANDS_PER_SECOND": "200",
    "MACHIAVELOX_MAX_WAITING_TABLES_PER_PLAYER": "100", "MACHIAVELOX_STORE_TIMEOUT": "3",
}


class DurableRedis(RedisServer):
    """A redis-server that fsyncs every write to its append-only file, restartable on the
    same port and directory (a SIGKILL loses nothing it acknowledged)."""

    def __init__(self, binary: str) -> None:
        super().__init__(binary)
        self.dir = tempfile.mkdtemp(prefix="mvx-redis-")

    keep_port = True

    def args(self) -> list[str]:
        return ["--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", self.dir,
                "--maxmemory-policy", "noeviction"]

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(5)
        self.proc = None

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, decode_responses=True)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class Node:
    """One ``python -m server serve`` process."""

    def __init__(self, port: int, env: dict[str, str]) -> None:
        self.port = port
        self.env = env
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = Path(tempfile.mkstemp(prefix=f"mvx-node-{port}-", suffix=".log")[1])

    def start(self) -> None:
        out = self.log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "serve", "--port", str(self.port)], cwd=REPO,
            env={**os.environ, **self.env}, stdout=out, stderr=subprocess.STDOUT)
        out.close()

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/readyz", trust_env=False, timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise AssertionError("server did not start")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, sig)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(5)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.signal(signal.SIGCONT)
        stop_process(self.proc, 8)


class Proxy:
    """HAProxy running ``deploy/haproxy.cfg`` in front of ``servers`` (up to three);
    ``extra_env``: more of its variables (``MVX_TLS_CERT``...)."""

    def __init__(self, servers: list[int], extra_env: dict[str, str] | None = None) -> None:
        binary = shutil.which("haproxy")
        if binary is None:
            pytest.skip("haproxy is not installed (bash scripts/test.sh installs it)")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        dead = free_port()  # a port nobody listens on: the unused server lines stay down
        env = {"MVX_LISTEN": f"127.0.0.1:{self.port}", **(extra_env or {})}
        for i in range(3):
            env[f"MVX_SERVER{i + 1}"] = f"127.0.0.1:{servers[i] if i < len(servers) else dead}"
        # -W: master-worker, as the official image runs it (SIGUSR2 or SIGHUP reloads).
        self.proc = subprocess.Popen([binary, "-W", "-f", str(HAPROXY_CFG), "-db"],
                                     env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

    def wait_ready(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/readyz", trust_env=False, timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise AssertionError("haproxy did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            stop_process(self.proc)


class Cluster:
    """Redis, ``n`` server processes and the proxy; :meth:`close` stops them all."""

    def __init__(self, n: int = 3, env: dict[str, str] | None = None,
                 proxy_env: dict[str, str] | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed (bash scripts/test.sh installs it)")
        self.redis = DurableRedis(binary)
        self.nodes: list[Node] = []
        self.proxy: Proxy | None = None
        try:
            self.redis.start()
            self.env = {**BASE_ENV, "MACHIAVELOX_REDIS_URL": self.redis.url, **(env or {})}
            self.nodes = [Node(free_port(), self.env) for _ in range(n)]
            for node in self.nodes:
                node.start()
            for node in self.nodes:
                node.wait_ready()
            self.proxy = Proxy([node.port for node in self.nodes], proxy_env)
            self.proxy.wait_ready()
        except BaseException:
            self.close()
            raise

    @property
    def url(self) -> str:
        assert self.proxy is not None
        return self.proxy.url

    def ready(self) -> Cluster:
        """Every process answers ``/readyz`` (after :func:`restart_dead`)."""
        for node in self.nodes:
            node.wait_ready()
        return self

    def owner_pid(self, code: str) -> int | None:
        """The pid of the process holding ``code``'s lease (owner ids are ``host:pid:x``)."""
        owner = self.redis.client().get(f"mvx:tbl:{code}:lease")
        return None if owner is None else int(owner.split(":")[1])

    def node_of(self, code: str) -> Node | None:
        pid = self.owner_pid(code)
        return next((n for n in self.nodes if n.proc is not None and n.pid == pid), None)

    def journal(self, code: str) -> list[tuple[int, list[dict[str, Any]]]]:
        """``(version, journal entries)`` of the table's log, in order."""
        import json

        r = self.redis.client()
        meta = json.loads(r.hget(f"mvx:tbl:{code}", "meta") or "{}")
        out = []
        for sid, fields in r.xrange(f"mvx:log:{meta['log_id']}"):
            out.append((int(sid.split("-")[0]), json.loads(fields.get("j") or "[]")))
        return out

    def close(self) -> None:
        for node in self.nodes:
            node.kill()
        if self.proxy is not None:
            self.proxy.stop()
        self.redis.cleanup()
        if not os.environ.get("MVX_KEEP_LOGS"):
            for node in self.nodes:
                node.log.unlink(missing_ok=True)


_SHARED: dict[str, Cluster] = {}


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    """One cluster of three processes for the whole run, shared by every module that imports
    this fixture (each import makes a copy: the first one starts and stops it)."""
    if "cluster" in _SHARED:
        yield _SHARED["cluster"]
        return
    c = Cluster(3)
    _SHARED["cluster"] = c
    try:
        yield c
    finally:
        del _SHARED["cluster"]
        c.close()


def restart_dead(c: Cluster) -> None:
    """Start again the processes a test killed; :meth:`Cluster.ready` waits for them (the next
    test that uses the cluster, so that a restart overlaps whatever comes between)."""
    for node in c.nodes:
        if node.proc is None or node.proc.poll() is not None:
            node.start()
