"""The table screen's layout (issue 17, point 1) and the going-out checklist (point 4).

Geometry, not looks, in real Chromium against the real server:

* at 1400×900, with twenty melds on the table and an opponent staging six cards, the hand and
  the action bar are inside the window and the page itself does not scroll (only the table
  does); the table's cards are smaller than with three melds (fewer melds, bigger cards);
* on a 390×844 phone (touch, mobile), a whole play (tap a card, tap a meld, drag a card to a
  meld that is off-screen at first, End play) without the page ever scrolling: the drag rests
  near the table's lower edge and the table scrolls by itself to that meld;
* the player's own panel lists the two going-out conditions (R15) as ✗, then ✓ after a draw
  and after a lay, and "pending" while the lay is confirmed but not final (rules.js).

Bob's six staged cards come through his own websocket (no browser); Cy sits through the API.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import time
from collections.abc import Iterator
from typing import Any

import test_web_support as web
from test_web_support import (
    ARTIFACTS,
    Browsers,
    api_create_table,
    api_join,
    api_session,
    expect,
    hand_faces,
    meld_faces,
)
from websockets.sync.client import connect

# The shared fixtures (one server and one browser for the whole run; see test_web_support).
live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

DESKTOP = {"width": 1400, "height": 900}
LOW = {"width": 1400, "height": 760}
PHONE = {"width": 390, "height": 844}
TIMERS = {"absence": 600, "inactivity": 600, "play": 600}

# One copy of every spade, heart and diamond in thirteen sets, and seven club runs: twenty
# melds. The second copies are in the hands.
SETS = [[f"{r}S", f"{r}H", f"{r}D"] for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
RUNS = [["AC", "2C", "3C"], ["4C", "5C", "6C"], ["7C", "8C", "9C"], ["10C", "JC", "QC"],
        ["AC", "2C", "3C"], ["4C", "5C", "6C"], ["7C", "8C", "9C"]]
CROWDED = {
    "table": SETS + RUNS,
    "hands": {
        "A": ["KS", "KH", "KD", "2S", "3S", "4S", "5H", "6H", "7H", "9D", "10D", "JD", "QS", "KC"],
        "B": ["AS", "AH", "AD", "5S", "5D", "6D", "7S", "8D"],
        "C": ["JS", "QH"],
    },
    "stocks": {"A": ["8S", "9S"], "B": ["2H"], "C": ["10S"]},
}


NO_PROXY: dict[str, Any] = {"proxy": None} if "proxy" in inspect.signature(connect).parameters else {}


@contextlib.contextmanager
def _bob_socket(server: Any, code: str) -> Iterator[Any]:
    """Bob takes his seat through the API and opens his own websocket (a client, no page)."""
    session = api_join(server, code, "Bob")
    with connect(f"{server.ws_url}/ws/{code}?token={session['token']}", open_timeout=5, **NO_PROXY) as ws:
        ws.send(json.dumps({"type": "resume", "last_version": None}))
        yield ws


def _stage(ws: Any, cards: list[str]) -> None:
    """Stage ``cards`` one by one, each acknowledged."""
    for i, card in enumerate(cards):
        cid = f"bob-stage-{i}"
        ws.send(json.dumps({"type": "command", "id": cid, "do": "stage", "card": card}))
        deadline = time.monotonic() + 5
        while True:
            frame = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if frame.get("id") == cid:
                assert frame["type"] == "ack", frame
                break


def _box(page: Any, selector: str) -> dict[str, float]:
    """The element's box; a render may replace the element while it is being read: read again."""
    for _ in range(20):
        box = page.locator(selector).first.bounding_box()
        if box is not None:
            return dict(box)
        page.wait_for_timeout(25)
    raise AssertionError(f"{selector} has no box")


def _inside_window(page: Any, selector: str) -> None:
    box = _box(page, selector)
    vw, vh = page.evaluate("[innerWidth, innerHeight]")
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= vw + 0.5 and box["y"] + box["height"] <= vh + 0.5, (selector, box, vw, vh)


def _page_does_not_scroll(page: Any) -> None:
    height, inner = page.evaluate("[document.documentElement.scrollHeight, innerHeight]")
    assert height <= inner, f"the page scrolls: {height} > {inner}"


def _checklist(page: Any) -> dict[str, str]:
    return dict(page.eval_on_selector_all(
        "#going-out li", "els => els.map(e => [e.dataset.cond, e.dataset.state])"))


