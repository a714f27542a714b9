// The table's actions: what a click, a drop, a button or a key asks (table.js, dnd.js and
// keys.js call these). A command is sent and nothing changes until the server's next view
// arrives; a refusal shows the server's sentence (or its translation) and changes nothing.
import { t, refusalText } from "./i18n.js";
import { api, ApiError } from "./net.js";
import { toast, confirmDialog, cssKey, oncePending } from "./ui.js";
import { sortBySuit, sortByRank, moveInOrder, shiftInOrder } from "./cards.js";
import { faces } from "./notices.js";
import { commandsFor, group } from "./drop.js";
import { newHint, hintMarks, hintMeldId, stepHint } from "./hint.js";
import { S, LS, save, meView, myHold, heldByOther } from "./state.js";
import { clearSelection, selectedIn, isSelected, toggle, allStaged, stagedToLay } from "./selection.js";
import { rememberBots, isBotSeat, isAgoraTable, botErrorText, errorText, forgetFinishedTable } from "./session.js";
import { render, renderNow, announce } from "./render.js";
import { navigate, pages } from "./route.js";
import { connect } from "./tableconn.js";

/** Commands one after the other, stopping at the first refusal (whose sentence shows). */
function sendSeq(cmds) {
  return (async () => {
    if (!S.conn) return false;
    for (const [what, fields] of cmds) {
      const res = await S.conn.command(what, fields);
      if (!res.ok) return false;
    }
    return true;
  })();
}

/** Carry out what dropping `items` on `target` means (drop.js); false when nothing was sent. */
async function actOn(items, target) {
  const cmds = commandsFor(items, target, myHold());
  if (cmds === null) return false;
  if (!Array.isArray(cmds)) { toast(t(cmds.hint), "info"); return false; }
  if (!cmds.length) { clearSelection(); render(); return false; }
  clearSelection();
  render();
  return sendSeq(cmds);
}

/** The hand order changed by the player: it becomes the "custom" sort, kept for this table. */
/** The player's own order of their hand, kept for this table (classicactions.js too). */
export function keepOrder(order) {
  S.handOrder = order;
  S.sortMode = "custom";
  save(LS.sort, S.sortMode);
  save(LS.order + S.code, S.handOrder);
}

/** Leave this finished table for the new one a Play again made. */
function goToNewTable(code) {
  if (typeof code !== "string" || !code) return;
  forgetFinishedTable();
  save(LS.table, code);
  navigate(`/t/${encodeURIComponent(code)}`);
}

/** A hint's advice ({code, cards}: bots/plans.py ADVICE) in words; a code this page does not
 * know yet gets the general sentence. Null without advice. */
function adviceText(advice) {
  if (!advice || typeof advice.code !== "string") return null;
  const vars = { cards: faces(Array.isArray(advice.cards) ? advice.cards : []) };
  return t("hint.advice." + advice.code, vars, null) || t("hint.advice.other", vars);
}

// Draw (§4): one at a time, from the send until its ack or refusal (a double click, a bouncing
// D key, a second press on a slow phone draw one card).
const drawOnce = oncePending(() => sendSeq([["draw", {}]]), () => render());

