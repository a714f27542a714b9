// oncePending (web/ui.js): Draw and Pass go once per press. A press while the command is on
// its way, or within the repeat window after one, does nothing, and the button says so:
// busy() is true for as long as a press would be dropped, so the dock draws it disabled.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWebTree } from "./load.mjs";

const { oncePending } = await loadWebTree("ui.js");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test("a press while the command is on its way does nothing", async () => {
  let runs = 0;
  let answer;
  const go = oncePending(() => { runs += 1; return new Promise((r) => { answer = r; }); }, () => {}, 0);
  const first = go();
  assert.equal(go.busy(), true);
  assert.equal(await go(), false);
  answer(true);
  assert.equal(await first, true);
  assert.equal(runs, 1);
  assert.equal(go.busy(), false);
});

test("within the repeat window after a quick ack the button looks busy and redraws after", async () => {
  let runs = 0;
  let redraws = 0;
  const go = oncePending(async () => { runs += 1; return true; }, () => { redraws += 1; }, 80);
  assert.equal(await go(), true);
  // the ack came at once: a press now would be dropped, so busy() must say so
  assert.equal(go.busy(), true);
  assert.equal(await go(), false);
  const before = redraws;
  await sleep(120);
  assert.ok(redraws > before, "the button is redrawn when the window ends");
  assert.equal(go.busy(), false);
  assert.equal(await go(), true);
  assert.equal(runs, 2);
});
