"""Draw at a classic table is busy until the server answers (issue 25, C14, C15).

On a slow link (the server's frames held back well past the old 300 ms repeat window), a second
press of Draw or D sends nothing: the page sends one draw, the server's journal has one, and
nobody reads "not your turn" afterwards. Counted where the truth is: the frames the page sent
and the table's journal, not the page after a sleep.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import test_web_support as web
from test_web_classic_table import seat
from test_web_support import Browsers, api_create_table, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

POSITION = {
    "players": ["A", "B", "C"],
    "table": [["5S", "6S", "7S"]],
    "hands": {"A": ["8D", "9D", "KC"], "B": ["3H", "10D", "QC"], "C": ["4H", "JD", "AC"]},
    "stock": ["2H", "9H", "2D", "3D"],
}


def draws_sent(frames: list[str | bytes]) -> int:
    """The draw commands among the frames a page sent (``{"type": "command", "do": "draw"}``)."""
    return sum(1 for f in frames if (m := json.loads(f)).get("type") == "command" and m.get("do") == "draw")


@pytest.mark.browser
def test_a_second_draw_on_a_slow_link_sends_nothing(live_server: Any, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", variant="classic", players=3, position=POSITION,
                                     timers={"absence": 600})
    ada = browsers.page("ada", session=session)
    sent: list[str | bytes] = []
    held: list[str | bytes] = []
    slow = {"on": False}
    routes: list[Any] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def to_server(m: str | bytes) -> None:
            sent.append(m)
            server.send(m)

        def to_page(m: str | bytes) -> None:
            if slow["on"]:
                held.append(m)
            else:
                ws.send(m)

        ws.on_message(to_server)
        server.on_message(to_page)
        routes.append(ws)

    ada.route_web_socket(re.compile(r".*/ws/" + re.escape(code) + r".*"), route)
    ada.goto(f"{live_server.url}/t/{code}")
    seat(browsers, live_server, code, "Bob")
    seat(browsers, live_server, code, "Cy")
    expect(ada.locator("#turn-banner")).to_have_text("Your turn")
    slow["on"] = True
    ada.click("#btn-draw")
    expect(ada.locator("#btn-draw")).to_be_disabled()
    ada.wait_for_timeout(800)
    ada.locator("body").press("d")
    ada.click("#btn-draw", force=True)
    ada.wait_for_timeout(300)
    assert draws_sent(sent) == 1
    drew = [e for e in live_server.journal(code) if e.get("kind") == "drew"]
    assert [e.get("player") for e in drew] == ["Ada"]
    slow["on"] = False
    for m in held:
        routes[-1].send(m)
    expect(ada.locator("#turn-banner")).to_have_text("Bob's turn")
    expect(ada.locator("#my-hand .card")).to_have_count(4)
    ada.wait_for_timeout(300)
    assert draws_sent(sent) == 1
    expect(ada.locator("#toast")).to_be_hidden()
    browsers.assert_no_console_errors()
