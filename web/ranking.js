// The public ranking (GET /api/ranking: by skill rating, mu - 3 sigma, issue 18) and a player's
// agora hands with their rating over time (GET /api/players/{id}/history; "me" with the session
// token): /#ranking and /#player/{id}. A preview of the top of the ranking sits on the home page.
import { t, getLang } from "./i18n.js";
import { api } from "./net.js";
import { h } from "./ui.js";

const PAGE = 50;
const PREVIEW = 5;
const REFRESH_MS = 15000; // the ranking page keeps itself fresh while it is shown

/**
 * Loads what the ranking pages show. `ctx`: {S, render, errorText(e)}. State:
 * S.rank = {rows, players, loading, error, me: {player_id, rank} | null, at};
 * S.hist = {id, data, loading, error}; S.agoraCount: players waiting (home page).
 */
export function createRanking(ctx) {
  const { S } = ctx;
  S.rank = { rows: null, players: 0, loading: false, error: null, me: null };
  S.hist = { id: null, data: null, loading: false, error: null };
  S.agoraCount = null;
  let timer = null;
  let seq = 0;

  async function me() {
    if (!S.session || !S.session.token) return null;
    try {
      const r = await api("GET", "/api/players/me/history?limit=1", undefined, S.session.token);
      return { player_id: r.player_id, rank: r.rank };
    } catch (e) {
      return null; // an expired token: nothing to highlight
    }
  }

  const R = {
    /** Top of the ranking (and my place), from the first page. `more`: the next page too. */
    async load({ more = false, quiet = false } = {}) {
      const mine = ++seq;
      const offset = more && S.rank.rows ? S.rank.rows.length : 0;
      if (!quiet) { S.rank.loading = true; S.rank.error = null; ctx.render(); }
      try {
        const limit = more ? PAGE : Math.max(PAGE, S.rank.rows && quiet ? S.rank.rows.length : 0);
        const [page, my] = await Promise.all([
          api("GET", `/api/ranking?limit=${Math.min(500, limit)}&offset=${offset}`), me()]);
        if (mine !== seq && !more) return;
        S.rank.rows = more ? (S.rank.rows || []).concat(page.ranking) : page.ranking;
        S.rank.players = page.players;
        S.rank.me = my;
        S.rank.error = null;
      } catch (e) {
        if (!quiet) S.rank.error = ctx.errorText(e);
      }
      S.rank.loading = false;
      ctx.render();
    },
    /** The ranking page is shown: load it, and again every so often while it stays. */
    enterRanking() {
      clearInterval(timer);
      R.load();
      timer = setInterval(() => { if (S.route === "ranking" && !document.hidden) R.load({ quiet: true }); }, REFRESH_MS);
    },
    async enterPlayer(id) {
      clearInterval(timer);
      timer = null;
      S.hist = { id, data: null, loading: true, error: null };
      ctx.render();
      if (id === "me" && !(S.session && S.session.token)) { S.hist.loading = false; ctx.render(); return; }
      try {
        const data = await api("GET", `/api/players/${encodeURIComponent(id)}/history?limit=${PAGE}`, undefined,
          id === "me" ? S.session.token : undefined);
        if (S.hist.id !== id) return;
        S.hist.data = data;
      } catch (e) {
        if (S.hist.id !== id) return;
        S.hist.error = ctx.errorText(e);
      }
      S.hist.loading = false;
      ctx.render();
    },
    leave() { clearInterval(timer); timer = null; },
    /** The home page: the top few and how many wait in the agora queue. */
    async homePreview() {
      const [page, agora] = await Promise.all([
        api("GET", `/api/ranking?limit=${PREVIEW}`).catch(() => null),
        api("GET", "/api/agora").catch(() => null)]);
      if (page) { S.rank.preview = page.ranking; S.rank.players = page.players; }
      S.agoraCount = agora ? agora.waiting : null;
      ctx.render();
    },
  };
  return R;
}

// ---------------------------------------------------------------- formatting

function signed(n) {
  if (typeof n !== "number") return "";
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0";
}

function dateText(hand) {
  try {
    return new Intl.DateTimeFormat(getLang(), { dateStyle: "medium", timeStyle: "short" }).format(new Date(hand.at * 1000));
  } catch (e) {
    return hand.date || "";
  }
}

function ratingText(x) {
  if (typeof x !== "number") return "";
  const v = x.toFixed(1);
  return x < 0 ? `\u2212${v.slice(1)}` : v;
}

