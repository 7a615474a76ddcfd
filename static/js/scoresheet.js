// The classic Wizard score pad (bid, tricks won, score per round and player) and an inline
// SVG line chart of the scores over the rounds. Display only: the numbers come from the
// engine's round results.

import {h, s} from "./dom.js";
import {t} from "./i18n.js";
import {widthAt1px} from "./seatname.js";

export const PLAYER_COLOURS = ["#f2c14e", "#5fb3f9", "#f47c7c", "#7ddf8e", "#c59bf5", "#f5a45d"];
const MARKERS = ["circle", "square", "triangle", "diamond", "cross", "star"];

function marker(kind, x, y, colour) {
  const r = 3.2;
  switch (kind) {
    case "square": return s("rect", {x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: colour});
    case "triangle": return s("path", {d: `M${x} ${y - r - 0.6}L${x + r + 0.6} ${y + r}L${x - r - 0.6} ${y + r}Z`, fill: colour});
    case "diamond": return s("path", {d: `M${x} ${y - r - 1}L${x + r + 1} ${y}L${x} ${y + r + 1}L${x - r - 1} ${y}Z`, fill: colour});
    case "cross": return s("path", {d: `M${x - r} ${y - r}L${x + r} ${y + r}M${x + r} ${y - r}L${x - r} ${y + r}`, stroke: colour, "stroke-width": 2});
    case "star": return s("path", {d: `M${x} ${y - r - 1}L${x + 1.2} ${y - 1.2}L${x + r + 1} ${y}L${x + 1.2} ${y + 1.2}L${x} ${y + r + 1}L${x - 1.2} ${y + 1.2}L${x - r - 1} ${y}L${x - 1.2} ${y - 1.2}Z`, fill: colour});
    default: return s("circle", {cx: x, cy: y, r, fill: colour});
  }
}

function legendMarker(i) {
  return s("svg", {class: "legend-marker", viewBox: "0 0 12 12", "aria-hidden": "true"},
    marker(MARKERS[i % MARKERS.length], 6, 6, PLAYER_COLOURS[i % PLAYER_COLOURS.length]));
}

/**
 * `sheet = {names, totalRounds, history: [RoundResult JSON], current: {round_number, bids,
 * has_bid, tricks_won} | null, mySeat}` → the score pad element.
 */
export function scorePad(sheet) {
  const {names, totalRounds, history, current, mySeat} = sheet;
  const n = names.length;
  const byRound = new Map(history.map((r) => [r.round_number, r]));
  // five or six players: one column per player (score over bid/won) so the pad fits the side panel
  if (n >= 5) return compactPad(sheet, byRound);
  const head = h("thead", null,
    h("tr", null, h("th", {scope: "col", rowspan: "2", class: "rcol", title: t("pad.roundTitle")}, t("pad.round")),
      names.map((name, i) => nameHead(name, i, mySeat, {scope: "colgroup", colspan: "2"}))),
    h("tr", {class: "sub"}, names.map(() => [
      h("th", {scope: "col", title: t("pad.bwTitle")}, t("pad.bw")),
      h("th", {scope: "col", title: t("pad.ptsTitle")}, t("pad.pts"))])));
  const rows = [];
  for (let round = 1; round <= totalRounds; round++) {
    const result = byRound.get(round);
    const live = !result && current && current.round_number === round ? current : null;
    const cells = [];
    for (let p = 0; p < n; p++) {
      if (result) {
        const made = result.bids[p] === result.tricks[p];
        const change = result.score_changes[p];
        const how = made ? t("pad.bidMade") : t("summary.missedBy", {n: Math.abs(result.tricks[p] - result.bids[p])});
        cells.push(
          h("td", {class: `bid ${made ? "made" : "missed"}`, title: t("pad.cellTitle", {bid: result.bids[p], won: result.tricks[p], how})},
            h("span", {class: "bw"}, `${result.bids[p]}/${result.tricks[p]}`),
            h("span", {class: "mark", "aria-label": t(made ? "pad.made" : "pad.missed")}, made ? "✓" : "✗")),
          h("td", {class: "score", title: t("pad.thisRound", {change: `${change >= 0 ? "+" : ""}${change}`})},
            String(result.scores[p]), h("small", {class: change >= 0 ? "plus" : "minus"}, `${change >= 0 ? "+" : "−"}${Math.abs(change)}`)));
      } else if (live) {
        const bid = live.bids[p];
        const bidText = bid !== null && bid !== undefined ? String(bid) : live.has_bid[p] ? "•" : "";
        const anyBid = live.bids.some((b, i) => b !== null || live.has_bid[i]);
        cells.push(h("td", {class: "bid", title: live.has_bid[p] && bid === null ? t("seat.bidPlaced") : null},
          bidText ? `${bidText}/${anyBid ? live.tricks_won[p] : ""}` : ""), h("td", {class: "score"}, ""));
      } else {
        cells.push(h("td", {class: "bid"}), h("td"));
      }
    }
    rows.push(h("tr", {class: live ? "current" : result ? "done" : "future"},
      h("th", {scope: "row"}, String(round)), cells));
  }
  return h("div", {class: "pad-scroll", tabindex: "0", role: "region", "aria-label": t("pad.title")},
    h("table", {class: "pad", style: {"--pad-n": String(n)}}, h("caption", {class: "sr-only"}, t("pad.caption")), head, h("tbody", null, rows)));
}

