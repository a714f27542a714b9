// The players' panels on the table screen: an opponent's in the strip above the table, the
// player's own in the dock (with the going-out checklist, rules.js); and the game clocks.
import { t } from "./i18n.js";
import { h, cardEl, clockEl, fmtSeconds } from "./ui.js";
import { faces } from "./notices.js";
import { goingOutChecklist, goingOutMarks } from "./rules.js";
import { seatIndex, colourVar, occurrences } from "./tablebits.js";

/** The game clocks as chips (Inactivity, Stop!, tie-break, pause). The top bar shows them with
 * ids "clock-…"; the player's own area repeats them ("my-clock-…") beside the hand, so they
 * stay in sight when the table is big and the page is scrolled down to the hand. */
export function clockChips(S, prefix) {
  const game = S.game, hv = game.hand;
  const items = [];
  if (hv && !hv.result) {
    const c = hv.clocks;
    if (c.inactivity !== null && c.inactivity !== undefined) {
      items.push(h("span", { class: "chip clock-chip", id: prefix + "inactivity" }, h("span", {}, t("clock.inactivity")), " ",
        clockEl(c.inactivity, { total: hv.timers.inactivity, label: t("clock.inactivity") })));
    }
    if (c.freeze) {
      items.push(h("span", { class: "chip clock-chip freeze", id: prefix + "freeze", style: `--c:${colourVar(game, c.freeze.caller)}` },
        h("span", {}, t(c.freeze.caller === S.seat ? "clock.freeze.me" : "clock.freeze", { name: c.freeze.caller })), " ",
        clockEl(c.freeze.until, { total: hv.timers.freeze, label: t("clock.freeze", { name: c.freeze.caller }) })));
    }
    if (c.tiebreak) {
      items.push(h("span", { class: "chip clock-chip tiebreak", id: prefix + "tiebreak" },
        h("span", {}, t("clock.tiebreak", { names: c.tiebreak.players.join(" · ") })), " ",
        clockEl(c.tiebreak.until, { total: hv.timers.tiebreak, label: t("clock.tiebreak", { names: c.tiebreak.players.join(", ") }) })));
    }
  }
  if (game.phase === "pause" && game.pause_until !== null) {
    items.push(h("span", { class: "chip clock-chip", id: prefix + "pause" }, h("span", {}, t("clock.pause")), " ",
      clockEl(game.pause_until, { frame: "game", total: hv ? hv.timers.pause : 60, label: t("clock.pause") })));
  }
  return items;
}


// ---------------------------------------------------------------- players

function playStatusOf(hv, name) {
  return hv.plays.filter((p) => p.player === name);
}

