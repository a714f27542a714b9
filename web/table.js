// The table screen, built from the server's GAME_VIEW only (engine/view.py docstring): the
// waiting room, the game screen's frame (head, opponents, table, notices, dock; style.css
// "table screen layout"), the result and the help. The pieces: players.js (panels, clocks),
// board.js (the table of melds), dock.js (the player's own area: actions, staging, hand).
import { t } from "./i18n.js";
import { h, clockEl, fmtNumber, fmtScore } from "./ui.js";
import { helpPanel } from "./help.js";
import { endButtons, replayLink } from "./endscreen.js";
import { describeEvent, scoreReason } from "./notices.js";
import { marks, seatIndex, colourVar } from "./tablebits.js";
import { clockChips, playerPanel } from "./players.js";
import { board } from "./board.js";
import { myArea } from "./dock.js";
import { botControl } from "./botseats.js";

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

// ---------------------------------------------------------------- game screen

function gameScreen(S, A) {
  const game = S.game;
  const hv = game.hand;
  const me = S.seat;
  marks.current = A.hintMarks();
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
          h("td", { class: "num" }, sc === undefined ? "" : fmtScore(sc)),
          h("td", {}, scoreReason(res.reasons[n])));
      }))));
    parts.push(replayLink(S));
  }
  if (game.long && game.history.length) {
    parts.push(h("table", { class: "scores totals", id: "long-table" },
      h("caption", {}, t("result.long_table", { target: game.target })),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("result.hand")), names.map((n) => h("th", { scope: "col" }, n)))),
      h("tbody", {}, game.history.map((r) => h("tr", {}, h("th", { scope: "row" }, String(r.hand)),
        names.map((n) => h("td", { class: "num" + (r.winner === n ? " won" : "") }, r.scores[n] === undefined ? "" : fmtNumber(r.scores[n])))))),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, t("result.total")), names.map((n) => h("td", { class: "num" }, fmtNumber(game.totals[n] ?? 0)))))));
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
      game.long ? h("p", {}, names.map((n) => `${n}: ${fmtNumber(r.totals[n] ?? 0)}`).join(" · ")) : null,
      endButtons(S, A)));
  }
  return h("section", { class: "result panel", "aria-labelledby": res ? "result-title" : null, id: "result", role: "region" }, parts);
}
