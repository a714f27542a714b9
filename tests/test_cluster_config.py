"""Issue 13: what docker compose runs is what the cluster tests run (``deploy/haproxy.cfg``),
and a process that would share Redis with others refuses to start without the shared secret."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from server.settings import Settings

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((REPO / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_compose_runs_the_tested_proxy_before_three_servers_on_a_durable_redis(
        compose: dict[str, Any]) -> None:
    services = compose["services"]
    proxy = services["proxy"]
    assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in proxy["volumes"]
    backends = [v for k, v in proxy["environment"].items() if k.startswith("MVX_SERVER")]
    servers = [name for name in services if name.startswith("server")]
    # The proxy names each server by its fixed address (HAProxy resolves names once, at start:
    # a recreated container must come back at the address the proxy looks at).
    addresses = {services[n]["networks"]["mvx"]["ipv4_address"]: n for n in servers}
    assert len(servers) >= 2 and sorted(addresses.get(b.split(":")[0], b) for b in backends) \
        == sorted(servers)
    cfg = (REPO / "deploy" / "haproxy.cfg").read_text(encoding="utf-8")
    assert cfg.count('"${MVX_SERVER') == len(backends)
    for name in servers:
        env = services[name]["environment"]
        assert env["MACHIAVELOX_SECRET"].startswith("${MACHIAVELOX_SECRET")
        assert int(env["MACHIAVELOX_REPLICAS"]) == len(servers)
        assert env["MACHIAVELOX_REDIS_URL"].startswith("redis://redis:")
    command = " ".join(services["redis"]["command"])
    assert "--appendfsync always" in command and "--maxmemory-policy noeviction" in command


def test_the_proxy_config_parses() -> None:
    import shutil

    binary = shutil.which("haproxy")
    if binary is None:
        pytest.skip("haproxy is not installed (bash scripts/test.sh installs it)")
    env = {**os.environ, "MVX_LISTEN": "127.0.0.1:1", "MVX_SERVER1": "127.0.0.1:2",
           "MVX_SERVER2": "127.0.0.1:3", "MVX_SERVER3": "127.0.0.1:4"}
    proc = subprocess.run([binary, "-c", "-f", str(REPO / "deploy" / "haproxy.cfg")], env=env,
                          capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_several_processes_on_redis_need_an_explicit_secret() -> None:
    with pytest.raises(ValidationError, match="MACHIAVELOX_SECRET must be set"):
        Settings(redis_url="redis://127.0.0.1:1/0", replicas=3)
    assert Settings(redis_url="redis://127.0.0.1:1/0", replicas=3, secret="s").secret == "s"
    assert Settings(redis_url="redis://127.0.0.1:1/0").secret_generated  # one process: drawn
    assert Settings(replicas=3).secret_generated  # memory: one process anyway


def test_serve_refuses_to_start_without_the_secret() -> None:
    env = {**os.environ, "MACHIAVELOX_REDIS_URL": "redis://127.0.0.1:1/0",
           "MACHIAVELOX_REPLICAS": "2", "MACHIAVELOX_SECRET": ""}
    proc = subprocess.run([sys.executable, "-m", "server", "serve", "--port", "0"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    assert "MACHIAVELOX_SECRET must be set" in proc.stdout + proc.stderr


@pytest.mark.parametrize("value", ["*", " * ", "10.0.0.5,*"])
def test_trusting_every_peer_is_refused(value: str) -> None:
    """With ``*`` uvicorn trusts every hop of X-Forwarded-For, so the client's own first entry
    names it (issue 27): a list of proxy addresses or networks is required."""
    with pytest.raises(ValidationError, match="MACHIAVELOX_TRUSTED_PROXIES"):
        Settings(trusted_proxies=value)
    assert Settings(trusted_proxies="172.30.57.10, 10.0.0.0/8").trusted_proxies


def test_compose_servers_trust_only_the_proxy_address(compose: dict[str, Any]) -> None:
    """The proxy has a fixed address on a fixed subnet, outside the range Docker hands out to
    the others, and that address alone is what the servers trust; the config replaces the
    client's X-Forwarded-For instead of appending to it."""
    import ipaddress

    services = compose["services"]
    networks = services["proxy"]["networks"]
    (net_name, proxy_net), = networks.items()
    proxy_ip = ipaddress.ip_address(proxy_net["ipv4_address"])
    (pool,) = compose["networks"][net_name]["ipam"]["config"]
    assert proxy_ip in ipaddress.ip_network(pool["subnet"])
    assert proxy_ip not in ipaddress.ip_network(pool["ip_range"])
    dynamic = ipaddress.ip_network(pool["ip_range"])
    for name in (n for n in services if n.startswith("server")):
        assert services[name]["environment"]["MACHIAVELOX_TRUSTED_PROXIES"] == str(proxy_ip)
        fixed = ipaddress.ip_address(services[name]["networks"][net_name]["ipv4_address"])
        assert fixed != proxy_ip and fixed not in dynamic
        assert "ports" not in services[name]  # reached through the proxy only
    assert net_name in services["redis"]["networks"]
    cfg = (REPO / "deploy" / "haproxy.cfg").read_text(encoding="utf-8")
    lines = [ln.split("#")[0].strip() for ln in cfg.splitlines()]
    assert "http-request set-header X-Forwarded-For %[src]" in lines
    assert "option forwardfor" not in lines


def test_compose_offers_https_at_the_proxy_with_the_public_url(compose: dict[str, Any]) -> None:
    """The optional TLS listener of deploy/haproxy.cfg (tests/test_cluster_https.py runs it)
    is wired: a mounted certificate directory, MVX_TLS_CERT from the environment (empty: no
    TLS), and one MACHIAVELOX_PUBLIC_URL for the servers' Origin check and the proxy's
    redirect."""
    services = compose["services"]
    proxy = services["proxy"]
    env = proxy["environment"]
    assert env["MVX_TLS_CERT"] == "${MVX_TLS_CERT:-}"
    assert env["MVX_TLS_LISTEN"].endswith(":8443")
    assert env["MVX_PUBLIC_URL"] == "${MACHIAVELOX_PUBLIC_URL:-}"
    assert any(v.startswith("./deploy/certs:/usr/local/etc/haproxy/certs") and v.endswith(":ro")
               for v in proxy["volumes"])
    assert any(str(p).endswith(":8443") for p in proxy["ports"])
    for name in (n for n in services if n.startswith("server")):
        assert services[name]["environment"]["MACHIAVELOX_PUBLIC_URL"] == \
            "${MACHIAVELOX_PUBLIC_URL:-}"


def test_images_are_pinned_to_patch_versions(compose: dict[str, Any]) -> None:
    """`haproxy:2.6` or `redis:7-alpine` would change under a running deployment at the next
    pull; every image names a patch version (the Dockerfile's bases too)."""
    import re

    patch = re.compile(r"^[\w./-]+:\d+\.\d+\.\d+(-[\w.-]+)?$")
    images = [s["image"] for s in compose["services"].values() if "image" in s]
    assert images and all(patch.match(i) for i in images), images
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    bases = re.findall(r"^(?:FROM|COPY --from=)\s*(\S+)", dockerfile, re.M)
    bases = [b for b in bases if ":" in b]  # stage names have none
    assert bases and all(patch.match(b) for b in bases), bases
    # What the README and the deploy hook name is what compose runs.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    hook = (REPO / "deploy" / "certbot-deploy-hook.sh").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:haproxy|redis):[\w.-]+)`", readme))
    named |= set(re.findall(r"\b(haproxy:[\w.-]+)\)", hook))
    assert named and named <= set(images), (named, images)
