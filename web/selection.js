// The selection: the cards the player picked (S.selection), all of one group (hand and
// tie-break pile cards together, staged cards, or one table card: §6).
import { S, meView, heldByOther } from "./state.js";
import { countOf } from "./cards.js";
import { group, stagedToLay as layFrom, allStaged as allOf } from "./drop.js";

export function clearSelection() { S.selection = []; }

/** The selected items of a group ("hand" includes pile cards). */
export function selectedIn(zone) { return S.selection.filter((s) => group(s.zone) === zone); }

export function isSelected(zone, face, occ, meld) {
  return S.selection.some((s) => s.zone === zone && s.face === face && s.occ === occ && (zone !== "table" || s.meld === meld));
}

/** Select or unselect `item`; a card of another group starts a new selection. */
export function toggle(item) {
  const i = S.selection.findIndex((s) => s.zone === item.zone && s.face === item.face && s.occ === item.occ && s.meld === item.meld);
  if (i >= 0) { S.selection.splice(i, 1); return; }
  if (item.zone === "table") S.selection = [item]; // one table card at a time (§6)
  else S.selection = S.selection.filter((s) => group(s.zone) === group(item.zone)).concat([item]);
}

/** All my staged cards as items. */
export function allStaged() {
  const me = meView();
  return allOf(me ? me.staging : []);
}

/** The staged cards a new meld is laid from (drop.js stagedToLay). */
export function stagedToLay() {
  const me = meView();
  return layFrom(selectedIn("staging"), me ? me.staging : []);
}

/** Keep only selected cards that are still where they were (after a new view). */
export function pruneSelection() {
  const hv = S.game && S.game.hand;
  if (!hv) { S.selection = []; return; }
  const me = hv.players.find((p) => p.name === S.seat);
  S.selection = S.selection.filter((s) => {
    if (s.zone === "hand") return countOf(S.handOrder, s.face) > s.occ;
    if (s.zone === "staging") return me && countOf(me.staging, s.face) > s.occ;
    if (s.zone === "pile") {
      const piles = hv.tiebreak ? Object.entries(hv.tiebreak.pile).filter(([n]) => n !== S.seat).flatMap(([, f]) => f) : [];
      return countOf(piles, s.face) > s.occ;
    }
    if (s.zone === "table") {
      const m = hv.table.find((x) => x.id === s.meld);
      return m && countOf(m.cards, s.face) > s.occ && !heldByOther(hv, s.face, s.meld);
    }
    return false;
  });
}
