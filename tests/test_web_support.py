"""Shared parts of the browser tests (``tests/test_web_*.py``); no tests of its own.

* ``live_server``: the real app under a real uvicorn on a free 127.0.0.1 port
  (``serverhelpers.LiveServer``), with test deals on and a fixed secret;
* ``browsers``: Debian's Chromium driven by Playwright (sync API), one context per player,
  every console error and page error collected, screenshots saved to ``test-artifacts/``;
* helpers that read the page (``hand_faces``...), create a stacked table through the API, and
  drag with a real mouse or a real finger (Chrome DevTools touch events, so the page receives
  genuine ``pointerType == "touch"`` pointer events and CSS ``touch-action`` matters).

Chromium is launched with ``executable_path`` (Playwright's own browser download does not
work on these machines) and the flags that keep it off the network. Tests skip when
Playwright or Chromium is missing, and fail under ``CI=true`` (tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = os.environ.get("MACHIAVELOX_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
]
VIEWPORT = {"width": 1366, "height": 1100}

# Records the pointer types the page sees (the touch test checks that a finger was a finger).
_POINTER_PROBE = """
window.__pointerTypes = [];
document.addEventListener('pointerdown', (e) => window.__pointerTypes.push(e.pointerType), true);
"""

expect.set_options(timeout=8000)


# Each test module imports these fixtures, which makes one copy per module: the server and
# the browser are shared through this dict so that a run starts each once (Playwright's sync
# API cannot run twice at the same time), and the copy that started them stops them.
_SHARED: dict[str, Any] = {}


@pytest.fixture(scope="session")
def live_server() -> Iterator[Any]:
    if "server" in _SHARED:
        yield _SHARED["server"]
        return
    from serverhelpers import LiveServer

    from server.settings import Settings

    settings = Settings(test_deals=True, secret="web-tests", resume_wait=0.2)
    with LiveServer(settings) as server:
        _SHARED["server"] = server
        yield server
        del _SHARED["server"]


@pytest.fixture(scope="session")
def chromium_browser() -> Iterator[Any]:
    if "browser" in _SHARED:
        yield _SHARED["browser"]
        return
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        _SHARED["browser"] = browser
        yield browser
        del _SHARED["browser"]
        browser.close()


class Browsers:
    """Player windows: one browser context (its own localStorage) per player."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.contexts: list[Any] = []
        self.errors: list[str] = []
        ARTIFACTS.mkdir(exist_ok=True)

    def page(self, who: str, *, touch: bool = False, session: dict[str, str] | None = None,
             viewport: dict[str, int] | None = None) -> Any:
        ctx = self.browser.new_context(viewport=viewport or VIEWPORT, has_touch=touch,
                                       locale="en-US")
        ctx.add_init_script(_POINTER_PROBE)
        if session is not None:
            # A player who created the table through the API: hand the page its session.
            value = repr(json.dumps(session))
            ctx.add_init_script(
                f"if (!localStorage.getItem('mvx.session')) localStorage.setItem('mvx.session', {value});")
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"{who}: {m.text}"))
        page.on("pageerror", lambda e: self.errors.append(f"{who}: page error: {e}"))
        return page

    def shot(self, page: Any, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    def assert_no_console_errors(self) -> None:
        assert self.errors == [], "\n".join(self.errors)

    def close(self) -> None:
        for ctx in self.contexts:
            ctx.close()


@pytest.fixture
def browsers(chromium_browser: Any) -> Iterator[Browsers]:
    b = Browsers(chromium_browser)
    try:
        yield b
    finally:
        b.close()


# ---------------------------------------------------------------- the API


def api_session(server: Any, name: str) -> dict[str, str]:
    r = httpx.post(server.url + "/api/session", json={"name": name}, trust_env=False, timeout=10)
    r.raise_for_status()
    body = r.json()
    return {"token": body["token"], "name": body["name"]}


def api_join(server: Any, code: str, name: str) -> dict[str, str]:
    """``name`` takes a seat at ``code`` through the API only (no browser, no socket)."""
    session = api_session(server, name)
    r = httpx.post(f"{server.url}/api/tables/{code}/join",
                   headers={"Authorization": f"Bearer {session['token']}"}, trust_env=False, timeout=10)
    assert r.status_code == 200, r.text
    return session


def api_create_table(server: Any, name: str, mode: str = "single", **extra: Any) -> tuple[str, dict[str, str]]:
    """A table created by ``name`` (test-only fields in ``extra``): its code and the session."""
    session = api_session(server, name)
    r = httpx.post(server.url + "/api/tables", json={"mode": mode, **extra},
                   headers={"Authorization": f"Bearer {session['token']}"}, trust_env=False, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["code"], session


# ---------------------------------------------------------------- reading the page


def hand_faces(page: Any) -> list[str]:
    return page.eval_on_selector_all("#my-hand .card", "els => els.map(e => e.dataset.face)")


def staged_faces(page: Any) -> list[str]:
    return page.eval_on_selector_all("#my-staging .card", "els => els.map(e => e.dataset.face)")


def meld_faces(page: Any, meld: int) -> list[str]:
    return page.eval_on_selector_all(f".meld[data-meld='{meld}'] .card",
                                     "els => els.map(e => e.dataset.face)")


def expect_meld(page: Any, meld: int, faces: list[str], *, any_order: bool = False,
                timeout: float = 8.0) -> None:
    """Wait until meld ``meld`` shows ``faces`` on ``page`` (run order, or any order)."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        got = meld_faces(page, meld)
        if (sorted(got) == sorted(faces)) if any_order else (got == faces):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"meld {meld} shows {got}, expected {faces}")
        page.wait_for_timeout(50)


# ---------------------------------------------------------------- gestures


def tab_to(page: Any, key: str, *, backwards: bool = False, limit: int = 150) -> None:
    """Press Tab (or Shift+Tab) until the element with ``data-key == key`` has the focus:
    how a keyboard-only player gets there."""
    for _ in range(limit):
        if page.evaluate("document.activeElement && document.activeElement.dataset.key") == key:
            return
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
    raise AssertionError(f"Tab never reached {key}")


def _centre(page: Any, selector: str) -> tuple[float, float]:
    loc = page.locator(selector).first
    loc.scroll_into_view_if_needed()
    box = loc.bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def mouse_drag(page: Any, source: str, target: str, steps: int = 12) -> None:
    """Press on ``source``, move to ``target`` in steps, release: a real mouse drag."""
    x1, y1 = _centre(page, source)
    x2, y2 = _centre(page, target)
    page.mouse.move(x1, y1)
    page.mouse.down()
    page.mouse.move(x2, y2, steps=steps)
    page.mouse.up()


def touch_drag(page: Any, source: str, target: str, steps: int = 12, target_dx: float = 0) -> None:
    """A finger drag from ``source`` to ``target`` (``target_dx`` pixels right of its centre)
    through DevTools touch events: Chromium turns them into pointer events with
    ``pointerType == "touch"`` (and would cancel them if the card let the page scroll instead)."""
    x1, y1 = _centre(page, source)
    x2, y2 = _centre(page, target)
    x2 += target_dx
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x1, "y": y1}]})
        for i in range(1, steps + 1):
            x = x1 + (x2 - x1) * i / steps
            y = y1 + (y2 - y1) * i / steps
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()
    assert "touch" in page.evaluate("window.__pointerTypes"), "the page saw no touch pointer"
