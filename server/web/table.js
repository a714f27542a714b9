// The table screen, built from the server's GAME_VIEW only (engine/view.py docstring).
import { t } from "./i18n.js";
import { h, cardEl, cardLabel, clockEl, fmtSeconds, cssKey } from "./ui.js";
import { describeEvent, faces, scoreReason } from "./notices.js";
import { goingOutChecklist, goingOutMarks } from "./rules.js";

const COLOURS = 3; // seat colours --seat-0..2 in style.css
// The current hint step's highlights (A.hintMarks()), worked out once per render.
let MARKS = { hand: new Map(), staging: new Map(), melds: new Set(), table: new Set(), newMeld: false };

function seatIndex(game, name) {
  const i = game.seats.findIndex((s) => s.name === name);
  return i < 0 ? 0 : i % COLOURS;
}
function colourVar(game, name) { return `var(--seat-${seatIndex(game, name)})`; }

function occurrences(list) {
  const seen = new Map();
  return list.map((f) => { const n = seen.get(f) || 0; seen.set(f, n + 1); return n; });
}

export function renderTable(S, A) {
  if (S.fatal) {
    return h("section", { class: "panel fatal", role: "alert" },
      h("h2", {}, t("table.unavailable")),
      h("p", {}, S.fatal),
      h("button", { class: "btn primary", type: "button", id: "btn-home", onclick: () => A.home() }, t("btn.home")));
  }
  if (S.replaced) {
    return h("section", { class: "panel fatal", role: "alert", id: "replaced" },
      h("h2", {}, t("conn.replaced")),
      h("p", {}, t("conn.replaced_why")),
      h("button", { class: "btn primary", type: "button", id: "btn-play-here", onclick: () => A.playHere() }, t("conn.play_here")),
      " ",
      h("button", { class: "btn", type: "button", id: "btn-home", onclick: () => A.home() }, t("btn.home")));
  }
  if (!S.game) return waitingRoom(S, A);
  return gameScreen(S, A);
}

// ---------------------------------------------------------------- waiting room

function waitingRoom(S, A) {
  const tb = S.table;
  const link = `${location.origin}/t/${S.code}`;
  const seats = tb ? tb.seats : [];
  const copy = async () => {
    try { await navigator.clipboard.writeText(link); document.getElementById("copy-state").textContent = t("wait.copied"); }
    catch (e) { document.getElementById("copy-state").textContent = t("wait.copy_failed"); }
  };
  return h("section", { class: "panel waiting", "aria-labelledby": "wait-title" },
    h("h2", { id: "wait-title" }, t("wait.title")),
    h("p", { class: "table-code-big" }, h("span", { class: "muted" }, t("wait.code")), " ", h("strong", { id: "table-code" }, S.code)),
    tb ? h("p", { class: "muted" }, t(tb.mode === "long" ? "mode.long" : "mode.single")) : null,
    h("p", {}, t("wait.share")),
    h("div", { class: "share" },
      h("input", { class: "input", readonly: true, value: link, "aria-label": t("wait.link"), id: "share-link" }),
      h("button", { class: "btn", type: "button", onclick: copy }, t("wait.copy")),
      h("span", { id: "copy-state", class: "muted", "aria-live": "polite" })),
    h("h3", {}, t("wait.seats", { n: seats.length })),
    h("ol", { class: "seat-list", id: "seat-list" },
      [0, 1, 2].map((i) => {
        const bot = !!seats[i] && A.isBot(seats[i]);
        return h("li", { class: `seat seat-c${i}` + (seats[i] ? "" : " empty") + (bot ? " bot" : ""), dataset: bot ? { bot: "1" } : {} },
          seats[i] ? [seats[i], seats[i] === S.seat || (S.session && seats[i] === S.session.name) ? ` (${t("word.you")})` : "",
            bot ? [" ", h("span", { class: "badge bot-badge" }, t("bots.badge"))] : null] : t("wait.empty_seat"));
      })),
    h("p", { class: "muted" }, t(S.connState === "open" ? "wait.starts" : "conn." + S.connState)),
    botControl(S, A, tb, seats),
    S.spectator ? h("p", { class: "note" }, t("table.spectating")) : null);
}

