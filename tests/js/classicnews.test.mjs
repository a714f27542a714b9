// What happened that the player did not do themself (web/classicnews.js, issue 35 item 2):
// my own turn ended for me by the clock (C20), my absence or my leaving (C31), and the move
// that went out (C22), in words, in the player's language.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWebTree } from "./load.mjs";

const N = await loadWebTree("classicnews.js");
const I = await loadWebTree("i18n.js");

let seq = 0;
const ev = (kind, player, data = {}) => ({ seq: ++seq, t: seq, kind, player, hand: 2, ...data });

test("the clock ended my turn: the table put back and the penalty card, said to me", () => {
  const events = [ev("hand_started", null), ev("turn_started", "A"), ev("laid", "A", { meld: 1, cards: ["7H", "8H"] }),
    ev("turn_timeout", "A"), ev("penalty_card", "A", { card: "KC" }), ev("turn_started", "B")];
  const news = N.forcedEnd(events, "A");
  assert.equal(news.how, "clock");
  assert.equal(news.card, "KC");
  assert.equal(N.forcedEndText(news), "Time's up: the table is back as it was and you drew a penalty card: K♣.");
  assert.equal(N.forcedEnd(events, "B"), null); // nothing was done for B
  // At an empty stock the clock's end is a pass.
  const pass = [ev("turn_started", "A"), ev("turn_timeout", "A"), ev("passed", "A", { by: "clock", passes: 1 })];
  assert.match(N.forcedEndText(N.forcedEnd(pass, "A")), /^Time's up: .*counts as a pass\.$/);
  I.setLang("nl");
  assert.equal(N.forcedEndText(news), "Je tijd is om: de tafel is teruggezet en je kreeg een strafkaart: K♣.");
  I.setLang("it");
  assert.match(N.forcedEndText(news), /^Tempo scaduto: .*carta di penalità: K♣\.$/);
  I.setLang("en");
});

test("the line goes once I end a turn myself, or a new hand starts", () => {
  const base = [ev("hand_started", null), ev("turn_timeout", "A"), ev("penalty_card", "A", { card: "KC" })];
  assert.notEqual(N.forcedEnd(base, "A"), null);
  assert.equal(N.forcedEnd([...base, ev("turn_started", "A"), ev("drew", "A", { card: "2C" })], "A"), null);
  assert.equal(N.forcedEnd([...base, { seq: ++seq, kind: "hand_started", player: null, hand: 3 }], "A"), null);
});

test("my absence (C31): on my turn the penalty and the leaving; off my turn the leaving", () => {
  const onTurn = [ev("hand_started", null), ev("turn_started", "A"), ev("absent_left", "A"), ev("penalty_card", "A", { card: "3D" }), ev("left_hand", "A")];
  const news = N.forcedEnd(onTurn, "A");
  assert.deepEqual([news.how, news.card, news.left], ["absence", "3D", true]);
  assert.equal(N.forcedEndText(news), "You were away too long: the table is back as it was and you drew a penalty card: 3♦, and you left the hand.");
  const off = [ev("hand_started", null), ev("turn_started", "B"), ev("absent_left", "A"), ev("left_hand", "A")];
  assert.equal(N.forcedEndText(N.forcedEnd(off, "A")), "You were away too long and left the hand.");
  // Leaving on my own turn (C31 (b)): the turn ends as at C20 first.
  const leave = [ev("hand_started", null), ev("turn_started", "A"), ev("penalty_card", "A", { card: "9S" }), ev("left_hand", "A")];
  assert.equal(N.forcedEndText(N.forcedEnd(leave, "A")), "You left the hand on your turn: the table is back as it was and you drew a penalty card: 9♠.");
  // Leaving off my turn: nothing was done for me.
  assert.equal(N.forcedEnd([ev("hand_started", null), ev("turn_started", "B"), ev("left_hand", "A")], "A"), null);
});

test("the move that went out: the winner's last turn, its melds", () => {
  const events = [ev("hand_started", null), ev("turn_started", "A"), ev("drew", "A"),
    ev("turn_started", "B"), ev("laid", "B", { meld: 1, cards: ["7C", "8C", "9C"] }), ev("added", "B", { meld: 2, card: "5H" }),
    ev("ended", "B", { cards_left: 0 }), ev("hand_ended", "B", { end: "out" })];
  const move = N.outMove(events, "B");
  assert.deepEqual(move.melds.sort(), [1, 2]);
  assert.equal(N.outMoveText(move, "A"), "B went out: laid 7♣ 8♣ 9♣, added 5♥ to meld 2.");
  assert.equal(N.outMoveText(move, "B"), "You went out.");
  assert.equal(N.outMove(events, "A"), null);
  assert.equal(N.outMove([], "B"), null); // a page opened after the hand has no events: no line
});
