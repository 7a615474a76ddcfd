// What the client knows: who I am, the lobby list, my tables, each game's latest update,
// and the update being *shown* (a completed trick stays on screen for a moment before
// later updates are shown; the latest state is never lost, only shown a little later).

const config = window.__WIZARD_CONFIG__ || {};
const num = (value, fallback) => (Number.isFinite(value) ? value : fallback);
export const TRICK_SHOW_MS = num(config.trickShowMs, 1500);
/** The round summary between the last trick of a round and the next deal. */
export const ROUND_SHOW_MS = num(config.roundShowMs, TRICK_SHOW_MS > 0 ? 3500 : 0);
const SWEEP_MS = 380;
const CHAT_KEEP = 100;

function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/**
 * The table as it stood when the last trick of a round was taken: the round that just
 * ended, not the next deal that the same update already carries.
 */
function closingObservation(before, trick, result) {
  const played = new Set(trick.cards.map((p) => p.card.id));
  const hand = before.hand.filter((c) => !played.has(c.id));
  const tricks = result ? [...result.tricks] : before.tricks_won.map((t, i) => t + (i === trick.winner ? 1 : 0));
  return {
    ...before, hand, hand_sizes: before.hand_sizes.map(() => hand.length),
    phase: "playing", current_player: null, current_trick: [], legal_actions: [], lead_suit: null,
    tricks_won: tricks, last_trick: trick, bids: result ? [...result.bids] : before.bids,
    // the round is scored: its row on the score sheet, the new totals on the seats
    scores: result ? [...result.scores] : before.scores,
    round_history: result ? [...before.round_history, result] : before.round_history,
  };
}

export class GameView {
  constructor(tableId, emit) {
    this.tableId = tableId;
    this.emit = emit;
    this.v = null; // version of the latest update received
    this.queue = []; // frames still to show: {observation, ..., holdMs}
    this.shown = null; // {v, observation, clock, events, completedTrick, sweep, roundSummary, receivedAt}
    this.holdTimer = null;
  }

  /** A server `update`; returns true when a `v` gap means we missed one (then: sync). */
  receive(update) {
    if (this.v !== null && update.v < this.v) return false; // stale re-send
    const gap = this.v !== null && update.v > this.v + 1;
    this.v = update.v;
    const receivedAt = performance.now();
    const clock = update.clock
      ? {player: update.clock.player, deadlineAt: receivedAt + update.clock.deadline_ms}
      : null;
    const latest = {v: update.v, observation: update.observation, events: update.events, clock, receivedAt,
                    completedTrick: null, sweep: false, roundSummary: null, holdMs: 0};
    this.queue.push(...this._frames(latest));
    if (this.holdTimer === null) this._drain();
    return gap;
  }

  /** The frames one update is shown as: the trick taken, its sweep, the round's summary, then the update. */
  _frames(latest) {
    const trick = latest.events.find((e) => e.type === "trick_completed");
    const round = latest.events.find((e) => e.type === "round_completed");
    const frames = [];
    const previous = this.queue.length ? this.queue[this.queue.length - 1] : this.shown;
    const before = previous && previous.observation;
    const sameRound = before && round && before.round_number === round.result.round_number;
    const base = sameRound ? closingObservation(before, trick ? trick.trick : {cards: [], winner: -1}, round.result)
      : latest.observation;
    if (trick && TRICK_SHOW_MS > 0) {
      const held = {...latest, observation: base, completedTrick: trick.trick};
      frames.push({...held, holdMs: TRICK_SHOW_MS});
      if (!reducedMotion()) frames.push({...held, events: [], sweep: true, holdMs: SWEEP_MS});
    }
    if (round && ROUND_SHOW_MS > 0 && sameRound) {
      frames.push({...latest, events: frames.length ? [] : latest.events, observation: base,
                   roundSummary: round.result, holdMs: ROUND_SHOW_MS});
    }
    frames.push({...latest, events: frames.length ? [] : latest.events});
    return frames;
  }