def test_desktop_hand_stays_in_the_window_with_a_full_table(live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", position=CROWDED, timers=TIMERS)
    with _bob_socket(live_server, code) as bob_ws:
        api_join(live_server, code, "Cy")
        ada = browsers.page("ada", session=session, viewport=DESKTOP)
        ada.goto(f"{live_server.url}/t/{code}")
        expect(ada.locator(".meld[data-meld='20'] .card")).to_have_count(3)
        expect(ada.locator("#my-hand .card")).to_have_count(14)

        # Bob stages six cards: his panel shows them, and nothing of Ada's moves.
        hand_before = _box(ada, "#my-hand")
        _stage(bob_ws, ["AS", "AH", "AD", "5S", "5D", "6D"])
        expect(ada.locator("[data-player='Bob'] .staging-view .card")).to_have_count(6)
        assert _box(ada, "#my-hand") == hand_before

        for sel in ("#my-hand", "#my-hand .card >> nth=-1", ".actions", "#btn-draw", "#btn-end", "#btn-leave",
                    "#going-out", "#clock-inactivity", "[data-player='Bob'] .staging-view"):
            _inside_window(ada, sel)
        _page_does_not_scroll(ada)
        ada.screenshot(path=str(ARTIFACTS / "layout-01-desktop-20-melds.png"))

        # The going-out checklist: nothing yet; a draw ticks the first line; a lay (its play,
        # which empties the staging area, is confirmed at once, and final: it leans on
        # nobody), the second.
        assert _checklist(ada) == {"drew": "missing", "laid": "missing"}
        expect(ada.locator("#going-out")).to_contain_text("✗")
        ada.click("#btn-draw")
        expect(ada.locator("#going-out li[data-cond='drew']")).to_have_attribute("data-state", "ok")
        assert _checklist(ada)["laid"] == "missing"
        for face in ("KS", "KH", "KD"):
            ada.click(f"#my-hand .card[data-face='{face}']")
        ada.click("#btn-stage")
        expect(ada.locator("#my-staging .card")).to_have_count(3)
        ada.click("#btn-lay")
        expect(ada.locator(".meld[data-meld='21'] .card")).to_have_count(3)
        expect(ada.locator("#going-out li[data-cond='laid']")).to_have_attribute("data-state", "ok")
        expect(ada.locator("#going-out")).to_contain_text("✓ Drawn at least once")
        # Beside each opponent, the same two conditions in short: Bob has done neither.
        expect(ada.locator("[data-player='Bob'] .cond[data-cond='drew']")).to_have_attribute("data-state", "missing")
        expect(ada.locator("[data-player='Bob'] .cond[data-cond='laid']")).to_contain_text("✗")
        _page_does_not_scroll(ada)

        # A lower window: the table has less room, and its cards get smaller at once.
        full = _box(ada, ".meld[data-meld='1'] .card")["width"]
        ada.set_viewport_size(LOW)
        ada.wait_for_function(f"document.querySelector(\".meld[data-meld='1'] .card\").offsetWidth < {full}")
        small = _box(ada, ".meld[data-meld='1'] .card")["width"]
        _page_does_not_scroll(ada)
        _inside_window(ada, "#my-hand")
        ada.screenshot(path=str(ARTIFACTS / "layout-01b-desktop-low-window.png"))

        # A spectator on a phone: the three players in the strip, the table, no dock, and
        # still no page scroll.
        dee = _phone(browsers, api_session(live_server, "Dee"))
        dee.goto(f"{live_server.url}/t/{code}")
        expect(dee.locator(".banner")).to_contain_text("You are watching")
        expect(dee.locator(".opponents .player")).to_have_count(3)
        expect(dee.locator("[data-player='Bob'] .staging-view .card")).to_have_count(6)
        _page_does_not_scroll(dee)
        for sel in (".spectator-note", "[data-player='Ada']", "[data-player='Cy']", "#board"):
            _inside_window(dee, sel)
        dee.screenshot(path=str(ARTIFACTS / "layout-04-phone-spectator.png"))
        browsers.assert_no_console_errors()

    # Fewer melds, bigger cards: in the same low window, three melds get the biggest size.
    few = dict(CROWDED, table=CROWDED["table"][:3])
    code2, session2 = api_create_table(live_server, "Ada", position=few, timers=TIMERS)
    api_join(live_server, code2, "Bob")
    api_join(live_server, code2, "Cy")
    ada2 = browsers.page("ada2", session=session2, viewport=LOW)
    ada2.goto(f"{live_server.url}/t/{code2}")
    expect(ada2.locator(".meld[data-meld='3'] .card")).to_have_count(3)
    big = _box(ada2, ".meld[data-meld='1'] .card")["width"]
    assert big >= full > small, (big, full, small)


def test_pending_lay_in_the_checklist(live_server, browsers: Browsers) -> None:
    """A lay whose play is confirmed but not final (``laid_final`` false) is "pending"; a view
    without ``laid_final`` counts the lay as final (rules.js, as the page renders it)."""
    page = browsers.page("rules", viewport=DESKTOP)
    page.goto(live_server.url + "/")
    expect(page.locator("#rule-going-out")).to_contain_text("at least one draw")
    states = page.evaluate("""async () => {
      const m = await import('/static/rules.js');
      const look = (p) => [...m.goingOutChecklist(p).querySelectorAll('li')].map(
        (li) => [li.dataset.state, li.textContent]);
      return [look({drew: false, laid: false}), look({drew: true, laid: true, laid_final: false}),
              look({drew: true, laid: true}), look({drew: true, laid: true, laid_final: true})];
    }""")
    assert [[s for s, _ in row] for row in states] == [
        ["missing", "missing"], ["ok", "pending"], ["ok", "ok"], ["ok", "ok"]]
    assert states[0][0][1].startswith("✗") and states[2][1][1].startswith("✓")
    assert states[1][1][1].startswith("◐") and "pending" in states[1][1][1]
    browsers.assert_no_console_errors()


# The phone: sixteen runs of five and six cards (every card but the aces and kings) fill the
# phone's table several times over at any card size; the last one (hearts 8 to Q) is below the
# fold. Ada stages three cards (tap, tap, tap, tap the staging area), places AS on the spades
# run #1 (tap, tap), drags KH to meld #16, and ends her play (KD goes back to her hand).
LONG_RUNS = [[f"{r}{suit}" for r in ranks] for _deck in (1, 2) for suit in ("S", "D", "C", "H")
             for ranks in (("2", "3", "4", "5", "6", "7"), ("8", "9", "10", "J", "Q"))]
PHONE_POSITION = {
    "table": LONG_RUNS,
    "hands": {"A": ["AS", "KH", "KD", "AD", "KC"], "B": ["AH"], "C": ["AC"]},
    "stocks": {"A": ["KS"], "B": ["KS"], "C": ["AS"]},
    "drew": ["A"],
    "laid": ["A"],
}


def _phone(browsers: Browsers, session: dict[str, str]) -> Any:
    """A phone: 390×844, touch, mobile (meta viewport honoured), seated as ``session``."""
    ctx = browsers.browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                       device_scale_factor=2, locale="en-US")
    ctx.add_init_script(web._POINTER_PROBE)
    value = repr(json.dumps(session))
    ctx.add_init_script(f"if (!localStorage.getItem('mvx.session')) localStorage.setItem('mvx.session', {value});")
    # Every click the page sees is recorded by the id of the element it landed in.
    ctx.add_init_script("window.__clicks = []; addEventListener('click', (e) => "
                        "__clicks.push((e.target.closest && e.target.closest('[id]') || {}).id || ''), true);")
    # Every scroll of the page itself is recorded (the table's own scrolling is not).
    ctx.add_init_script("window.__pageScrolls = []; addEventListener('scroll', () => __pageScrolls.push(scrollY));")
    browsers.contexts.append(ctx)
    page = ctx.new_page()
    page.on("console", lambda m: m.type == "error" and browsers.errors.append(f"phone: {m.text}"))
    page.on("pageerror", lambda e: browsers.errors.append(f"phone: page error: {e}"))
    return page