export function playerPanel(S, p, isMe) {
  const game = S.game, hv = game.hand;
  const idx = seatIndex(game, p.name);
  const seat = game.seats.find((s) => s.name === p.name);
  const plays = playStatusOf(hv, p.name);
  const open = plays.find((x) => x.status === "open" || x.status === "suspended");
  const unsafe = plays.filter((x) => x.status === "confirmed");
  const hold = hv.holds.find((x) => x.player === p.name);
  const absent = hv.clocks.absences ? hv.clocks.absences[p.name] : null;
  const badges = [];
  badges.push(h("span", { class: "dot " + (p.connected ? "on" : "off"), title: t(p.connected ? "player.online" : "player.offline"), "aria-label": t(p.connected ? "player.online" : "player.offline") }));
  if (p.status !== "active") badges.push(h("span", { class: "badge bad" }, t("player.status." + p.status)));
  if (p.stop_used) badges.push(h("span", { class: "badge" }, t("player.stop_used")));
  if (seat && game.phase === "pause" && seat.ready) badges.push(h("span", { class: "badge ok" }, t("player.ready")));
  if (seat && !seat.in_game) badges.push(h("span", { class: "badge bad" }, t("player.left_game")));
  if (S.actions && S.actions.isBot(p.name)) badges.push(h("span", { class: "badge bot-badge" }, t("bots.badge")));

  const rows = [];
  rows.push(h("div", { class: "counts" },
    h("span", { class: "count", "aria-label": t("player.hand_count_label", { n: p.hand_count }) }, h("span", { class: "count-n" }, p.hand_count), " ", t("player.hand")),
    h("span", { class: "count", "aria-label": t("player.stock_count_label", { n: p.stock_count }) }, h("span", { class: "count-n" }, p.stock_count), " ", t("player.stock")),
    isMe ? null : goingOutMarks(p)));
  // The player's own panel: the going-out conditions as a checklist (§8, R15; rules.js).
  if (isMe) rows.push(goingOutChecklist(p));
  if (open) {
    if (open.status === "suspended" || open.deadline === null) {
      rows.push(h("div", { class: "line" }, h("span", { class: "tag" }, t("play.suspended", { n: open.id })), " ",
        open.suspended_left !== null ? h("span", { class: "muted" }, t("play.left_when_resumed", { s: fmtSeconds(open.suspended_left) })) : null));
    } else {
      rows.push(h("div", { class: "line" }, h("span", { class: "tag", style: `--c:${colourVar(game, p.name)}` }, t(open.declared ? "play.open_declared" : "play.open", { n: open.id })), " ",
        clockEl(open.deadline, { total: hv.timers.play, label: t("clock.play_of", { name: p.name }), kind: "play" })));
    }
  }
  for (const u of unsafe) rows.push(h("div", { class: "line muted" }, h("span", { class: "unsafe-mark", "aria-hidden": "true" }), t("play.not_final", { n: u.id })));
  if (hold) {
    rows.push(h("div", { class: "line" }, t(isMe ? "hold.me" : "hold.other", { card: faces([hold.card]), meld: hold.meld }), " ",
      clockEl(hold.until, { total: hv.timers.hold, label: t("clock.hold"), kind: "hold" })));
  }
  if (absent !== null && absent !== undefined && p.status === "active") {
    rows.push(h("div", { class: "line warn" }, t("player.absent"), " ", clockEl(absent, { total: hv.timers.absence, label: t("clock.absence", { name: p.name }), kind: "absence" })));
  }
  if (p.pending_draws) rows.push(h("div", { class: "line muted" }, t("player.pending_draws", { n: p.pending_draws })));
  if (!isMe) {
    // Their staging area in one line of small overlapping cards (it scrolls sideways when
    // long): a big staging never makes the strip, and so the page, taller.
    const occ = occurrences(p.staging);
    rows.push(h("div", { class: "staging-view" + (p.staging.length ? "" : " empty"), "aria-label": t("player.staging_of", { name: p.name }) },
      h("span", { class: "zone-label" }, t("player.staging"), p.staging.length ? ` (${p.staging.length})` : ""),
      p.staging.length ? h("div", { class: "cards small-row fan", "data-scroll": `ostage-${p.name}` }, p.staging.map((f, i) => cardEl(f, { small: true, data: { key: `ostage:${p.name}:${f}:${occ[i]}` } })))
        : h("span", { class: "muted" }, t("player.staging_empty"))));
    if (hv.tiebreak && hv.tiebreak.pile[p.name]) {
      rows.push(pileRow(S, p.name, hv.tiebreak.pile[p.name]));
    }
  }
  const total = game.long ? game.totals[p.name] : null;
  if (isMe) {
    const clocks = myClocks(S);
    if (clocks) rows.push(clocks);
  }
  return h("section", {
    class: `player panel seat-c${idx}` + (isMe ? " me-panel" : " opp") + (p.status !== "active" ? " inactive" : ""),
    "aria-label": isMe ? t("a11y.you", { name: p.name }) : t("a11y.player", { name: p.name }),
    dataset: { player: p.name },
  },
  h("header", { class: "player-head" },
    h("span", { class: "swatch", "aria-hidden": "true" }),
    h("span", { class: "player-name" }, p.name, isMe ? ` (${t("word.you")})` : ""),
    total !== null && total !== undefined ? h("span", { class: "chip total" }, t("player.total", { n: total })) : null,
    badges),
  rows);
}

/** In a tie-break the tied players' cards are face up; a tied player may play from the others' (R19). */
function pileRow(S, name, pile) {
  const hv = S.game.hand;
  const canPlay = hv.tiebreak.players.includes(S.seat) && !S.spectator;
  const occ = occurrences(pile);
  return h("div", { class: "pile-view", "data-group": "pile" },
    h("span", { class: "zone-label" }, t("player.pile")),
    h("div", { class: "cards small-row" }, pile.map((f, i) => cardEl(f, {
      small: true,
      focusable: canPlay,
      role: canPlay ? "button" : "img",
      classes: canPlay && S.selection.some((s) => s.zone === "pile" && s.face === f && s.occ === occ[i]) ? ["selected"] : [],
      data: canPlay ? { zone: "pile", occ: String(occ[i]), key: `pile:${f}:${occ[i]}`, drag: "1" } : { key: `opile:${f}:${occ[i]}` },
    })).map((el, i) => {
      if (canPlay) el.addEventListener("click", (ev) => { ev.stopPropagation(); S.actions.activateCard("pile", pile[i], occ[i]); });
      return el;
    })));
}


/** The game clocks again, in the player's own panel beside the hand (hidden on a phone,
 * where the top bar above the table is in sight anyway). */
function myClocks(S) {
  const chips = clockChips(S, "my-clock-");
  if (!chips.length) return null;
  return h("div", { class: "my-clocks", id: "my-clocks", role: "group", "aria-label": t("a11y.my_clocks") }, chips);
}