function rankRow(r, me, go, extra = "") {
  const mine = !!(me && r.player_id === me.player_id);
  return h("tr", { class: (mine ? "me-row" : "") + extra, dataset: { playerId: r.player_id, rating: r.rating, provisional: r.provisional ? "1" : null }, "aria-current": mine ? "true" : null },
    h("td", { class: "num rank-n" }, String(r.rank)),
    h("th", { scope: "row" }, go.link(`/#player/${encodeURIComponent(r.player_id)}`, r.name, { class: "player-link", title: t("rank.see_hands", { name: r.name }) }),
      mine ? h("span", { class: "badge you" }, t("word.you")) : null,
      r.provisional ? [" ", h("span", { class: "badge provisional", title: t("rating.provisional_title", { n: r.games }) }, t("rating.provisional"))] : null),
    h("td", { class: "num" }, signed(r.points)),
    h("td", { class: "num" }, String(r.hands)),
    h("td", { class: "num rating-cell", title: t("rating.mu_sigma", { mu: ratingText(r.mu), sigma: ratingText(r.sigma) }) }, ratingText(r.rating)));
}

function rankTable(rows, me, go, id) {
  const inPage = me && me.rank && rows.some((r) => r.player_id === me.player_id);
  return h("table", { class: "scores ranking-table", id },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", class: "num" }, t("rank.col.rank")), h("th", { scope: "col" }, t("rank.col.player")),
      h("th", { scope: "col", class: "num" }, t("rank.col.points")), h("th", { scope: "col", class: "num" }, t("rank.col.hands")),
      h("th", { scope: "col", class: "num", title: t("rating.col_title") }, t("rating.col")))),
    h("tbody", {}, rows.map((r) => rankRow(r, me, go)),
      me && me.rank && !inPage ? [
        h("tr", { class: "gap", "aria-hidden": "true" }, h("td", { colspan: "5" }, "\u22ee")),
        rankRow(me.rank, me, go, " detached")] : null));
}

// ---------------------------------------------------------------- pages

/** /#ranking */
export function renderRanking(S, R, Agora, go) {
  const st = S.rank;
  const parts = [
    h("div", { class: "page-head" },
      h("h2", { id: "ranking-title" }, t("rank.title")),
      h("span", { class: "spacer" }),
      h("button", { class: "btn tiny", type: "button", id: "ranking-refresh", onclick: () => R.load() }, t("rank.refresh"))),
    h("p", { class: "muted", id: "ranking-intro" }, t("rating.intro")),
  ];
  if (st.error) parts.push(h("p", { class: "error", role: "alert", id: "ranking-error" }, t("rank.failed"), " ", st.error));
  if (st.rows === null) {
    parts.push(h("p", { class: "muted", id: "ranking-loading" }, t("rank.loading")));
  } else if (!st.rows.length) {
    parts.push(h("p", { class: "muted", id: "ranking-empty" }, t("home.ranking_empty")));
  } else {
    parts.push(h("p", { class: "muted small", id: "ranking-count" }, t("rank.players", { n: st.players })));
    parts.push(rankTable(st.rows, st.me, go, "ranking-table"));
    if (st.rows.length < st.players) {
      parts.push(h("button", { class: "btn", type: "button", id: "ranking-more", disabled: st.loading, onclick: () => R.load({ more: true }) }, t("rank.more")));
    }
  }
  if (S.session && st.rows !== null && !(st.me && st.me.rank)) {
    parts.push(h("p", { class: "note", id: "ranking-unranked" }, t("rank.you_unranked")));
  }
  parts.push(h("p", { class: "row page-links" },
    S.session ? go.link("/#player/me", t("home.my_hands"), { id: "ranking-my-hands", class: "btn" }) : null,
    h("button", { class: "btn primary", type: "button", id: "ranking-agora", onclick: () => (S.session ? Agora.start(S.session.name) : go.to("/#agora")) }, t("home.agora_btn")),
    go.link("/", t("btn.home"), { id: "ranking-home", class: "btn ghost" })));
  return h("section", { class: "panel page ranking-page", "aria-labelledby": "ranking-title", "aria-busy": st.loading ? "true" : null }, parts);
}

