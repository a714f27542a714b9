"""Table UX in the browser (issue 17, points 5, 6 and 8's client side): the two jump keys,
one card dropped on New meld refused with nothing sent, New meld laying the staged cards
when none is selected, Stop! asking for confirmation, the end screen's replay link and Play
again (accepted, declined, told to the others); the bot badge of both demo bots; "1 table
card" in a hint. One server for the module (test_web_support), stacked deals."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx
import test_web_support as web
from test_web_support import Browsers, api_create_table, api_join, expect, mouse_drag

from server.bots import create_demo_table

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

# Ada (A) goes out with 10C JC QC once she calls Stop!; Bob (B) and Cy (C) hold a few cards.
POSITION = {
    "table": [["4C", "5C", "6C"], ["9H", "10H", "JH"]],
    "hands": {"A": ["10C", "JC", "QC"], "B": ["2S", "8D"], "C": ["3S", "QD"]},
    "stocks": {"A": ["KH"], "B": ["KS"], "C": ["7D"]},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}

# Ada can put 4D 4H down only by moving the 4C out of the run: a hint moving 1 table card.
HINT_POSITION = {
    "table": [["4C", "5C", "6C", "7C"], ["9H", "10H", "JH"]],
    "hands": {"A": ["4D", "4H", "KD"], "B": ["2S", "8D"], "C": ["3S", "QD"]},
    "stocks": {"A": ["QS"], "B": [], "C": []},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}

# Records the commands the page sends on its table socket (the refusals must send none).
SPY = """() => {
  const ws = window.__mvx.conn.sock.ws;
  window.__sent = [];
  const send = ws.send.bind(ws);
  ws.send = (data) => { try { const m = JSON.parse(data); if (m.type === 'command') window.__sent.push(m.do); } catch (e) {} send(data); };
}"""


def sent(page: Any) -> list[str]:
    result: list[str] = page.evaluate("window.__sent")
    return result


def test_keys_new_meld_stop_and_play_again(live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", position=POSITION,
                                     timers={"absence": 600, "inactivity": 600})
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    bob_session = api_join(live_server, code, "Bob")
    cy_session = api_join(live_server, code, "Cy")
    bob = browsers.page("bob", session=bob_session)
    bob.goto(f"{live_server.url}/t/{code}")
    for page in (ada, bob):
        expect(page.locator("#my-hand .card")).not_to_have_count(0)
    expect(ada.locator("#my-hand .card")).to_have_count(3)
    expect(ada.locator("#conn-status")).to_have_text("Connected")
    ada.evaluate(SPY)

    # J jumps to the hand, K to the table (from wherever the focus is), and the help says so.
    ada.locator("#btn-draw").focus()
    ada.keyboard.press("j")
    assert ada.evaluate("document.activeElement.dataset.zone") == "hand"
    ada.keyboard.press("k")
    assert ada.evaluate("document.activeElement.dataset.key") == "meld:1"
    ada.keyboard.press("?")
    expect(ada.locator("#help")).to_contain_text("jump to your hand")
    expect(ada.locator("#help")).to_contain_text("Enter / Space")
    ada.keyboard.press("Escape")
    expect(ada.locator("#help")).to_have_count(0)

    # One card dropped on New meld: refused here, nothing sent, nothing staged, no play opened.
    mouse_drag(ada, "#my-hand .card[data-face='QC']", ".new-meld")
    expect(ada.locator("#toast")).to_contain_text("A new meld needs at least 3 cards")
    browsers.shot(ada, "ux-01-one-card-new-meld-refused")
    # Two selected and N: the same.
    ada.click("#my-hand .card[data-face='10C']")
    ada.click("#my-hand .card[data-face='JC']")
    ada.keyboard.press("n")
    expect(ada.locator("#my-hand .card.selected")).to_have_count(2)  # the selection stays
    ada.wait_for_timeout(300)
    assert sent(ada) == []
    expect(ada.locator("#my-staging .card")).to_have_count(0)
    expect(ada.locator(".me [data-player='Ada']")).not_to_contain_text("Play #")
    ada.keyboard.press("Escape")

    # Stop! asks first: Cancel sends nothing; OK freezes the others.
    ada.click("#btn-stop")
    expect(ada.locator("#confirm")).to_be_visible()
    expect(ada.locator("#confirm-text")).to_contain_text("Call Stop! now?")
    browsers.shot(ada, "ux-02-stop-confirm")
    ada.click("#confirm-cancel")
    ada.wait_for_timeout(300)
    assert sent(ada) == []
    expect(ada.locator("#clock-freeze")).to_have_count(0)
    ada.keyboard.press("!")
    expect(ada.locator("#confirm")).to_be_visible()
    ada.click("#confirm-ok")
    expect(bob.locator(".banner.freeze")).to_contain_text("Ada called Stop! Everyone else is frozen.")
    assert sent(ada) == ["stop"]

    # Three staged, none selected: New meld lays all of them (and Ada goes out).
    for face in ("10C", "JC", "QC"):
        ada.click(f"#my-hand .card[data-face='{face}']")
    ada.click(".zone.staging")
    expect(ada.locator("#my-staging .card")).to_have_count(3)
    expect(ada.locator("#my-staging .card.selected")).to_have_count(0)
    ada.click(".new-meld")
    for page in (ada, bob):
        expect(page.locator("#final-result")).to_be_visible()
    assert sent(ada) == ["stop", "stage", "stage", "stage", "lay"]

    # The end screen: the replay link, Play again; no hyphen for a minus anywhere.
    expect(ada.locator("#replay-link")).to_have_attribute("href", f"/replay/{code}/1")
    assert not re.search(r"(^|\s)-\d", ada.locator("#result").inner_text())
    expect(bob.locator("#btn-again")).to_be_visible()
    ada.click("#btn-again")
    ada.wait_for_url(re.compile(rf"/t/(?!{code}$)[A-Z0-9]+$"))
    new_code = ada.url.rsplit("/", 1)[1]
    expect(ada.locator("#seat-list")).to_contain_text("Ada")
    expect(bob.locator("#again-ask")).to_contain_text("Ada asks to play again")
    browsers.shot(bob, "ux-03-play-again-asked")
    # At 1400x900 the answers show without scrolling the head (it is capped at the hand's 45vh).
    bob.set_viewport_size({"width": 1400, "height": 900})
    expect(bob.locator("#btn-again-accept")).to_be_visible()
    top, bottom, head_bottom, scrolled = bob.evaluate("""() => {
      const b = document.querySelector('#btn-again-accept'), h = b.closest('.head');
      return [b.getBoundingClientRect().top, b.getBoundingClientRect().bottom,
              h.getBoundingClientRect().bottom, h.scrollTop]; }""")
    assert scrolled == 0 and bottom <= head_bottom, (top, bottom, head_bottom, scrolled)
    assert bob.evaluate("document.scrollingElement.scrollHeight <= innerHeight")
    # Cy (no browser) declines: Bob is told. Bob declines, changes his mind, and goes.
    r = httpx.post(f"{live_server.url}/api/tables/{code}/again/decline",
                   headers={"Authorization": f"Bearer {cy_session['token']}"}, trust_env=False, timeout=10)
    assert r.status_code == 204, r.text
    expect(bob.locator("#again-declined")).to_have_text("Declined: Cy.")
    bob.click("#btn-again-decline")
    expect(bob.locator("#again-you-declined")).to_be_visible()
    expect(bob.locator("#btn-again-accept")).to_have_count(0)
    bob.click("#btn-again")
    bob.wait_for_url(f"**/t/{new_code}")
    for page in (ada, bob):
        expect(page.locator("#seat-list")).to_contain_text("Bob")
    browsers.shot(ada, "ux-04-play-again-new-table")
    browsers.assert_no_console_errors()


def test_both_demo_bots_wear_the_badge_and_a_hint_moving_one_card_says_so(
        live_server, browsers: Browsers) -> None:
    fut = asyncio.run_coroutine_threadsafe(
        create_demo_table(live_server.app, "casual", reaction=5), live_server.loop)
    code = fut.result(10)
    page = browsers.page("newcomer")
    page.goto(f"{live_server.url}/t/{code}")
    page.fill("#name", "Newcomer")
    page.click("#gate-join")
    page.wait_for_selector("#board")
    # At the first drawing of the table, not eventually: both bots, the first one too.
    badges = page.eval_on_selector_all(".opponents .player", "els => els.map(e => [e.dataset.player, !!e.querySelector('.bot-badge')])")
    assert sorted(badges) == [["Casual bot", True], ["Casual bot 2", True]], badges
    browsers.shot(page, "ux-05-demo-bot-badges")

    # The same window, at a table of its own with two bots (made as the page would, with its token).
    token = page.evaluate("JSON.parse(localStorage.getItem('mvx.session')).token")
    r = httpx.post(f"{live_server.url}/api/tables", trust_env=False, timeout=10,
                   headers={"Authorization": f"Bearer {token}"},
                   json={"mode": "single", "position": HINT_POSITION,
                         "bots": {"level": "casual", "count": 2, "reaction": 5}})
    assert r.status_code == 200, r.text
    page.goto(f"{live_server.url}/t/{r.json()['code']}")
    expect(page.locator(".opponents .bot-badge")).to_have_count(2)
    page.click("#btn-hint")
    expect(page.locator("#toast")).to_contain_text("by moving 1 table card: follow")
    browsers.shot(page, "ux-06-hint-one-table-card")
    browsers.assert_no_console_errors()
