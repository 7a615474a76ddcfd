// The master's review of a finished game, in the replay view: `analyse {game_id}` over the
// websocket → `analysis_progress` … → `analysis {game_id, seats}` (docs/protocol.md).
// Per seat: a summary, an SVG plot of expected vs actual round score, a table per round
// and the marked cards (mistake / blunder); a marked card jumps the replay to its step.

import {h, mount, s} from "./dom.js";
import {SUITS, cardFromId, cardLabel, cardView, suitLabel} from "./cards.js";
import {errorText} from "./errors.js";
import {formatNumber, t} from "./i18n.js";

const STYLESHEET = "/static/css/analysis.css";
// refusals shown in the panel itself rather than as a toast
const QUIET_CODES = ["analysis_busy", "analysis_limit", "invite_required", "no_such_game", "not_finished",
                     "not_identified", "disconnected", "timeout"];
const STATES = ["queued", "running", "waiting", "failed"];

function loadStyles() {
  if (document.querySelector(`link[href="${STYLESHEET}"]`)) return;
  document.head.append(h("link", {rel: "stylesheet", href: STYLESHEET}));
}

const num = (v) => (v === null || v === undefined ? "–"
  : formatNumber(v, {minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false}));

function choiceLabel(d, key) {
  if (d.kind === "card") return cardLabel(cardFromId(d[key]));
  if (d.kind === "trump") return t("analysis.choiceTrump", {suit: suitLabel(SUITS[d[key]])});
  return t("analysis.choiceBid", {n: d[key]});
}

