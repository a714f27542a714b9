// The table screen's pure layout parts: the table's card size (web/tablefit.js) and
// the auto-scroll of a drag near the table's edges (edgeSpeed in web/dnd.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWeb } from "./load.mjs";

const { tableCardSize, TABLE_SIZES } = await loadWeb("tablefit.js");
const { edgeSpeed, EDGE } = await loadWeb("dnd.js");

const melds = (n, cards = 3) => Array.from({ length: n }, (_, i) => ({ id: i + 1, cards: Array(cards).fill("5H") }));

test("every size keeps each card's centre its own (the step is over half a card)", () => {
  for (const sz of TABLE_SIZES) assert.ok(sz.step > sz.w / 2, JSON.stringify(sz));
  for (let i = 1; i < TABLE_SIZES.length; i++) assert.ok(TABLE_SIZES[i].w < TABLE_SIZES[i - 1].w);
});

test("fewer melds, bigger cards; more never makes them bigger", () => {
  const room = { w: 1000, h: 330 };
  assert.equal(tableCardSize(melds(3), room).tier, 0);
  assert.ok(tableCardSize(melds(30), room).tier > 0);
  let last = 0;
  for (let n = 0; n <= 60; n++) {
    const { tier } = tableCardSize(melds(n), room);
    assert.ok(tier >= last, `${n} melds: tier ${tier} after ${last}`);
    last = tier;
  }
  // Long melds take more room than short ones.
  assert.ok(tableCardSize(melds(12, 9), room).tier >= tableCardSize(melds(12, 3), room).tier);
});

test("the size found is the biggest that fits the room; nothing fits: the smallest", () => {
  // 14 melds of 3 and the New meld tile in 700 px: at 46 px (melds 116 px wide, 5 a row) three
  // rows of 98 px + gaps + the removed cards' row = 340 px; at 40 px (102 px, 6 a row) 313 px.
  assert.equal(tableCardSize(melds(14), { w: 700, h: 340 }).tier, 0);
  assert.equal(tableCardSize(melds(14), { w: 700, h: 339 }).tier, 1);
  assert.equal(tableCardSize(melds(14), { w: 700, h: 313 }).tier, 1);
  assert.equal(tableCardSize(melds(14), { w: 700, h: 312 }).tier, 2);
  assert.deepEqual(tableCardSize(melds(200), { w: 300, h: 100 }), { tier: TABLE_SIZES.length - 1, ...TABLE_SIZES.at(-1) });
  assert.equal(tableCardSize(melds(40), { w: 1000, h: Infinity }).tier, 0, "a table that grows: by width only");
});

test("a drag scrolls the table only near its edges, once it has been inside", () => {
  const rect = { top: 100, bottom: 500, left: 0, right: 400 };
  const press = { armed: false };
  assert.equal(edgeSpeed(rect, 200, 490, press), 0, "from the hand just below: not armed yet");
  assert.equal(press.armed, false);
  assert.equal(edgeSpeed(rect, 200, 300, press), 0, "inside, away from the edges: arms, no scroll");
  assert.equal(press.armed, true);
  const down = edgeSpeed(rect, 200, 500 - EDGE / 2, press);
  const downer = edgeSpeed(rect, 200, 499, press);
  assert.ok(down > 0 && downer > down && downer <= 1, `${down} ${downer}`);
  const up = edgeSpeed(rect, 200, 100 + EDGE / 2, press);
  assert.ok(up < 0 && up >= -1);
  assert.equal(edgeSpeed(rect, 200, 60, press), -1, "just above the table: full speed up");
  assert.equal(edgeSpeed(rect, 200, 520, press), 1, "just below it: full speed down");
  assert.equal(edgeSpeed(rect, 200, 800, press), 0, "far below: no scroll");
  assert.equal(edgeSpeed(rect, 450, 499, press), 0, "beside the table: no scroll");
});