export const Actions = {
  isSelected,
  selectedIn,
  hasSelection: () => S.selection.length > 0,
  hintMarks: () => hintMarks(S.hint),
  hintMeldId: (ref) => hintMeldId(S.hint, ref),

  /** A card was clicked or activated with Enter/Space. */
  activateCard(zone, face, occ, meld) {
    const item = { zone, face, occ, meld: zone === "table" ? meld : undefined };
    const sel = S.selection;
    const selZone = sel.length ? group(sel[0].zone) : null;
    const hold = myHold();
    if (zone === "table") {
      if (selZone === "hand" || selZone === "staging") return actOn(sel, { kind: "meld", meld });
      if (selZone === "table" && sel[0].meld !== meld) return actOn(sel, { kind: "meld", meld });
      if (!sel.length && hold && !(hold.card === face && hold.meld === meld) && hold.meld !== meld) {
        return sendSeq([["drop", { to: meld }]]);
      }
      const hv = S.game.hand;
      if (heldByOther(hv, face, meld)) { toast(refusalText("held"), "info"); return; }
    } else if ((zone === "hand" || zone === "pile") && selZone === "staging") {
      return actOn(sel, { kind: "hand" });
    } else if (zone === "staging" && selZone === "hand") {
      return actOn(sel, { kind: "staging" });
    }
    toggle(item);
    render();
  },

  /** A zone (meld box, staging area, hand, new-meld tile) was clicked or activated. */
  activateZone(kind, meld) {
    if (kind === "new") return Actions.toNew();
    const hold = myHold();
    if (!S.selection.length) {
      if (hold && kind === "meld" && hold.meld !== meld) return sendSeq([["drop", { to: meld }]]);
      return;
    }
    return actOn(S.selection, { kind, meld });
  },

  /** Drag payload for a pressed card element (dnd.js). */
  payloadFor(el) {
    const zone = el.dataset.zone;
    if (!zone || !S.seat || S.spectator) return null;
    const face = el.dataset.face, occ = parseInt(el.dataset.occ, 10);
    const meld = el.dataset.meld ? parseInt(el.dataset.meld, 10) : undefined;
    let items;
    if (isSelected(zone, face, occ, meld) && zone !== "table") items = selectedIn(group(zone));
    else items = [{ zone, face, occ, meld }];
    const elements = items.map((s) => document.querySelector(`[data-key="${cssKey(s)}"]`)).filter(Boolean);
    return { items, elements };
  },

  onDrop(payload, targetEl, x) {
    const kind = targetEl.dataset.drop;
    const items = payload.items;
    if (kind === "hand" && items[0].zone === "hand") {
      // Rearranging my hand: local only.
      const cardEl = [...targetEl.querySelectorAll(".card[data-zone='hand']")];
      let index = cardEl.length;
      for (let i = 0; i < cardEl.length; i++) {
        const r = cardEl[i].getBoundingClientRect();
        if (x < r.left + r.width / 2) { index = i; break; }
      }
      Actions.moveInHand(items, index);
      return;
    }
    const meld = targetEl.dataset.meld ? parseInt(targetEl.dataset.meld, 10) : undefined;
    // A staged card dropped on "New meld" lays as L does: the selected staged cards when
    // several are selected, otherwise the whole staging area.
    // (Dragging a selected card drags the whole selection.)
    if (kind === "new" && items[0].zone === "staging") { actOn(items.length > 1 ? items : allStaged(), { kind }); return; }
    actOn(items, { kind, meld });
  },

  /** Move the cards `items` of my hand before position `index` (a drag within the hand). */
  moveInHand(items, index) {
    keepOrder(moveInOrder(S.handOrder, items, index));
    clearSelection();
    render();
  },

  /** Keyboard rearranging: move the focused hand card one place left (-1) or right (+1). */
  shiftHandCard(face, occ, delta) {
    const moved = shiftInOrder(S.handOrder, face, occ, delta);
    if (!moved) return;
    keepOrder(moved.order);
    renderNow();
    const el = document.querySelector(`[data-key="${cssKey({ zone: "hand", face, occ: moved.occ })}"]`);
    if (el) el.focus();
  },

  sort(mode) {
    S.sortMode = mode;
    save(LS.sort, mode);
    S.handOrder = mode === "rank" ? sortByRank(S.handOrder) : sortBySuit(S.handOrder);
    save(LS.order + S.code, S.handOrder);
    clearSelection();
    render();
  },

  toggleRemoved() {
    S.showRemoved = !S.showRemoved;
    save(LS.removed, S.showRemoved);
    render();
  },

  toggleHelp() { S.showHelp = !S.showHelp; render(); },

  clearSelection() { clearSelection(); render(); },

  /** Ask the server for a hint (friendly games) and highlight the play it suggests. */
  async hint() {
    if (!S.conn) return;
    const res = await S.conn.hint();
    if (!res) { toast(t("suggest.failed"), "info"); return; }
    if (res.type !== "hint") return; // refused: its sentence is shown already
    const steps = res.steps || [];
    if (!res.cards || !res.cards.length) {
      S.hint = null;
      const advice = adviceText(res.advice);
      const why = t(steps.length && steps[0].do === "draw" ? "suggest.draw" : "suggest.nothing");
      toast(advice ? `${why} ${advice}` : why, "info");
    } else {
      S.hint = newHint(res, S.game && S.game.hand, S.seat);
      toast(t(res.moved ? "suggest.rework" : "suggest.play", { cards: faces(res.cards), n: res.moved }), "info");
    }
    render();
  },
  /** The followed hint's advice in words (why cards stay in the hand...), or null. */
  hintAdvice: () => (S.hint ? adviceText(S.hint.advice) : null),
  /** Step through the hint's steps (delta -1 / +1); close it (delta 0). */
  hintStep(delta) {
    if (!S.hint) return;
    if (delta === 0) S.hint = null;
    else stepHint(S.hint, delta);
    render();
  },
  /** Draw: ignored while a Draw of mine waits for the server's answer. */
  draw: () => drawOnce(),
  /** Whether a Draw of mine waits for the server's answer (the button shows it busy). */
  drawBusy: () => drawOnce.busy(),
  end: () => sendSeq([["end", {}]]),
  cancel: () => sendSeq([["cancel", {}]]),
  /** Stop! (§9): once a hand, it cannot be taken back (failing it eliminates, −15): confirm first. */
  async stop() {
    if (await confirmDialog(t("confirm.stop"), t("btn.stop"))) return sendSeq([["stop", {}]]);
    return false;
  },
  ready: () => sendSeq([["ready", {}]]),
  async giveUp() {
    if (await confirmDialog(t("confirm.give_up"), t("btn.give_up"))) sendSeq([["give_up", {}]]);
  },
  async leaveHand() {
    if (await confirmDialog(t("confirm.leave"), t("btn.leave"))) sendSeq([["leave", {}]]);
  },
  async leaveGame() {
    if (await confirmDialog(t("confirm.leave_game"), t("btn.leave_game"))) sendSeq([["leave_game", {}]]);
  },
  stage() {
    const sel = selectedIn("hand");
    if (!sel.length) { toast(t("hint.select_hand"), "info"); return; }
    actOn(sel, { kind: "staging" });
  },
  unstage() {
    const sel = selectedIn("staging");
    if (!sel.length) { toast(t("hint.select_staged"), "info"); return; }
    actOn(sel, { kind: "hand" });
  },
  lay() {
    const me = meView();
    let items = selectedIn("staging").length ? stagedToLay() : selectedIn("hand");
    if (!items.length && me && me.staging.length) items = stagedToLay();
    if (!items.length) { toast(t("hint.select_lay"), "info"); return; }
    actOn(items, { kind: "new" });
  },
  take() {
    const sel = selectedIn("table");
    if (!sel.length) { toast(t("hint.select_table"), "info"); return; }
    const s = sel[0];
    clearSelection();
    render();
    sendSeq([["take", { card: s.face, meld: s.meld }]]);
  },
  /** New meld (the tile, N): the selected staged cards (or all staged ones, when one or none
   * is selected) laid as a new meld; else the selected hand cards staged and laid; else the
   * selected table card or my held card moved to a new meld; else say what to select. */
  toNew() {
    if (selectedIn("staging").length) return actOn(stagedToLay(), { kind: "new" });
    if (S.selection.length) return actOn(S.selection, { kind: "new" });
    if (myHold()) return sendSeq([["drop", { to: "new" }]]);
    if (allStaged().length) return actOn(allStaged(), { kind: "new" });
    toast(t("hint.select_new"), "info");
  },
  home() {
    forgetFinishedTable();
    navigate("/");
  },
  /** This window takes the seat back from the other window (which is told the same). */
  playHere() {
    S.replaced = false;
    if (S.conn) S.conn.close();
    connect();
    render();
  },
  reconnectNow() {
    if (S.conn) S.conn.reconnectNow();
  },
  /** Was this table matched by the agora (the server's flag, else this browser's memory)? */
  isAgora: () => isAgoraTable(),
  /** Is this seat one of the server's bots? */
  isBot: (name) => isBotSeat(name),
  setBotLevel(level) {
    S.botLevel = level === "shark" ? "shark" : "casual";
    render();
  },
  /** Seat one bot of the chosen level in a free seat (a friendly table, before the deal). */
  async addBot() {
    if (!S.session || !S.code || S.botBusy) return;
    const code = S.code;
    S.botBusy = true;
    S.botError = null;
    render();
    try {
      const res = await api("POST", `/api/tables/${encodeURIComponent(code)}/bots`,
        { level: S.botLevel === "shark" ? "shark" : "casual", count: 1 }, S.session.token);
      rememberBots(code, Array.isArray(res.bots) ? res.bots : []);
      if (S.code === code) announce(t("bots.added", { names: (res.bots || []).join(", ") }));
    } catch (e) {
      if (S.code === code) S.botError = e instanceof ApiError ? botErrorText(e) : String(e);
    } finally {
      if (S.code === code) S.botBusy = false;
      render(); // the seats themselves come with the socket's "table" message
    }
  },
  /** Play again (a finished friendly table): the server makes (once) a new table with the
   * same seats and bots, tells the others, and this player goes to it. */
  async playAgain() {
    if (!S.session || !S.code || S.againBusy) return;
    const code = S.code;
    S.againBusy = "again";
    render();
    try {
      const res = await api("POST", `/api/tables/${encodeURIComponent(code)}/again`, {}, S.session.token);
      if (S.code !== code) return;
      goToNewTable(res.code);
    } catch (e) {
      if (S.code === code) toast(errorText(e));
    } finally {
      if (S.code === code) { S.againBusy = false; render(); }
    }
  },
  /** Accept another player's Play again: the same request, which seats me at the new table
   * (the server makes only one), then to it. */
  acceptAgain() {
    return Actions.playAgain();
  },
  /** Decline it: the others are told (the server sends the table's `again` with my name). */
  async declineAgain() {
    if (!S.session || !S.code || S.againBusy) return;
    const code = S.code;
    S.againBusy = "decline";
    S.againDeclined = true;
    render();
    try {
      await api("POST", `/api/tables/${encodeURIComponent(code)}/again/decline`, {}, S.session.token);
    } catch (e) {
      if (S.code === code) { S.againDeclined = false; toast(errorText(e)); }
    } finally {
      if (S.code === code) { S.againBusy = false; render(); }
    }
  },
  toRanking() { forgetFinishedTable(); navigate("/#ranking"); },
  agoraAgain() {
    forgetFinishedTable();
    if (S.session) pages.agora.start(S.session.name);
    else navigate("/#agora");
  },
};
