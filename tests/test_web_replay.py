"""A finished hand watched again in a real browser (issue 17, point 7): /replay/{code}/{hand}.

Three websocket clients play the short stacked hand of ``replayhelpers`` (a chain undo, then C
goes out), with pauses so that it lasts about two seconds. The replay page then shows the
chain undo on the timeline; a click on its mark shows that moment, its notice marked; at 8x
the replay runs to its end in about an eighth of the hand's time, and the last moment shows
every player's cards and the result. A hand that does not exist shows the refusal in words.
No console errors; screenshots go to ``test-artifacts/replay-*.png``.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from typing import Any

import pytest
import test_web_support as web
from replayhelpers import chain_undo, go_out, start_hand
from serverhelpers import run
from test_web_support import Browsers, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

#: Seconds between the parts of the hand (it lasts about twice this).
PAUSE = 1.0


def play_slow_hand(server: Any) -> str:
    """The short hand, played in a thread of its own (Playwright's sync API owns this one)."""
    out: dict[str, Any] = {}

    async def go() -> None:
        a, b, c = await start_hand(server)
        await asyncio.sleep(PAUSE)
        await chain_undo(a, b)
        await asyncio.sleep(PAUSE)
        await go_out(c, [a, b, c])
        out["code"] = a.code
        for p in (a, b, c):
            await p.close()

    def target() -> None:
        try:
            run(go(), timeout=30)
        except BaseException as e:  # noqa: BLE001 - handed to the test's thread
            out["error"] = e

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(40)
    if "error" in out:
        raise out["error"]
    return str(out["code"])


@pytest.mark.browser
def test_a_replay_is_watched_to_its_end_at_8x(live_server: Any, browsers: Browsers) -> None:
    code = play_slow_hand(live_server)
    page = browsers.page("viewer")
    page.goto(f"{live_server.url}/replay/{code}/1")
    root = page.locator("#replay")
    expect(root).to_have_attribute("data-state", "ready")
    expect(page.locator("#rp-title")).to_contain_text(code)
    duration = page.evaluate("window.__mvxReplay.data.duration")
    assert 2 * PAUSE - 0.5 < duration < 2 * PAUSE + 3, duration

    # The chain undo is marked on the timeline; its mark shows that moment and its notice.
    marks = page.locator(".rp-undo-mark")
    expect(marks).to_have_count(1)
    marks.first.click()
    expect(page.locator("#rp-undo-now")).to_be_visible()
    undo = page.locator("#rp-notice-list li.now[data-kind='chain_undo']")
    expect(undo).to_have_count(1)
    expect(undo).to_contain_text("8\u2663 went back to B")
    expect(undo).to_have_class(re.compile(r"\brp-undo\b"))
    b_hand = page.locator(".rp-player[data-player='B'] .rp-hand .card")
    expect(b_hand).to_have_count(2)
    browsers.shot(page, "replay-01-chain-undo")

    # 8x from the start: the end comes in about an eighth of the hand's time.
    page.click("#rp-speed-8")
    expect(page.locator("#rp-speed-8")).to_have_attribute("aria-checked", "true")
    page.click("#rp-start")
    expect(root).to_have_attribute("data-frame", "0")
    started = time.monotonic()
    page.click("#rp-play")
    expect(root).to_have_attribute("data-ended", "true", timeout=10000)
    took = time.monotonic() - started
    assert took < duration / 2, (took, duration)  # far faster than the hand was played
    assert took > duration / 8 * 0.7, (took, duration)  # and not all at once
    slider = page.locator("#rp-timeline")
    assert slider.input_value() == slider.get_attribute("max")
    expect(page.locator("#rp-clock")).to_contain_text(" of ")

    # The last moment: every player's cards (C went out), the result.
    faces = {p: sorted(page.locator(f".rp-player[data-player='{p}'] .rp-hand .card")
                       .evaluate_all("els => els.map(e => e.dataset.face)")) for p in "ABC"}
    assert faces == {"A": ["2S", "7C", "QD"], "B": ["3H", "8C"], "C": []}
    stocks = page.locator(".rp-player[data-player='A'] .rp-stock .card")
    expect(stocks).to_have_count(2)
    expect(page.locator("#rp-result")).to_contain_text("C won")
    expect(page.locator("#rp-play")).to_have_text("Watch again")
    expect(page.locator("#rp-undo-now")).to_have_count(0)
    assert "null" not in (root.text_content() or "")
    browsers.shot(page, "replay-02-end")

    browsers.assert_no_console_errors()

    # A hand the table never dealt: the refusal, in words (the browser logs the 404 itself).
    page.goto(f"{live_server.url}/replay/{code}/2")
    expect(page.locator("#rp-error")).to_have_attribute("data-code", "no_such_hand")
    expect(page.locator("#rp-error")).to_contain_text(f"Table {code} has no hand 2.")
    assert all("404" in e for e in browsers.errors), browsers.errors
