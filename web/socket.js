// One reconnecting WebSocket, used by the table's Connection (net.js) and the agora (agora.js).
//
// It reconnects by itself with backoff (300 ms .. 8 s, with jitter) unless we closed it or the
// server closed it on purpose (a 4xxx close code, or whatever `options.fails(code)` says);
// it pings every `options.pingMs` and, with `options.deadMs`, drops and reconnects a socket
// that was silent for that long (a paused or cut server).

export const BACKOFF_MS = [300, 800, 1500, 3000, 5000, 8000];

/**
 * `url()`: the address to open (asked anew on every attempt).
 * `handlers`: onOpen() (the socket is open, before onState("open")), onMessage(msg) (each
 * parsed JSON frame), onState(state, code, reason): "connecting" | "open" | "closed" | "failed".
 * `options`: {pingMs: 5000, deadMs: null (never), fails: (code) => code is 4xxx}.
 */
export class ReconnectingSocket {
  constructor(url, handlers, options = {}) {
    this.url = url;
    this.handlers = handlers;
    this.pingMs = options.pingMs ?? 5000;
    this.deadMs = options.deadMs ?? null;
    this.fails = options.fails || ((code) => code >= 4000 && code < 5000);
    this.ws = null;
    this.attempt = 0;
    this.closedByUs = false;
    this.pingTimer = null;
    this.retryTimer = null;
    this.heardAt = 0;
  }

  connect() {
    this.closedByUs = false;
    this.handlers.onState("connecting");
    let ws;
    try { ws = new WebSocket(this.url()); } catch (e) { this.scheduleRetry(); return; }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.heardAt = Date.now();
      if (this.handlers.onOpen) this.handlers.onOpen();
      this.handlers.onState("open");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => {
        if (this.deadMs !== null && Date.now() - this.heardAt > this.deadMs) { this.dropDead(ws); return; }
        this.send({ type: "ping" });
      }, this.pingMs);
    };
    ws.onmessage = (ev) => {
      this.heardAt = Date.now();
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      this.handlers.onMessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closedByUs) { this.handlers.onState("closed"); return; }
      // The server closed on purpose (no such table, replaced by another tab, bad token...):
      // do not fight it. Anything else (1012: the table moved to another server process;
      // 1013: try again; a network cut) reconnects.
      if (this.fails(ev.code)) { this.handlers.onState("failed", ev.code, ev.reason); return; }
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

  /** Send a JSON frame now; false when the socket is not open (nothing is queued). */
  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) { this.ws.send(JSON.stringify(obj)); return true; }
    return false;
  }

  close() {
    this.closedByUs = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
  }

  /** For tests and the "reconnect now" button: drop the socket as a network failure would. */
  dropForTest() {
    if (this.ws) this.ws.close(1000);
    this.closedByUs = false;
  }
}
