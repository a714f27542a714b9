"""A phone: finger drags (pointer events of type touch), the hand arranged by hand and kept
across a reload, and a connection that drops and comes back by itself.

Ada plays on a small touch screen; Bob and Cy take their seats through the API only, so the
hand is dealt and Ada is alone in the browser.
"""

from __future__ import annotations

import test_web_support as web
from test_web_support import (
    Browsers,
    api_create_table,
    api_join,
    expect,
    hand_faces,
    staged_faces,
    touch_drag,
)

# The shared fixtures (one server and one browser for the whole run; see test_web_support).
live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

PHONE = {"width": 412, "height": 915}

POSITION = {
    "table": [["4H", "5H", "6H"]],
    "hands": {"A": ["KD", "2S", "9H", "5C"], "B": ["8C"], "C": ["8D"]},
    "stocks": {"A": ["3C", "4C", "JS"]},
    "drew": ["A"],
    "laid": ["A"],
}


def test_touch_drags_hand_order_and_reconnection(live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", position=POSITION,
                                     timers={"absence": 600, "inactivity": 600})
    api_join(live_server, code, "Bob")
    api_join(live_server, code, "Cy")
    ada = browsers.page("ada", session=session, touch=True, viewport=PHONE)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#my-hand .card")).to_have_count(4)
    assert hand_faces(ada) == ["2S", "9H", "5C", "KD"]  # sorted by suit at first

    # A finger drags the king of diamonds to the front of the hand: a local arrangement.
    touch_drag(ada, "#my-hand .card[data-face='KD']", "#my-hand .card[data-face='2S']", target_dx=-12)
    expect(ada.locator("#my-hand .card").first).to_have_attribute("data-face", "KD")
    assert hand_faces(ada) == ["KD", "2S", "9H", "5C"]
    expect(ada.locator(".zone.hand")).to_contain_text("(your order)")
    browsers.shot(ada, "touch-01-phone")

    # A finger drags 9H into the staging area (stage), then back into the hand (unstage).
    touch_drag(ada, "#my-hand .card[data-face='9H']", ".zone.staging")
    expect(ada.locator("#my-staging .card")).to_have_count(1)
    assert staged_faces(ada) == ["9H"]
    # One card laid as a new meld is refused: the server's sentence shows in the message line
    # just above the buttons, in the page's flow, covering neither End play / Cancel play nor a card.
    ada.click("#btn-lay")
    toast = ada.locator("#toast")
    expect(toast).to_contain_text("at least 3 cards")
    expect(toast).to_have_attribute("role", "alert")
    expect(ada.locator("#status-slot #toast")).to_be_visible()
    # (in the page: a redraw between Playwright resolving and scrolling detached it once)
    ada.evaluate("document.getElementById('toast').scrollIntoView({block: 'nearest'})")
    box = toast.bounding_box()
    for sel in ("#btn-end", "#btn-cancel", "#my-hand .card", "#my-staging .card", ".actions .btn"):
        for i in range(ada.locator(sel).count()):
            other = ada.locator(sel).nth(i).bounding_box()
            overlap = (box["x"] < other["x"] + other["width"] and other["x"] < box["x"] + box["width"]
                       and box["y"] < other["y"] + other["height"] and other["y"] < box["y"] + box["height"])
            assert not overlap, f"the message covers {sel} #{i}"
    browsers.shot(ada, "touch-01b-phone-message")
    touch_drag(ada, "#my-staging .card[data-face='9H']", ".zone.hand")
    expect(ada.locator("#my-staging .card")).to_have_count(0)
    expect(ada.locator("#my-hand .card")).to_have_count(4)
    # A finger drags 5C onto nothing: nothing happens.
    touch_drag(ada, "#my-hand .card[data-face='5C']", ".topbar")
    expect(ada.locator("#my-hand .card")).to_have_count(4)

    # The sort buttons put it back in order, by rank or by suit; then Ada arranges it again.
    ada.click("#sort-rank")
    assert hand_faces(ada) == ["2S", "5C", "9H", "KD"]
    ada.click("#sort-suit")
    assert hand_faces(ada) == ["2S", "9H", "5C", "KD"]
    touch_drag(ada, "#my-hand .card[data-face='KD']", "#my-hand .card[data-face='2S']", target_dx=-12)
    expect(ada.locator("#my-hand .card").first).to_have_attribute("data-face", "KD")

    # The arrangement survives a reload (and the seat and hand come back).
    order = hand_faces(ada)
    ada.reload()
    expect(ada.locator("#my-hand .card")).to_have_count(4)
    assert hand_faces(ada) == order

    # The socket drops: the page says so, reconnects by itself, resumes, and a draw pressed
    # while it was down is delivered once (same command id) when it is back.
    drawn = [e for e in live_server.journal(code) if e.get("kind") == "drew"]
    ada.evaluate("window.__mvx.conn.dropForTest()")
    ada.click("#btn-draw")
    expect(ada.locator("#conn-status")).to_have_text("Connected")
    expect(ada.locator("#my-hand .card")).to_have_count(5)
    assert sorted(hand_faces(ada)) == sorted(order + ["3C"])
    # Carried out once, by the server's log (not the page after a sleep).
    again = [e for e in live_server.journal(code) if e.get("kind") == "drew"][len(drawn):]
    assert [e.get("player") for e in again] == ["Ada"], again
    expect(ada.locator("[data-player='Ada'] .count-n").nth(1)).to_have_text("2")  # stock

    # The touch drag onto a meld adds; the table shows Ada's play in her colour. (The drawn
    # card glows for a moment first: a card just arrived.)
    expect(ada.locator("#my-hand .card.fresh")).to_have_count(0, timeout=5000)
    touch_drag(ada, "#my-hand .card[data-face='3C']", ".meld[data-meld='1']")
    expect(ada.locator(".meld[data-meld='1'] .card")).to_have_count(4)
    expect(ada.locator(".meld[data-meld='1']")).to_contain_text("you are reworking")
    expect(ada.locator("#toast")).to_be_hidden()
    browsers.shot(ada, "touch-02-phone-after-add")
    browsers.assert_no_console_errors()
