// Machiavelox browser client: the entry point. It wires the modules together and boots:
//   state.js     the one state object S (every field declared) and its resets
//   route.js     addresses -> pages; navigate(); in-page links
//   tableconn.js a table's seat, socket and server messages (views as changes, notices)
//   actions.js   what the player's clicks, drops, buttons ask (drop.js: what a drop means)
//   selection.js the selected cards;  hint.js: following a hint step by step
//   keys.js      keyboard shortcuts;  render.js: drawing S, the header, the live region
//   session.js   the session, bot seats, agora tables, error sentences; join.js: home actions
//   socket.js    the one reconnecting WebSocket (table: net.js Connection; agora: agora.js)
import { setLang, getLang, onLangChange } from "./i18n.js";
import { tickClocks } from "./ui.js";
import { installDnd } from "./dnd.js";
import { renderHome } from "./home.js";
import { renderTable } from "./table.js";
import { createAgora, renderAgora } from "./agora.js";
import { createRanking, renderRanking, renderHistory } from "./ranking.js";
import { S, LS, save } from "./state.js";
import { render, setPage, announce } from "./render.js";
import { navigate, route, pages, go } from "./route.js";
import { ensureSession, errorText } from "./session.js";
import { Actions } from "./actions.js";
import { Home } from "./join.js";
import { installKeys } from "./keys.js";
import { renderClassic } from "./classic.js";
import { ClassicActions, installClassicKeys } from "./classicactions.js";
import { isClassic } from "./classicview.js";

// The agora queue, the ranking and players' histories: their own modules, fed from here.
const Agora = createAgora({
  S, render, navigate, ensureSession, errorText,
  saveTable: (code) => save(LS.table, code),
  announce: (text) => announce(text),
});
const Ranks = createRanking({ S, render, errorText });
pages.agora = Agora;
pages.ranks = Ranks;
S.actions = Actions;

// A classic table (its summary's variant, or its view's shape) has its own page and actions.
const classicPage = () => S.route === "table" && isClassic(S.table, S.game);
const act = () => (classicPage() ? ClassicActions : Actions);
const actions = new Proxy({}, { get: (_, k) => act()[k] || (() => {}) });

setPage(() => (S.route === "table" && !S.needName ? (classicPage() && !S.fatal && !S.replaced ? renderClassic(S, ClassicActions) : renderTable(S, Actions))
  : S.route === "agora" ? renderAgora(S, Agora, go)
    : S.route === "ranking" ? renderRanking(S, Ranks, Agora, go)
      : S.route === "player" ? renderHistory(S, Ranks, go)
        : renderHome(S, Home, Ranks, go)));

function boot() {
  const sel = document.getElementById("lang");
  sel.value = getLang();
  sel.addEventListener("change", () => setLang(sel.value));
  onLangChange(() => render());
  document.getElementById("home-link").addEventListener("click", (ev) => {
    ev.preventDefault();
    navigate("/");
  });
  window.addEventListener("popstate", () => route());
  installDnd({ payloadFor: (el) => act().payloadFor(el), onDrop: (...a) => act().onDrop(...a) });
  installKeys(actions);
  installClassicKeys(classicPage);
  setInterval(tickClocks, 250);
  route();
}

boot();
