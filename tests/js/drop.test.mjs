// What a drop means (web/drop.js): the commands dropping cards on a target sends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWeb } from "./load.mjs";

const { commandsFor, stagedToLay, allStaged, group } = await loadWeb("drop.js");

const hand = (face, occ = 0) => ({ zone: "hand", face, occ });
const staged = (face, occ = 0) => ({ zone: "staging", face, occ });
const onTable = (face, meld, occ = 0) => ({ zone: "table", face, occ, meld });
const pile = (face, occ = 0) => ({ zone: "pile", face, occ });

test("hand cards: staged on the staging area, added to a meld, staged then laid on New meld", () => {
  assert.deepEqual(commandsFor([hand("5H"), hand("6H")], { kind: "staging" }, null),
    [["stage", { card: "5H" }], ["stage", { card: "6H" }]]);
  assert.deepEqual(commandsFor([hand("5H")], { kind: "meld", meld: 4 }, null), [["add", { card: "5H", meld: 4 }]]);
  assert.deepEqual(commandsFor([hand("5H"), hand("6H"), hand("7H")], { kind: "new" }, null),
    [["stage", { card: "5H" }], ["stage", { card: "6H" }], ["stage", { card: "7H" }], ["lay", { cards: ["5H", "6H", "7H"] }]]);
  assert.equal(commandsFor([hand("5H")], { kind: "hand" }, null), null, "hand to hand is a local rearrangement");
});

test("tie-break pile cards play like hand cards (R19)", () => {
  assert.equal(group("pile"), "hand");
  assert.deepEqual(commandsFor([pile("9C")], { kind: "meld", meld: 2 }, null), [["add", { card: "9C", meld: 2 }]]);
});

test("staged cards: back to the hand, placed on a meld, laid as a new meld; not staged again", () => {
  assert.deepEqual(commandsFor([staged("5H")], { kind: "hand" }, null), [["unstage", { card: "5H" }]]);
  assert.deepEqual(commandsFor([staged("5H")], { kind: "meld", meld: 3 }, null), [["place", { card: "5H", meld: 3 }]]);
  assert.deepEqual(commandsFor([staged("5H"), staged("6H"), staged("7H")], { kind: "new" }, null),
    [["lay", { cards: ["5H", "6H", "7H"] }]]);
  assert.equal(commandsFor([staged("5H")], { kind: "staging" }, null), null);
});

test("a table card moves between melds or to a new one; my held card is dropped; a table card never goes to the hand", () => {
  assert.deepEqual(commandsFor([onTable("QS", 1)], { kind: "meld", meld: 2 }, null), [["move", { card: "QS", meld: 1, to: 2 }]]);
  assert.deepEqual(commandsFor([onTable("QS", 1)], { kind: "meld", meld: 1 }, null), [], "onto its own meld: nothing to do");
  assert.deepEqual(commandsFor([onTable("QS", 1)], { kind: "new" }, null), [["move", { card: "QS", meld: 1, to: "new" }]]);
  const hold = { card: "QS", meld: 1 };
  assert.deepEqual(commandsFor([onTable("QS", 1)], { kind: "meld", meld: 2 }, hold), [["drop", { to: 2 }]]);
  assert.deepEqual(commandsFor([onTable("QS", 1)], { kind: "new" }, hold), [["drop", { to: "new" }]]);
  assert.deepEqual(commandsFor([onTable("QS", 1)], { kind: "hand" }, null), { hint: "hint.table_to_hand" });
  assert.equal(commandsFor([onTable("QS", 1)], { kind: "staging" }, null), null);
  assert.equal(commandsFor([], { kind: "new" }, null), null);
});

test("fewer than 3 hand or staged cards on New meld are refused before anything is sent (§3.3, §5.1)", () => {
  const refused = { hint: "hint.new_meld_three" };
  assert.deepEqual(commandsFor([hand("5H")], { kind: "new" }, null), refused, "one hand card: no stage, no play opened");
  assert.deepEqual(commandsFor([hand("5H"), hand("6H")], { kind: "new" }, null), refused);
  assert.deepEqual(commandsFor([pile("5H"), pile("6H")], { kind: "new" }, null), refused);
  assert.deepEqual(commandsFor([staged("5H")], { kind: "new" }, null), refused);
  assert.deepEqual(commandsFor([staged("5H"), staged("6H")], { kind: "new" }, null), refused);
  // One table card may start a new meld (it is built up with others in the same play).
  assert.deepEqual(commandsFor([onTable("QS", 1)], { kind: "new" }, null), [["move", { card: "QS", meld: 1, to: "new" }]]);
});

test("a new meld is laid from the selected staged cards when several are selected, else from the whole staging area", () => {
  const staging = ["5H", "6H", "5H", "7H"];
  assert.deepEqual(allStaged(staging), [staged("5H"), staged("6H"), staged("5H", 1), staged("7H")]);
  assert.deepEqual(stagedToLay([staged("6H"), staged("7H")], staging), [staged("6H"), staged("7H")]);
  assert.deepEqual(stagedToLay([staged("6H")], staging), allStaged(staging));
  assert.deepEqual(stagedToLay([], staging), allStaged(staging));
});
