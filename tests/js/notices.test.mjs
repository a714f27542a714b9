// A chain undo's notice (web/notices.js describeEvent): why the cards came back,
// and, when the cause play was cancelled, that the play fell with it (R8, §5.5).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWebTree } from "./load.mjs";

const N = await loadWebTree("notices.js");
const I = await loadWebTree("i18n.js");

const undo = (reason) => ({ seq: 9, kind: "chain_undo", player: "C", cause: 4, cause_player: "A",
  cards_back: ["10C"], wounds: [], cause_reason: reason });

test("a play that fell with a cancelled play says so, to its player and to the others", () => {
  I.setLang("en");
  const mine = N.describeEvent(undo("cancel"), "C");
  assert.equal(mine.level, "alert");
  assert.match(mine.text, /came back to your hand: your play fell with A's play #4, which was cancelled\./);
  assert.match(N.describeEvent(undo("cancel"), "B").text, /went back to C's hand \(it fell with A's play #4, which was cancelled\)/);
});

test("a chain undo from a play that failed says it failed", () => {
  I.setLang("en");
  const t = N.describeEvent(undo("end"), "C").text;
  assert.match(t, /because A's play #4 failed\./);
  assert.doesNotMatch(t, /cancelled/);
});

test("the cancelled-play notice is in every language", () => {
  for (const lang of ["it", "nl"]) {
    I.setLang(lang);
    const t = N.describeEvent(undo("cancel"), "C").text;
    assert.doesNotMatch(t, /ev\.chain_undo/, `${lang}: a key, not a sentence`);
    assert.notEqual(t, N.describeEvent(undo("end"), "C").text);
  }
  I.setLang("en");
});
