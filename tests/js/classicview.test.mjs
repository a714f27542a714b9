// The classic page's pure parts (web/classicview.js): what the page reads from the
// seat's classic view (engine/classic/view.py) and the events of the others' turns.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWeb } from "./load.mjs";

const V = await loadWeb("classicview.js");

const view = (over = {}) => ({
  t: 10, version: 5, you: "A", rules: "classic", options: { opening: 0, ace: "low_or_high", clock: null },
  players: ["A", "B", "C", "D"].map((name) => ({ name, connected: true, in_match: true, in_hand: true, hand_count: 13, opened: false, first_turn: true, absent_until: null })),
  hand: ["5H"], table: [], stock: 40, loose: 0, passes: 0,
  turn: { player: "A", started: 0, deadline: null, ends: null }, result: null,
  match: { hand: 1, dealer: "D", totals: {}, over: false, winner: null, pause_until: null }, ...over,
});

test("a table is classic by its summary's variant, else by its view's shape", () => {
  assert.equal(V.isClassic({ variant: "classic_dutch" }, null), true);
  assert.equal(V.isClassic({ variant: "machiavelox" }, view()), false);
  assert.equal(V.isClassic(null, view()), true);
  assert.equal(V.isClassic(null, { hand: { players: [] }, phase: "hand" }), false);
});

test("seats: the others in the order of play after me, left, across, right", () => {
  assert.deepEqual(V.seatLayout(["A", "B", "C", "D"], "C").map((s) => [s.name, s.place, s.order]),
    [["D", "left", 1], ["A", "top", 2], ["B", "right", 3]]);
  assert.deepEqual(V.seatLayout(["A", "B"], "B").map((s) => [s.name, s.place]), [["A", "top"]]);
  assert.deepEqual(V.seatLayout(["A", "B", "C", "D", "E", "F"], "A").map((s) => s.place), ["left", "top", "top", "top", "right"]);
  assert.deepEqual(V.seatLayout(["A", "B", "C"], null).map((s) => s.name), ["A", "B", "C"]);
});

test("the order of play starts with the player on turn and skips those out of the hand", () => {
  const v = view({ turn: { player: "C", started: 0, deadline: null, ends: null } });
  v.players[1].in_hand = false;
  assert.deepEqual(V.playOrder(v), ["C", "D", "A"]);
});

test("a meld's worth by C17: A 1, J Q K 10, a joker the card it stands for", () => {
  assert.equal(V.meldWorth(["7H", "8H", "9H"]), 24);
  assert.equal(V.meldWorth(["QS", "KS", "AS"]), 21);
  assert.equal(V.meldWorth(["AS", "2S", "3S"]), 6);
  assert.equal(V.meldWorth(["7H", "JK", "9H"]), 24);
  assert.equal(V.meldWorth(["7H", "8H", "JK=9H"]), 24);
  assert.equal(V.meldWorth(["KS", "KH", "JK"]), 30);
  assert.equal(V.meldWorth(["JK", "JQ".slice(0, 0) + "QD", "KD"]), 30);
});

test("the opening counter: the changed melds' worth of the needed total, until opened", () => {
  const v = view({ options: { opening: 30 }, table: [
    { id: 1, cards: ["7H", "8H", "9H"], valid: true, changed: true },
    { id: 2, cards: ["2C", "3C", "4C"], valid: true, changed: false }] });
  assert.deepEqual(V.openingProgress(v), { need: 30, have: 24 });
  v.players[0].opened = true;
  assert.equal(V.openingProgress(v), null);
  assert.equal(V.openingProgress(view()), null);
  const theirs = view({ options: { opening: 30 }, turn: { player: "B", started: 0, deadline: null, ends: null } });
  assert.deepEqual(V.openingProgress(theirs), { need: 30, have: 0 });
});

test("what I may do: draw with nothing changed, pass at an empty stock, only on my turn", () => {
  assert.deepEqual(V.legalNow(view()), { myTurn: true, changed: false, draw: true, pass: false, end: true, reset: false, loose: 0 });
  const changed = V.legalNow(view({ table: [{ id: 1, cards: ["5H"], valid: false, changed: true }] }));
  assert.equal(changed.draw, false);
  assert.equal(changed.reset, true);
  assert.equal(V.legalNow(view({ stock: 0 })).pass, true);
  assert.equal(V.legalNow(view({ stock: 0 })).draw, false);
  assert.equal(V.legalNow(view({ loose: 1 })).changed, true);
  assert.equal(V.legalNow(view({ turn: { player: "B" } })).myTurn, false);
});

