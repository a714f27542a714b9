// The going-out conditions (§8, R15) as the page shows them: a checklist in the player's own
// panel, a compact pair of marks beside each opponent, and a line on the home page's rules.
//
// R15: a player may go out only after at least one draw and at least one `lay` in a play that
// was confirmed and has not fallen. The per-player view (engine/view.py PlayerView) carries
// `drew` and `laid`; `laid_final` (when present) is false while the only such lay sits in a
// play that is confirmed but not yet final: the condition is then "pending" (a chain undo may
// still take it away). A view without `laid_final` counts the lay as final.
import { t } from "./i18n.js";
import { h } from "./ui.js";

/** The two conditions of a PlayerView: {drew: "ok"|"missing", laid: "ok"|"pending"|"missing"}. */
export function goingOutState(p) {
  return {
    drew: p && p.drew ? "ok" : "missing",
    laid: !p || !p.laid ? "missing" : p.laid_final === false ? "pending" : "ok",
  };
}

const MARK = { ok: "\u2713", pending: "\u25d0", missing: "\u2717" };

/** The player's own checklist: `<ul id="going-out">` with one `<li data-cond data-state>` per
 * condition, its mark (✓ / ◐ / ✗) and its words; spoken as "drawn at least once: done". */
export function goingOutChecklist(p) {
  const st = goingOutState(p);
  const item = (cond, label) => h("li", {
    class: `goout-item ${st[cond]}`, dataset: { cond, state: st[cond] },
    "aria-label": `${t(label)}: ${t("goout.state." + st[cond])}`,
  },
  h("span", { class: "goout-mark", "aria-hidden": "true" }, MARK[st[cond]]), " ",
  h("span", { "aria-hidden": "true" }, t(label)),
  st[cond] === "pending" ? h("span", { class: "goout-note", "aria-hidden": "true" }, " ", t("goout.pending")) : null);
  return h("div", { class: "goout", id: "going-out", role: "group", "aria-labelledby": "going-out-title" },
    h("span", { class: "zone-label", id: "going-out-title" }, t("goout.title")),
    h("ul", { class: "goout-list" }, item("drew", "goout.drew"), item("laid", "goout.laid")));
}

/** An opponent's two conditions, compact: "✓ drew ◐ laid". */
export function goingOutMarks(p) {
  const st = goingOutState(p);
  const mark = (cond, label) => h("span", { class: `cond ${st[cond]}`, dataset: { cond, state: st[cond] } },
    `${MARK[st[cond]]} ${t(label)}`);
  return h("span", { class: "conds", title: t("player.conds_title") }, mark("drew", "player.drew"), mark("laid", "player.laid"));
}

/** The home page's rule on going out (one `<li>` for its list of rules). */
export function goingOutRule() {
  return h("li", { id: "rule-going-out" }, t("goout.rule"));
}
