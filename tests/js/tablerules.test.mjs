// A classic table's choices (web/tablerules.js): the request body the create form
// sends, option values as typed, and the rules in words the invitation shows. The presets'
// values themselves are compared with engine/rules.py by tests/test_web_classic_match_presets.py.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWeb } from "./load.mjs";

const R = await loadWeb("tablerules.js");

test("Machiavelox sends only its mode, as before classic tables", () => {
  assert.deepEqual(R.createBody({ variant: "machiavelox" }, "single"), { mode: "single" });
  assert.deepEqual(R.createBody(null, "long"), { mode: "long" });
});

test("a classic table sends its preset, seats, the options changed from the preset, and bots", () => {
  const values = R.presetValues("classic_italian");
  values.jokers = 2;
  values.clock = 60;
  values.deals = 5; // a match option: sent for a match, not for one hand
  const form = { variant: "classic_italian", players: 6, values, botLevel: "shark", botCount: 3 };
  assert.deepEqual(R.createBody(form, "long"), {
    mode: "long", variant: "classic_italian", players: 6,
    options: { jokers: 2, clock: 60, deals: 5 }, bots: { level: "shark", count: 3 },
  });
  assert.deepEqual(R.createBody({ ...form, botCount: 0 }, "single"), {
    mode: "single", variant: "classic_italian", players: 6, options: { jokers: 2, clock: 60 },
  });
  // Choosing a preset fills its values: nothing changed, nothing sent.
  assert.deepEqual(R.createBody({ variant: "classic_dutch", players: 4, values: R.presetValues("classic_dutch") }, "long").options, {});
  // A fresh copy: changing it leaves the preset alone.
  R.presetValues("classic").packs = 3;
  assert.equal(R.PRESETS.classic.packs, 2);
});

test("values as typed: choices keep their type, empty is null where the option has a none", () => {
  const opt = (name) => R.OPTIONS.find((o) => o.name === name);
  assert.equal(R.parseOption(opt("packs"), "3"), 3);
  assert.equal(R.parseOption(opt("first_turn_out"), "false"), false);
  assert.equal(R.parseOption(opt("ace"), "low"), "low");
  assert.equal(R.parseOption(opt("clock"), ""), null);
  assert.equal(R.parseOption(opt("clock"), " 45 "), 45);
  assert.equal(R.parseOption(opt("max_jokers"), ""), null);
  // No "none" or not a number: sent as typed, for the server to refuse with its sentence.
  assert.equal(R.parseOption(opt("target"), ""), "");
  assert.equal(R.parseOption(opt("target"), "lots"), "lots");
  assert.equal(R.parseOption(opt("target"), "2.5"), 2.5);
});

test("seats: Dutch seats 6 only with three packs (C2)", () => {
  assert.equal(R.mostPlayers("classic_dutch", 2), 5);
  assert.equal(R.mostPlayers("classic_dutch", 3), 6);
  assert.equal(R.mostPlayers("classic", 2), 6);
});

test("the invitation names the preset, the seats, the match and every option changed", () => {
  const rules = { ...R.presetValues("classic_dutch"), preset: "classic_dutch", jokers: 2, threshold: 200 };
  const w = R.rulesInWords({ variant: "classic_dutch", size: 6, mode: "long", seats: ["Ada", "Bob"], rules });
  assert.equal(w.preset, "classic_dutch");
  assert.deepEqual(w.seats, { taken: 2, size: 6 });
  assert.deepEqual(w.changes, [{ name: "jokers", value: 2 }, { name: "threshold", value: 200 }]);
  assert.equal(w.match.end, "threshold");
  // One hand: the match options are not rules of this table.
  const one = R.rulesInWords({ variant: "classic_dutch", size: 6, mode: "single", seats: ["Ada"], rules });
  assert.deepEqual(one.changes, [{ name: "jokers", value: 2 }]);
  assert.equal(one.match, null);
  // Machiavelox: no preset, three seats.
  const m = R.rulesInWords({ variant: "machiavelox", size: 3, mode: "single", seats: ["Ada"], rules: {} });
  assert.equal(m.preset, null);
  assert.deepEqual(m.seats, { taken: 1, size: 3 });
  assert.deepEqual(R.rulesInWords({ code: "X", seats: [] }).seats, { taken: 0, size: 3 }); // an older summary
});
