// A classic table's actions: what a click, a drop (dnd.js), a button or a key asks, as the
// classic commands of docs/protocol.md (CLASSIC_SPECS: lay, add, move, free, swap, reset, end,
// draw, pass, ready, leave, leave_game). Nothing changes until the server's next view; a
// refused End turn keeps the engine's sentence beside the buttons (CS.refusal).
//
// Clicks: select hand cards, then click a meld (add) or New meld (lay); select a table card
// or the loose joker, then click a meld or New meld (move); one hand card (or a table card)
// and a table joker selected: Free the joker (or Swap it into the hand, freed_joker "keep").
// Drags: the same, and a real card dropped on a joker frees it.
import { t, refusalText } from "./i18n.js";
import { toast, confirmDialog, cssKey, oncePending } from "./ui.js";
import { moveInOrder } from "./cards.js";
import { legalNow, jokerFace } from "./classicview.js";
import { CS, markNewsSeen } from "./classicstate.js";
import { S } from "./state.js";
import { render, renderNow, announce } from "./render.js";
import { Actions, keepOrder } from "./actions.js";

const REPEAT_MS = 300;
let lastTurnCmd = -Infinity;
const drawPending = oncePending(() => send(view().stock > 0 ? [["draw", {}]] : [["pass", {}]]), () => render());

/** Send commands in order, stopping at the first refusal (kept in CS.refusal, and shown). */
async function send(cmds) {
  if (!S.conn) return false;
  for (const [what, fields] of cmds) {
    const res = await S.conn.command(what, fields);
    if (!res.ok) {
      // The sentence stays by the buttons (classicdock.js), not in the passing message box.
      const box = document.getElementById("toast");
      if (box && res.code) box.hidden = true;
      CS.refusal = { code: res.code, message: res.message || "", what };
      CS.refusalVersion = S.game ? S.game.version : null;
      render();
      return false;
    }
  }
  return true;
}

function view() { return S.game; }
function focusId(id) { const el = document.getElementById(id); if (el) el.focus(); }
function myTurn() { return legalNow(view()).myTurn; }
function sel(zone) { return CS.sel.filter((s) => s.zone === zone); }

function notMyTurn() {
  toast(t("ct.not_your_turn"), "info");
  return false;
}

/** The selected hand cards' faces, in hand order. */
function handFaces(items) { return items.map((s) => s.face); }

/** A table card (or the loose joker) as a move's fields. */
function moveFrom(item) {
  return item.zone === "loose" ? { card: "JK", meld: "loose" } : { card: item.face, meld: item.meld };
}

/** What putting `items` on `target` ({kind: "meld", meld} | {kind: "new"} | {kind: "joker", meld, face}) sends. */
function commandsFor(items, target) {
  if (!items.length) return [];
  const zone = items[0].zone;
  if (target.kind === "joker") {
    const real = items.length === 1 && !jokerFace(items[0].face).joker;
    if (real && zone === "hand") return [["free", { card: items[0].face, meld: target.meld }]];
    if (real && zone === "table" && items[0].meld !== target.meld) return [["free", { card: items[0].face, meld: target.meld, from: items[0].meld }]];
    target = { kind: "meld", meld: target.meld };
  }
  if (zone === "hand") {
    if (target.kind === "new") return [["lay", { cards: handFaces(items) }]];
    return items.map((s) => ["add", { card: s.face, meld: target.meld }]);
  }
  const item = items[0];
  const to = target.kind === "new" ? "new" : target.meld;
  if (item.zone === "table" && to === item.meld) return [];
  const from = moveFrom(item);
  return [["move", { card: from.card, meld: from.meld, to }]];
}

async function putOn(items, target) {
  if (!myTurn()) return notMyTurn();
  const cmds = commandsFor(items, target);
  CS.sel = [];
  render();
  if (!cmds.length) return false;
  return send(cmds);
}

function toggle(item) {
  const i = CS.sel.findIndex((s) => s.zone === item.zone && s.face === item.face && s.occ === item.occ && s.meld === item.meld);
  if (i >= 0) { CS.sel.splice(i, 1); return; }
  if (item.zone === "hand") CS.sel = CS.sel.filter((s) => s.zone === "hand" || (s.zone === "table" && jokerFace(s.face).joker)).concat([item]);
  else if (item.zone === "table" && jokerFace(item.face).joker && CS.sel.length === 1 && !jokerFace(CS.sel[0].face).joker) CS.sel = [CS.sel[0], item];
  else CS.sel = [item];
}

