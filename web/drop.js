// What a drop (or a click on a target with cards selected) means, as the commands to send.
// Pure: no DOM, no state; run by tests/js/drop.test.mjs under `node --test`.
//
// An item is {zone: "hand" | "staging" | "table" | "pile", face, occ, meld}: a card of my hand,
// of my staging area, of a meld on the table, or of another tied player's face-up pile in a
// tie-break (R19: those play like hand cards). A target is {kind: "staging" | "hand" | "meld" |
// "new", meld}. Commands are [do, fields] pairs (docs/protocol.md, "Commands").

/** The selection group of a zone: pile cards are chosen together with hand cards. */
export function group(zone) { return zone === "pile" ? "hand" : zone; }

/** The fewest cards a new meld is laid with (§3.3, §5.1; the engine refuses fewer: too_few_cards). */
export const MIN_MELD = 3;

function countOf(list, face) { let n = 0; for (const f of list || []) if (f === face) n++; return n; }

/**
 * What dropping `items` on `target` asks the server, with `hold` my current hold ({card, meld}
 * or null). Returns null (the drop means nothing there), [] (a no-op: the card is already
 * there), a list of commands, or {hint: key} (a sentence to show instead, by i18n key).
 */
export function commandsFor(items, target, hold) {
  if (!items.length) return null;
  const zone = group(items[0].zone);
  const faces = items.map((s) => s.face);
  if (target.kind === "staging") {
    if (zone === "hand") return faces.map((f) => ["stage", { card: f }]);
    return null;
  }
  if (target.kind === "hand") {
    if (zone === "staging") return faces.map((f) => ["unstage", { card: f }]);
    if (zone === "table") return { hint: "hint.table_to_hand" };
    return null;
  }
  if (target.kind === "meld") {
    if (zone === "hand") return faces.map((f) => ["add", { card: f, meld: target.meld }]);
    if (zone === "staging") return faces.map((f) => ["place", { card: f, meld: target.meld }]);
    if (zone === "table") {
      const it = items[0];
      if (hold && hold.card === it.face && hold.meld === it.meld) return [["drop", { to: target.meld }]];
      if (it.meld === target.meld) return [];
      return [["move", { card: it.face, meld: it.meld, to: target.meld }]];
    }
  }
  if (target.kind === "new") {
    // A new meld needs 3 or more cards (§3.3, §5.1; the engine: too_few_cards): refused here, before anything is
    // sent (staging one card would open a play for nothing).
    if ((zone === "hand" || zone === "staging") && faces.length < MIN_MELD) return { hint: "hint.new_meld_three" };
    if (zone === "hand") return faces.map((f) => ["stage", { card: f }]).concat([["lay", { cards: faces }]]);
    if (zone === "staging") return [["lay", { cards: faces }]];
    if (zone === "table") {
      const it = items[0];
      if (hold && hold.card === it.face && hold.meld === it.meld) return [["drop", { to: "new" }]];
      return [["move", { card: it.face, meld: it.meld, to: "new" }]];
    }
  }
  return null;
}

/** Every card of my staging area (faces in order) as items. */
export function allStaged(staging) {
  return (staging || []).map((f, i) => ({ zone: "staging", face: f, occ: countOf(staging.slice(0, i), f) }));
}

/** The staged cards a new meld is laid from: the selected staged ones (`selected`) when
 * several are selected, otherwise all of them (one selected staged card alone never makes a meld). */
export function stagedToLay(selected, staging) {
  return selected.length > 1 ? selected : allStaged(staging);
}
