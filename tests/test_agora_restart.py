"""R22 with Redis: the ranking and the finished hands' logs outlive the server process.

A real ``machiavelox serve`` process on a real ``redis-server`` (the session's, under a key
prefix of this test): three players are matched in the agora and play a stacked hand to its
end; the process is stopped; a new process on the same Redis still shows the ranking, the
players' histories and the hand's log."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
from conftest import free_port
from serverhelpers import Player, run
from test_agora import POSITION, WINNER_POINTS, AgoraClient

REPO = Path(__file__).resolve().parents[1]


class ServeProcess:
    """``python -m server serve`` on a free port of 127.0.0.1, with ``env``."""

    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "serve", "--port", str(self.port)], cwd=REPO,
            env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                out = self.proc.stdout.read().decode() if self.proc.stdout else ""
                raise AssertionError(f"server exited ({self.proc.returncode}): {out[-2000:]}")
            try:
                if httpx.get(self.url + "/healthz", trust_env=False, timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise AssertionError("server did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stdout:
            self.proc.stdout.close()

    def get(self, path: str, token: str | None = None) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = httpx.get(self.url + path, headers=headers, trust_env=False, timeout=10)
        assert r.status_code == 200, r.text
        return r.json()


def test_the_ranking_and_logs_survive_a_restart(redis_url: str) -> None:
    env = {"MACHIAVELOX_REDIS_URL": redis_url,
           "MACHIAVELOX_REDIS_PREFIX": f"restart{uuid.uuid4().hex[:8]}:",
           "MACHIAVELOX_SECRET": "restart-test", "MACHIAVELOX_TEST_DEALS": "1",
           "MACHIAVELOX_RESUME_WAIT": "0", "MACHIAVELOX_LOG_LEVEL": "WARNING"}
    first = ServeProcess(env)
    try:
        first.wait_ready()
        live = SimpleNamespace(url=first.url, ws_url=first.ws_url)

        async def play() -> tuple[str, list[Player]]:
            players = [await Player(live, n).register() for n in ("Ada", "Bob", "Cy")]  # type: ignore[arg-type]
            clients = [await AgoraClient(p).open() for p in players]
            await clients[0].send({"type": "join", "position": POSITION})
            await clients[0].next("queued")
            for c in clients[1:]:
                await c.send({"type": "join"})
            matched = [await c.next("matched") for c in clients]
            code = matched[0]["code"]
            for p in players:
                await p.connect(code)
            ack = await players[0].ok("add", card="7C", meld=1)
            for p in players:
                await p.at_version(ack["version"])
                assert p.events("game_ended")
                await p.close()
            for c in clients:
                await c.close()
            return code, players

        code, players = run(play())
        for _ in range(100):  # the ranking is written just after the last frames go out
            if first.get("/api/ranking")["players"] == 3:
                break
            time.sleep(0.02)
        before = first.get("/api/ranking")
    finally:
        first.stop()

    second = ServeProcess(env)
    try:
        second.wait_ready()
        after = second.get("/api/ranking")
        assert after == before
        top = after["ranking"][0]
        assert (top["name"], top["points"], top["rank"]) == ("Ada", WINNER_POINTS, 1)
        assert {r["name"] for r in after["ranking"]} == {"Ada", "Bob", "Cy"}
        mine = second.get("/api/players/me/history", players[0].token)  # same secret
        assert [(h["code"], h["points"], h["result"]) for h in mine["hands"]] == [
            (code, WINNER_POINTS, "won")]
        (hand,) = [h for h in second.get("/api/hands")["hands"] if h["code"] == code]
        log = second.get(f"/api/hands/{hand['log_id']}")
        kinds = [e["kind"] for b in log["batches"] for e in b["events"]]
        assert kinds[0] == "hand_dealt" and kinds[-1] == "game_ended" and "went_out" in kinds
        assert second.get("/api/agora")["waiting"] == 0
    finally:
        second.stop()
