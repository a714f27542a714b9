// The browser's applier (web/changes.js) on the frames the server sends: run by
// tests/test_views_changes.py (`node --test tests/js` with MVX_FRAMES naming the fixture it
// writes: {game: {seat: [[frame, view after it, whole events or null], ...]}}), or by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

// Loaded as an ES module whatever node's default for .js files (the page loads it as one).
const source = readFileSync(new URL("../../web/changes.js", import.meta.url), "utf8");
const { applyFrame, fullEvents } = await import("data:text/javascript;charset=utf-8," + encodeURIComponent(source));

const fixture = process.env.MVX_FRAMES;

test("every seat's view built from the recorded frames is the server's full view", { skip: !fixture }, () => {
  const games = JSON.parse(readFileSync(fixture, "utf8"));
  let n = 0;
  for (const [name, seats] of Object.entries(games)) {
    for (const [seat, frames] of Object.entries(seats)) {
      let game = null;
      let version = null;
      for (const [frame, want, events] of frames) {
        const before = JSON.stringify(game);
        const next = applyFrame(game, version, frame);
        assert.ok(next.ok, `${name}, ${seat}: a gap at version ${frame.version}`);
        assert.equal(JSON.stringify(game), before, "the previous view is not changed in place");
        game = next.game;
        version = frame.version;
        assert.deepStrictEqual(game, want, `${name}, ${seat}, version ${frame.version}`);
        if (events) {
          // The events leave out the t and hand the view says: put back, they are whole.
          assert.deepStrictEqual(fullEvents(frame.events, game), events, `${name}, ${seat}, events of ${frame.version}`);
        }
        n += 1;
      }
    }
  }
  console.log(`frames ${n}`);
});

test("a frame that does not follow the view held is a gap; a replay changes nothing", () => {
  const game = { phase: "hand", game_t: 1, hand: null };
  assert.deepStrictEqual(applyFrame(game, 7, { type: "update", version: 9, set: { game_t: 2 } }), { ok: false, game });
  assert.deepStrictEqual(applyFrame(null, null, { type: "update", version: 9, set: { game_t: 2 } }), { ok: false, game: null });
  assert.deepStrictEqual(applyFrame(game, 7, { type: "update", version: 8, events: [], replay: true }), { ok: true, game });
  assert.deepStrictEqual(applyFrame(game, 7, { type: "update", version: 8, set: { game_t: 2 } }).game, { ...game, game_t: 2 });
});
