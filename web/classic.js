// The classic table page (issue 16, "The browser"), built from the seat's classic view only
// (engine/classic/view.py): the seats around the table in the order of play, whose turn it is
// and its clock, the table of melds (invalid ones marked live, changed ones marked, jokers with
// their faces), the loose joker, what the others did since my last turn, and the dock
// (classicdock.js: End turn, Draw / Pass, Reset turn, the opening counter, my hand). The end
// of a hand and the match: classicresult.js. classic.css lays it out.
import { t } from "./i18n.js";
import { h, clockEl } from "./ui.js";
import { keyName } from "./help.js";
import { occurrences } from "./tablebits.js";
import { tableCardSize } from "./tablefit.js";
import { seatLayout, sinceMyTurn, playOrder, jokerChoices, jokerFace } from "./classicview.js";
import { CS } from "./classicstate.js";
import { classicCard, shortFace, shortFaces, turnText } from "./classiccards.js";
import { myDock } from "./classicdock.js";
import { resultPanel, classicWaiting } from "./classicresult.js";
import { currentHint } from "./classichint.js";
import { didText, outMove } from "./classicnews.js";

export function renderClassic(S, A) {
  if (S.fatal || S.replaced) return null; // table.js says those
  const v = S.game;
  if (!v || !v.players) return classicWaiting(S, A);
  const screen = h("div", { class: "table-screen game classic", id: "table-screen", dataset: { seats: String(v.players.length) } });
  screen.appendChild(headBar(S, A, v));
  const layout = seatLayout(v.players.map((p) => p.name), v.you);
  for (const place of ["left", "top", "right"]) {
    const here = layout.filter((s) => s.place === place);
    screen.appendChild(h("section", { class: `c-seats c-${place}`, "aria-label": t("ct.seats." + place) },
      here.map((s) => seatBox(S, v, v.players.find((p) => p.name === s.name), s.order))));
  }
  screen.appendChild(boardEl(S, A, v));
  screen.appendChild(sincePanel(S, v));
  const me = v.players.find((p) => p.name === v.you);
  if (me && !S.spectator) screen.appendChild(myDock(S, A, v, me));
  else screen.appendChild(h("section", { class: "c-dock panel spectator-note" }, t("table.spectating")));
  // `result` is the LAST hand's (engine/classic/view.py): shown while no hand is in play (no
  // turn), unless the player put it aside to look at the final table (Show the result: back).
  if (resultShown(v) && !resultAside(v)) screen.appendChild(resultPanel(S, A, v));
  if (S.showHelp) screen.appendChild(classicHelp(A));
  return screen;
}

/** Is there a result to show: a hand just ended, the pause, the match's end (no turn). */
function resultShown(v) { return (!!v.result && !v.turn) || v.match.over || v.match.pause_until !== null; }

/** Did the player put this hand's result aside (Look at the table)? Until the next hand. */
function resultAside(v) { return CS.resultAside === v.match.hand; }

function headBar(S, A, v) {
  const tb = S.table || {};
  const preset = (tb.rules && tb.rules.preset) || v.rules;
  const items = [
    h("span", { class: "chip code-chip" }, h("span", { class: "muted" }, t("wait.code")), " ", h("strong", { id: "table-code" }, S.code)),
    h("span", { class: "chip", id: "preset-chip" }, t("ct.preset." + preset, {}, preset)),
    h("span", { class: "chip", id: "hand-chip" }, t("top.hand_no", { n: v.match.hand })),
    h("span", { class: "chip", id: "stock-chip" }, t("ct.stock", { n: v.stock })),
  ];
  const order = playOrder(v);
  if (order.length > 1 && v.turn) {  // one player left in the hand has no order to show
    items.push(h("span", { class: "chip c-order", id: "play-order", title: t("ct.order_title") },
      t("ct.order"), " ", order.map((n, i) => [i ? " \u2192 " : "", h("span", { class: i === 0 ? "on-turn" : "" }, n === v.you ? t("word.you") : n)])));
  }
  if (v.turn && v.turn.deadline !== null) {
    items.push(h("span", { class: "chip c-clock", id: "turn-clock" }, t("ct.turn_clock"), " ",
      clockEl(v.turn.deadline, { frame: "hand", total: v.options.clock || null, label: t("ct.turn_clock") })));
  }
  items.push(h("span", { class: "spacer" }));
  if (resultShown(v) && resultAside(v)) {
    items.push(h("button", { class: "btn primary", type: "button", id: "btn-show-result", onclick: () => A.showResult() }, t("ct.show_result")));
  }
  items.push(h("button", { class: "btn ghost", type: "button", onclick: () => A.toggleHelp(), "aria-expanded": String(!!S.showHelp), "aria-keyshortcuts": "?" }, t("btn.help")));
  const head = h("div", { class: "head c-head" }, h("div", { class: "topbar", role: "region", "aria-label": t("a11y.status") }, items));
  const banner = turnBanner(S, v);
  if (banner) head.appendChild(banner);
  if (S.connState !== "open") head.appendChild(h("div", { class: "banner conn", role: "status" }, t("banner.reconnecting")));
  return head;
}

