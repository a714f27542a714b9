"""Bots from the waiting room, in a real browser: one person creates a single game, adds a
casual bot, then another, and the hand is dealt with two bot seats.

* The waiting room of a friendly table offers "Add a bot" to its seated player: a level
  (casual or shark) and one bot per click. The bots' seats are marked as bots.
* The bots' pace (``reaction``) is not something the page offers: Playwright's request routing
  adds a short one to the page's own ``POST /api/tables/{code}/bots``, so the client carries no
  test hook.
* A refused request shows the server's sentence: with a friend seated, a request for two bots
  (routing turns the page's one into two) is refused with ``table_full``.

No page may log a console error; screenshots go to ``test-artifacts/bots-web-*.png``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import test_web_support as web
from test_web_support import Browsers, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

REACTION = 0.3


def quick_bots(page: Any, requests: list[dict[str, Any]]) -> None:
    """Route the page's bot requests: record each body and add a short reaction time."""

    def route(r: Any) -> None:
        if r.request.method != "POST":
            r.continue_()
            return
        body = json.loads(r.request.post_data or "{}")
        requests.append(dict(body))
        body["reaction"] = REACTION
        r.continue_(post_data=json.dumps(body))

    page.route(re.compile(r"/api/tables/[A-Za-z0-9_-]+/bots$"), route)


def test_one_person_adds_two_bots_and_the_hand_is_dealt(live_server, browsers: Browsers) -> None:
    page = browsers.page("solo")
    requests: list[dict[str, Any]] = []
    quick_bots(page, requests)
    page.goto(live_server.url + "/")
    page.fill("#name", "Solo")
    page.click("#create-single")
    expect(page).to_have_url(re.compile(r"/t/[A-Z0-9]+$"))
    expect(page.locator("#wait-title")).to_be_visible()
    code = page.locator("#table-code").text_content()

    # The seated creator sees the bot control: casual chosen, the button enabled.
    control = page.locator("#bot-control")
    expect(control).to_be_visible()
    expect(page.locator("#bot-level-casual")).to_be_checked()
    expect(page.locator("#btn-add-bot")).to_be_enabled()

    # One bot per click: the first sits in the second seat, shown as a bot.
    page.click("#btn-add-bot")
    seats = page.locator("#seat-list li")
    expect(seats.nth(1)).to_contain_text("Casual bot")
    expect(seats.nth(1).locator(".bot-badge")).to_have_text("bot")
    expect(seats.nth(0).locator(".bot-badge")).to_have_count(0)
    expect(seats.nth(2)).to_have_class(re.compile(r"\bempty\b"))
    browsers.shot(page, "bots-web-01-one-bot")

    # The second fills the table: the hand is dealt at once.
    page.click("#btn-add-bot")
    expect(page.locator("#board")).to_be_visible(timeout=10000)
    assert requests == [{"level": "casual", "count": 1}] * 2
    opponents = page.locator(".opponents .player")
    expect(opponents).to_have_count(2)
    for i in range(2):
        expect(opponents.nth(i).locator(".bot-badge")).to_have_text("bot")
    expect(page.locator(".opponents")).to_contain_text("Casual bot")
    expect(page.locator(".opponents")).to_contain_text("Casual bot 2")
    expect(page.locator("#mode-chip")).to_have_text("Single game")
    assert page.evaluate("window.__mvx.S.table.agora") is False
    # Dealt: every hand starts empty and the first move is a draw.
    expect(page.locator("#btn-draw")).to_be_enabled()
    page.click("#btn-draw")
    expect(page.locator("#my-hand .card").first).to_be_visible()
    # A friendly table: the Hint button is there.
    expect(page.locator("#btn-hint")).to_be_visible()
    summary = httpx.get(f"{live_server.url}/api/tables/{code}", trust_env=False, timeout=10).json()
    assert summary["seats"] == ["Solo", "Casual bot", "Casual bot 2"] and summary["phase"] == "hand"
    browsers.shot(page, "bots-web-02-dealt")
    browsers.assert_no_console_errors()


def test_a_refused_bot_request_shows_the_servers_sentence(live_server, browsers: Browsers) -> None:
    """A friend sits; shark chosen; the page's request (made one for two bots by routing) finds
    one free seat only: the server's 409 sentence is shown and the seats stay as they were."""
    page = browsers.page("picky")

    def two(r: Any) -> None:
        body = json.loads(r.request.post_data or "{}")
        body["count"] = 2
        r.continue_(post_data=json.dumps(body))

    page.goto(live_server.url + "/")
    page.fill("#name", "Picky")
    page.click("#create-single")
    expect(page.locator("#bot-control")).to_be_visible()
    code = page.locator("#table-code").text_content()
    web.api_join(live_server, code, "Friend")
    expect(page.locator("#seat-list li").nth(1)).to_contain_text("Friend")
    expect(page.locator("#seat-list li").nth(1).locator(".bot-badge")).to_have_count(0)
    page.route(re.compile(r"/api/tables/[A-Za-z0-9_-]+/bots$"), two)
    page.check("#bot-level-shark")
    expect(page.locator("#bot-level-shark")).to_be_checked()
    page.click("#btn-add-bot")
    # 409 table_full: the server's own sentence, the seats unchanged.
    expect(page.locator("#bot-error")).to_be_visible()
    text = page.locator("#bot-error").text_content()
    r = httpx.post(f"{live_server.url}/api/tables/{code}/bots", json={"level": "shark", "count": 2},
                   headers={"Authorization": "Bearer " + page.evaluate("JSON.parse(localStorage.getItem('mvx.session')).token")},
                   trust_env=False, timeout=10)
    assert r.status_code == 409 and r.json()["code"] == "table_full"
    assert text == r.json()["message"]
    expect(page.locator("#seat-list li").nth(2)).to_have_class(re.compile(r"\bempty\b"))
    browsers.shot(page, "bots-web-03-refused")
    # The browser logs the failed fetch (a 409) as a console error: expected here, nothing else.
    assert all("409" in e for e in browsers.errors), browsers.errors
