"""The skill rating in a real browser (issue 18): three players register with the page's
account form, join the agora, play one short hand (a stacked deal: Rita goes out at once), and
see their ratings move: before it nobody of them is rated ("Not ranked yet" on their page);
after it the ranking shows each one's rating (μ − 3σ, as ``GET /api/ranking`` has it, the
winner above the others, all marked provisional), and Rita's page shows her rating and a line
of it from the start over her hands. Screenshots go to ``test-artifacts/rating-*.png``; no console errors."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
import test_web_support as web
from test_web_agora import register_here, stack_the_deal
from test_web_support import Browsers, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

pytestmark = pytest.mark.browser


def ranking_rows(server: Any) -> dict[str, dict[str, Any]]:
    r = httpx.get(server.url + "/api/ranking?limit=500", trust_env=False, timeout=10)
    r.raise_for_status()
    return {row["name"]: row for row in r.json()["ranking"]}


def shown(x: float) -> str:
    """A rating as the page writes it (one decimal, a true minus sign)."""
    v = f"{x:.1f}"
    return "\u2212" + v[1:] if x < 0 else v


def test_three_players_see_their_ratings_move(live_server: Any, browsers: Browsers) -> None:
    names = ("Rita", "Sam", "Tess")
    pages = []
    for i, name in enumerate(names):
        page = browsers.page(name.lower())
        if i == 0:
            stack_the_deal(page)
        page.goto(live_server.url + "/#agora")
        register_here(page, name)
        pages.append(page)
    rita, sam, tess = pages
    # Not rated yet: her own page says so, and the ranking does not list them.
    rita.goto(live_server.url + "/#player/me")
    expect(rita.locator("#history-summary")).to_contain_text("Not ranked yet")
    assert not set(names) & set(ranking_rows(live_server))
    rita.goto(live_server.url + "/#agora")
    for page in pages:
        page.click("#agora-join")
        if page is not tess:
            expect(page.locator("#agora-waited")).to_contain_text("Waiting for 0:0")
    for page in pages:
        expect(page).to_have_url(re.compile(r"/t/[A-Z0-9]+$"))
        expect(page.locator("#my-hand .card").first).to_be_visible()
    rita.click("#my-hand .card[data-face='7C']")
    rita.click(".meld[data-meld='1'] .meld-head")
    for page in pages:
        expect(page.locator("#final-result")).to_be_visible()

    # The ratings moved: the winner above, the two others tied below; the page shows the
    # server's numbers.
    expect(rita.locator("#btn-ranking")).to_be_visible()
    rows = ranking_rows(live_server)
    for _ in range(50):
        if set(names) <= set(rows):
            break
        rita.wait_for_timeout(100)
        rows = ranking_rows(live_server)
    assert rows["Rita"]["rating"] > 0 > rows["Sam"]["rating"] == rows["Tess"]["rating"]
    assert all(rows[n]["provisional"] and rows[n]["games"] == 1 for n in names)
    rita.click("#btn-ranking")
    table = rita.locator("#ranking-table")
    for n in names:
        row = table.locator(f"tr[data-player-id='{rows[n]['player_id']}']")
        expect(row.locator(".rating-cell")).to_have_text(shown(rows[n]["rating"]))
        expect(row.locator(".badge.provisional")).to_have_text("provisional")
    expect(table.locator("tr.me-row .rating-cell")).to_have_text(shown(rows["Rita"]["rating"]))
    browsers.shot(rita, "rating-01-ranking")

    # Rita's page: her rating, and its line over her one hand.
    rita.click("#ranking-my-hands")
    expect(rita.locator("#history-rating")).to_have_text(f"Rating: {shown(rows['Rita']['rating'])}")
    chart = rita.locator("#rating-chart svg")
    # From the starting rating (0) to the one after her hand.
    expect(chart).to_have_attribute("data-points", f"0.000,{rows['Rita']['rating']:.3f}")
    expect(rita.locator("#rating-chart circle")).to_have_count(2)
    browsers.shot(rita, "rating-02-my-page")
    # Sam sees his own, lower.
    sam.goto(live_server.url + "/#player/me")
    expect(sam.locator("#history-rating")).to_have_text(f"Rating: {shown(rows['Sam']['rating'])}")
    browsers.assert_no_console_errors()
