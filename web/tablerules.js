// Classic tables' rules as the create form and the invitation need them (pure: imports
// nothing). The presets are C2 (/work/shared/RULINGS-CLASSIC.md; engine/rules.py
// CLASSIC_PRESETS), the options and their values C1 (engine/rules.py OPTION_FIELDS and
// _option_value; values as engine/classic/view.py options_of prints them).
// tests/test_web_classic_rules.py compares every value here with engine/rules.py.

/** The C2 presets by the `variant` name POST /api/tables takes. */
export const PRESETS = {
  classic: {
    packs: 2, jokers: 4, hand: 13, ace: "low_or_high", max_jokers: null, min_real: 2,
    freed_joker: "replay", opening: 0, clock: null, absence: 90, pause: 60, first_turn_out: true,
    scoring: "winner", values: "high", match: "target", target: 100, deals: 3, threshold: 100,
    max_hands: 40, stock_out: "pass",
  },
  classic_italian: {
    packs: 2, jokers: 4, hand: 13, ace: "low_or_high", max_jokers: 1, min_real: 2,
    freed_joker: "replay", opening: 0, clock: null, absence: 90, pause: 60, first_turn_out: false,
    scoring: "winner", values: "high", match: "deals", target: 100, deals: 3, threshold: 100,
    max_hands: null, stock_out: "pass",
  },
  classic_dutch: {
    packs: 2, jokers: 0, hand: 13, ace: "low", max_jokers: null, min_real: 2,
    freed_joker: "keep", opening: 0, clock: 120, absence: 90, pause: 60, first_turn_out: true,
    scoring: "penalty", values: "low", match: "threshold", target: 100, deals: 3, threshold: 100,
    max_hands: null, stock_out: "fewest",
  },
};

/** Seats a preset allows with two packs (C2: Dutch seats 6 only with three packs). */
export const MOST_PLAYERS_TWO_PACKS = { classic: 6, classic_italian: 6, classic_dutch: 5 };
export const FEWEST_PLAYERS = 2;
export const MOST_PLAYERS = 6;
export const DEFAULT_PLAYERS = 4;

/**
 * C1's options in the form's order: {name, kind, values?, lowest?, most?, none?, group}.
 * kind "choice": one of `values`; "count": a whole number from `lowest` (to `most`; `none`: empty is
 * null, "no cap"); "seconds": a number of seconds from `lowest` to 86400 (`none`: empty is null, "none").
 * group "match" options only count for a match (mode "long").
 */
export const OPTIONS = [
  { name: "packs", kind: "choice", values: [2, 3] },
  { name: "jokers", kind: "choice", values: [0, 2, 4, 6] },
  { name: "hand", kind: "choice", values: [5, 7, 10, 13, 15] },
  { name: "ace", kind: "choice", values: ["low_or_high", "low"] },
  { name: "max_jokers", kind: "count", lowest: 1, none: true },
  { name: "min_real", kind: "choice", values: [2, 3] },
  { name: "freed_joker", kind: "choice", values: ["replay", "keep"] },
  { name: "opening", kind: "count", lowest: 0, most: 150 },
  { name: "clock", kind: "seconds", lowest: 10, none: true },
  { name: "absence", kind: "seconds", lowest: 10 },
  { name: "pause", kind: "seconds", lowest: 5 },
  { name: "first_turn_out", kind: "choice", values: [true, false] },
  { name: "scoring", kind: "choice", values: ["winner", "penalty"] },
  { name: "values", kind: "choice", values: ["high", "low"] },
  { name: "stock_out", kind: "choice", values: ["pass", "fewest"] },
  { name: "match", kind: "choice", values: ["target", "deals", "threshold", "single"], group: "match" },
  { name: "target", kind: "count", lowest: 1, most: 10000, group: "match" },
  { name: "deals", kind: "count", lowest: 1, most: 100, group: "match" },
  { name: "threshold", kind: "count", lowest: 1, most: 10000, group: "match" },
  { name: "max_hands", kind: "count", lowest: 1, most: 1000, none: true, group: "match" },
];