/** "Your turn" / "Ada's turn" with the clock; absent: when they leave the hand (C31). */
function turnBanner(S, v) {
  if (!v.turn) return null;
  const p = v.turn.player;
  const mine = p === v.you;
  // `ends`: the earlier of the turn clock and the player's absence (C20, C31); said as an
  // absence only when the player on turn is away.
  const seatOn = v.players.find((x) => x.name === p);
  const away = !!seatOn && seatOn.absent_until !== null && v.turn.ends !== null;
  return h("div", { class: "banner c-turn" + (mine ? " mine" : ""), role: "status", id: "turn-banner", "aria-live": "polite" },
    mine ? t("ct.your_turn") : t("ct.their_turn", { name: p }),
    away && !mine ? [" \u00b7 ", t("ct.absent_ends"), " ", clockEl(v.turn.ends, { frame: "hand", kind: "absence" })] : null);
}

function seatBox(S, v, p, order) {
  const onTurn = v.turn && v.turn.player === p.name;
  const cls = ["c-seat", "panel", onTurn ? "on-turn" : "", p.in_hand ? "" : "out", p.connected ? "" : "away"].filter(Boolean).join(" ");
  const backs = Math.min(p.hand_count, 15);
  return h("article", { class: cls, dataset: { player: p.name }, "aria-label": t("ct.seat_label", { name: p.name, n: p.hand_count }) },
    h("div", { class: "c-seat-head" },
      h("span", { class: "c-order-n", title: t("ct.order_n", { n: order }) }, String(order)),
      h("strong", { class: "c-name" }, p.name),
      S.actions && S.actions.isBot(p.name) ? h("span", { class: "badge bot-badge" }, t("bots.badge")) : null,
      onTurn ? h("span", { class: "badge c-turn-badge" }, t("ct.on_turn")) : null),
    h("div", { class: "c-backs", "aria-hidden": "true" }, Array.from({ length: backs }, () => h("span", { class: "c-back" }))),
    h("div", { class: "c-seat-foot" },
      h("span", { class: "c-count" }, t("ct.cards_n", { n: p.hand_count })),
      v.options.opening > 0 ? h("span", { class: "badge " + (p.opened ? "opened" : "unopened") }, t(p.opened ? "ct.opened" : "ct.unopened")) : null,
      !p.in_hand && p.in_match ? h("span", { class: "badge" }, t("ct.out_of_hand")) : null,
      !p.in_match ? h("span", { class: "badge" }, t("ct.left_match")) : null),
    p.absent_until !== null ? h("div", { class: "c-absent", role: "status" },
      t("ct.away"), " ", clockEl(p.absent_until, { frame: "hand", kind: "absence", total: v.options.absence || null, label: t("ct.away") })) : !p.connected ? h("div", { class: "c-absent" }, t("ct.away_plain")) : null);
}

// ---------------------------------------------------------------- the table

