// The player's own area, docked at the bottom of the table screen: their panel, the hint's
// steps, the message line, the actions, the staging area and the hand.
import { t } from "./i18n.js";
import { h, cardEl, cssKey } from "./ui.js";
import { faces } from "./notices.js";
import { marks, occurrences } from "./tablebits.js";
import { playerPanel } from "./players.js";

// ---------------------------------------------------------------- my area

export function myArea(S, A, mine) {
  const game = S.game, hv = game.hand;
  const active = mine.status === "active" && !hv.result;
  const frozenByOther = hv.clocks.freeze && hv.clocks.freeze.caller !== S.seat;
  const iCalledStop = hv.clocks.freeze && hv.clocks.freeze.caller === S.seat;
  const hold = hv.holds.find((x) => x.player === S.seat);
  const stagingOcc = occurrences(mine.staging);
  const stagedHint = new Map(marks.current.staging);
  const stagedSel = A.selectedIn("staging").length;
  const handSel = A.selectedIn("hand").length;
  const tableSel = A.selectedIn("table").length;
  const hasOpen = mine.open_play !== null && mine.open_play !== undefined;

  const staging = h("div", {
    class: "zone staging" + (mine.staging.length ? "" : " empty"),
    role: "group",
    tabindex: active ? "0" : null,
    "aria-label": t("me.staging_label", { n: mine.staging.length }),
    dataset: { drop: active ? "staging" : "", key: "zone:staging" },
    onclick: active ? () => A.activateZone("staging") : null,
  },
  h("span", { class: "zone-label" }, t("me.staging"), mine.staging.length ? ` (${mine.staging.length})` : ""),
  h("div", { class: "cards", "data-group": "staging", id: "my-staging" },
    mine.staging.length ? mine.staging.map((f, i) => {
      const sel = A.isSelected("staging", f, stagingOcc[i]);
      const staged = sel ? ["selected"] : [];
      if ((stagedHint.get(f) || 0) > 0) { staged.push("hinted"); stagedHint.set(f, stagedHint.get(f) - 1); }
      const el = cardEl(f, {
        focusable: active, role: "button", pressed: sel, classes: staged,
        data: { zone: "staging", occ: String(stagingOcc[i]), key: cssKey({ zone: "staging", face: f, occ: stagingOcc[i] }), ...(active ? { drag: "1" } : {}) },
      });
      if (active) el.addEventListener("click", (ev) => { ev.stopPropagation(); A.activateCard("staging", f, stagingOcc[i]); });
      return el;
    }) : h("span", { class: "muted hint" }, t("me.staging_empty"))));

  const btn = (id, label, key, fn, opts = {}) => h("button", {
    class: "btn " + (opts.cls || ""), type: "button", id: `btn-${id}`,
    disabled: opts.disabled ? true : null,
    "aria-busy": opts.busy ? "true" : null,
    "aria-keyshortcuts": key || null,
    title: key ? `${label} (${key})` : label,
    onclick: fn,
  }, label, key ? h("kbd", { "aria-hidden": "true" }, key) : null);

  const buttons = [];
  if (active) {
    buttons.push(btn("draw", t("btn.draw"), "D", () => A.draw(), { cls: "primary", disabled: mine.stock_count === 0 || mine.staging.length > 0 || frozenByOther || A.drawBusy(),
      busy: A.drawBusy() }));
    buttons.push(btn("stage", t("btn.stage"), "S", () => A.stage(), { disabled: !handSel }));
    buttons.push(btn("unstage", t("btn.unstage"), "U", () => A.unstage(), { disabled: !stagedSel }));
    buttons.push(btn("lay", t("btn.lay"), "L", () => A.lay(), { disabled: !(stagedSel || handSel || mine.staging.length) }));
    buttons.push(btn("take", t("btn.take"), "T", () => A.take(), { disabled: !tableSel }));
    buttons.push(btn("new", t("btn.to_new"), "N", () => A.toNew(), { disabled: !(tableSel || hold || stagedSel || handSel) }));
    buttons.push(btn("end", t("btn.end"), "E", () => A.end(), { disabled: !hasOpen }));
    buttons.push(btn("cancel", t("btn.cancel_play"), "X", () => A.cancel(), { disabled: !hasOpen }));
    // No Hint at agora tables: the server refuses hints there (no_hints).
    if (!A.isAgora()) buttons.push(btn("hint", t("btn.hint"), null, () => A.hint(), { cls: "ghost", disabled: hasOpen || frozenByOther }));
    if (iCalledStop) buttons.push(btn("give-up", t("btn.give_up"), null, () => A.giveUp(), { cls: "danger" }));
    else buttons.push(btn("stop", t("btn.stop"), "!", () => A.stop(), { cls: "stop", disabled: mine.stop_used || !!hv.clocks.freeze || !!hv.tiebreak }));
    buttons.push(btn("leave", t("btn.leave"), null, () => A.leaveHand(), { cls: "ghost danger-text" }));
  }
  const selCount = S.selection.length;
  const handOcc = occurrences(S.handOrder);
  const fresh = new Map(S.fresh);
  const hinted = new Map(marks.current.hand);
  const handCards = S.handOrder.map((f, i) => {
    const sel = A.isSelected("hand", f, handOcc[i]);
    const classes = sel ? ["selected"] : [];
    if ((fresh.get(f) || 0) > 0) { classes.push("fresh"); fresh.set(f, fresh.get(f) - 1); }
    if ((hinted.get(f) || 0) > 0) { classes.push("hinted"); hinted.set(f, hinted.get(f) - 1); }
    const el = cardEl(f, {
      focusable: true, role: "button", pressed: sel, classes,
      data: { zone: "hand", occ: String(handOcc[i]), key: cssKey({ zone: "hand", face: f, occ: handOcc[i] }), ...(active ? { drag: "1" } : {}) },
    });
    el.addEventListener("click", (ev) => { ev.stopPropagation(); A.activateCard("hand", f, handOcc[i]); });
    return el;
  });
  const handZone = h("div", {
    class: "zone hand",
    role: "group",
    "aria-label": t("me.hand_label", { n: S.handOrder.length }),
    dataset: { drop: "hand", key: "zone:hand" },
    onclick: () => A.activateZone("hand"),
  },
  h("div", { class: "zone-head" },
    h("span", { class: "zone-label" }, t("me.hand"), ` (${S.handOrder.length})`),
    h("span", { class: "sort", role: "group", "aria-label": t("me.sort") },
      h("span", { class: "muted" }, t("me.sort"), " "),
      h("button", { class: "btn tiny" + (S.sortMode === "suit" ? " on" : ""), type: "button", id: "sort-suit", "aria-pressed": String(S.sortMode === "suit"), onclick: (ev) => { ev.stopPropagation(); A.sort("suit"); } }, t("me.by_suit")),
      h("button", { class: "btn tiny" + (S.sortMode === "rank" ? " on" : ""), type: "button", id: "sort-rank", "aria-pressed": String(S.sortMode === "rank"), onclick: (ev) => { ev.stopPropagation(); A.sort("rank"); } }, t("me.by_rank")),
      S.sortMode === "custom" ? h("span", { class: "muted" }, " ", t("me.custom")) : null)),
  h("div", { class: "cards hand-cards" + (S.handOrder.length > 24 ? " many lots" : S.handOrder.length > 12 ? " many" : ""), "data-group": "hand", id: "my-hand", "data-scroll": "hand" },
    handCards.length ? handCards : h("span", { class: "muted hint" }, t(mine.stock_count && active ? "me.hand_empty_draw" : "me.hand_empty"))));

  const hint = hv.result ? t("me.hint_over")
    : selCount ? t("me.selected", { n: selCount }) + " " + t(selectionHintKey(S))
      : t(active ? "me.hint_idle" : "me.hint_watch");
  // Docked at the bottom of the screen: what grows here (a message, the hint's steps) pushes
  // the table's lower edge up, never the hand down.
  return h("section", { class: "me dock", id: "dock", "aria-label": t("a11y.you", { name: S.seat }) },
    playerPanel(S, mine, true),
    h("div", { class: "me-play panel" },
      hintBox(S, A),
      // The message line sits above the buttons: a message grows the dock upwards, moving
      // neither the buttons nor the hand under the player's finger.
      h("div", { class: "status-slot", id: "status-slot" }),
      buttons.length ? h("div", { class: "actions", role: "toolbar", "aria-label": t("a11y.actions") }, buttons) : null,
      h("p", { class: "sel-hint muted", "aria-live": "polite", id: "sel-hint" }, hint),
      h("div", { class: "me-zones" + (active || mine.staging.length ? "" : " no-staging") },
        active || mine.staging.length ? staging : null,
        handZone)));
}