export const OPTION_NAMES = OPTIONS.map((o) => o.name);

export function isClassic(variant) {
  return Object.prototype.hasOwnProperty.call(PRESETS, variant);
}

/** A fresh copy of a preset's values (an unknown name: the classic preset's). */
export function presetValues(variant) {
  return { ...(PRESETS[variant] || PRESETS.classic) };
}

/** The most seats `packs` allow under `variant` (C2). */
export function mostPlayers(variant, packs) {
  return packs > 2 ? MOST_PLAYERS : (MOST_PLAYERS_TWO_PACKS[variant] || MOST_PLAYERS);
}

/** An option's value as typed in the form (a string) -> the value sent: choices keep their
 * type (2, true, "low"), an empty count or seconds field is null where the option has a
 * "none", a number is a number; anything else is sent as typed (the server refuses it). */
export function parseOption(opt, text) {
  if (opt.kind === "choice") {
    const found = opt.values.find((v) => String(v) === String(text));
    return found === undefined ? text : found;
  }
  const s = String(text ?? "").trim();
  if (s === "") return opt.none ? null : s;
  const n = Number(s);
  return Number.isFinite(n) ? n : s;
}

/** The options that differ from the preset's (what the request sends, what the invitation
 * names). In a single hand (mode "single") the match options are left out. */
export function changedOptions(variant, values, mode = "long") {
  const base = presetValues(variant);
  const out = {};
  for (const opt of OPTIONS) {
    if (mode === "single" && opt.group === "match") continue;
    if (!(opt.name in values)) continue;
    if (values[opt.name] !== base[opt.name]) out[opt.name] = values[opt.name];
  }
  return out;
}

/**
 * The body of POST /api/tables for the form's choices (docs/protocol.md): Machiavelox sends
 * `{mode}` only, as before; classic adds `variant`, `players`, `options` (the changes from
 * the preset) and `bots` ({level, count}) when bots fill seats.
 */
export function createBody(form, mode) {
  if (!form || !isClassic(form.variant)) return { mode };
  const body = { mode, variant: form.variant, players: form.players,
    options: changedOptions(form.variant, form.values || {}, mode) };
  if (form.botCount > 0) body.bots = { level: form.botLevel === "shark" ? "shark" : "casual", count: form.botCount };
  return body;
}

/**
 * A table's rules in words, for the invitation: what t() keys and values to show, from the
 * summary's `variant`, `size`, `rules` (options_of + "preset"), `seats` and `mode`.
 * Returns {variant, preset, seats: {taken, size}, mode, changes: [{name, value}]} where
 * `preset` is null for Machiavelox and `changes` lists every option that differs from the
 * preset's (in OPTIONS' order; match options only for a match).
 */
export function rulesInWords(summary) {
  const variant = summary && typeof summary.variant === "string" ? summary.variant : "machiavelox";
  const seats = summary && Array.isArray(summary.seats) ? summary.seats.length : 0;
  const size = summary && typeof summary.size === "number" ? summary.size : 3;
  const mode = summary && summary.mode === "long" ? "long" : "single";
  const rules = summary && summary.rules && typeof summary.rules === "object" ? summary.rules : {};
  const presetName = isClassic(rules.preset) ? rules.preset : isClassic(variant) ? variant : null;
  if (!presetName) return { variant, preset: null, seats: { taken: seats, size }, mode, changes: [] };
  const values = {};
  for (const name of OPTION_NAMES) if (name in rules) values[name] = rules[name];
  const changes = Object.entries(changedOptions(presetName, values, mode))
    .map(([name, value]) => ({ name, value }));
  return { variant: "classic", preset: presetName, seats: { taken: seats, size }, mode, changes,
    match: mode === "long" ? { end: values.match ?? PRESETS[presetName].match, values } : null };
}
