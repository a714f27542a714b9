// The classic player's dock: End turn, Draw / Pass, Reset turn (only on my turn, with their
// keys), the sentence of a refused End turn right under them, the opening counter (C17),
// Free / Swap for a selected joker, and my hand (the cards I drew marked).
import { t } from "./i18n.js";
import { h } from "./ui.js";
import { occurrences } from "./tablebits.js";
import { legalNow, openingProgress, drawnCards } from "./classicview.js";
import { CS } from "./classicstate.js";
import { jokerPair, refusalLine } from "./classicactions.js";
import { classicCard, shortFace } from "./classiccards.js";
import { askHint, currentHint, hintBox } from "./classichint.js";
import { forcedEnd, forcedEndText } from "./classicnews.js";

const kbd = (k) => h("kbd", { "aria-hidden": "true" }, k);

export function myDock(S, A, v, me) {
  const L = legalNow(v);
  const dock = h("section", { class: "c-dock panel" + (L.myTurn ? " my-turn" : ""), id: "my-dock", "aria-label": t("ct.dock_label") });
  const row = h("div", { class: "c-actions actions", role: "toolbar", "aria-label": t("ct.actions_label") });
  if (L.myTurn) {
    row.appendChild(h("button", { class: "btn primary c-end", type: "button", id: "btn-end", "aria-keyshortcuts": "E", onclick: () => A.end() }, t("ct.end_turn"), kbd("E")));
    const pass = v.stock <= 0;
    row.appendChild(h("button", {
      class: "btn c-draw", type: "button", id: pass ? "btn-pass" : "btn-draw", "aria-keyshortcuts": pass ? "P" : "D",
      disabled: L.changed || A.drawBusy() ? true : null, "aria-busy": A.drawBusy() ? "true" : null,
      title: L.changed ? t("ct.reset_first") : null, onclick: () => A.drawOrPass(),
    }, t(pass ? "ct.pass" : "ct.draw"), kbd(pass ? "P" : "D")));
    row.appendChild(h("button", { class: "btn c-reset", type: "button", id: "btn-reset", "aria-keyshortcuts": "R", disabled: L.changed ? null : true, onclick: () => A.reset() }, t("ct.reset"), kbd("R")));
    const pair = jokerPair();
    if (pair) {
      row.appendChild(h("button", { class: "btn", type: "button", id: "btn-free", onclick: () => A.freeJoker() },
        t("ct.free", { card: shortFace(pair.real.face) })));
      if (v.options.freed_joker === "keep" && pair.real.zone === "hand") {
        row.appendChild(h("button", { class: "btn", type: "button", id: "btn-swap", onclick: () => A.swapJoker() },
          t("ct.swap", { card: shortFace(pair.real.face) })));
      }
    }
    if (CS.sel.length) row.appendChild(h("button", { class: "btn ghost", type: "button", id: "btn-unselect", onclick: () => A.clearSelection() }, t("ct.unselect")));
    if (!(S.table && S.table.agora)) row.appendChild(h("button", { class: "btn ghost", type: "button", id: "btn-hint", disabled: CS.hintBusy ? true : null, onclick: () => askHint() }, t("ct.hint")));
  } else if (v.turn) { // a hand in play (`result` is the last hand's, even in the next one)
    row.appendChild(h("span", { class: "muted", id: "wait-turn" }, t("ct.wait_turn", { name: v.turn.player })));
  }
  row.appendChild(h("span", { class: "spacer" }));
  if (me.in_hand && v.turn) row.appendChild(h("button", { class: "btn ghost danger-text", type: "button", id: "btn-leave", onclick: () => A.leaveHand() }, t("ct.leave")));
  dock.appendChild(row);

  const line = h("div", { class: "c-status", id: "status-slot" });
  // My turn was ended for me (C20's clock, C31's absence or my leaving on my turn): said to
  // me, not only to the others, until I read it (OK) or end a turn myself.
  const news = S.spectator ? null : forcedEnd(CS.events, v.you);
  if (news && news.seq !== CS.newsSeen) {
    line.appendChild(h("p", { class: "c-news", id: "turn-news", role: "alert" }, forcedEndText(news), " ",
      h("button", { class: "btn tiny", type: "button", id: "btn-news-ok", onclick: () => A.dismissNews(news.seq) }, t("ct.news.ok"))));
  }
  const refusal = refusalLine();
  if (refusal) {
    line.appendChild(h("p", { class: "c-refusal", id: "end-refusal", role: "alert" }, h("strong", {}, t(CS.refusal.what === "end" ? "ct.end_refused" : "ct.refused")), " ", refusal, refusalDetail(v)));
  } else if (L.myTurn) {
    line.appendChild(h("p", { class: "c-hint muted", id: "turn-hint" }, hintLine(v, L)));
  }
  const hint = currentHint(v);
  if (hint) line.appendChild(hintBox(hint));
  const op = openingProgress(v);
  if (op) {
    line.appendChild(h("p", { class: "c-opening" + (op.have >= op.need ? " reached" : ""), id: "opening", role: "status" },
      t("ct.opening", { have: op.have, need: op.need })));
  }
  dock.appendChild(line);
  dock.appendChild(handRow(S, A, v, L));
  return dock;
}