function boardEl(S, A, v) {
  const myTurn = !!v.turn && v.turn.player === v.you && !S.spectator;
  const since = sinceMyTurn(CS.events, v.you);
  const size = tableCardSize(v.table, { w: Math.max(280, window.innerWidth - (window.innerWidth > 960 ? 620 : 40)), h: Math.max(160, window.innerHeight - (window.innerWidth > 960 ? 420 : 470)) });
  const hint = currentHint(v);
  const hinted = new Set(hint ? hint.melds : []);
  // The hand's end: the melds of the move that went out (C22) are marked on the final table.
  const out = !v.turn && v.result && v.result.end === "out" ? outMove(CS.events, v.result.winner) : null;
  const wentOut = new Set(out ? out.melds : []);
  const melds = v.table.map((m) => meldBox(S, A, v, m, myTurn, since.melds.has(m.id), hinted.has(m.id), wentOut.has(m.id)));
  const newTile = myTurn ? h("div", {
    class: "meld new-meld", role: "button", tabindex: "0", id: "new-meld",
    "aria-label": t("ct.new_meld_label"), dataset: { drop: "new", key: "new" },
    onclick: () => A.activateZone("new"),
  }, h("span", { class: "plus", "aria-hidden": "true" }, "+"), h("span", {}, t("board.new_meld"))) : null;
  return h("section", {
    class: "board panel c-board", "aria-label": t("a11y.board"), id: "board",
    dataset: { scroll: "board", autoscroll: "1", size: String(size.tier) },
    style: `--tc-w:${size.w}px;--tc-h:${size.h}px;--tc-step:${size.step}px`,
  },
  h("h2", { class: "visually-hidden" }, t("a11y.board")),
  v.loose > 0 ? looseTray(S, A, v, myTurn) : null,
  v.table.length === 0 ? h("p", { class: "muted empty-board" }, t("board.empty")) : null,
  h("div", { class: "melds", "data-group": "melds" }, melds, newTile));
}

function looseTray(S, A, v, myTurn) {
  const selected = A.isSelected("loose", "JK", 0);
  const card = classicCard("JK", {
      role: myTurn ? "button" : "img", focusable: myTurn, pressed: myTurn ? selected : undefined,
      classes: selected ? ["selected"] : [], label: t("ct.loose_label"),
      data: myTurn ? { zone: "loose", occ: "0", drag: "1", key: "loose:JK:0" } : {},
    });
  if (myTurn) card.addEventListener("click", (ev) => { ev.stopPropagation(); A.activateCard("loose", "JK", 0); });
  return h("div", { class: "c-loose", id: "loose-joker", role: "alert" }, card,
    h("p", {}, h("strong", {}, t(v.loose > 1 ? "ct.loose_many" : "ct.loose_one", { n: v.loose })), " ",
      myTurn ? t("ct.loose_do") : t("ct.loose_wait", { name: v.turn ? v.turn.player : "" })));
}