test("hand 2 and after: the last hand's result kept in the view does not end my turn (issue 35)", () => {
  const last = { end: "out", winner: "B", scores: { A: 0, B: 12 }, values: { A: 12, B: 0 } };
  const L = V.legalNow(view({ result: last, match: { hand: 2, dealer: "A", totals: { A: 0, B: 12 }, over: false, winner: null, pause_until: null } }));
  assert.equal(L.myTurn, true);
  assert.equal(L.end, true);
  assert.equal(L.draw, true);
  // Between hands there is no turn: nothing to do, whatever the result says.
  assert.equal(V.legalNow(view({ result: last, turn: null })).myTurn, false);
});

test("a joker's face is a choice only in a run that could lie lower or higher", () => {
  assert.deepEqual(V.jokerChoices(["5H", "6H", "7H", "JK"], 3), ["4H", "8H"]);
  assert.deepEqual(V.jokerChoices(["5H", "JK", "7H"], 1), []);
  assert.deepEqual(V.jokerChoices(["QS", "KS", "JK"], 2, "low_or_high"), ["JS", "AS"]);
  assert.deepEqual(V.jokerChoices(["QS", "KS", "JK"], 2, "low"), []);
  assert.deepEqual(V.jokerChoices(["7S", "7H", "JK"], 2), []);
  assert.deepEqual(V.jokerFace("JK=7H"), { joker: true, as: "7H", base: "JK" });
});

test("since my last turn: the others' accepted turns, their melds, draws and passes", () => {
  const ev = (seq, kind, player, data = {}) => ({ seq, kind, player, hand: 1, ...data });
  const events = [
    ev(1, "turn_started", "A"), ev(2, "drew", "A", { card: "9C" }),
    ev(3, "turn_started", "B"), ev(4, "laid", "B", { meld: 3, cards: ["7H", "8H", "9H"] }), ev(5, "ended", "B"),
    ev(6, "turn_started", "C"), ev(7, "laid", "C", { meld: 4, cards: ["2S", "3S"] }), ev(8, "reset", "C"), ev(9, "drew", "C"),
    ev(10, "turn_started", "D"), ev(11, "moved", "D", { card: "9H", from: 3, to: 1 }), ev(12, "ended", "D"),
    ev(13, "turn_started", "A"),
  ];
  const s = V.sinceMyTurn(events, "A");
  assert.deepEqual(s.turns.map((x) => [x.player, x.end, x.did.map((d) => d.kind)]),
    [["B", "ended", ["laid"]], ["C", "drew", []], ["D", "ended", ["moved"]]]);
  assert.deepEqual([...s.melds].sort(), [1, 3]);
  assert.deepEqual(V.drawnCards(events, "A"), ["9C"]);
  // A new hand starts afresh.
  assert.deepEqual(V.sinceMyTurn([...events, { seq: 20, kind: "hand_started", player: null, hand: 2 }], "A").turns, []);
  // A clock's penalty puts the turn's table moves back.
  const pen = [ev(1, "turn_started", "B"), ev(2, "laid", "B", { meld: 2, cards: ["5C"] }), ev(3, "penalty_card", "B")];
  assert.deepEqual(V.sinceMyTurn(pen, "A").turns.map((x) => [x.end, x.did.length]), [["penalty", 0]]);
  // A player who leaves on their turn (C31): one line, "left", not a penalty after it; and a
  // turn whose start this page never saw still counts.
  const left = [ev(5, "laid", "B", { meld: 2, cards: ["5C"] }), ev(6, "left_hand", "B"), ev(7, "penalty_card", "B"), ev(8, "turn_started", "C")];
  assert.deepEqual(V.sinceMyTurn(left, "A").turns.map((x) => [x.player, x.end, x.did.length]), [["B", "left", 0]]);
  // C31 (b), turn 3: the turn ends as at C20 first, then the leaving, at one instant: one line.
  const now = [ev(5, "laid", "B", { meld: 2, cards: ["5C"], t: 4 }), ev(6, "penalty_card", "B", { t: 9 }),
    ev(7, "left_hand", "B", { t: 9 }), ev(8, "turn_started", "C", { t: 9 })];
  assert.deepEqual(V.sinceMyTurn(now, "A").turns.map((x) => [x.player, x.end]), [["B", "left_penalty"]]);
  const pass = [ev(6, "passed", "B", { t: 9 }), ev(7, "left_hand", "B", { t: 9 })];
  assert.deepEqual(V.sinceMyTurn(pass, "A").turns.map((x) => [x.player, x.end]), [["B", "left"]]);
});