function hintLine(v, L) {
  if (L.loose) return t("ct.hint.loose");
  if (!L.changed) return t(v.stock > 0 ? "ct.hint.start" : "ct.hint.start_pass");
  return t("ct.hint.changed");
}

/** A refused End turn's detail: which melds are invalid, how far from the opening. */
function refusalDetail(v) {
  if (!CS.refusal || CS.refusal.what !== "end") return null;
  const bad = v.table.filter((m) => !m.valid).map((m) => m.id);
  if (CS.refusal.code === "invalid_meld" && bad.length) return " " + t("ct.bad_melds", { ids: bad.join(", ") });
  return null;
}

function handRow(S, A, v, L) {
  const order = S.handOrder;
  const occ = occurrences(order);
  const drawn = new Map();
  for (const f of drawnCards(CS.events, v.you)) drawn.set(f, (drawn.get(f) || 0) + 1);
  const hint = currentHint(v);
  const hintCards = new Map();
  for (const f of hint ? hint.cards : []) hintCards.set(f, (hintCards.get(f) || 0) + 1);
  const cards = order.map((f, i) => {
    const selected = A.isSelected("hand", f, occ[i]);
    const fresh = (drawn.get(f) || 0) > 0;
    if (fresh) drawn.set(f, drawn.get(f) - 1);
    const hinted = hintCards.get(f) > 0;
    if (hinted) hintCards.set(f, hintCards.get(f) - 1);
    const classes = [selected ? "selected" : "", fresh ? "drawn" : "", hinted ? "hinted" : ""].filter(Boolean);
    const el = classicCard(f, {
      role: "button", focusable: true, pressed: selected, classes,
      title: fresh ? t("ct.drawn") : null,
      data: { zone: "hand", occ: String(occ[i]), key: `hand:${f}:${occ[i]}`, drag: "1" },
    });
    el.addEventListener("click", (ev) => { ev.stopPropagation(); A.activateCard("hand", f, occ[i]); });
    return el;
  });
  return h("div", { class: "c-hand-wrap" },
    h("div", { class: "c-hand-head" },
      h("strong", {}, t("ct.your_hand", { n: order.length })),
      h("button", { class: "btn tiny ghost", type: "button", id: "btn-sort", "aria-keyshortcuts": "O", onclick: () => A.sort(S.sortMode === "suit" ? "rank" : "suit") }, t(S.sortMode === "suit" ? "ct.sort_rank" : "ct.sort_suit"))),
    h("div", { class: "cards c-hand", id: "my-hand", "data-group": "hand", dataset: { drop: "hand" }, "aria-label": t("ct.your_hand", { n: order.length }) }, cards));
}

