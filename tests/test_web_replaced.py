"""Sockets per seat (issue 12): a seat holds two sockets; a third window of the same seat
replaces the oldest, whose page says the table is open in another window and offers to play
here. It never reconnects by itself, so windows of one seat do not fight over it."""

from __future__ import annotations

import time

import test_web_support as web
from test_web_support import Browsers, api_create_table, api_join, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers


def test_a_third_window_of_a_seat_replaces_the_oldest_which_offers_to_play_here(
        live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada")
    api_join(live_server, code, "Bob")
    windows = []
    for n in range(3):
        page = browsers.page(f"ada{n}", session=session)
        page.goto(f"{live_server.url}/t/{code}")
        expect(page.locator("#table-code")).to_have_text(code)
        windows.append(page)
    first, second, third = windows
    replaced = first.locator("#replaced")
    expect(replaced).to_be_visible()
    expect(replaced).to_contain_text("This table is open in another window.")
    browsers.shot(first, "replaced-01-other-window")
    # Nothing fights: a second later the same two windows play, the first still waits.
    time.sleep(0.6)
    expect(replaced).to_be_visible()
    for page in (second, third):
        expect(page.locator("#replaced")).to_have_count(0)
    # "Play here" takes the seat back: now the oldest of the others is replaced, and only it.
    first.click("#btn-play-here")
    expect(first.locator("#table-code")).to_have_text(code)
    expect(second.locator("#replaced")).to_be_visible()
    time.sleep(0.6)
    expect(first.locator("#replaced")).to_have_count(0)
    expect(third.locator("#replaced")).to_have_count(0)
    expect(second.locator("#replaced")).to_be_visible()
    browsers.assert_no_console_errors()