/** "Add a bot" for a player seated at a friendly table: one bot of the chosen level per click. */
function botControl(S, A, tb, seats) {
  if (!tb || tb.agora || S.spectator || !S.seat || !seats.includes(S.seat)) return null;
  const open = tb.phase === "waiting" && seats.length < 3 && !S.game;
  const level = S.botLevel === "shark" ? "shark" : "casual";
  const radio = (value) => h("label", { class: "bot-level" },
    h("input", { type: "radio", name: "bot-level", value, id: `bot-level-${value}`, checked: level === value ? true : null,
      disabled: !open || S.botBusy ? true : null, onchange: () => A.setBotLevel(value) }),
    " ", h("strong", {}, t("bots.level." + value)), " ", h("span", { class: "muted" }, t("bots.level." + value + ".text")));
  return h("fieldset", { class: "bots", id: "bot-control" },
    h("legend", {}, t("bots.title")),
    h("p", { class: "muted small" }, t("bots.text")),
    h("div", { class: "row bot-levels" }, radio("casual"), radio("shark")),
    h("div", { class: "row" },
      h("button", { class: "btn", type: "button", id: "btn-add-bot", disabled: !open || S.botBusy ? true : null, onclick: () => A.addBot() },
        t("bots.add"))),
    S.botError ? h("p", { class: "error", role: "alert", id: "bot-error" }, S.botError) : null);
}

// ---------------------------------------------------------------- game screen

function gameScreen(S, A) {
  const game = S.game;
  const hv = game.hand;
  const me = S.seat;
  MARKS = A.hintMarks();
  // The screen fills the window below the header: the head (top bar, banners, result), the
  // opponents' strip, the table (the one region that scrolls) and, docked at the bottom, the
  // player's own panel, actions, staging area and hand (style.css, "table screen layout").
  const screen = h("div", { class: "table-screen game", id: "table-screen" });
  const head = h("div", { class: "head", "data-scroll": "head" }, topBar(S, A));
  screen.appendChild(head);
  const mineSeat = hv ? hv.players.find((p) => p.name === me) : null;
  if (!mineSeat || S.spectator) head.appendChild(h("div", { class: "status-slot", id: "status-slot" }));
  if (!hv) {
    screen.classList.add("no-hand");
    head.appendChild(h("section", { class: "panel" }, t("table.no_hand")));
    head.appendChild(resultPanel(S, A));
    return screen;
  }
  const banners = bannerRow(S);
  if (banners) head.appendChild(banners);
  if (hv.result || game.phase !== "hand") head.appendChild(resultPanel(S, A));

  const others = hv.players.filter((p) => p.name !== me);
  screen.appendChild(h("section", { class: "opponents", "aria-label": t("a11y.opponents") },
    others.map((p) => playerPanel(S, p, false))));
  screen.appendChild(board(S, A));
  screen.appendChild(sidePanel(S, A));
  const mine = hv.players.find((p) => p.name === me);
  if (mine && !S.spectator) screen.appendChild(myArea(S, A, mine));
  else screen.appendChild(h("section", { class: "me panel spectator-note" }, t("table.spectating")));
  if (S.showHelp) screen.appendChild(helpPanel(A));
  return screen;
}

function topBar(S, A) {
  const game = S.game, hv = game.hand;
  const items = [];
  items.push(h("span", { class: "chip code-chip", title: t("wait.code") }, h("span", { class: "muted" }, t("wait.code")), " ", h("strong", { id: "table-code" }, S.code)));
  items.push(h("span", { class: "chip", id: "mode-chip" }, t(game.long ? "mode.long" : A.isAgora() ? "mode.agora" : "mode.single")));
  if (game.long) items.push(h("span", { class: "chip" }, t("top.hand_no", { n: game.hand_no }), game.target ? " · " + t("top.target", { n: game.target }) : ""));
  items.push(...clockChips(S, "clock-"));
  items.push(h("span", { class: "spacer" }));
  items.push(h("button", { class: "btn ghost", type: "button", onclick: () => A.toggleHelp(), "aria-expanded": String(!!S.showHelp), "aria-keyshortcuts": "?" }, t("btn.help")));
  return h("div", { class: "topbar", role: "region", "aria-label": t("a11y.status") }, items);
}

