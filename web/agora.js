// The agora (docs/protocol.md, "Agora"): the matchmaking queue over /ws/agora, and its page.
//
// Being queued is tied to the socket: the server forgets a player whose agora socket closes.
// So the page keeps one socket while the player wants to wait; if it drops (network), it
// reconnects with backoff and joins again (at the end of the queue: the server has no memory
// of the old place). A reload of /#agora does the same (sessionStorage remembers the wish).
// Going to any other page, or "Leave the queue", leaves it. "matched" goes straight to the
// table, which then plays as any table does.
import { renderAccount, isAccount, revokedSession } from "./account.js";
import { t, refusalText } from "./i18n.js";
import { h, toast } from "./ui.js";
import { ReconnectingSocket } from "./socket.js";

const WANT = "mvx.agora.want";   // sessionStorage: "1" while this tab wants to be queued
const CODES = "mvx.agora.codes"; // localStorage: codes of the agora tables this browser was matched to

function agoraUrl(token) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws/agora?token=${encodeURIComponent(token)}`;
}

function wants() { try { return sessionStorage.getItem(WANT) === "1"; } catch (e) { return false; } }
function setWant(on) {
  try { if (on) sessionStorage.setItem(WANT, "1"); else sessionStorage.removeItem(WANT); } catch (e) { /* fine */ }
}

/** Was this table one the agora matched this browser to? */
export function isAgoraCode(code) {
  try { return (JSON.parse(localStorage.getItem(CODES) || "[]") || []).includes(code); } catch (e) { return false; }
}
function rememberCode(code) {
  try {
    const codes = (JSON.parse(localStorage.getItem(CODES) || "[]") || []).filter((c) => c !== code);
    codes.push(code);
    localStorage.setItem(CODES, JSON.stringify(codes.slice(-20)));
  } catch (e) { /* fine */ }
}

/**
 * The agora controller. `ctx`: {S, render, navigate(path, replace), ensureSession(name),
 * errorText(e), saveTable(code), announce(text)}. Its state lives in S.agora:
 * phase "idle" | "connecting" | "queued" | "leaving" | "left" | "failed"; position, waiting;
 * connState (the socket's, for the header); error (a sentence).
 */
export function createAgora(ctx) {
  const { S } = ctx;
  S.agora = { phase: "idle", position: null, waiting: null, connState: null, error: null };
  let sock = null;
  let retriedToken = false;

  const set = (fields) => { Object.assign(S.agora, fields); ctx.render(); };

  function open() {
    if (sock) return;
    // One /ws/agora socket (socket.js); 4401 (bad token) and 1008 (cut off: flood, oversized
    // frame) are final: the server is not fought.
    const token = S.session.token;
    const s = new ReconnectingSocket(() => agoraUrl(token), {
      onOpen: () => { if (wants()) s.send({ type: "join" }); },
      onMessage: (msg) => onMessage(s, msg),
      onState: (state, code) => {
        if (sock !== s) return;
        S.agora.connState = state;
        if (state === "connecting" && S.agora.phase === "queued") S.agora.phase = "connecting";
        if (state === "failed") {
          sock = null;
          if (code === 4401 && S.session && !retriedToken) {
            // The server no longer accepts this token (restarted with a new secret): same name, new token.
            retriedToken = true;
            const name = S.session.name;
            S.session = null;
            ctx.ensureSession(name).then(() => { if (wants()) open(); }, (e) => set({ phase: "failed", error: ctx.errorText(e) }));
            return;
          }
          if (code === 4402) revokedSession(); // logged out (issue 18): the account form shows why
          setWant(false);
          S.agora.phase = "failed";
          S.agora.error = t("agora.cut_off");
        }
        ctx.render();
      },
    }, { pingMs: 20000, fails: (code) => (code >= 4000 && code < 5000) || code === 1008 });
    sock = s;
    window.__mvxAgora = { S, sock: s }; // for the browser tests
    s.connect();
  }

  function shut() {
    if (sock) sock.close();
    sock = null;
    S.agora.connState = null;
  }

  function onMessage(s, msg) {
    if (sock !== s) return;
    switch (msg.type) {
      case "queued":
        if (!wants()) return; // a late one, after we asked to leave
        set({ phase: "queued", position: msg.position, waiting: msg.waiting, error: null,
          since: Date.now() - (Number(msg.waited) || 0) * 1000 });
        return;
      case "left":
        shut();
        set({ phase: "left", position: null, waiting: null });
        return;
      case "matched": {
        // Even if we were leaving: the hand is dealt with us in it, so go and play it.
        setWant(false);
        shut();
        S.agora.phase = "idle";
        S.agora.position = S.agora.waiting = null;
        rememberCode(msg.code);
        ctx.saveTable(msg.code);
        const others = (msg.players || []).filter((p) => p !== msg.seat);
        ctx.announce(t("agora.matched", { names: others.join(", ") }));
        ctx.navigate(`/t/${encodeURIComponent(msg.code)}`, true);
        return;
      }
      case "error": {
        const known = t("err." + msg.code, {}, null);
        const text = known || refusalText(msg.code, msg.message);
        if (msg.code === "too_many_tables" || msg.code === "test_deals_off" || msg.code === "bad_field" || msg.code === "store_unavailable" || msg.code === "account_needed" || msg.code === "already_playing") {
          // Not queued (or no longer): the player may try again.
          setWant(false);
          shut();
          set({ phase: "failed", error: text });
        } else {
          toast(text);
        }
        return;
      }
      default:
        return; // pong
    }
  }

  const Agora = {
    /** The home page's button: a name (a session), then the agora page, queueing at once. */
    async start(name) {
      S.homeError = null;
      try {
        await ctx.ensureSession(name);
      } catch (e) {
        S.homeError = ctx.errorText(e);
        ctx.render();
        return false;
      }
      setWant(true);
      if (S.route === "agora") Agora.join(); // the agora page's own name form
      else ctx.navigate("/#agora");
      return true;
    },
    /** The agora page was opened (or re-rendered after a reload): queue if this tab wants to. */
    enter() {
      if (wants() && S.session) Agora.join();
    },
    join() {
      if (!S.session) return;
      setWant(true);
      S.agora.error = null;
      if (S.agora.phase !== "queued") S.agora.phase = "connecting";
      if (sock && sock.send({ type: "join" })) { ctx.render(); return; }
      open(); // joins once open
      ctx.render();
    },
    leave() {
      setWant(false);
      if (sock && sock.send({ type: "leave" })) { set({ phase: "leaving" }); return; }
      shut();
      set({ phase: "left", position: null, waiting: null });
    },
    /** Any other page: closing the socket leaves the queue. */
    away() {
      setWant(false);
      if (sock) shut();
      if (S.agora.phase !== "idle") Object.assign(S.agora, { phase: "idle", position: null, waiting: null, error: null });
    },
  };
  return Agora;
}

// ---------------------------------------------------------------- the page

// How long this player has waited (the server's `waited`, counted on here every second).
let waitedTimer = null;
function waitedText(since) {
  const s = Math.max(0, Math.floor((Date.now() - since) / 1000));
  return t("agora.waited", { time: `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}` });
}
function waitedLine(since) {
  clearInterval(waitedTimer);
  waitedTimer = setInterval(() => {
    const el = document.getElementById("agora-waited");
    if (el) el.textContent = waitedText(since); else clearInterval(waitedTimer);
  }, 1000);
  return h("p", { id: "agora-waited", class: "muted small" }, waitedText(since));
}

/** /#agora: join, wait (position, how many wait), leave. */
export function renderAgora(S, Agora, go) {
  const a = S.agora;
  const parts = [h("h2", { id: "agora-title" }, t("agora.title")), h("p", { class: "muted" }, t("agora.intro"))];
  if (!isAccount(S.session)) {
    parts.push(renderAccount()); // the agora needs an account (issue 18)
  } else if (a.phase === "queued" || a.phase === "connecting" || a.phase === "leaving") {
    const waiting = typeof a.waiting === "number" ? a.waiting : null;
    parts.push(h("div", { class: "agora-wait", id: "agora-wait", role: "status", "aria-live": "polite" },
      h("div", { class: "agora-seats", "aria-hidden": "true" },
        [0, 1, 2].map((i) => h("span", { class: "agora-seat" + (waiting !== null && i < Math.min(waiting, 3) ? " filled" : "") }))),
      h("p", { class: "agora-state", id: "agora-state" },
        a.phase === "queued" ? t("agora.waiting") : a.phase === "leaving" ? t("agora.leaving")
          : a.connState === "connecting" && a.position !== null ? t("agora.reconnecting") : t("agora.connecting")),
      a.phase === "queued" && a.position !== null ? h("p", { id: "agora-position" }, t("agora.position", { position: a.position })) : null,
      waiting !== null ? h("p", { id: "agora-count", class: "agora-count" }, t("agora.count", { n: waiting })) : null,
      a.phase === "queued" && a.since ? waitedLine(a.since) : null,
      h("p", { class: "muted" }, t("agora.needed")),
      h("p", { class: "muted small" }, t("agora.as", { name: S.session.name }), " ", t("agora.keep_open"))));
    parts.push(h("div", { class: "row" },
      h("button", { class: "btn danger-text", type: "button", id: "agora-leave", disabled: a.phase === "leaving", onclick: () => Agora.leave() }, t("agora.leave"))));
  } else {
    if (a.phase === "left") parts.push(h("p", { class: "note", id: "agora-left", role: "status" }, t("agora.left")));
    if (a.phase === "failed" && a.error) parts.push(h("p", { class: "error", role: "alert", id: "agora-error" }, a.error));
    parts.push(h("p", {}, t("agora.as", { name: S.session.name })));
    parts.push(h("div", { class: "row" },
      h("button", { class: "btn primary", type: "button", id: "agora-join", onclick: () => Agora.join() }, t("agora.join"))));
  }
  parts.push(h("p", { class: "row agora-links" },
    go.link("/#ranking", t("btn.ranking"), { id: "agora-to-ranking" }),
    go.link("/", t("btn.home"), { id: "agora-home" })));
  return h("section", { class: "panel agora", "aria-labelledby": "agora-title" }, parts);
}