  /** Stop the current pause (the trick on show, or the round summary) now. */
  skipHold() {
    if (this.holdTimer === null) return;
    clearTimeout(this.holdTimer);
    this._release();
  }

  get holding() {
    return this.holdTimer !== null;
  }

  _drain() {
    while (this.queue.length) {
      const next = this.queue.shift();
      this.shown = next;
      this.emit({what: "game", table_id: this.tableId, events: next.events});
      if (next.holdMs > 0) {
        this.holdTimer = setTimeout(() => this._release(), next.holdMs);
        return;
      }
    }
  }

  _release() {
    this.holdTimer = null;
    if (!this.queue.length && this.shown) {
      this.shown = {...this.shown, completedTrick: null, sweep: false, roundSummary: null, holdMs: 0};
      this.emit({what: "game", table_id: this.tableId, events: []});
      return;
    }
    this._drain();
  }

  dispose() {
    clearTimeout(this.holdTimer);
    this.holdTimer = null;
  }
}

export class Store extends EventTarget {
  constructor() {
    super();
    this.me = null; // {player_id, name, token}
    this.lobbyTables = [];
    this.tables = new Map(); // table_id → `table` message (tables I sit at or watch)
    this.games = new Map(); // table_id → GameView
    this.chats = new Map(); // table_id → [{name, text, player_id}]
    this.watching = new Set(); // table ids I spectate on this connection
    this.onGap = () => {};
  }

  _emit(detail) {
    this.dispatchEvent(new CustomEvent("change", {detail}));
  }

  /** Every server message that is not an answer to a request goes through here. */
  handle(message) {
    switch (message.type) {
      case "welcome":
        this.me = {player_id: message.player_id, name: message.name, token: message.token};
        this._emit({what: "me"});
        break;
      case "tables":
        this.lobbyTables = message.tables;
        this._emit({what: "tables"});
        break;
      case "table":
        this.tables.set(message.table_id, message);
        this._emit({what: "table", table_id: message.table_id});
        break;
      case "update": {
        let game = this.games.get(message.table_id);
        if (!game) {
          game = new GameView(message.table_id, (d) => this._emit(d));
          this.games.set(message.table_id, game);
        }
        if (game.receive(message)) this.onGap(message.table_id);
        break;
      }
      case "chat": {
        const lines = this.chats.get(message.table_id) || [];
        lines.push({name: message.name, text: message.text, player_id: message.player_id});
        this.chats.set(message.table_id, lines.slice(-CHAT_KEEP));
        this._emit({what: "chat", table_id: message.table_id});
        break;
      }
      case "chat_backlog":
        // the table's last lines: what was said before this page (or this connection) came
        this.chats.set(message.table_id, message.messages.map((m) => ({name: m.name, text: m.text, player_id: m.player_id}))
          .slice(-CHAT_KEEP));
        this._emit({what: "chat", table_id: message.table_id});
        break;
      case "table_closed":
        this.forget(message.table_id);
        this._emit({what: "closed", table_id: message.table_id, reason: message.reason});
        break;
      case "error":
        this._emit({what: "error", code: message.code, message: message.message});
        break;
      default:
        break;
    }
  }

  forget(tableId) {
    this.tables.delete(tableId);
    const game = this.games.get(tableId);
    if (game) game.dispose();
    this.games.delete(tableId);
    this.watching.delete(tableId);
  }

  /**
   * The connection was replaced: spectating does not carry over, seats do. The server
   * re-sends each seat's latest update on hello; that jump in `v` is expected, not a gap.
   */
  connectionLost() {
    this.watching.clear();
    for (const game of this.games.values()) game.v = null;
  }

  /** My seat index at a table, or null (spectator / not there). */
  seatAt(tableId) {
    const info = this.tables.get(tableId);
    if (!info || !this.me) return null;
    const seat = info.seats.find((s) => s.kind === "player" && s.player_id === this.me.player_id);
    return seat ? seat.seat : null;
  }

  isHost(tableId) {
    const info = this.tables.get(tableId);
    return Boolean(info && this.me && info.host === this.me.player_id);
  }
}