/**
 * A bot's name split from its level ("Bot 3 (hard)" → {name: "Bot 3", level: "hard"}): a narrow
 * column shows the level on a small line of its own, so the number is never the part cut off.
 */
function splitLevel(name) {
  const levels = ["easy", "medium", "hard", "master"].map((level) => t(`bot.level.${level}`));
  const match = / \(([^()]*)\)$/.exec(name);
  return match && levels.includes(match[1]) ? {name: name.slice(0, match.index), level: match[1]} : {name, level: null};
}

/**
 * A player's column head: the colour's marker, the name set smaller to fit its column (on one
 * line, else two; the style sheet picks the size from --name-em and the column's width), a bot's
 * level below it; the whole name is the head's title and its label, for the rare name that is
 * cut even so (past about 16 letters at six players).
 */
function nameHead(fullName, i, mySeat, attrs) {
  const {name, level} = splitLevel(fullName);
  return h("th", {...attrs, title: fullName, "aria-label": fullName, class: `pcol ${i === mySeat ? "mine" : ""}`},
    legendMarker(i), // on a line of its own: the name has the column's whole width
    // one word on two lines breaks in its middle ("Maxi|miliane"), not before its last letter
    h("span", {class: /[\s-]/.test(name) ? "pad-name" : "pad-name one-word",
               style: {"--name-em": String(Math.round(widthAt1px(name, 800) * 1000) / 1000)}}, name),
    level ? h("small", {class: "pad-level"}, level) : null);
}

function compactPad({names, totalRounds, current, mySeat}, byRound) {
  const head = h("thead", null,
    h("tr", null, h("th", {scope: "col", class: "rcol", title: t("pad.roundTitle")}, t("pad.round")),
      names.map((name, i) => nameHead(name, i, mySeat, {scope: "col"}))));
  const rows = [];
  for (let round = 1; round <= totalRounds; round++) {
    const result = byRound.get(round);
    const live = !result && current && current.round_number === round ? current : null;
    const cells = names.map((_, p) => {
      if (result) {
        const made = result.bids[p] === result.tricks[p];
        const change = result.score_changes[p];
        const how = made ? t("pad.bidMade") : t("summary.missedBy", {n: Math.abs(result.tricks[p] - result.bids[p])});
        const title = `${t("pad.cellTitle", {bid: result.bids[p], won: result.tricks[p], how})}; ${t("pad.thisRound", {change: `${change >= 0 ? "+" : ""}${change}`})}`;
        return h("td", {class: `cell ${made ? "made" : "missed"}`, title},
          h("b", {class: "cell-score"}, String(result.scores[p])),
          h("small", {class: "bw"}, `${result.bids[p]}/${result.tricks[p]}`,
            h("span", {class: "mark", "aria-label": t(made ? "pad.made" : "pad.missed")}, made ? "✓" : "✗")));
      }
      if (live) {
        const bid = live.bids[p];
        const bidText = bid !== null && bid !== undefined ? String(bid) : live.has_bid[p] ? "•" : "";
        return h("td", {class: "cell"}, bidText ? h("small", {class: "bw"}, `${bidText}/${live.tricks_won[p]}`) : "");
      }
      return h("td", {class: "cell"});
    });
    rows.push(h("tr", {class: live ? "current" : result ? "done" : "future"}, h("th", {scope: "row"}, String(round)), cells));
  }
  return h("div", {class: "pad-scroll", tabindex: "0", role: "region", "aria-label": t("pad.title")},
    h("table", {class: "pad pad-compact", style: {"--pad-n": String(names.length)}},
      h("caption", {class: "sr-only"}, t("pad.captionCompact")), head, h("tbody", null, rows)));
}