/** The last hint as numbered steps in words; the current one is highlighted on the table. */
function hintBox(S, A) {
  const hn = S.hint;
  if (!hn || !hn.steps.length) return null;
  const total = hn.steps.length;
  const btn = (id, label, fn, disabled) => h("button", { class: "btn tiny", type: "button", id, disabled: disabled ? true : null, onclick: fn }, label);
  return h("section", { class: "hint-box" + (hn.stale ? " stale" : ""), id: "hint-box", "aria-labelledby": "hint-title" },
    h("div", { class: "hint-head" },
      h("strong", { id: "hint-title" }, t("hint.title")), " ",
      h("span", { class: "muted", id: "hint-progress", "aria-live": "polite" },
        hn.stale ? t("hint.stale") : t("hint.progress", { n: hn.index + 1, total, step: hintStepText(hn.steps[hn.index], A) }))),
    A.hintAdvice() ? h("p", { class: "hint-advice", id: "hint-advice" }, A.hintAdvice()) : null,
    h("ol", { class: "hint-steps", id: "hint-steps" }, hn.steps.map((st, i) => h("li", {
      class: i < hn.done ? "done" : i === hn.index && !hn.stale ? "current" : "",
      "aria-current": i === hn.index && !hn.stale ? "step" : null,
    }, hintStepText(st, A)))),
    h("div", { class: "row hint-nav" },
      btn("hint-prev", t("hint.prev"), () => A.hintStep(-1), hn.stale || hn.index <= hn.done),
      btn("hint-next", t("hint.next"), () => A.hintStep(1), hn.stale || hn.index >= total - 1),
      btn("hint-close", t("hint.close"), () => A.hintStep(0), false)));
}