/** Selected: one real card (hand or table) and one table joker: what Free / Swap would do. */
export function jokerPair() {
  const joker = CS.sel.find((s) => s.zone === "table" && jokerFace(s.face).joker);
  const real = CS.sel.find((s) => s !== joker && !jokerFace(s.face).joker);
  if (!joker || !real || CS.sel.length !== 2) return null;
  return { joker, real };
}

export const ClassicActions = {
  isSelected(zone, face, occ, meld) {
    return CS.sel.some((s) => s.zone === zone && s.face === face && s.occ === occ && (zone !== "table" || s.meld === meld));
  },
  selection: () => CS.sel,

  /** A card was clicked or activated (Enter/Space). */
  activateCard(zone, face, occ, meld) {
    if (!S.seat || S.spectator) return;
    const item = { zone, face, occ, meld: zone === "table" ? meld : undefined };
    if (zone === "table" && myTurn() && CS.sel.length && !jokerFace(face).joker) {
      // Cards selected, a table card clicked: onto its meld (as clicking the meld).
      const first = CS.sel[0];
      if (!(first.zone === "table" && first.meld === meld)) return putOn(CS.sel, { kind: "meld", meld });
    }
    if (zone === "table" && myTurn() && CS.sel.length && jokerFace(face).joker) {
      const first = CS.sel[0];
      if (first.zone === "loose" || (first.zone === "table" && jokerFace(first.face).joker) || sel("hand").length > 1) {
        return putOn(CS.sel, { kind: "meld", meld });
      }
    }
    if (zone === "loose" && !myTurn()) return;
    toggle(item);
    render();
  },

  /** A meld box or the New meld tile was clicked or activated. */
  activateZone(kind, meld) {
    if (!S.seat || S.spectator) return;
    if (kind === "hand") { CS.sel = []; render(); return; }
    if (!CS.sel.length) {
      if (kind === "new" || kind === "meld") toast(t("ct.select_first"), "info");
      return;
    }
    const pair = jokerPair();
    const items = pair ? [pair.real] : CS.sel;
    return putOn(items, kind === "new" ? { kind: "new" } : { kind: "meld", meld });
  },

  /** Drag payload for a pressed card (dnd.js): the selection when the card is in it. */
  payloadFor(el) {
    const zone = el.dataset.zone;
    if (!zone || !S.seat || S.spectator) return null;
    const face = el.dataset.face, occ = parseInt(el.dataset.occ, 10);
    const meld = el.dataset.meld ? parseInt(el.dataset.meld, 10) : undefined;
    let items;
    if (zone === "hand" && ClassicActions.isSelected(zone, face, occ, meld)) items = sel("hand");
    else items = [{ zone, face, occ, meld: zone === "table" ? meld : undefined }];
    const elements = items.map((s) => document.querySelector(`[data-key="${cssKey(s)}"]`)).filter(Boolean);
    return { items, elements };
  },

  onDrop(payload, targetEl, x) {
    const kind = targetEl.dataset.drop;
    const items = payload.items;
    if (kind === "hand") {
      if (items[0].zone !== "hand") return;
      const cards = [...targetEl.querySelectorAll(".card[data-zone='hand']")];
      let index = cards.length;
      for (let i = 0; i < cards.length; i++) {
        const r = cards[i].getBoundingClientRect();
        if (x < r.left + r.width / 2) { index = i; break; }
      }
      keepOrder(moveInOrder(S.handOrder, items, index));
      CS.sel = [];
      render();
      return;
    }
    const meld = targetEl.dataset.meld ? parseInt(targetEl.dataset.meld, 10) : undefined;
    if (kind === "joker") { putOn(items, { kind: "joker", meld, face: targetEl.dataset.face }); return; }
    if (kind === "new" || kind === "meld") putOn(items, { kind, meld });
  },

  // The hand's own order is the same at both tables (actions.js).
  shiftHandCard(face, occ, delta) { Actions.shiftHandCard(face, occ, delta); },
  sort(mode) { Actions.sort(mode); },

  clearSelection() { CS.sel = []; render(); },
  toggleHelp() { S.showHelp = !S.showHelp; render(); },
  // The hand's end: the result put aside to look at the final table, and back (Show the result).
  hideResult() { CS.resultAside = view() ? view().match.hand : null; renderNow(); focusId("btn-show-result"); },
  showResult() { CS.resultAside = null; renderNow(); focusId("btn-hide-result"); },
  // "Time's up: …" (C20, C31) read: the line goes until another turn is ended for me.
  dismissNews(seq) { markNewsSeen(seq); render(); },

  /** Free the selected joker with the selected real card (C11): it becomes loose. */
  freeJoker() {
    const pair = jokerPair();
    if (!pair || !myTurn()) return false;
    const f = { card: pair.real.face, meld: pair.joker.meld, from: pair.real.meld };
    CS.sel = [];
    return send([pair.real.zone === "table" ? ["free", { card: f.card, meld: f.meld, from: f.from }] : ["free", { card: f.card, meld: f.meld }]]);
  },
  /** Swap: the hand card takes the joker's place, the joker goes to the hand (C12, "keep"). */
  swapJoker() {
    const pair = jokerPair();
    if (!pair || !myTurn() || pair.real.zone !== "hand") return false;
    CS.sel = [];
    return send([["swap", { card: pair.real.face, meld: pair.joker.meld }]]);
  },
  /** The joker `face` of meld `meld` stands for `as` (C8: a run that could lie lower or higher). */
  jokerAs(face, meld, as) {
    if (!myTurn()) return notMyTurn();
    CS.sel = [];
    return send([["move", { card: face, meld, to: meld, as }]]);
  },

  /** Draw, or Pass when the stock is empty (C14, C15): ignored while one of mine waits for
   * the server's answer (a double click or a second press on a slow phone sends one). */
  drawOrPass() {
    if (drawPending.busy()) return false;
    const L = legalNow(view());
    if (!L.myTurn) return notMyTurn();
    if (L.changed) { toast(t("ct.reset_first"), "info"); return false; }
    lastTurnCmd = performance.now();
    return drawPending();
  },
  /** Whether a Draw or Pass of mine waits for the server's answer. */
  drawBusy: () => drawPending.busy(),
  end() {
    if (!myTurn()) return notMyTurn();
    const now = performance.now();
    if (now - lastTurnCmd < REPEAT_MS) return false;
    lastTurnCmd = now;
    CS.refusal = null;
    return send([["end", {}]]).then((ok) => { if (ok) announce(t("ct.turn_ended")); return ok; });
  },
  reset() {
    if (!myTurn()) return notMyTurn();
    CS.sel = [];
    CS.refusal = null;
    return send([["reset", {}]]);
  },
  ready() {
    CS.ready = true;
    render();
    return send([["ready", {}]]).then((ok) => { if (!ok) { CS.ready = false; render(); } return ok; });
  },
  async leaveHand() {
    if (await confirmDialog(t("ct.confirm_leave"), t("ct.leave"))) send([["leave", {}]]);
  },
  async leaveGame() {
    if (await confirmDialog(t("confirm.leave_game"), t("btn.leave_game"))) send([["leave_game", {}]]);
  },
  home: () => Actions.home(),
  // The end screen's (endscreen.js endButtons): one Play again for both variants.
  playAgain: () => Actions.playAgain(),
  acceptAgain: () => Actions.acceptAgain(),
  declineAgain: () => Actions.declineAgain(),
  isAgora: () => Actions.isAgora(),
  agoraAgain: () => Actions.agoraAgain(),
  toRanking: () => Actions.toRanking(),
  playHere: () => Actions.playHere(),
  reconnectNow: () => Actions.reconnectNow(),
  isBot: (name) => Actions.isBot(name),
  addBot: () => Actions.addBot(),
  setBotLevel: (level) => Actions.setBotLevel(level),

  // keys.js's letters: D draw/pass, E end, X reset, L / N lay or move to a new meld, O sort,
  // J / K focus, ? help (R and P too: classickeys below).
  draw() { return ClassicActions.drawOrPass(); },
  cancel() { return ClassicActions.reset(); },
  lay() { return ClassicActions.toNew(); },
  toNew() {
    if (!CS.sel.length) { toast(t("ct.select_first"), "info"); return false; }
    return putOn(CS.sel, { kind: "new" });
  },
  stage() {}, unstage() {}, take() {}, stop() {}, toggleRemoved() {},
};

/** The refusal beside the buttons, in the player's language (the engine's sentence in English). */
export function refusalLine() {
  return CS.refusal ? refusalText(CS.refusal.code, CS.refusal.message) : null;
}


/** R resets the turn, P passes (keys.js has the other letters). Installed once, at boot. */
export function installClassicKeys(isClassicPage) {
  document.addEventListener("keydown", (ev) => {
    if (!isClassicPage() || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = (ev.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || document.querySelector("dialog[open]")) return;
    if (ev.key === "Escape" && CS.sel.length && !S.showHelp) { CS.sel = []; render(); return; }
    const key = ev.key.toLowerCase();
    if (key === "r") { ev.preventDefault(); ClassicActions.reset(); }
    if (key === "p") { ev.preventDefault(); ClassicActions.drawOrPass(); }
  });
}
