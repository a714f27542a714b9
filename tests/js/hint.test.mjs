// Following a hint step by step (web/hint.js): each new view moves the hint on past
// the steps it carried out, or makes it stale when something else touched what it names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWeb } from "./load.mjs";

const { newHint, followHint, hintMarks, hintMeldId, stepHint } = await loadWeb("hint.js");

/** A hand view for seat "Ada": her hand and staging area, the melds {id: cards}. */
function view(hand, staging, melds, result = null) {
  return {
    hand, result,
    players: [{ name: "Ada", staging }, { name: "Bea", staging: ["KD"] }],
    table: Object.entries(melds).map(([id, cards]) => ({ id: Number(id), cards })),
  };
}

// Lay 5H 6H 7H as a new meld (n1), then move the 8H of meld 1 onto it.
const REPLY = {
  type: "hint", cards: ["5H", "6H", "7H"], moved: 1,
  steps: [
    { do: "stage", card: "5H" }, { do: "stage", card: "6H" }, { do: "stage", card: "7H" },
    { do: "lay", cards: ["5H", "6H", "7H"], creates: "n1" },
    { do: "move", card: "8H", meld: 1, to: "n1" },
  ],
};
const MELDS = { 1: ["8H", "8S", "8D", "8C"], 2: ["2C", "3C", "4C"] };

test("the steps the player carries out move the hint on; a meld a step made gets its id; the last step ends it", () => {
  let hint = newHint(REPLY, view(["5H", "6H", "7H", "QS"], [], MELDS), "Ada");
  assert.deepEqual([...hintMarks(hint).hand], [["5H", 1]], "the first step highlights only its card");
  hint = followHint(hint, view(["6H", "7H", "QS"], ["5H"], MELDS), "Ada");
  assert.equal(hint.done, 1);
  assert.equal(hint.index, 1);
  hint = followHint(hint, view(["QS"], ["5H", "6H", "7H"], MELDS), "Ada");
  assert.equal(hint.done, 3, "two steps carried out in one view");
  const marks = hintMarks(hint);
  assert.deepEqual([...marks.staging].sort(), [["5H", 1], ["6H", 1], ["7H", 1]]);
  assert.equal(marks.newMeld, true);
  assert.equal(hintMeldId(hint, "n1"), null, "not made yet");
  hint = followHint(hint, view(["QS"], [], { ...MELDS, 7: ["5H", "6H", "7H"] }), "Ada");
  assert.equal(hint.done, 4);
  assert.equal(hintMeldId(hint, "n1"), 7);
  assert.equal(hintMeldId(hint, 2), 2);
  const move = hintMarks(hint);
  assert.deepEqual([...move.table], ["1:8H"]);
  assert.deepEqual([...move.melds].sort(), [1, 7]);
  assert.equal(move.newMeld, false);
  const last = followHint(hint, view(["QS"], [], { 1: ["8S", "8D", "8C"], 2: MELDS[2], 7: ["5H", "6H", "7H", "8H"] }), "Ada");
  assert.equal(last, null, "carried out to the end: the hint goes");
});

test("anything else that touches my cards or a meld the hint names makes it stale; other melds do not", () => {
  let hint = newHint(REPLY, view(["5H", "6H", "7H", "QS"], [], MELDS), "Ada");
  hint = followHint(hint, view(["5H", "6H", "7H", "QS"], [], { ...MELDS, 2: ["2C", "3C", "4C", "5C"] }), "Ada");
  assert.equal(hint.stale, false, "a meld the hint does not name changed");
  hint = followHint(hint, view(["5H", "6H", "7H", "QS"], [], { ...MELDS, 1: ["8S", "8D", "8C"] }), "Ada");
  assert.equal(hint.stale, true, "the 8H the last step moves was taken");
  assert.equal(hintMarks(hint).hand.size, 0, "a stale hint highlights nothing");
  assert.equal(followHint(hint, view(["QS"], ["5H", "6H", "7H"], MELDS), "Ada"), hint, "and stays stale");

  let other = newHint(REPLY, view(["5H", "6H", "7H", "QS"], [], MELDS), "Ada");
  other = followHint(other, view(["5H", "6H", "7H"], ["QS"], MELDS), "Ada");
  assert.equal(other.stale, true, "a card staged that no step names");
});

test("the hand ending drops the hint; stepping stays between the steps done and the last", () => {
  const hint = newHint(REPLY, view(["5H", "6H", "7H"], [], MELDS), "Ada");
  assert.equal(followHint(hint, view(["5H", "6H", "7H"], [], MELDS, { winner: "Bea" }), "Ada"), null);
  assert.equal(followHint(null, view([], [], {}), "Ada"), null);
  const h2 = followHint(newHint(REPLY, view(["5H", "6H", "7H"], [], MELDS), "Ada"), view(["6H", "7H"], ["5H"], MELDS), "Ada");
  assert.equal(stepHint(h2, -1).index, 1, "not back before a step carried out");
  assert.equal(stepHint(h2, 10).index, 4);
  assert.deepEqual([...hintMarks(h2).table], ["1:8H"], "a step ahead shows its own highlights");
});

test("a hint reply's advice is kept for the hint panel", () => {
  const advice = { code: "hold_back", cards: ["9S"] };
  assert.deepEqual(newHint({ ...REPLY, advice }, view([], [], {}), "Ada").advice, advice);
  assert.equal(newHint(REPLY, view([], [], {}), "Ada").advice, null);
});
