// Talking to the server: the HTTP API (docs/protocol.md) and one WebSocket per table that
// reconnects by itself with backoff and resumes from the last version it saw.

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

const BACKOFF_MS = [300, 800, 1500, 3000, 5000, 8000];
const PING_MS = 5000; // a ping every 5 s; a socket silent for twice that is dead: reconnect
const RESEND_WINDOW_MS = 8000; // unanswered commands younger than this are re-sent (same id) after a reconnect

/**
 * One table's socket. `handlers.onMessage(msg)` gets every server message;
 * `handlers.onState(state)` gets "connecting" | "open" | "closed" | "failed".
 * `command(do, fields)` sends a command and resolves with {ok, code, message} once the server
 * acks or refuses it; commands are never applied locally.
 */
export class Connection {
  constructor(code, token, handlers) {
    this.code = code;
    this.token = token;
    this.handlers = handlers;
    this.ws = null;
    this.attempt = 0;
    this.closedByUs = false;
    this.lastVersion = null;
    this.pending = new Map(); // id -> {msg, resolve, sentAt}
    this.hints = new Map(); // id -> resolve (hint messages: answered by a "hint" or a "refused")
    this.prefix = Math.random().toString(36).slice(2, 7);
    this.counter = 0;
    this.pingTimer = null;
    this.retryTimer = null;
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = this.token ? `?token=${encodeURIComponent(this.token)}` : "";
    return `${proto}//${location.host}/ws/${encodeURIComponent(this.code)}${q}`;
  }

  connect() {
    this.closedByUs = false;
    this.handlers.onState("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (e) {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      // Always first: the server then sends welcome, the missed events (if any) and a snapshot
      // at once instead of waiting to see whether a resume comes.
      this.raw({ type: "resume", last_version: this.lastVersion });
      this.handlers.onState("open");
      const now = Date.now();
      for (const [id, p] of this.pending) {
        if (now - p.sentAt <= RESEND_WINDOW_MS) this.raw(p.msg);
        else { this.pending.delete(id); p.resolve({ ok: false, code: "not_sent", message: "" }); }
      }
      this.heardAt = Date.now();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => {
        // Silent for two ping intervals (a paused or cut server): drop it and reconnect.
        if (Date.now() - this.heardAt > 2 * PING_MS) { this.dropDead(ws); return; }
        this.raw({ type: "ping" });
      }, PING_MS);
    };
    ws.onmessage = (ev) => {
      this.heardAt = Date.now();
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (typeof msg.version === "number" && (msg.type === "snapshot" || msg.type === "update" || msg.type === "welcome")) {
        if (msg.type !== "welcome") this.lastVersion = Math.max(this.lastVersion ?? 0, msg.version);
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
    };
    ws.onclose = (ev) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closedByUs) { this.handlers.onState("closed"); return; }
      // 4xxx: the server closed on purpose (no such table, replaced by another tab...): do not fight it.
      // Anything else (1012: the table moved to another server process; 1013: try again) reconnects.
      if (ev.code >= 4000 && ev.code < 5000) {
        this.handlers.onState("failed", ev.code, ev.reason);
        this.failAll();
        return;
      }
      this.scheduleRetry();
    };
    ws.onerror = () => { /* onclose follows and retries */ };
  }

  dropDead(ws) {
    if (this.ws !== ws) return;
    clearInterval(this.pingTimer);
    this.ws = null;
    try { ws.close(); } catch (e) { /* already closing */ }
    this.scheduleRetry();
  }

  scheduleRetry() {
    this.handlers.onState("connecting");
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), base + Math.random() * base * 0.3);
  }

  raw(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

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
    this.closedByUs = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    this.failAll();
    if (this.ws) this.ws.close(1000);
    this.ws = null;
  }

  /** For tests and the "reconnect now" button: drop the socket as a network failure would. */
  dropForTest() {
    if (this.ws) this.ws.close(1000);
    this.closedByUs = false;
  }
}
