// Talking to the server: the HTTP API (docs/protocol.md) and one WebSocket per table that
// reconnects by itself with backoff (socket.js) and resumes from the last version it saw.
import { ReconnectingSocket } from "./socket.js";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

/** JSON request; throws ApiError with the server's {code, message} on a non-2xx answer. */
export async function api(method, path, body, token) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, "network", "");
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    // FastAPI wraps HTTPException bodies in {"detail": ...}; accept both shapes.
    const d = data && typeof data.detail === "object" && data.detail !== null ? data.detail : data;
    const code = d && typeof d.code === "string" ? d.code : (res.status === 404 ? "not_found" : "http_" + res.status);
    const message = d && typeof d.message === "string" ? d.message : (data && typeof data.detail === "string" ? data.detail : "");
    throw new ApiError(res.status, code, message);
  }
  return data;
}

/** Does the server answer at this path (any 2xx)? Used to switch on features that may not exist yet. */
export async function probe(path) {
  try {
    const res = await fetch(path, { headers: { Accept: "application/json" } });
    if (!res.ok) return null;
    return await res.json();
  } catch (e) {
    return null;
  }
}

const PING_MS = 5000; // a ping every 5 s; a socket silent for twice that is dead: reconnect
const RESEND_WINDOW_MS = 8000; // unanswered commands younger than this are re-sent (same id) after a reconnect

/**
 * One table's socket (a ReconnectingSocket, socket.js). `handlers.onMessage(msg)` gets every
 * server message; `handlers.onState(state, code, reason)` gets "connecting" | "open" |
 * "closed" | "failed". `command(do, fields)` sends a command and resolves with
 * {ok, code, message} once the server acks or refuses it; commands are never applied locally.
 */
export class Connection {
  constructor(code, token, handlers) {
    this.code = code;
    this.token = token;
    this.handlers = handlers;
    this.lastVersion = null;
    this.pending = new Map(); // id -> {msg, resolve, sentAt}
    this.hints = new Map(); // id -> resolve (hint messages: answered by a "hint" or a "refused")
    this.prefix = Math.random().toString(36).slice(2, 7);
    this.counter = 0;
    this.sock = new ReconnectingSocket(() => this.url(), {
      onOpen: () => this.opened(),
      onMessage: (msg) => this.received(msg),
      onState: (state, closeCode, reason) => {
        if (state === "failed") { this.handlers.onState(state, closeCode, reason); this.failAll(); return; }
        this.handlers.onState(state, closeCode, reason);
      },
    }, { pingMs: PING_MS, deadMs: 2 * PING_MS });
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = this.token ? `?token=${encodeURIComponent(this.token)}` : "";
    return `${proto}//${location.host}/ws/${encodeURIComponent(this.code)}${q}`;
  }

  connect() { this.sock.connect(); }

  opened() {
    // Always first: the server then sends welcome, the missed events (if any) and a snapshot
    // at once instead of waiting to see whether a resume comes.
    this.raw({ type: "resume", last_version: this.lastVersion });
    const now = Date.now();
    for (const [id, p] of this.pending) {
      if (now - p.sentAt <= RESEND_WINDOW_MS) this.raw(p.msg);
      else { this.pending.delete(id); p.resolve({ ok: false, code: "not_sent", message: "" }); }
    }
  }

  received(msg) {
    if (typeof msg.version === "number" && (msg.type === "snapshot" || msg.type === "update")) {
      this.lastVersion = Math.max(this.lastVersion ?? 0, msg.version);
    }
    if ((msg.type === "hint" || msg.type === "refused") && this.hints.has(msg.id)) {
      const resolve = this.hints.get(msg.id);
      this.hints.delete(msg.id);
      resolve(msg);
    }
    if (msg.type === "ack" || msg.type === "refused") {
      const p = this.pending.get(msg.id);
      if (p) {
        this.pending.delete(msg.id);
        p.resolve(msg.type === "ack" ? { ok: true, version: msg.version }
          : { ok: false, code: msg.code, message: msg.message });
      }
    }
    this.handlers.onMessage(msg);
  }

  raw(obj) { return this.sock.send(obj); }

  command(doWhat, fields = {}) {
    const id = `c${this.prefix}${++this.counter}`;
    const msg = { type: "command", id, do: doWhat, ...fields };
    return new Promise((resolve) => {
      this.pending.set(id, { msg, resolve, sentAt: Date.now() });
      this.raw(msg); // if closed, it goes out on reconnect (same id: applied at most once)
    });
  }

  /** Ask for a hint (friendly games): resolves with the server's "hint" or "refused" frame,
   * or null when the socket is closed or nothing came back within 10 s. Never re-sent. */
  hint() {
    const id = `h${this.prefix}${++this.counter}`;
    return new Promise((resolve) => {
      this.hints.set(id, resolve);
      if (!this.raw({ type: "hint", id })) { this.hints.delete(id); resolve(null); return; }
      setTimeout(() => { if (this.hints.delete(id)) resolve(null); }, 10000);
    });
  }

  failAll() {
    for (const [, p] of this.pending) p.resolve({ ok: false, code: "not_sent", message: "" });
    this.pending.clear();
  }

  close() {
    this.sock.close();
    this.failAll();
  }

  /** The "reconnect now" button: drop the socket and try again at once (no backoff). */
  reconnectNow() {
    this.sock.attempt = 0;
    this.sock.dropForTest();
  }

  /** For tests: drop the socket as a network failure would. */
  dropForTest() { this.sock.dropForTest(); }
}