function meldBox(S, A, v, m, myTurn, otherChanged, hinted, wentOut = false) {
  const occ = occurrences(m.cards);
  // The face a joker stands for, when that is a choice (C8): for the selected joker, or on my
  // turn for a joker without a face in a meld changed this turn (no need to find it first).
  const picked = CS.sel.length === 1 && CS.sel[0].zone === "table" && CS.sel[0].meld === m.id && jokerFace(CS.sel[0].face).joker ? CS.sel[0] : null;
  const pair = picked || (myTurn && m.changed && m.cards.includes("JK") ? { face: "JK" } : null);
  const cards = m.cards.map((f, i) => {
    const j = jokerFace(f);
    const selected = A.isSelected("table", f, occ[i], m.id);
    const key = `table:${m.id}:${f}:${occ[i]}`;
    const el = classicCard(f, {
      role: myTurn ? "button" : "img", focusable: myTurn, pressed: myTurn ? selected : undefined,
      classes: selected ? ["selected"] : [],
      data: {
        zone: "table", occ: String(occ[i]), meld: String(m.id), key,
        ...(myTurn ? { drag: "1" } : {}),
        ...(myTurn && j.joker ? { drop: "joker" } : {}),
      },
    });
    if (myTurn) el.addEventListener("click", (ev) => { ev.stopPropagation(); A.activateCard("table", f, occ[i], m.id); });
    return el;
  });
  const changedNow = m.changed && !!v.turn; // a hand that ended has no turn to change it in
  const cls = ["meld", "c-meld", m.valid ? "" : "invalid", changedNow ? "changed-now" : "", otherChanged ? "changed-since" : "", hinted ? "hinted" : "", wentOut ? "went-out" : ""].filter(Boolean).join(" ");
  const choices = pair ? jokerChoices(m.cards, m.cards.indexOf(pair.face), v.options.ace) : [];
  return h("div", {
    class: cls, role: myTurn ? "button" : "group", tabindex: myTurn ? "0" : null,
    "aria-label": t("ct.meld_label", { id: m.id, cards: shortFaces(m.cards) }) + (m.valid ? "" : " " + t("ct.meld_invalid")),
    dataset: { ...(myTurn ? { drop: "meld" } : {}), meld: String(m.id), key: `meld:${m.id}` },
    onclick: (ev) => { if (!ev.target.closest(".card") && !ev.target.closest("button")) A.activateZone("meld", m.id); },
  },
  h("div", { class: "meld-head" },
    h("span", { class: "meld-id" }, t("meld.badge", { n: m.id }, `meld ${m.id}`)),
    m.valid ? null : h("span", { class: "meld-tag c-bad", title: t("ct.invalid_title") }, t("ct.invalid")),
    changedNow ? h("span", { class: "meld-tag c-now" }, t("ct.changed_now")) : null,
    otherChanged && !changedNow && !wentOut ? h("span", { class: "meld-tag c-since" }, t("ct.changed_since")) : null,
    wentOut ? h("span", { class: "meld-tag c-out" }, t("ct.out_melds")) : null),
  h("div", { class: "cards meld-cards" }, cards),
  choices.length ? h("div", { class: "c-as", role: "group", "aria-label": t("ct.as_label") },
    h("span", { class: "small" }, t("ct.as_label")), " ",
    choices.map((c) => h("button", { class: "btn tiny", type: "button", dataset: { as: c }, onclick: () => A.jokerAs(pair.face, m.id, c) }, shortFace(c)))) : null);
}

// ---------------------------------------------------------------- since your last turn

/** "Ada laid 7♥ 8♥ 9♥, added 5♣ to meld 3 · Bob drew": the others' turns since mine. */
function sincePanel(S, v) {
  const { turns } = sinceMyTurn(CS.events, v.you);
  const items = turns.map((tn) => h("li", { dataset: { player: tn.player } }, h("strong", {}, tn.player), " ", turnText(tn)));
  return h("aside", { class: "c-since side panel", id: "since", "aria-label": t("ct.since_title") },
    h("h2", { class: "side-title" }, t(v.you ? "ct.since_title" : "ct.since_title_watch")),
    items.length ? h("ol", { class: "c-since-list", id: "since-list", "data-scroll": "since" }, items)
      : h("p", { class: "muted", id: "since-list" }, t("ct.since_empty")));
}

// ---------------------------------------------------------------- the keys

/** The classic table's keys (keys.js and classicactions.js) and gestures. */
const CLASSIC_KEYS = [
  ["E", "help.ct_end"], ["D", "help.ct_draw"], ["P", "help.ct_pass"], ["R", "help.ct_reset"],
  ["N", "help.ct_new"], ["O", "help.sort"], ["J", "help.jump_hand"], ["K", "help.jump_table"],
  ["key.enter_space", "help.ct_select"], ["key.esc", "help.ct_escape"], ["key.arrows", "help.arrows"],
  ["key.alt_arrows", "help.rearrange"], ["?", "help.help"],
];

function classicHelp(A) {
  return h("section", { class: "help panel", id: "help", role: "dialog", "aria-modal": "false", "aria-labelledby": "help-title" },
    h("h2", { id: "help-title" }, t("help.title")),
    h("dl", { class: "keys" }, CLASSIC_KEYS.map(([k, key]) => [h("dt", {}, h("kbd", {}, keyName(k))), h("dd", {}, t(key))])),
    h("p", {}, t("help.ct_gestures")),
    h("button", { class: "btn", type: "button", onclick: () => A.toggleHelp() }, t("btn.close")));
}
