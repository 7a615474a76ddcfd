// The green felt: seats around the table (bid, tricks, score, dealer, turn clock), the trump,
// and the trick in the middle, each card in front of the seat that played it. Used by the
// live table and by the replay.

import {h, formatClock} from "./dom.js";
import {cardLabel, cardView, suitIcon, suitLabel} from "./cards.js";
import {PLAYER_COLOURS} from "./scoresheet.js";
import {seatNameFit} from "./seatname.js";
import {t} from "./i18n.js";

const BOT_NAME = /^Bot \((easy|medium|hard|master)\)$/;

/** A player's name as shown: the server names a bot "Bot (<level>)", shown with the level in the page's language. */
export function shownName(name) {
  const bot = BOT_NAME.exec(name || "");
  return bot ? t("bot.name", {level: t(`bot.level.${bot[1]}`)}) : name;
}

/** Seat names, with a seat number added where two are alike ("Bot 3 (hard)", "Ann #2"). */
export function displayNames(seats) {
  const counts = new Map();
  for (const seat of seats) counts.set(seat.name, (counts.get(seat.name) || 0) + 1);
  return seats.map((seat, i) => {
    const name = seat.name ? shownName(seat.name) : t("seat.numbered", {n: i + 1});
    if (counts.get(seat.name) < 2) return name;
    // bots are all called "Bot (<level>)": the number goes first, where it is not cut off
    return seat.kind === "bot" && seat.level ? t("bot.numbered", {n: i + 1, level: t(`bot.level.${seat.level}`)}) : `${name} #${i + 1}`;
  });
}

/** Where seat `seat` sits when `bottom` is at the bottom: percentages of the felt. */
function place(seat, bottom, n) {
  const rel = (seat - bottom + n) % n;
  const angle = Math.PI / 2 + (rel * 2 * Math.PI) / n;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  return {
    seat: {left: `${50 + 40 * cos}%`, top: `${50 + 38 * sin}%`},
    // the trick stays a compact cluster in the middle, clear of the seat panels
    card: {left: `calc(50% + ${cos.toFixed(3)} * var(--trick-rx))`, top: `calc(50% + ${sin.toFixed(3)} * var(--trick-ry))`},
  };
}

function bidText(obs, seat) {
  const bid = obs.bids[seat];
  if (bid !== null && bid !== undefined) return String(bid);
  if (obs.has_bid[seat]) return t("seat.bidPlaced");
  return "–";
}

/** A seat's stat label; a phone's narrow seat takes the short word where the language has a long one. */
function statLabel(stat) {
  return h("small", null, h("span", {class: "wide-only"}, t(`seat.stat${stat}`)),
    h("span", {class: "narrow-only"}, t(`seat.stat${stat}Short`)));
}

/** The name as its seat shows it: set smaller to fit whole (seatname.js); focusable where it is cut. */
function nameText(name) {
  const fit = seatNameFit(name);
  return h("span", {class: "seat-name-text", title: name, tabindex: fit.cut ? "0" : null, style: {"--name-em": String(fit.em)}}, name);
}

