"""The seats above a classic table on a phone (issue 16, "2–6 seats laid out around the table on
desktop and phone"), found by a tester: with the others away (each seat then shows its absence
clock, "Away: leaves in ▬ 1:22"), the left and right seats took their widest content and the
seat across was squeezed to a sliver that its text spilled out of, under its neighbours.

Every seat's box must be apart from the others and hold its own content, on a phone and on a
narrow window, at four and at six seats.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import test_web_support as web
from test_web_support import Browsers, api_create_table, expect
from websockets.sync.client import connect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers


def position(n: int) -> dict[str, Any]:
    players = "ABCDEF"[:n]
    return {
        "players": list(players),
        "table": [["QH", "QS", "QD"]],
        "hands": {p: [c + s for c in ("2", "3", "4")] for p, s in zip(players, "HSDCHS")},
        "stock": ["9C", "10C"],
    }


def drop_in(server: Any, code: str, session: dict[str, str]) -> None:
    """Open the seat's socket and close it: the seat is away at once, its clock running."""
    with connect(f"{server.ws_url}/ws/{code}?token={session['token']}", open_timeout=5,
                 proxy=None) as ws:
        ws.send(json.dumps({"type": "resume", "last_version": None}))
        while json.loads(ws.recv(timeout=5))["type"] != "welcome":
            pass


SEAT_BOXES = """() => [...document.querySelectorAll('.c-seat')].map(e => {
  const r = e.getBoundingClientRect();
  return {who: e.dataset.player, left: r.left, right: r.right, top: r.top, bottom: r.bottom,
          spill: e.scrollWidth - e.clientWidth};
})"""


def assert_seats_apart(page: Any, where: str) -> None:
    boxes = page.evaluate(SEAT_BOXES)
    for b in boxes:
        assert b["spill"] <= 1, f"{where}: {b['who']}'s seat spills its content by {b['spill']}px: {boxes}"
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            across = min(a["right"], b["right"]) - max(a["left"], b["left"])
            down = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            assert across <= 1 or down <= 1, f"{where}: the seats of {a['who']} and {b['who']} overlap: {boxes}"


@pytest.mark.browser
@pytest.mark.parametrize("seats", [4, 6])
def test_away_seats_do_not_overlap_on_a_phone(live_server: Any, browsers: Browsers, seats: int) -> None:
    code, session = api_create_table(live_server, "Ada", variant="classic", players=seats, position=position(seats))
    others = [web.api_join(live_server, code, name) for name in ("Bob", "Cy", "Dee", "Eve", "Flo")[:seats - 1]]
    for session_of in others:  # after the deal: each is away at once, not after the join grace
        drop_in(live_server, code, session_of)
    ada = browsers.page("ada", session=session, viewport={"width": 390, "height": 844}, touch=True)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#turn-banner")).to_have_text("Your turn")
    expect(ada.locator(".c-seat .c-absent")).to_have_count(seats - 1)
    for viewport in ({"width": 390, "height": 844}, {"width": 700, "height": 800}):
        ada.set_viewport_size(viewport)
        assert_seats_apart(ada, f"{seats} seats at {viewport['width']}px")
    browsers.shot(ada, f"classic-phone-away-seats-{seats}")
    browsers.assert_no_console_errors()