/** Expected (at the bid) and actual score of each round: two lines on the chart's grid. */
export function expectedChart(rounds) {
  const W = 340;
  const H = 170;
  const pad = {l: 34, r: 10, t: 10, b: 22};
  const expected = rounds.map((r) => r.expected ?? 0);
  const actual = rounds.map((r) => r.points ?? 0);
  const all = [...expected, ...actual];
  let lo = Math.min(-10, ...all);
  let hi = Math.max(20, ...all);
  const step = Math.max(10, Math.ceil((hi - lo) / 4 / 10) * 10);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const n = rounds.length;
  const x = (i) => pad.l + (n > 1 ? i / (n - 1) : 0.5) * (W - pad.l - pad.r);
  const y = (v) => pad.t + (1 - (v - lo) / (hi - lo)) * (H - pad.t - pad.b);
  const grid = [];
  for (let v = lo; v <= hi + 1e-9; v += step) {
    grid.push(s("line", {x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), class: v === 0 ? "axis zero" : "axis"}),
      s("text", {x: pad.l - 5, y: y(v) + 3.5, class: "tick", "text-anchor": "end"}, String(v)));
  }
  const every = n > 12 ? 5 : n > 6 ? 2 : 1;
  const xticks = rounds.map((r, i) => (i % every === 0 || i === n - 1
    ? s("text", {x: x(i), y: H - 6, class: "tick", "text-anchor": "middle"}, String(r.round)) : null));
  const line = (values, cls) => s("g", {class: `series ${cls}`},
    s("polyline", {points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "), fill: "none"}),
    values.map((v, i) => s("circle", {cx: x(i), cy: y(v), r: 2.6})));
  const total = (values) => values.reduce((a, b) => a + b, 0);
  return h("figure", {class: "chart analysis-chart"},
    s("svg", {viewBox: `0 0 ${W} ${H}`, role: "img"},
      s("title", null, t("analysis.chartTitle", {expected: total(expected).toFixed(0), actual: total(actual), count: n})),
      grid, xticks, line(expected, "expected"), line(actual, "actual")),
    h("figcaption", {class: "legend"},
      h("span", {class: "legend-item"}, h("span", {class: "swatch expected"}), t("analysis.expected")),
      h("span", {class: "legend-item"}, h("span", {class: "swatch actual"}), t("analysis.actual"))));
}

export class AnalysisPanel {
  /** `onJump(stepIndex)` moves the replay to the state after that step. */
  constructor(ctx, gameId, {onJump, invite = null}) {
    this.invite = invite; // a private game's link carries its table's invite
    this.ctx = ctx;
    this.gameId = gameId;
    this.onJump = onJump;
    this.report = null;
    this.byStep = new Map(); // record step → decision (marked ones)
    this.status = h("div", {class: "analysis-status", "aria-live": "polite"});
    this.body = h("div", {class: "analysis-body"});
    this.button = h("button", {type: "button", class: "btn btn-small btn-primary", id: "analyse-btn",
                               onClick: () => this.start()}, t("analysis.button"));
    this.root = h("section", {class: "panel analysis-panel", "aria-labelledby": "analysis-title"},
      h("h2", {id: "analysis-title"}, t("analysis.title")),
      h("p", {class: "muted small"}, t("analysis.intro")),
      this.button, this.status, this.body);
    this.onMessage = (event) => this.receive(event.detail);
    ctx.socket.addEventListener("message", this.onMessage);
    loadStyles();
  }

  async start() {
    this.button.disabled = true;
    mount(this.status, h("p", {class: "muted"}, t("analysis.asking")));
    try {
      const message = {type: "analyse", game_id: this.gameId};
      if (this.invite) message.invite = this.invite;
      await this.ctx.ask(message, {quiet: QUIET_CODES});
    } catch (err) {
      this.button.disabled = false;
      mount(this.status, h("p", {class: "problem-text", role: "alert"}, errorText(err)));
    }
  }

  receive(message) {
    if (message.game_id !== this.gameId) return;
    if (message.type === "analysis_progress") this.progress(message);
    else if (message.type === "analysis") this.show(message);
  }

  progress({state, done, total, position, reason}) {
    if (state === "failed") {
      this.button.disabled = false;
      mount(this.status, h("p", {class: "problem-text", role: "alert"}, t("analysis.failed", {reason: reason || t("analysis.tryLater")})));
      return;
    }
    const where = state === "queued" && position ? ` ${t("analysis.position", {ordinal: position})}` : "";
    const said = STATES.includes(state) ? t(`analysis.state.${state}`) : state;
    mount(this.status,
      h("progress", {max: String(Math.max(1, total)), value: String(done), "aria-label": t("analysis.progress")}),
      h("p", {class: "muted small", dataset: {state}}, `${said}${where}: ${t("analysis.decisions", {done, count: total})}`));
  }

  show(message) {
    this.report = message;
    this.button.remove();
    mount(this.status, h("p", {class: "muted small"}, t("analysis.by", {worlds: message.worlds,
      mistake: message.thresholds.mistake, blunder: message.thresholds.blunder})));
    this.byStep.clear();
    for (const seat of message.seats) {
      for (const round of seat.rounds) {
        for (const d of [round.trump, ...round.cards]) if (d && d.marker) this.byStep.set(d.step, d);
      }
    }
    mount(this.body, message.seats.map((seat) => this.seatView(seat)));
    if (this.onShown) this.onShown();
  }

  seatView(seat) {
    const sum = seat.summary;
    const marked = [];
    for (const round of seat.rounds) {
      for (const d of [round.trump, ...round.cards]) if (d && d.marker) marked.push(d);
    }
    const rows = seat.rounds.map((r) => h("tr", {class: r.bid_marker ? `marked ${r.bid_marker}` : ""},
      h("th", {scope: "row"}, String(r.round)),
      h("td", null, r.bid ?? "–"),
      h("td", {class: r.master_bid !== r.bid ? "differs" : ""}, r.master_bid ?? "–"),
      h("td", null, num(r.expected)),
      h("td", null, num(r.master_expected)),
      h("td", null, r.tricks ?? "–"),
      h("td", {class: (r.points ?? 0) >= 0 ? "plus" : "minus"}, r.points ?? "–"),
      h("td", {class: "lost"}, `${num(r.bid_loss)} / ${num(r.play_loss)}`)));
    return h("article", {class: "analysis-seat", dataset: {seat: String(seat.seat)}},
      h("h3", null, seat.name),
      h("dl", {class: "analysis-summary"},
        h("div", null, h("dt", null, t("analysis.lostBidding")), h("dd", {class: "bidding-loss"}, num(sum.bidding_loss))),
        h("div", null, h("dt", null, t("analysis.lostPlay")), h("dd", {class: "play-loss"}, num(sum.play_loss))),
        h("div", null, h("dt", null, t("analysis.mistakes")), h("dd", null, String(sum.mistakes))),
        h("div", null, h("dt", null, t("analysis.blunders")), h("dd", null, String(sum.blunders)))),
      expectedChart(seat.rounds),
      h("div", {class: "pad-scroll analysis-scroll", tabindex: "0", role: "region", "aria-label": t("analysis.rounds", {name: seat.name})},
        h("table", {class: "pad analysis-rounds"},
          h("caption", {class: "sr-only"}, t("analysis.caption")),
          h("thead", null, h("tr", null, ["pad.round", "seat.statBid", "analysis.col.master", "analysis.col.exp", "analysis.col.mExp",
            "analysis.col.tricks", "pad.pts", "analysis.col.lost"].map((key) => h("th", {scope: "col"}, t(key))))),
          h("tbody", null, rows))),
      marked.length
        ? h("ol", {class: "marked-cards", "aria-label": t("analysis.marked", {name: seat.name})}, marked.map((d) => this.markedView(d)))
        : h("p", {class: "muted small"}, t("analysis.noneMarked")));
  }

  markedView(d) {
    const cards = d.kind === "card"
      ? [cardView(cardFromId(d.played), {size: "sm", label: t("analysis.played", {card: cardLabel(cardFromId(d.played))})}),
        h("span", {class: "arrow", "aria-hidden": "true"}, "→"),
        cardView(cardFromId(d.master), {size: "sm", label: t("analysis.masterPlays", {choice: cardLabel(cardFromId(d.master))})})]
      : [];
    return h("li", {class: `marked-card ${d.marker}`, dataset: {step: String(d.step), marker: d.marker}},
      h("button", {type: "button", class: "marked-jump", onClick: () => this.onJump(d.step + 1),
                   "aria-label": t("analysis.jump", {round: d.round, trick: d.trick, marker: t(`analysis.marker.${d.marker}`), loss: num(d.loss)})},
        h("span", {class: `tag tag-${d.marker}`}, t(`analysis.marker.${d.marker}`)),
        h("span", {class: "where"}, t("analysis.where", {round: d.round, trick: d.trick})),
        cards,
        h("span", {class: "loss"}, `−${num(d.loss)}`)));
  }

  /** A note for the replay's step text: the marker of the decision at record `step`. */
  stepNote(step) {
    const d = step === null ? null : this.byStep.get(step);
    if (!d) return null;
    return h("span", {class: `step-note ${d.marker}`},
      t(d.marker === "blunder" ? "analysis.noteBlunder" : "analysis.noteMistake", {loss: num(d.loss), choice: choiceLabel(d, "master")}));
  }

  destroy() {
    this.ctx.socket.removeEventListener("message", this.onMessage);
  }
}