function seatPanel({seat, info, obs, bottom, n, clock, me}) {
  const isTurn = obs.current_player === seat && obs.phase !== "finished";
  const name = info ? info.name : t("seat.numbered", {n: seat + 1});
  const hidden = obs.bids[seat] === null && obs.has_bid[seat];
  const status = [];
  if (info && info.kind === "player" && !info.connected) status.push(t(info.away ? "seat.away" : "seat.offline"));
  const bid = bidText(obs, seat);
  const label = `${name}${seat === me ? t("seat.youNote") : ""}${info && info.rating ? t("seat.ratedNote", {rating: info.rating.rating}) : ""}` +
    `${obs.dealer === seat ? t("seat.dealerNote") : ""}: ` +
    `${bid === "–" ? t("seat.noBid") : hidden ? t("seat.bidPlaced") : t("seat.bid", {bid})}, ` +
    `${t("seat.tricksWon", {count: obs.tricks_won[seat]})}, ${t("seat.score", {score: obs.scores[seat]})}` +
    `${isTurn ? t("seat.toMoveNote") : ""}`;
  const showClock = isTurn && clock && clock.player === seat;
  return h("section", {
    class: ["seat", isTurn ? "turn" : "", seat === me ? "me" : "", status.length ? "gone" : ""].join(" "),
    style: place(seat, bottom, n).seat,
    "aria-label": label,
    dataset: {seat: String(seat)},
  },
    h("div", {class: "seat-name"},
      h("span", {class: "seat-dot", style: {background: PLAYER_COLOURS[seat % PLAYER_COLOURS.length]}, "aria-hidden": "true"}),
      nameText(name), seat === me ? h("span", {class: "you"}, t("common.you")) : null,
      info && info.rating ? h("span", {class: "seat-rating", title: t("seat.ratingTitle", {rating: info.rating.rating, uncertainty: info.rating.uncertainty})},
        String(info.rating.rating)) : null,
      obs.dealer === seat ? h("span", {class: "dealer", title: t("seat.dealer")}, t("seat.dealerLetter")) : null),
    h("div", {class: "seat-stats"},
      h("span", {class: `stat stat-bid ${hidden ? "hidden-bid" : ""}`}, statLabel("Bid"), h("b", null, bid)),
      h("span", {class: "stat stat-tricks"}, statLabel("Won"), h("b", null, String(obs.tricks_won[seat]))),
      h("span", {class: "stat stat-score"}, statLabel("Score"), h("b", null, String(obs.scores[seat])))),
    status.length ? h("div", {class: "seat-status"}, status.join(" · ")) : null,
    showClock ? h("div", {class: "clock", dataset: {deadline: String(clock.deadlineAt)}, "aria-label": t("lobby.turnClock")},
      formatClock(clock.deadlineAt - performance.now())) : null,
    isTurn && !showClock ? h("div", {class: "turn-note"}, t(obs.phase === "bidding" ? "seat.bidding" : obs.phase === "choosing_trump" ? "seat.choosingTrump" : "seat.toPlay")) : null,
    seat !== me && obs.hand_sizes ? h("div", {class: "hand-size", "aria-hidden": "true"}, t("seat.cards", {count: obs.hand_sizes[seat]})) : null);
}

function trumpBox(obs) {
  let text;
  if (obs.phase === "choosing_trump") text = t("trump.dealerChoosing");
  else if (obs.trump_suit) text = suitLabel(obs.trump_suit);
  else if (!obs.trump_card) text = t("trump.noneLastRound");
  else if (obs.trump_card.kind === "jester") text = t("trump.noneJester");
  else text = t("trump.noneWizard");
  return h("div", {class: "trump", "aria-label": t("trump.label", {text})},
    obs.trump_card ? cardView(obs.trump_card, {size: "sm", label: t("trump.card", {card: cardLabel(obs.trump_card)})})
      : h("div", {class: "card card-sm card-back", "aria-hidden": "true"}),
    h("div", {class: "trump-text"}, h("small", null, t("trump.title")),
      h("span", null, obs.trump_suit ? suitIcon(obs.trump_suit, "trump-icon") : null, text)));
}

/** "3 over", "2 under", "even": the sum of the bids shown against the cards dealt. */
export function bidBalance(obs) {
  if (obs.phase !== "bidding" && obs.phase !== "playing") return null;
  const known = obs.bids.filter((b) => b !== null && b !== undefined);
  const placed = obs.has_bid.filter(Boolean).length;
  if (!placed) return null;
  if (known.length < placed) return {parts: [t("balance.hidden")], total: null};
  const total = known.reduce((a, b) => a + b, 0);
  const diff = total - obs.round_number;
  const verdict = diff > 0 ? t("balance.over", {n: diff}) : diff < 0 ? t("balance.under", {n: -diff}) : t("balance.even");
  const key = placed < obs.num_players ? "balance.soFar" : "balance.all";
  const [before, after = ""] = t(key, {total, cards: obs.round_number, verdict: PIECE}).split(PIECE);
  return {parts: [before, keepTogether(verdict), after],
          total, diff, complete: placed === obs.num_players};
}

