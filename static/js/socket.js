// The websocket: message ids and their ack/error, reconnect with exponential backoff.
//
// Events (EventTarget):
//   "status"  detail {state: "connecting"|"open"|"stalled"|"reconnecting", attempt}
//             "stalled": the socket looks open but the server has not answered a heartbeat
//             for a few seconds (a dropped network leaves the socket "open" for minutes);
//             after a little longer the socket is dropped and a reconnect starts.
//   "open"    the socket (re)opened: say hello now
//   "message" detail: every server message that is not the answer to a request

const REQUEST_TIMEOUT_MS = 10000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 10000;
const config = window.__WIZARD_CONFIG__ || {};
// A heartbeat: a ping every few seconds; silence (no pong, no message) past STALL_MS shows
// the connection as lost, past DEAD_MS the socket is replaced.
const PING_EVERY_MS = Number.isFinite(config.heartbeatMs) ? config.heartbeatMs : 2000;
const STALL_MS = PING_EVERY_MS * 2 + 500;
const DEAD_MS = PING_EVERY_MS * 4 + 1000;

export class RequestError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export class Socket extends EventTarget {
  constructor(url) {
    super();
    this.url = url;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id → {resolve, reject, timer}
    this.attempt = 0;
    this.state = "connecting";
    this.reconnectTimer = null;
    this.stopped = false;
    this.lastHeard = performance.now();
    setInterval(() => this.send({type: "ping"}), PING_EVERY_MS);
    setInterval(() => this._checkSilence(), Math.min(500, PING_EVERY_MS));
  }

  _checkSilence() {
    if (!this.isOpen) return;
    const silent = performance.now() - this.lastHeard;
    if (silent > DEAD_MS) this.reconnectNow();
    else if (silent > STALL_MS && this.state === "open") this._setState("stalled");
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.reconnectTimer);
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.lastHeard = performance.now();
      this._setState("open");
      this.dispatchEvent(new Event("open"));
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      this.lastHeard = performance.now();
      if (this.state === "stalled") this._setState("open", {recovered: true});
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this._receive(message);
    });
    ws.addEventListener("close", () => {
      if (ws !== this.ws) return;
      this._failPending("disconnected", "the connection was lost");
      if (!this.stopped) this._scheduleReconnect();
    });
    // "error" is always followed by "close", which does the work.
  }

  /** Drop the current socket and connect again at once (e.g. after a name change). */
  reconnectNow() {
    const old = this.ws;
    this.ws = null;
    if (old) old.close();
    this._failPending("disconnected", "reconnecting");
    this._setState("reconnecting");
    this.connect();
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Send without waiting for an answer. */
  send(message) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Send with an `id`; resolves on `ack`, rejects with a RequestError on `error`. */
  request(message) {
    if (!this.isOpen) {
      return Promise.reject(new RequestError("disconnected", "not connected; retrying"));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RequestError("timeout", "the server did not answer in time"));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, {resolve, reject, timer});
      this.ws.send(JSON.stringify({...message, id}));
    });
  }

  _receive(message) {
    const id = message.id;
    if ((message.type === "ack" || message.type === "error") && this.pending.has(id)) {
      const {resolve, reject, timer} = this.pending.get(id);
      this.pending.delete(id);
      clearTimeout(timer);
      if (message.type === "ack") resolve(message);
      else reject(new RequestError(message.code, message.message));
      return;
    }
    this.dispatchEvent(new CustomEvent("message", {detail: message}));
  }

  _failPending(code, text) {
    for (const {reject, timer} of this.pending.values()) {
      clearTimeout(timer);
      reject(new RequestError(code, text));
    }
    this.pending.clear();
  }

  _scheduleReconnect() {
    this.attempt += 1;
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (this.attempt - 1));
    const delay = base * (0.75 + Math.random() * 0.5);
    this._setState("reconnecting");
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  _setState(state, extra = {}) {
    this.state = state;
    this.dispatchEvent(new CustomEvent("status", {detail: {state, attempt: this.attempt, ...extra}}));
  }
}
