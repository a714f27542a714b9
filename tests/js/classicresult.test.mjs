// Each score's reason at the end of a classic hand (web/classicresult.js scoreReason),
// by the table's scoring (C26): the winner scores the others' hands, or penalty points each.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWebTree } from "./load.mjs";

const R = await loadWebTree("classicresult.js");
const I = await loadWebTree("i18n.js");

const out = { end: "out", winner: "A", scores: { A: 30, B: 0, C: 0 }, values: { A: 0, B: 12, C: 18 } };

test("winner's scoring: the winner scores the others' cards, the others' points go to the winner", () => {
  const o = { scoring: "winner", values: "high" };
  assert.equal(R.scoreReason(out, o, "A"), "Winner (went out): scores the others' cards, 30 points.");
  assert.equal(R.scoreReason(out, o, "B"), "12 points left in hand, scored by A.");
});

test("penalty scoring: the winner takes none, each other player their own hand", () => {
  const o = { scoring: "penalty", values: "low" };
  const pen = { ...out, scores: { A: 0, B: 12, C: 18 } };
  assert.equal(R.scoreReason(pen, o, "A"), "Winner (went out): no penalty points.");
  assert.equal(R.scoreReason(pen, o, "C"), "Penalty: 18 points left in hand.");
  const tie = { end: "stock_out", winner: null, scores: { A: 5, B: 5 }, values: { A: 5, B: 5 } };
  assert.equal(R.scoreReason(tie, o, "B"), "Penalty: 5 points left in hand.");
});

test("a dead hand and an abandoned one score nothing, in the player's language", () => {
  const dead = { end: "dead", winner: null, scores: { A: 0 }, values: { A: 40 } };
  assert.equal(R.scoreReason(dead, { scoring: "winner" }, "A"), "Dead hand: everyone passed, nobody scores.");
  I.setLang("it");
  assert.equal(R.scoreReason(out, { scoring: "winner" }, "B"), "12 punti rimasti in mano, segnati da A.");
  I.setLang("nl");
  assert.equal(R.scoreReason({ ...out, end: "stock_out" }, { scoring: "winner" }, "A"),
    "Winnaar (minste punten toen de stapel op was): krijgt de kaarten van de anderen, 30 punten.");
  I.setLang("en");
});
