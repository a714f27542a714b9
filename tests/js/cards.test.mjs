// The hand order (web/cards.js): sorts, the player's own arrangement kept across
// views, and moving cards in it (drag within the hand, Alt+arrows).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWeb } from "./load.mjs";

const { sortBySuit, sortByRank, reconcileOrder, moveInOrder, shiftInOrder, nthIndex, countOf } = await loadWeb("cards.js");

const bag = (list) => [...list].sort().join(",");

test("by suit alternates colours (spades, hearts, clubs, diamonds), each suit by rank; by rank breaks ties by that suit order", () => {
  const hand = ["KD", "2C", "10H", "AS", "QS", "3H", "2S"];
  assert.deepEqual(sortBySuit(hand), ["AS", "2S", "QS", "3H", "10H", "2C", "KD"]);
  assert.deepEqual(sortByRank(hand), ["AS", "2S", "2C", "3H", "10H", "QS", "KD"]);
  assert.deepEqual(hand, ["KD", "2C", "10H", "AS", "QS", "3H", "2S"], "the input is not sorted in place");
});

test("a custom arrangement keeps the cards still held in place; new cards join at the end (in the view's order); two copies of a face are two cards", () => {
  const before = ["9H", "5S", "5S", "KC", "2D"];
  // 5S (one copy) and KC went; JH and another 2D came.
  const now = reconcileOrder(before, ["2D", "JH", "5S", "9H", "2D"], "custom");
  assert.deepEqual(now, ["9H", "5S", "2D", "2D", "JH"]);
  assert.equal(bag(now), bag(["2D", "JH", "5S", "9H", "2D"]));
  assert.deepEqual(reconcileOrder(before, ["KC", "9H"], "suit"), ["9H", "KC"]);
  assert.deepEqual(reconcileOrder(before, ["KC", "9H"], "rank"), ["9H", "KC"]);
});

test("moving cards within the hand puts them, in hand order, before the card that was at the drop position", () => {
  const order = ["AS", "2S", "3S", "4S", "5S"];
  // Drag 4S and 2S (selected in that order) to before 3S (index 2).
  assert.deepEqual(moveInOrder(order, [{ face: "4S", occ: 0 }, { face: "2S", occ: 0 }], 2), ["AS", "2S", "4S", "3S", "5S"]);
  // To the very start and to the end.
  assert.deepEqual(moveInOrder(order, [{ face: "5S", occ: 0 }], 0), ["5S", "AS", "2S", "3S", "4S"]);
  assert.deepEqual(moveInOrder(order, [{ face: "AS", occ: 0 }], 5), ["2S", "3S", "4S", "5S", "AS"]);
  // The second copy of a face moves, not the first.
  assert.deepEqual(moveInOrder(["7H", "KC", "7H"], [{ face: "7H", occ: 1 }], 0), ["7H", "7H", "KC"]);
  assert.deepEqual(moveInOrder(["KC", "7H", "QD", "7H"], [{ face: "7H", occ: 1 }], 1), ["KC", "7H", "7H", "QD"]);
  // A card not in the hand is ignored; the list given is not changed.
  assert.deepEqual(moveInOrder(order, [{ face: "9D", occ: 0 }], 0), order);
  assert.deepEqual(order, ["AS", "2S", "3S", "4S", "5S"]);
});

test("Alt+arrows swap a card with its neighbour and say which copy it now is; at an end nothing moves", () => {
  assert.deepEqual(shiftInOrder(["7H", "KC", "7H"], "7H", 1, -1), { order: ["7H", "7H", "KC"], occ: 1 });
  assert.deepEqual(shiftInOrder(["7H", "KC", "7H"], "7H", 0, 1), { order: ["KC", "7H", "7H"], occ: 0 });
  assert.equal(shiftInOrder(["7H", "KC"], "7H", 0, -1), null);
  assert.equal(shiftInOrder(["7H", "KC"], "KC", 0, 1), null);
  assert.equal(shiftInOrder(["7H", "KC"], "QS", 0, 1), null);
  assert.equal(nthIndex(["7H", "KC", "7H"], "7H", 1), 2);
  assert.equal(nthIndex(["7H"], "7H", 1), -1);
  assert.equal(countOf(["7H", "KC", "7H"], "7H"), 2);
});
