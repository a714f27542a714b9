// Routing: /t/CODE is a table; on / the hash names the other pages (the server serves
// index.html for / and /t/CODE only): #agora (the queue), #ranking, #player/{id}
// (#player/me: mine). The agora and ranking controllers are registered by app.js (`pages`).
import { h } from "./ui.js";
import { S } from "./state.js";
import { render } from "./render.js";
import { openTable, leaveTableView } from "./tableconn.js";

/** The page controllers: {agora: createAgora(...), ranks: createRanking(...)}, set by app.js. */
export const pages = { agora: null, ranks: null };

/** {route: "table", code} | {route: "agora" | "ranking" | "home"} | {route: "player", player} */
export function parseRoute(pathname, hashText) {
  const m = pathname.match(/^\/t\/([A-Za-z0-9_-]+)\/?$/);
  if (m) return { route: "table", code: m[1].toUpperCase() };
  const hash = hashText.replace(/^#\/?/, "");
  if (hash === "agora" || hash === "ranking") return { route: hash };
  const p = hash.match(/^player\/([^/]+)$/);
  if (p) { try { return { route: "player", player: decodeURIComponent(p[1]) }; } catch (e) { /* bad escape */ } }
  return { route: "home" };
}

export function navigate(path, replace = false) {
  if (location.pathname + location.hash !== path) history[replace ? "replaceState" : "pushState"]({}, "", path);
  route();
}

/** Show the page the address names (after a navigate, a back/forward, or at boot). */
export function route() {
  const Agora = pages.agora, Ranks = pages.ranks;
  const r = parseRoute(location.pathname, location.hash);
  if (r.route === "table") {
    if (S.route !== "table" || S.code !== r.code) openTable(r.code);
    Agora.away();
    Ranks.leave();
  } else {
    leaveTableView();
    const was = S.route, wasPlayer = S.player;
    S.route = r.route;
    S.player = r.player || null;
    if (r.route !== "agora") Agora.away(); // another page: leaving the queue
    if (r.route === "agora" && was !== "agora") Agora.enter();
    if (r.route !== "ranking") Ranks.leave();
    if (r.route === "ranking" && was !== "ranking") Ranks.enterRanking();
    if (r.route === "player" && (was !== "player" || wasPlayer !== S.player)) Ranks.enterPlayer(S.player);
    if (r.route === "home" && was !== "home") S.rank.preview = undefined; // fresh on each visit
    render();
  }
}

/** In-page links: real hrefs (open in a new tab, copy) that navigate without a reload. */
export const go = {
  to: (path) => navigate(path),
  link(href, text, attrs = {}) {
    return h("a", { ...attrs, href, onclick: (ev) => {
      if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) return;
      ev.preventDefault();
      navigate(href);
    } }, text);
  },
};