/** The game clocks as chips (Inactivity, Stop!, tie-break, pause). The top bar shows them with
 * ids "clock-…"; the player's own area repeats them ("my-clock-…") beside the hand, so they
 * stay in sight when the table is big and the page is scrolled down to the hand. */
function clockChips(S, prefix) {
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

function bannerRow(S) {
  const game = S.game, hv = game.hand;
  const out = [];
  const mine = hv.players.find((p) => p.name === S.seat);
  if (hv.clocks.freeze && !hv.result) {
    const caller = hv.clocks.freeze.caller;
    out.push(h("div", { class: "banner freeze", role: "status", style: `--c:${colourVar(game, caller)}` },
      caller === S.seat ? t("banner.freeze.me") : t("banner.freeze", { name: caller })));
  }
  if (hv.tiebreak && !hv.result) {
    out.push(h("div", { class: "banner tiebreak", role: "status" }, t("banner.tiebreak", { names: hv.tiebreak.players.join(", ") })));
  }
  if (mine && mine.status !== "active" && !hv.result) {
    out.push(h("div", { class: "banner out", role: "status" }, t("banner.status." + mine.status)));
  }
  if (S.spectator) out.push(h("div", { class: "banner", role: "status" }, t("table.spectating")));
  if (S.connState !== "open") out.push(h("div", { class: "banner conn", role: "status" }, t("banner.reconnecting")));
  return out.length ? h("div", { class: "banners" }, out) : null;
}

// ---------------------------------------------------------------- players

function playStatusOf(hv, name) {
  return hv.plays.filter((p) => p.player === name);
}

function playerPanel(S, p, isMe) {
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

// ---------------------------------------------------------------- the board (table)

function board(S, A) {
  const game = S.game, hv = game.hand;
  const canAct = !!S.seat && !S.spectator && !hv.result;
  const notFinal = new Map(); // meld id -> [players]
  for (const pl of hv.plays) {
    if (pl.status !== "confirmed") continue;
    for (const m of pl.melds) {
      if (!notFinal.has(m)) notFinal.set(m, []);
      if (!notFinal.get(m).includes(pl.player)) notFinal.get(m).push(pl.player);
    }
  }
  const reserved = new Map(hv.reserved.map((r) => [r.card, r.player]));
  const melds = hv.table.map((m) => meldBox(S, A, m, notFinal.get(m.id) || [], reserved, canAct));
  const hold = hv.holds.find((x) => x.player === S.seat);
  const newTile = canAct ? h("div", {
    class: "meld new-meld" + (MARKS.newMeld ? " hinted" : ""),
    role: "button",
    tabindex: "0",
    "aria-label": t("board.new_meld_label"),
    dataset: { drop: "new", key: "new" },
    onclick: () => A.activateZone("new"),
  }, h("span", { class: "plus", "aria-hidden": "true" }, "+"), h("span", {}, t(hold ? "board.new_meld_drop" : "board.new_meld"))) : null;

  const size = tableCardSize(hv.table, lastRoom || viewportSize());
  const el = h("section", {
    class: "board panel", "aria-label": t("a11y.board"), id: "board",
    // The one scrolling region of the screen; dnd.js scrolls it when a drag nears its edges.
    dataset: { scroll: "board", autoscroll: "1", size: String(size.tier) },
    style: `--tc-w:${size.w}px;--tc-h:${size.h}px;--tc-step:${size.step}px`,
  },
  removedCorner(S, A),
  h("h2", { class: "visually-hidden" }, t("a11y.board")),
  hv.table.length === 0 ? h("p", { class: "muted empty-board" }, t("board.empty")) : null,
  h("div", { class: "melds", "data-group": "melds" }, melds, newTile),
  legend());
  fitCards(el, hv.table);
  return el;
}

// The table's measured room ({w, h} px inside its padding), kept from one render to the next;
// null until the table has been laid out once (then viewportSize() estimates it).
let lastRoom = null;
let fitObserver = null;

/** Watch the table's size: when it changes (window resized, the dock or the head grew), the
 * cards take the size that fits the room (tableCardSize), without waiting for a new view. */
function fitCards(el, melds) {
  if (typeof ResizeObserver === "undefined") return;
  if (fitObserver) fitObserver.disconnect();
  fitObserver = new ResizeObserver(() => {
    if (!el.isConnected || !el.clientHeight) return;
    const cs = getComputedStyle(el);
    lastRoom = {
      w: el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
      h: el.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom),
    };
    const size = tableCardSize(melds, lastRoom);
    if (String(size.tier) === el.dataset.size) return;
    el.dataset.size = String(size.tier);
    el.style.setProperty("--tc-w", `${size.w}px`);
    el.style.setProperty("--tc-h", `${size.h}px`);
    el.style.setProperty("--tc-step", `${size.step}px`);
  });
  fitObserver.observe(el);
}

// The table's card sizes, biggest first: width and height (px), and the step from one card to
// the next within a meld (the cards overlap; a step over half the width keeps every card's
// centre, and so a click or a drag started there, on that card).
export const TABLE_SIZES = [
  { w: 46, h: 66, step: 28 },
  { w: 40, h: 57, step: 24 },
  { w: 35, h: 50, step: 21 },
  { w: 31, h: 44, step: 18 },
  { w: 27, h: 39, step: 16 },
];

/** The table's room in CSS pixels, estimated from the window (the layout is in style.css):
 * {w, h}. On a wide screen the notices column sits beside it; the rest is head, opponents and
 * the docked hand. */
function viewportSize() {
  const W = window.innerWidth, H = window.innerHeight;
  if (W > 960) return { w: Math.min(W, 1500) - 330, h: H - 560 };
  return { w: W - 30, h: H - 600 };
}

/** The biggest card size at which all of `melds` (MeldView list) plus the New meld tile fit in
 * `room` ({w, h} px) without scrolling, melds wrapping into rows; the smallest when none does.
 * Returns {tier, w, h, step}: fewer melds, bigger cards. */
export function tableCardSize(melds, room) {
  const pad = 14, gapX = 8, gapY = 8, head = 18;
  for (let tier = 0; tier < TABLE_SIZES.length; tier++) {
    const sz = TABLE_SIZES[tier];
    const widths = melds.map((m) => sz.w + Math.max(0, m.cards.length - 1) * sz.step + pad);
    widths.push(sz.w * 2);
    let rows = 1, x = 0;
    for (const w of widths) {
      if (x > 0 && x + gapX + w > room.w) { rows++; x = w; } else x += (x > 0 ? gapX : 0) + w;
    }
    // + the removed cards' row above the melds (the legend below them may scroll)
    const height = rows * (sz.h + head + pad) + (rows - 1) * gapY + 30;
    if (height <= room.h) return { tier, ...sz };
  }
  return { tier: TABLE_SIZES.length - 1, ...TABLE_SIZES[TABLE_SIZES.length - 1] };
}

function legend() {
  return h("p", { class: "legend muted", "aria-hidden": "true" },
    h("span", { class: "lg lg-rework" }), t("legend.rework"), " ",
    h("span", { class: "lg lg-unsafe" }), t("legend.unsafe"), " ",
    h("span", { class: "lg lg-trial" }), t("legend.trial"), " ",
    h("span", { class: "lg lg-held" }), t("legend.held"), " ",
    h("span", { class: "lg lg-wound" }), t("legend.wound"));
}

function removedCorner(S, A) {
  const hv = S.game.hand;
  return h("div", { class: "removed-corner" + (S.showRemoved ? "" : " collapsed") },
    h("button", { class: "btn tiny ghost", type: "button", id: "toggle-removed", "aria-expanded": String(S.showRemoved), "aria-controls": "removed-cards", "aria-keyshortcuts": "H", onclick: () => A.toggleRemoved() },
      t(S.showRemoved ? "board.hide_removed" : "board.show_removed", { n: hv.removed.length })),
    S.showRemoved ? h("div", { class: "cards small-row", id: "removed-cards", "aria-label": t("board.removed_label") },
      hv.removed.map((f, i) => cardEl(f, { small: true, data: { key: `removed:${f}:${i}` } }))) : null);
}

function meldBox(S, A, m, unsafeBy, reserved, canAct) {
  const game = S.game, hv = game.hand;
  const occ = occurrences(m.cards);
  const trial = [...m.on_trial];
  const held = [...m.held];
  const holdsHere = hv.holds.filter((x) => x.meld === m.id);
  const cards = m.cards.map((f, i) => {
    const classes = [];
    let title = null;
    const ti = trial.indexOf(f);
    if (ti >= 0) { classes.push("on-trial"); trial.splice(ti, 1); }
    const hi = held.indexOf(f);
    let heldBy = null;
    if (hi >= 0) {
      held.splice(hi, 1);
      const hd = holdsHere.find((x) => x.card === f);
      heldBy = hd ? hd.player : "?";
      classes.push("held");
      if (heldBy === S.seat) classes.push("held-by-me");
      title = t("card.held_by", { name: heldBy === S.seat ? t("word.you_obj") : heldBy });
    }
    const res = reserved.get(f);
    if (res) { classes.push("reserved"); title = t("card.reserved_for", { name: res === S.seat ? t("word.you_obj") : res }); }
    const sel = A.isSelected("table", f, occ[i], m.id);
    if (sel) classes.push("selected");
    if (MARKS.table.has(`${m.id}:${f}`)) classes.push("hinted");
    const draggable = canAct && (!heldBy || heldBy === S.seat);
    const label = cardLabel(f) + (heldBy ? ", " + t("card.held_by", { name: heldBy }) : "") + (classes.includes("on-trial") ? ", " + t("card.on_trial") : "")
      + (res ? ", " + t("card.reserved_for", { name: res }) : "");
    const el = cardEl(f, {
      classes, title, label,
      focusable: canAct,
      role: canAct ? "button" : "img",
      pressed: canAct ? sel : undefined,
      data: { zone: "table", meld: String(m.id), occ: String(occ[i]), key: cssKey({ zone: "table", meld: m.id, face: f, occ: occ[i] }), ...(draggable ? { drag: "1" } : {}) },
    });
    if (heldBy) {
      el.style.setProperty("--c", colourVar(game, heldBy));
      el.appendChild(h("span", { class: "held-tag", "aria-hidden": "true" }, t("card.taken")));
    } else if (res) {
      el.style.setProperty("--c", colourVar(game, res));
      el.appendChild(h("span", { class: "held-tag", "aria-hidden": "true" }, t("card.reserved")));
    }
    if (canAct) el.addEventListener("click", (ev) => { ev.stopPropagation(); A.activateCard("table", f, occ[i], m.id); });
    return el;
  });
  const rw = m.reworked_by || [];
  const shadows = rw.map((p, i) => `0 0 0 ${3 + i * 3}px ${colourVar(game, p)}`).join(", ");
  const classes = ["meld"];
  if (rw.length) classes.push("reworked");
  if (unsafeBy.length) classes.push("unsafe");
  if (!m.valid) classes.push("wounded");
  if (MARKS.melds.has(m.id)) classes.push("hinted");
  const tags = [];
  for (const p of rw) tags.push(h("span", { class: "meld-tag rw", style: `--c:${colourVar(game, p)}` }, t(p === S.seat ? "meld.reworked_by.me" : "meld.reworked_by", { name: p })));
  if (unsafeBy.length) tags.push(h("span", { class: "meld-tag unsafe" }, t("meld.not_final")));
  if (!m.valid) tags.push(h("span", { class: "meld-tag wound" }, "\u26a0 ", t("meld.invalid")));
  const labelParts = [t("meld.label", { n: m.id, cards: m.cards.map(cardLabel).join(", ") })];
  if (rw.length) labelParts.push(t("meld.reworked_by", { name: rw.join(", ") }));
  if (unsafeBy.length) labelParts.push(t("meld.not_final"));
  if (!m.valid) labelParts.push(t("meld.invalid"));
  return h("div", {
    class: classes.join(" "),
    style: shadows ? `box-shadow: ${shadows}` : null,
    role: "group",
    tabindex: canAct ? "0" : null,
    "aria-label": labelParts.join(". "),
    dataset: { drop: canAct ? "meld" : "", meld: String(m.id), key: `meld:${m.id}` },
    onclick: canAct ? () => A.activateZone("meld", m.id) : null,
  },
  h("div", { class: "meld-head" }, h("span", { class: "meld-id" }, `#${m.id}`), tags),
  h("div", { class: "cards meld-cards", "data-group": `meld-${m.id}` }, cards));
}

// ---------------------------------------------------------------- side: notices

function sidePanel(S, A) {
  const list = [];
  for (const n of S.notices) {
    const d = describeEvent(n.ev, S.seat);
    if (!d) continue;
    list.push(h("li", { class: `notice ${d.level}` + (d.hitsMe ? " hits-me" : ""), dataset: { kind: n.ev.kind } }, d.text));
  }
  return h("aside", { class: "side panel", "aria-label": t("a11y.notices") },
    h("div", { class: "side-inner" },
      h("h2", { class: "side-title" }, t("notices.title")),
      list.length ? h("ol", { class: "notices", id: "notices", "data-scroll": "notices" }, list)
        : h("p", { class: "muted", id: "notices" }, t("notices.empty"))));
}

// ---------------------------------------------------------------- my area

function myArea(S, A, mine) {
  const game = S.game, hv = game.hand;
  const active = mine.status === "active" && !hv.result;
  const frozenByOther = hv.clocks.freeze && hv.clocks.freeze.caller !== S.seat;
  const iCalledStop = hv.clocks.freeze && hv.clocks.freeze.caller === S.seat;
  const hold = hv.holds.find((x) => x.player === S.seat);
  const stagingOcc = occurrences(mine.staging);
  const stagedHint = new Map(MARKS.staging);
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
    "aria-keyshortcuts": key || null,
    title: key ? `${label} (${key})` : label,
    onclick: fn,
  }, label, key ? h("kbd", { "aria-hidden": "true" }, key) : null);

  const buttons = [];
  if (active) {
    buttons.push(btn("draw", t("btn.draw"), "D", () => A.draw(), { cls: "primary", disabled: mine.stock_count === 0 || mine.staging.length > 0 || frozenByOther }));
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
  const hinted = new Map(MARKS.hand);
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
  h("div", { class: "cards hand-cards" + (S.handOrder.length > 14 ? " many" : ""), "data-group": "hand", id: "my-hand", "data-scroll": "hand" },
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

/** The game clocks again, in the player's own panel beside the hand (hidden on a phone,
 * where the top bar above the table is in sight anyway). */
function myClocks(S) {
  const chips = clockChips(S, "my-clock-");
  if (!chips.length) return null;
  return h("div", { class: "my-clocks", id: "my-clocks", role: "group", "aria-label": t("a11y.my_clocks") }, chips);
}

function selectionHintKey(S) {
  const z = S.selection[0].zone;
  if (z === "hand" || z === "pile") return "me.hint_hand";
  if (z === "staging") return "me.hint_staging";
  return "me.hint_table";
}

// ---------------------------------------------------------------- results

function resultPanel(S, A) {
  const game = S.game, hv = game.hand;
  const res = hv ? hv.result : null;
  const names = game.seats.map((s) => s.name);
  const parts = [];
  if (res) {
    parts.push(h("h2", { id: "result-title" },
      res.winner ? t(res.winner === S.seat ? "result.hand_winner.me" : "result.hand_winner", { name: res.winner }) : t("result.hand_nowinner"),
      " ", h("span", { class: "chip" }, t("end." + res.end))));
    parts.push(h("table", { class: "scores", id: "hand-scores" },
      h("caption", {}, t("result.count")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("result.player")), h("th", { scope: "col" }, t("result.cards_left")), h("th", { scope: "col" }, t("result.points")), h("th", { scope: "col" }, t("result.why")))),
      h("tbody", {}, names.map((n) => {
        const p = hv.players.find((x) => x.name === n);
        const cardsLeft = p ? p.hand_count + p.staging.length : "";
        const sc = res.scores[n];
        return h("tr", { class: n === res.winner ? "winner" : "", dataset: { player: n } },
          h("th", { scope: "row" }, h("span", { class: `swatch seat-c${seatIndex(game, n)}` }), n),
          h("td", {}, String(cardsLeft)),
          h("td", { class: "num" }, sc === undefined ? "" : (sc > 0 ? "+" : "") + sc),
          h("td", {}, scoreReason(res.reasons[n])));
      }))));
  }
  if (game.long && game.history.length) {
    parts.push(h("table", { class: "scores totals", id: "long-table" },
      h("caption", {}, t("result.long_table", { target: game.target })),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("result.hand")), names.map((n) => h("th", { scope: "col" }, n)))),
      h("tbody", {}, game.history.map((r) => h("tr", {}, h("th", { scope: "row" }, String(r.hand)),
        names.map((n) => h("td", { class: "num" + (r.winner === n ? " won" : "") }, String(r.scores[n] ?? "")))))),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, t("result.total")), names.map((n) => h("td", { class: "num" }, String(game.totals[n] ?? 0)))))));
  }
  if (game.phase === "pause") {
    const seat = game.seats.find((s) => s.name === S.seat);
    const readyNames = game.seats.filter((s) => s.ready).map((s) => s.name);
    parts.push(h("div", { class: "pause-box" },
      h("p", {}, t("result.pause"), " ", game.pause_until !== null ? clockEl(game.pause_until, { frame: "game", total: hv ? hv.timers.pause : 60, label: t("clock.pause") }) : null),
      h("p", { class: "muted" }, t("result.ready_list", { names: readyNames.length ? readyNames.join(", ") : "\u2014" })),
      seat && !S.spectator ? h("div", { class: "actions" },
        h("button", { class: "btn primary", type: "button", id: "btn-ready", disabled: seat.ready ? true : null, onclick: () => A.ready() }, seat.ready ? t("btn.ready_done") : t("btn.ready")),
        h("button", { class: "btn ghost danger-text", type: "button", id: "btn-leave-game", onclick: () => A.leaveGame() }, t("btn.leave_game"))) : null));
  }
  if (game.phase === "over" && game.result) {
    const r = game.result;
    const text = r.winner ? t(r.winner === S.seat ? "result.game_winner.me" : "result.game_winner", { name: r.winner })
      : r.long_draw ? t("result.long_draw") : t("result.nobody");
    parts.push(h("div", { class: "final", id: "final-result" },
      h("h2", {}, t("result.game_over")),
      h("p", { class: "final-text" }, text, " ", h("span", { class: "muted" }, t("result.reason." + r.reason))),
      game.long ? h("p", {}, names.map((n) => `${n}: ${r.totals[n] ?? 0}`).join(" · ")) : null,
      h("div", { class: "row" },
        h("button", { class: "btn primary", type: "button", id: "btn-home", onclick: () => A.home() }, t("btn.home")),
        A.isAgora() ? [
          h("button", { class: "btn", type: "button", id: "btn-ranking", onclick: () => A.toRanking() }, t("btn.ranking")),
          h("button", { class: "btn", type: "button", id: "btn-agora-again", onclick: () => A.agoraAgain() }, t("btn.agora_again"))] : null)));
  }
  return h("section", { class: "result panel", "aria-labelledby": res ? "result-title" : null, id: "result", role: "region" }, parts);
}

// ---------------------------------------------------------------- help

function helpPanel(A) {
  const keys = [
    ["D", "help.draw"], ["S", "help.stage"], ["U", "help.unstage"], ["L", "help.lay"], ["T", "help.take"],
    ["N", "help.new"], ["E", "help.end"], ["X", "help.cancel"], ["!", "help.stop"], ["O", "help.sort"],
    ["H", "help.removed"], ["Enter / Space", "help.select"], ["Esc", "help.escape"], ["\u2190 \u2192", "help.arrows"],
    ["Alt + \u2190 \u2192", "help.rearrange"], ["?", "help.help"],
  ];
  return h("section", { class: "help panel", id: "help", role: "dialog", "aria-modal": "false", "aria-labelledby": "help-title" },
    h("h2", { id: "help-title" }, t("help.title")),
    h("p", {}, t("help.intro")),
    h("dl", { class: "keys" }, keys.map(([k, key]) => [h("dt", {}, h("kbd", {}, k)), h("dd", {}, t(key))])),
    h("p", {}, t("help.drag")),
    h("button", { class: "btn", type: "button", onclick: () => A.toggleHelp() }, t("btn.close")));
}