/** /#player/{id} (or /#player/me) */
export function renderHistory(S, R, go) {
  const st = S.hist;
  const d = st.data;
  const isMe = st.id === "me" || !!(d && S.rank.me && d.player_id === S.rank.me.player_id);
  const name = d && d.rank ? d.rank.name : d && d.name ? d.name : (isMe && S.session ? S.session.name : null);
  const title = isMe ? t("hist.title.me") : name ? t("hist.title", { name }) : t("hist.title.unknown");
  const parts = [h("h2", { id: "history-title" }, title)];
  if (st.id === "me" && !S.session) {
    parts.push(h("p", { class: "note", id: "history-empty" }, t("hist.no_session")));
  } else if (st.error) {
    parts.push(h("p", { class: "error", role: "alert", id: "history-error" }, t("hist.failed"), " ", st.error));
  } else if (!d) {
    parts.push(h("p", { class: "muted" }, t("rank.loading")));
  } else {
    parts.push(h("div", { class: "row history-summary", id: "history-summary" },
      d.rank ? [
        h("span", { class: "chip" }, t("hist.rank", { rank: d.rank.rank })),
        h("span", { class: "chip", id: "history-rating" }, t("rating.chip", { rating: ratingText(d.rank.rating) })),
        d.rank.provisional ? h("span", { class: "chip provisional" }, t("rating.provisional")) : null]
        : h("span", { class: "chip" }, t("hist.unranked")),
      d.hands_counted ? [
        h("span", { class: "chip" }, t("hist.points", { points: signed(d.points) })),
        h("span", { class: "chip" }, t("hist.hands", { hands: d.hands_counted }))] : null));
    const chart = ratingChart(d.hands, d.rank);
    if (chart) parts.push(chart);
    if (!d.hands.length) {
      parts.push(h("p", { class: "muted", id: "history-empty" }, t("hist.empty")));
    } else {
      parts.push(h("div", { class: "table-scroll" }, h("table", { class: "scores history-table", id: "history-table" },
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, t("hist.col.date")), h("th", { scope: "col" }, t("hist.col.result")),
          h("th", { scope: "col", class: "num" }, t("rank.col.points")), h("th", { scope: "col" }, t("hist.col.players")),
          h("th", { scope: "col" }, t("hist.col.table")))),
        h("tbody", {}, d.hands.map((x) => h("tr", { dataset: { hand: x.hand_id, result: x.result } },
          h("td", {}, h("time", { datetime: x.date }, dateText(x))),
          h("td", {}, h("span", { class: `badge result-${x.result}` }, t("hist.result." + x.result, {}, x.result))),
          h("td", { class: "num" }, signed(x.points)),
          h("td", {}, x.players.map((p, i) => [i ? ", " : "", name && p === name ? h("strong", {}, p) : p])),
          h("td", { class: "code-cell" }, x.code, " ", h("a", { class: "replay-link", href: `/replay/${encodeURIComponent(x.code)}/1` }, t("replay.link")))))))));
    }
  }
  parts.push(h("p", { class: "row page-links" },
    go.link("/#ranking", t("hist.back"), { id: "history-to-ranking", class: "btn" }),
    go.link("/", t("btn.home"), { id: "history-home", class: "btn ghost" })));
  return h("section", { class: "panel page history-page", "aria-labelledby": "history-title" }, parts);
}

// ---------------------------------------------------------------- rating over time

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children) if (c) el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  return el;
}

/** A small line of the conservative rating after each rated hand, oldest first (the hands
 *  come newest first), from the starting rating (0: mu 25 - 3 x 25/3) when the first rated hand
 *  is among them; null when none is rated. */
function ratingChart(hands, rank) {
  const pts = hands.filter((x) => typeof x.rating === "number").map((x) => x.rating).reverse();
  if (!pts.length) return null;
  if (rank && rank.games === pts.length) pts.unshift(0);
  const W = 320, H = 96, PAD = 6;
  const lo = Math.min(...pts, 0), hi = Math.max(...pts, 0);
  const span = hi - lo || 1;
  const x = (i) => PAD + (pts.length === 1 ? (W - 2 * PAD) / 2 : (i * (W - 2 * PAD)) / (pts.length - 1));
  const y = (v) => H - PAD - ((v - lo) * (H - 2 * PAD)) / span;
  const line = pts.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const label = t("rating.chart_label", { n: pts.length, first: ratingText(pts[0]), last: ratingText(pts[pts.length - 1]) });
  return h("figure", { class: "rating-chart", id: "rating-chart" },
    svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": label, "data-points": pts.map((v) => v.toFixed(3)).join(",") },
      svg("title", {}, label),
      svg("line", { x1: PAD, x2: W - PAD, y1: y(0), y2: y(0), class: "zero", stroke: "currentColor", "stroke-opacity": "0.25", "stroke-dasharray": "3 3" }),
      svg("polyline", { points: line, fill: "none", stroke: "currentColor", "stroke-width": "2", "stroke-linejoin": "round" }),
      ...pts.map((v, i) => svg("circle", { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: "2.5", fill: "currentColor" }))),
    h("figcaption", { class: "muted small" }, label));
}

/** The home page's ranking block: the top few, and links to the whole ranking and my hands. */
export function rankingPreview(S, R, go) {
  if (S.rank.preview === undefined) {
    S.rank.preview = null; // asked once per visit to the home page
    queueMicrotask(() => R.homePreview());
  }
  const rows = S.rank.preview;
  const links = h("p", { class: "row page-links" },
    go.link("/#ranking", t("home.ranking_btn"), { id: "ranking-link", class: "btn" }),
    S.session ? go.link("/#player/me", t("home.my_hands"), { id: "my-hands-link", class: "btn ghost" }) : null);
  if (rows === null) return h("div", { id: "ranking" }, links);
  if (!rows.length) return h("div", { id: "ranking" }, h("p", { class: "muted" }, t("home.ranking_empty")), links);
  return h("div", { id: "ranking" }, rankTable(rows, S.rank.me, go, "ranking-preview"), links);
}