def _tap_until_the_page_sees_a_click(page: Any, element_id: str, tries: int = 4) -> None:
    """Tap ``#element_id`` as a person would, again if the page saw no click at all.

    Chromium sometimes turns a synthetic tap that comes soon after a synthetic touch drag into
    no click (pointerdown, touchstart, pointerup, touchend reach the page; no mousedown or click
    follows: probed on 2 cores, a tap 380 ms after the drag's end, and under load at 400 ms).
    A page that never saw a click cannot act on it, so that tap is repeated; a click the page
    saw and did not act on still fails the test's next check. Exactly one click must land.
    """
    page.evaluate("window.__clicks.length = 0")
    for _ in range(tries):
        page.wait_for_timeout(300)  # a finger lifts, then taps
        page.tap(f"#{element_id}")
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline and not page.evaluate("window.__clicks.length"):
            page.wait_for_timeout(50)
        if page.evaluate("window.__clicks.length"):
            break
    assert page.evaluate("window.__clicks") == [element_id], page.evaluate("window.__clicks")


def _centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_phone_plays_without_page_scroll_and_drag_scrolls_the_table(live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", position=PHONE_POSITION, timers=TIMERS)
    api_join(live_server, code, "Bob")
    api_join(live_server, code, "Cy")
    ada = _phone(browsers, session)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#my-hand .card")).to_have_count(5)
    expect(ada.locator(".meld[data-meld='16'] .card")).to_have_count(5)
    _page_does_not_scroll(ada)
    for sel in ("#my-hand .card >> nth=-1", "#btn-draw", "#btn-end", "#btn-leave", "#going-out", ".opponents"):
        _inside_window(ada, sel)
    ada.screenshot(path=str(ARTIFACTS / "layout-02-phone.png"))

    # Three cards staged by taps: a declared play opens.
    for face in ("AS", "KH", "KD"):
        ada.tap(f"#my-hand .card[data-face='{face}']")
    ada.tap(".zone.staging")
    expect(ada.locator("#my-staging .card")).to_have_count(3)
    expect(ada.locator("#btn-end")).to_be_enabled()
    # Tap AS, tap the spades run: placed.
    ada.tap("#my-staging .card[data-face='AS']")
    ada.tap(".meld[data-meld='1'] .meld-head")
    expect(ada.locator(".meld[data-meld='1'] .card")).to_have_count(7)

    # Meld 16 is below the table's visible part.
    board = _box(ada, "#board")
    target = _box(ada, ".meld[data-meld='16']")
    assert target["y"] > board["y"] + board["height"], (target, board)

    # A finger drags KH up into the table, then rests near its lower edge: the table scrolls
    # until meld 16 shows; the finger moves onto it and lets go.
    x1, y1 = _centre(_box(ada, "#my-staging .card[data-face='KH']"))
    mid_x, mid_y = board["x"] + board["width"] / 2, board["y"] + board["height"] / 2
    edge_y = board["y"] + board["height"] - 12
    cdp = ada.context.new_cdp_session(ada)
    try:
        def touch(kind: str, x: float, y: float) -> None:
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x, "y": y}]})
        touch("touchStart", x1, y1)
        for i in range(1, 9):
            touch("touchMove", x1 + (mid_x - x1) * i / 8, y1 + (mid_y - y1) * i / 8)
        for i in range(1, 5):
            touch("touchMove", mid_x, mid_y + (edge_y - mid_y) * i / 4)
        deadline = time.monotonic() + 6
        while True:  # the finger rests; small moves as a real finger makes
            ada.wait_for_timeout(100)
            touch("touchMove", mid_x, edge_y + (1 if int(time.monotonic() * 10) % 2 else 0))
            t_box = _box(ada, ".meld[data-meld='16']")
            if t_box["y"] + t_box["height"] <= board["y"] + board["height"]:
                break
            assert time.monotonic() < deadline, "the table did not scroll to meld 16"
        assert ada.evaluate("document.getElementById('board').scrollTop") > 0
        tx, ty = _centre(_box(ada, ".meld[data-meld='16'] .meld-head"))
        for i in range(1, 5):
            touch("touchMove", mid_x + (tx - mid_x) * i / 4, edge_y + (ty - edge_y) * i / 4)
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()
    expect(ada.locator(".meld[data-meld='16'] .card")).to_have_count(6)
    assert "KH" in meld_faces(ada, 16)
    ada.screenshot(path=str(ARTIFACTS / "layout-03-phone-after-drag.png"))

    # End play: the two placed cards stand, KD goes back to the hand.
    _tap_until_the_page_sees_a_click(ada, "btn-end")
    expect(ada.locator("#notices")).to_contain_text("confirmed")
    expect(ada.locator("#btn-end")).to_be_disabled()
    expect(ada.locator("#my-staging .card")).to_have_count(0)
    assert sorted(hand_faces(ada)) == ["AD", "KC", "KD"]
    assert ada.evaluate("window.__pageScrolls") == []
    assert ada.evaluate("scrollY") == 0
    _page_does_not_scroll(ada)
    browsers.assert_no_console_errors()
