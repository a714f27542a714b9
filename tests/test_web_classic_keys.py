"""Keyboard-only play at a classic table (issue 16, "free rearranging ... by drag, click and
keyboard"), found by a tester playing without a mouse.

The New meld tile tells a screen reader what it does at a classic table (it spoke of "staged
cards", which a classic table has none of). The buttons that live inside a meld (the faces a joker may stand for, C8) must answer Enter and
Space like any button: the table's key handler used to take Enter on them for "put the selection
on this meld", so a keyboard player could never choose 5♣ over 2♣.
"""

from __future__ import annotations

from typing import Any

import pytest
import test_web_support as web
from test_web_support import Browsers, api_create_table, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

POSITION = {
    "players": ["A", "B"],
    "table": [["9S", "9D", "9C"]],
    "hands": {"A": ["3C", "4C", "JK", "KD"], "B": ["2S", "3S", "8D"]},
    "stock": ["AD", "AC", "7S"],
}


@pytest.mark.browser
@pytest.mark.parametrize("key", ["Enter", "Space"])
def test_a_keyboard_player_chooses_the_face_of_a_joker(live_server: Any, browsers: Browsers, key: str) -> None:
    code, session = api_create_table(live_server, "Ada", variant="classic", players=2, position=POSITION)
    web.api_join(live_server, code, "Bob")
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#turn-banner")).to_have_text("Your turn")
    # The New meld tile says what it does here (no staging area at a classic table).
    expect(ada.locator("#new-meld")).to_have_attribute(
        "aria-label", "New meld: lay the selected hand cards here, or move the selected table card or loose joker here")
    for face in ("3C", "4C", "JK"):
        ada.focus(f"#my-hand .card[data-face='{face}']")
        ada.keyboard.press("Space")
    ada.keyboard.press("n")
    joker = ada.locator(".c-meld[data-meld='2'] .card.joker")
    expect(joker).to_have_attribute("data-face", "JK")
    ada.focus(".c-meld[data-meld='2'] .c-as button[data-as='5C']")
    ada.keyboard.press(key)
    expect(ada.locator(".c-meld[data-meld='2'] .card[data-face='JK=5C']")).to_have_count(1)
    expect(ada.locator(".c-meld[data-meld='2'] .c-as")).to_have_count(0)
    browsers.assert_no_console_errors()
