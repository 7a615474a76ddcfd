// A player's rating history as an SVG line: one point per rated game (the latest 100),
// the rating on the y axis with a few round ticks, the games' dates under the x axis.

import {s} from "./dom.js";
import {formatDate, t} from "./i18n.js";

const W = 640;
const H = 230;
const PAD = {left: 52, right: 16, top: 14, bottom: 40};

/** Round ticks (steps of 10/25/50/100/...) covering [lo, hi]. */
function ticks(lo, hi) {
  const span = Math.max(hi - lo, 20);
  const step = [10, 25, 50, 100, 200, 250, 500, 1000].find((st) => span / st <= 5) || 1000;
  const out = [];
  for (let v = Math.floor(lo / step) * step; v <= Math.ceil(hi / step) * step; v += step) out.push(v);
  return out;
}

function day(iso) {
  return formatDate(iso, {month: "short", day: "numeric"});
}

/** history: [{at, rating, uncertainty}], oldest first. */
export function ratingChart(history) {
  const values = history.map((p) => p.rating);
  const marks = ticks(Math.min(...values), Math.max(...values));
  const lo = marks[0];
  const hi = marks[marks.length - 1] === lo ? lo + 10 : marks[marks.length - 1];
  const n = history.length;
  const x = (i) => PAD.left + (n === 1 ? (W - PAD.left - PAD.right) / 2 : (i * (W - PAD.left - PAD.right)) / (n - 1));
  const y = (v) => PAD.top + ((hi - v) * (H - PAD.top - PAD.bottom)) / (hi - lo);
  const bottom = H - PAD.bottom;
  const grid = marks.map((v) => s("g", {class: "rc-tick"},
    s("line", {x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v)}),
    s("text", {x: PAD.left - 8, y: y(v) + 4, "text-anchor": "end"}, String(v))));
  const path = history.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  const points = history.map((p, i) => s("circle", {class: "rc-point", cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: 3.5},
    s("title", null, `${day(p.at)}: ${p.rating} ± ${p.uncertainty}`)));
  const dates = n > 1 ? [[0, "start"], [n - 1, "end"]] : [[0, "middle"]];
  return s("svg", {class: "rating-chart", viewBox: `0 0 ${W} ${H}`, role: "img",
                   "aria-label": t("rating.chartLabel", {count: n, from: values[0], to: values[n - 1]})},
    grid,
    s("line", {class: "rc-axis", x1: PAD.left, x2: W - PAD.right, y1: bottom, y2: bottom}),
    s("line", {class: "rc-axis", x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: bottom}),
    dates.map(([i, anchor]) => s("text", {class: "rc-date", x: x(i), y: bottom + 16, "text-anchor": anchor}, day(history[i].at))),
    s("text", {class: "rc-label", x: (PAD.left + W - PAD.right) / 2, y: H - 6, "text-anchor": "middle"},
      t("rating.chartGames", {count: n})),
    s("text", {class: "rc-label", x: 12, y: PAD.top + (bottom - PAD.top) / 2, "text-anchor": "middle",
               transform: `rotate(-90 12 ${PAD.top + (bottom - PAD.top) / 2})`}, t("leaderboard.rating")),
    s("path", {class: "rc-line", d: path}),
    points);
}
