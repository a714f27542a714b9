// Play again (web/again.js) on the frames server/again.py sends (stub frames here; the
// browser test test_web_table_ux.py plays it against the real server).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWeb } from "./load.mjs";

const { againOf, againView } = await loadWeb("again.js");

test("an again frame or a summary's again is read; anything else is no Play again", () => {
  assert.deepEqual(againOf({ type: "again", code: "NEW123", by: "Ada", declined: ["Cy"] }),
    { code: "NEW123", by: "Ada", declined: ["Cy"] });
  assert.deepEqual(againOf({ type: "again", code: "NEW123", by: "Ada" }), { code: "NEW123", by: "Ada", declined: [] });
  assert.equal(againOf(null), null);
  assert.equal(againOf({ type: "again", code: "" }), null);
  assert.equal(againOf({ by: "Ada" }), null);
});

test("nobody asked: Play again; someone else asked: accept or decline; the one who asked is offered it again", () => {
  assert.deepEqual(againView(null, "Bea"), { mode: "offer", by: null, others: [] });
  const ask = againOf({ code: "NEW123", by: "Ada", declined: [] });
  assert.deepEqual(againView(ask, "Bea"), { mode: "ask", by: "Ada", others: [] });
  assert.deepEqual(againView(ask, "Ada"), { mode: "offer", by: "Ada", others: [] });
});

test("a decline shows at once here, and the server's frame tells everyone else who declined", () => {
  const ask = againOf({ code: "NEW123", by: "Ada", declined: [] });
  assert.equal(againView(ask, "Bea", true).mode, "declined");
  const after = againOf({ code: "NEW123", by: "Ada", declined: ["Bea"] });
  assert.deepEqual(againView(after, "Bea"), { mode: "declined", by: "Ada", others: [] });
  assert.deepEqual(againView(after, "Cy"), { mode: "ask", by: "Ada", others: ["Bea"] });
  assert.deepEqual(againView(after, "Ada"), { mode: "offer", by: "Ada", others: ["Bea"] });
});