/** Stands in for a piece of a translated sentence that is then rendered on its own. */
const PIECE = "\u0001";

/** A phrase the browser may not break inside ("Runde 3 von 12", "1 drüber"): a narrow
 * screen breaks a caption between its phrases, never within one. */
function keepTogether(text) {
  return h("span", {class: "keep-together"}, text);
}

/** Who took a trick, in words: "You take the trick", "Ada takes the trick". */
export function trickWinnerText(name, isMe) {
  return isMe ? t("trick.youTake") : t("trick.takes", {name});
}

/**
 * params: {n, bottom (seat drawn at the bottom), me (my seat or null), seats (table seat
 * infos), obs (observation-shaped), completedTrick (TrickResult JSON or null), sweep (the
 * taken trick moves to its winner), clock, isFresh (card id → animate it as just played?),
 * extra (elements laid over the felt and its side boxes), onFelt (elements laid over the felt alone,
 * centred on it: the round summary, which must not cover the trump, the round or the bids)}
 */
export function feltView({n, bottom, me, seats, obs, completedTrick, sweep = false, clock, isFresh = () => false,
                          topExtra = null, extra = null, onFelt = null}) {
  const trickCards = completedTrick ? completedTrick.cards : obs.current_trick;
  const winner = completedTrick ? completedTrick.winner : null;
  const names = (seat) => (seats[seat] ? seats[seat].name : t("seat.numbered", {n: seat + 1}));
  const to = winner !== null ? place(winner, bottom, n).seat : null;
  const trick = h("div", {
    class: `trick ${completedTrick ? "completed" : ""} ${sweep ? "sweep" : ""}`,
    role: "group",
    "aria-label": completedTrick ? t("trick.completed", {name: winner === me ? t("common.you") : names(winner)}) : t("trick.current"),
    dataset: winner !== null ? {winner: String(winner)} : null,
  },
    trickCards.map((played, i) => h("div", {
      class: `trick-card ${played.player === winner ? "winner" : ""} ${isFresh(played.card.id) ? "fresh" : ""}`,
      style: {...place(played.player, bottom, n).card, zIndex: String(i + 1),
              ...(to ? {"--to-left": to.left, "--to-top": to.top} : {})},
      dataset: {seat: String(played.player), key: `trick-${played.card.id}`},
    }, cardView(played.card, {size: "md", label: t("trick.played", {name: names(played.player), card: cardLabel(played.card)})}))));
  const caption = completedTrick && !sweep
    ? h("div", {class: "trick-caption", role: "status"}, trickWinnerText(names(winner), winner === me))
    : null;
  const round = t("round.of", {round: obs.round_number, total: obs.total_rounds});
  const roundText = obs.phase === "finished" ? [t("game.over")]
    : obs.phase === "playing" && obs.current_player !== null
      ? [keepTogether(`${round} ·`), " ", keepTogether(t("trick.of", {trick: obs.trick_number, total: obs.round_number}))]
      : [keepTogether(round)];
  const balance = bidBalance(obs);
  const felt = h("div", {class: `felt felt-${n}`, dataset: {players: String(n)}},
    trick, caption,
    Array.from({length: n}, (_, seat) => seatPanel({seat, info: seats[seat], obs, bottom, n, clock, me})), onFelt);
  return h("div", {class: "felt-area"},
    h("div", {class: "felt-top"}, trumpBox(obs),
      h("div", {class: "felt-top-mid"}, topExtra),
      h("div", {class: "round-box"},
        h("div", {class: "round-info"}, ...roundText),
        balance ? h("div", {class: `bid-total ${balance.diff > 0 ? "over" : balance.diff < 0 ? "under" : ""}`,
                            id: "bid-total", role: "status"}, ...balance.parts) : null)),
    felt, extra);
}

/** Refresh every turn clock on the page without a re-render. */
export function tickClocks(root) {
  for (const el of root.querySelectorAll(".clock[data-deadline]")) {
    const left = Number(el.dataset.deadline) - performance.now();
    el.textContent = formatClock(left);
    el.classList.toggle("low", left < 10000);
  }
}