/** An SVG line chart of each player's score after every round. */
export function scoreChart({names, totalRounds, history}) {
  const W = 340;
  const H = 190;
  const pad = {l: 34, r: 10, t: 10, b: 22};
  const series = names.map((_, p) => [0, ...history.map((r) => r.scores[p])]);
  const all = series.flat();
  let lo = Math.min(0, ...all);
  let hi = Math.max(50, ...all);
  const step = niceStep((hi - lo) / 4);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const x = (round) => pad.l + (round / Math.max(1, totalRounds)) * (W - pad.l - pad.r);
  const y = (v) => pad.t + (1 - (v - lo) / (hi - lo)) * (H - pad.t - pad.b);
  const grid = [];
  for (let v = lo; v <= hi + 1e-9; v += step) {
    grid.push(s("line", {x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), class: v === 0 ? "axis zero" : "axis"}),
      s("text", {x: pad.l - 5, y: y(v) + 3.5, class: "tick", "text-anchor": "end"}, String(v)));
  }
  const xticks = [];
  const every = totalRounds > 12 ? 5 : totalRounds > 6 ? 2 : 1;
  for (let r = 0; r <= totalRounds; r += every) {
    xticks.push(s("text", {x: x(r), y: H - 6, class: "tick", "text-anchor": "middle"}, String(r)));
  }
  const lines = series.map((points, p) => {
    const colour = PLAYER_COLOURS[p % PLAYER_COLOURS.length];
    const coords = points.map((v, r) => `${x(r).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    return s("g", {class: "series", "data-seat": String(p)},
      s("polyline", {points: coords, fill: "none", stroke: colour, "stroke-width": 2, "stroke-linejoin": "round",
                     "stroke-dasharray": p % 2 ? "5 3" : null}),
      points.map((v, r) => marker(MARKERS[p % MARKERS.length], x(r), y(v), colour)));
  });
  const latest = series.map((pts, p) => `${names[p]} ${pts[pts.length - 1]}`).join(", ");
  return h("figure", {class: "chart"},
    s("svg", {viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "chart-title"},
      s("title", {id: "chart-title"}, t("chart.title", {latest})),
      grid, xticks, lines),
    h("figcaption", {class: "legend"}, names.map((fullName, p) => {
      const {name, level} = splitLevel(fullName);
      return h("span", {class: "legend-item", title: fullName}, legendMarker(p), h("span", {class: "legend-name"}, name),
        level ? h("small", {class: "legend-level"}, level) : null);
    })));
}

function niceStep(raw) {
  const mag = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

/** Seats ordered by final score (ties share a place): [{seat, score, place}]. */
export function ranking(scores) {
  const order = scores.map((score, seat) => ({seat, score})).sort((a, b) => b.score - a.score || a.seat - b.seat);
  let place = 0;
  let last = null;
  order.forEach((entry, i) => {
    if (entry.score !== last) place = i + 1;
    last = entry.score;
    entry.place = place;
  });
  return order;
}
