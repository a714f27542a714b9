"""The agora in a real browser: three players queue from the home page, are matched, play a
short hand and find it in the ranking and in their histories.

* Ada and Bob join the agora queue from the home page; each sees their place and how many
  wait. Bob leaves the queue and joins again; his socket drops (as a network failure would)
  and the page reconnects and queues him again by itself.
  A reload of his page keeps him queued.
* Every player registers an account with the page's account form first (the agora needs
  one). Cy sees on the home page that two are waiting, opens the agora page, registers there
  and joins: the three are matched and each browser goes straight to the table (an "Agora
  hand").
* The hand is a test-only stacked deal given with Ada's ``join`` (the agora's test deals,
  ``MACHIAVELOX_TEST_DEALS``): Playwright's websocket routing adds ``position`` to the join
  message her page sends, so the client itself carries no test hook. Ada adds 7♣ to the
  clubs run and goes out at once (63 points, R20).
* From the end of the hand Ada opens the ranking: her row (highlighted, "you") shows 63 points
  and one hand, as the server's ``GET /api/ranking`` says; she opens Bob's history from it
  (lost), then her own (won). Cy queues again and leaves by going home: the queue is empty.

No page may log a console error; screenshots go to ``test-artifacts/agora-*.png``.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any
from urllib.parse import quote

import httpx
import test_web_support as web
from test_web_support import Browsers, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

#: A's single add of 7C to meld 1 empties A's hand and stock: A goes out (§12) at once.
POSITION = {
    "table": [["4C", "5C", "6C"]],
    "hands": {"A": ["7C"], "B": ["8C", "3H"], "C": ["KD"]},
    "stocks": {"A": [], "B": ["KS"], "C": []},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}
#: R20: 50 - 0 in stock + 3 cards in the opponents' hands + 10 for the empty stock.
WINNER_POINTS = 63


def stack_the_deal(page: Any) -> None:
    """Route the page's agora socket through Playwright and add the test position to its
    ``join`` (the first of the group who gives one deals the group's hand)."""

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "join":
                msg["position"] = POSITION
            server.send(json.dumps(msg))

        ws.on_message(from_page)

    page.route_web_socket(re.compile(r".*/ws/agora.*"), route)


def queue_size(server: Any) -> int:
    r = httpx.get(server.url + "/api/agora", trust_env=False, timeout=10)
    r.raise_for_status()
    return r.json()["waiting"]


def wait_queue_size(server: Any, n: int, timeout: float = 8.0) -> None:
    deadline = time.monotonic() + timeout
    while queue_size(server) != n:
        assert time.monotonic() < deadline, f"the agora queue never held {n}"
        time.sleep(0.05)


PASSWORD = "correct horse battery"


def register_here(page: Any, name: str) -> None:
    """Register the account ``name`` with the account form on this page (home or agora)."""
    page.fill("#acct-name", name)
    page.fill("#acct-password", PASSWORD)
    page.click("#acct-register")
    page.wait_for_function("(name) => { const s = JSON.parse(localStorage.getItem('mvx.session') || 'null'); return s && s.account && s.name === name; }",
                           arg=name)


def join_from_home(page: Any, server: Any, name: str) -> None:
    page.goto(server.url + "/")
    register_here(page, name)  # the agora needs an account (issue 18)
    expect(page.locator("#acct-as")).to_have_text(f"Logged in as {name}.")
    page.click("#agora-btn")
    expect(page).to_have_url(server.url + "/#agora")


def test_three_players_queue_are_matched_play_and_are_ranked(live_server, browsers: Browsers) -> None:
    ada = browsers.page("ada")
    stack_the_deal(ada)
    join_from_home(ada, live_server, "Ada")
    expect(ada.locator("#agora-state")).to_have_text("Waiting for opponents…")
    expect(ada.locator("#agora-position")).to_have_text("You are number 1 in the queue.")
    expect(ada.locator("#agora-count")).to_have_text("Players waiting: 1")
    expect(ada.locator("#conn-status")).to_have_text("Connected")

    bob = browsers.page("bob")
    join_from_home(bob, live_server, "Bob")
    expect(bob.locator("#agora-position")).to_have_text("You are number 2 in the queue.")
    expect(ada.locator("#agora-count")).to_have_text("Players waiting: 2")
    browsers.shot(ada, "agora-01-waiting")

    # Bob leaves the queue, then joins again (behind Ada).
    bob.click("#agora-leave")
    expect(bob.locator("#agora-left")).to_have_text("You left the queue.")
    expect(ada.locator("#agora-count")).to_have_text("Players waiting: 1")
    bob.click("#agora-join")
    expect(bob.locator("#agora-position")).to_have_text("You are number 2 in the queue.")
    expect(ada.locator("#agora-count")).to_have_text("Players waiting: 2")

    # Bob's socket drops: the page reconnects and queues him again by itself.
    bob.evaluate("window.__oldAgoraWs = window.__mvxAgora.sock.ws; window.__mvxAgora.sock.dropForTest()")
    bob.wait_for_function("() => { const a = window.__mvxAgora; return a.sock.ws && a.sock.ws !== window.__oldAgoraWs"
                          " && a.S.agora.phase === 'queued'; }")
    expect(bob.locator("#agora-position")).to_have_text("You are number 2 in the queue.")
    expect(bob.locator("#conn-status")).to_have_text("Connected")
    # A reload keeps him waiting too (the tab remembers it wants to be queued).
    bob.reload()
    expect(bob.locator("#agora-position")).to_have_text("You are number 2 in the queue.")
    wait_queue_size(live_server, 2)

    # Cy sees the queue on the home page, then opens the agora page itself: with no name yet,
    # it asks for one, and joining completes the group.
    cy = browsers.page("cy")
    cy.goto(live_server.url + "/")
    expect(cy.locator("#agora-waiting")).to_have_text("Waiting in the queue now: 2")
    browsers.shot(cy, "agora-02-home")
    cy.goto(live_server.url + "/#agora")
    register_here(cy, "Cy")
    cy.click("#agora-join")

    # Matched: every browser goes straight to the table.
    for page in (ada, bob, cy):
        expect(page).to_have_url(re.compile(r"/t/[A-Z0-9]+$"))
        expect(page.locator("#board")).to_be_visible()
        expect(page.locator("#conn-status")).to_have_text("Connected")
        expect(page.locator("#mode-chip")).to_have_text("Agora hand")
        # The server's summary says so; hints are refused at agora tables: no Hint button.
        assert page.evaluate("window.__mvx.S.table.agora") is True
        expect(page.locator("#btn-draw")).to_be_visible()
        expect(page.locator("#btn-hint")).to_have_count(0)
    code = ada.locator("#table-code").first.text_content()
    assert bob.url.endswith(f"/t/{code}") and cy.url.endswith(f"/t/{code}")
    assert queue_size(live_server) == 0
    expect(ada.locator("#my-hand .card")).to_have_count(1)
    expect(bob.locator("#my-hand .card")).to_have_count(2)

    # Ada plays 7C onto the clubs run and goes out.
    ada.click("#my-hand .card[data-face='7C']")
    ada.click(".meld[data-meld='1'] .meld-head")
    for page in (ada, bob, cy):
        expect(page.locator("#final-result")).to_be_visible()
    expect(ada.locator("#result-title")).to_contain_text("You won the hand")
    expect(ada.locator("#hand-scores tr[data-player='Ada']")).to_contain_text(f"+{WINNER_POINTS}")
    expect(ada.locator("#btn-ranking")).to_be_visible()
    browsers.shot(ada, "agora-03-hand-won")

    # The ranking, as the server has it; Ada's own row is highlighted.
    r = httpx.get(live_server.url + "/api/ranking", trust_env=False, timeout=10)
    ranking = {row["name"]: row for row in r.json()["ranking"]}
    assert ranking["Ada"]["points"] == WINNER_POINTS and ranking["Ada"]["hands"] == 1
    ada.click("#btn-ranking")
    expect(ada).to_have_url(live_server.url + "/#ranking")
    table = ada.locator("#ranking-table")
    mine = table.locator("tr.me-row")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text("Ada")
    expect(mine).to_contain_text("you")
    expect(mine.locator("td").nth(0)).to_have_text(str(ranking["Ada"]["rank"]))
    expect(mine.locator("td").nth(1)).to_have_text(f"+{WINNER_POINTS}")
    expect(mine.locator("td").nth(2)).to_have_text("1")
    for name in ("Bob", "Cy"):
        row = table.locator(f"tr[data-player-id='{ranking[name]['player_id']}']")
        expect(row).to_contain_text(name)
        expect(row.locator("td").nth(2)).to_have_text("1")
    browsers.shot(ada, "agora-04-ranking")

    # Bob's history, from his name in the ranking; then Ada's own.
    table.get_by_role("link", name="Bob", exact=True).click()
    # An account's player id ("a:" + its id) is URL-encoded in the address.
    expect(ada).to_have_url(live_server.url + f"/#player/{quote(ranking['Bob']['player_id'], safe='')}")
    expect(ada.locator("#history-title")).to_have_text("Agora hands of Bob")
    rows = ada.locator("#history-table tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Lost")
    expect(rows.first).to_contain_text(code)
    assert rows.first.locator("time").text_content().strip()
    ada.click("#history-to-ranking")
    ada.click("#ranking-my-hands")
    expect(ada).to_have_url(live_server.url + "/#player/me")
    expect(ada.locator("#history-title")).to_have_text("Your agora hands")
    expect(ada.locator("#history-summary")).to_contain_text(f"Points: +{WINNER_POINTS}")
    expect(ada.locator("#history-table tbody tr").first).to_contain_text("Won")
    expect(ada.locator("#history-table tbody tr").first).to_contain_text(f"+{WINNER_POINTS}")
    browsers.shot(ada, "agora-05-my-history")
    ada.select_option("#lang", "it")
    expect(ada.locator("#history-title")).to_have_text("Le tue mani nell'agorà")
    expect(ada.locator("#history-table tbody tr").first).to_contain_text("Vinta")
    browsers.shot(ada, "agora-06-my-history-it")

    # Cy queues again from the end of the hand, then goes home: that leaves the queue.
    cy.click("#btn-agora-again")
    expect(cy).to_have_url(live_server.url + "/#agora")
    expect(cy.locator("#agora-position")).to_have_text("You are number 1 in the queue.")
    wait_queue_size(live_server, 1)
    cy.click("#agora-home")
    expect(cy.locator("#agora-btn")).to_be_visible()
    wait_queue_size(live_server, 0)
    expect(cy.locator("#ranking-preview")).to_contain_text("Ada")

    browsers.assert_no_console_errors()
