// Views as changes (docs/protocol.md, "Updates as changes"): the browser's one applier.
// The same rules as server/changes.py: an update carries the changes of the shared view (the
// same for every seat: `set`, `hand`) since version - 1 and `mine` (the seat's own `you`,
// `hand`).
// Views are never changed in place: each frame gives new objects for what changed and
// shares the rest (the page may hold on to the previous view, e.g. for the hint).

// HAND_VIEW lists of items with an `id`, sent as LIST_CHANGES {put, patch, del, order}.
const KEYED_LISTS = ["table", "plays"];

function applyList(items, ch) {
  const gone = new Set(ch.del || []);
  const patch = new Map((ch.patch || []).map((p) => [p.id, p]));
  let out = [];
  for (const m of items) {
    if (gone.has(m.id)) continue;
    out.push(patch.has(m.id) ? { ...m, ...patch.get(m.id) } : m);
  }
  for (const m of ch.put || []) out.push(m); // new items, in the order given
  if (ch.order) {
    const byId = new Map(out.map((m) => [m.id, m]));
    out = ch.order.map((id) => byId.get(id));
  }
  return out;
}

/** The GAME_VIEW after the changes of a frame (`set`, `hand`) and `mine`; `game` is not changed. */
export function applyChanges(game, changes, mine) {
  const next = { ...game, ...(changes.set || {}) };
  const hc = changes.hand;
  if (hc) {
    const old = next.hand;
    const hand = { ...old, ...hc };
    if (hc.players) {
      const players = hc.players;
      hand.players = old.players.map((p) =>
        Object.prototype.hasOwnProperty.call(players, p.name) ? { ...p, ...players[p.name] } : p);
    }
    for (const key of KEYED_LISTS) if (hc[key]) hand[key] = applyList(old[key], hc[key]);
    next.hand = hand;
  }
  if (mine && next.hand) next.hand = { ...next.hand, ...mine };
  return next;
}

/**
 * A client's state after an `update` or `snapshot` frame: {ok, game}. `ok` is false on a gap
 * (changes while `game`, the view of `version`, is not the view of the frame's version - 1):
 * keep `game` and ask for a snapshot (`{"type": "resume", "last_version": version}`). A replay
 * update (missed events; a snapshot follows) leaves the state as it is.
 */
export function applyFrame(game, version, frame) {
  if (frame.type === "snapshot" || "game" in frame) return { ok: true, game: frame.game ?? null };
  if (frame.replay || !("set" in frame)) return { ok: true, game };
  if (!game || version === null || version === undefined || frame.version !== version + 1) return { ok: false, game };
  return { ok: true, game: applyChanges(game, frame, frame.mine) };
}

/**
 * An update's events with the `t` and `hand` they leave out put back from `game`, the view
 * after the update: an event without `t` happened at the hand view's `t`, one without `hand`
 * belongs to the view's `hand_no` (server/changes.py, full_events). `game` null: as they are.
 */
export function fullEvents(events, game) {
  if (!game) return events;
  const defaults = { hand: game.hand_no };
  if (game.hand) defaults.t = game.hand.t;
  return events.map((e) => ("t" in e && "hand" in e ? e : { ...defaults, ...e }));
}