/** A meld a hint step names: "meld 3", "a new meld (N1)" where it is made, "new meld N1" after. */
function hintMeldName(ref, A, making) {
  if (typeof ref === "number") return t("hint.meld", { n: ref });
  const id = typeof ref === "string" ? A.hintMeldId(ref) : null;
  if (id !== null && id !== undefined) return t("hint.meld", { n: id });
  const label = typeof ref === "string" ? ref.toUpperCase() : "";
  return making ? t("hint.a_new_meld", { name: label }) : t("hint.new_meld", { name: label });
}

function hintStepText(st, A) {
  const card = st.card ? faces([st.card]) : "";
  switch (st.do) {
    case "stage": return t("hint.step.stage", { card });
    case "add": return t("hint.step.add", { card, meld: hintMeldName(st.meld, A) });
    case "place": return t("hint.step.place", { card, meld: hintMeldName(st.meld, A) });
    case "move": return t("hint.step.move", { card, from: hintMeldName(st.meld, A),
      to: st.to === "new" ? hintMeldName(st.creates || "", A, true) : hintMeldName(st.to, A) });
    case "lay": return t("hint.step.lay", { cards: faces(st.cards), meld: hintMeldName(st.creates || "", A, true) });
    case "draw": return t("hint.step.draw");
    default: return String(st.do);
  }
}

function selectionHintKey(S) {
  const z = S.selection[0].zone;
  if (z === "hand" || z === "pile") return "me.hint_hand";
  if (z === "staging") return "me.hint_staging";
  return "me.hint_table";
}

