// The green felt: seats around the table (bid, tricks, score, dealer, turn clock), the trump,
// and the trick in the middle, each card in front of the seat that played it. Used by the
// live table and by the replay.

import {h, formatClock} from "./dom.js";
import {cardLabel, cardView, suitIcon, suitLabel} from "./cards.js";
import {PLAYER_COLOURS} from "./scoresheet.js";

/** Seat names, with a seat number added where two are alike ("Bot 3 (hard)", "Ann #2"). */
export function displayNames(seats) {
  const counts = new Map();
  for (const seat of seats) counts.set(seat.name, (counts.get(seat.name) || 0) + 1);
  return seats.map((seat, i) => {
    const name = seat.name || `Seat ${i + 1}`;
    if (counts.get(seat.name) < 2) return name;
    // bots are all called "Bot (<level>)": the number goes first, where it is not cut off
    return seat.kind === "bot" && seat.level ? `Bot ${i + 1} (${seat.level})` : `${name} #${i + 1}`;
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
  if (obs.has_bid[seat]) return "bid placed";
  return "–";
}

function seatPanel({seat, info, obs, bottom, n, clock, me}) {
  const isTurn = obs.current_player === seat && obs.phase !== "finished";
  const name = info ? info.name : `Seat ${seat + 1}`;
  const hidden = obs.bids[seat] === null && obs.has_bid[seat];
  const status = [];
  if (info && info.kind === "player" && !info.connected) status.push(info.away ? "away: a bot plays" : "offline");
  const bid = bidText(obs, seat);
  const label = `${name}${seat === me ? " (you)" : ""}${info && info.rating ? `, rated ${info.rating.rating}` : ""}` +
    `${obs.dealer === seat ? ", dealer" : ""}: ` +
    `${bid === "–" ? "no bid yet" : hidden ? "bid placed" : `bid ${bid}`}, ${obs.tricks_won[seat]} tricks won, score ${obs.scores[seat]}` +
    `${isTurn ? ", to move" : ""}`;
  const showClock = isTurn && clock && clock.player === seat;
  return h("section", {
    class: ["seat", isTurn ? "turn" : "", seat === me ? "me" : "", status.length ? "gone" : ""].join(" "),
    style: place(seat, bottom, n).seat,
    "aria-label": label,
    dataset: {seat: String(seat)},
  },
    h("div", {class: "seat-name"},
      h("span", {class: "seat-dot", style: {background: PLAYER_COLOURS[seat % PLAYER_COLOURS.length]}, "aria-hidden": "true"}),
      h("span", {class: "seat-name-text", title: name}, name), seat === me ? h("span", {class: "you"}, "you") : null,
      info && info.rating ? h("span", {class: "seat-rating", title: `Rating ${info.rating.rating} ± ${info.rating.uncertainty}`},
        String(info.rating.rating)) : null,
      obs.dealer === seat ? h("span", {class: "dealer", title: "Dealer"}, "D") : null),
    h("div", {class: "seat-stats"},
      h("span", {class: `stat stat-bid ${hidden ? "hidden-bid" : ""}`}, h("small", null, "Bid"), h("b", null, bid)),
      h("span", {class: "stat stat-tricks"}, h("small", null, "Won"), h("b", null, String(obs.tricks_won[seat]))),
      h("span", {class: "stat stat-score"}, h("small", null, "Score"), h("b", null, String(obs.scores[seat])))),
    status.length ? h("div", {class: "seat-status"}, status.join(" · ")) : null,
    showClock ? h("div", {class: "clock", dataset: {deadline: String(clock.deadlineAt)}, "aria-label": "Turn clock"},
      formatClock(clock.deadlineAt - performance.now())) : null,
    isTurn && !showClock ? h("div", {class: "turn-note"}, obs.phase === "bidding" ? "bidding…" : obs.phase === "choosing_trump" ? "choosing trump…" : "to play") : null,
    seat !== me && obs.hand_sizes ? h("div", {class: "hand-size", "aria-hidden": "true"}, `${obs.hand_sizes[seat]} card${obs.hand_sizes[seat] === 1 ? "" : "s"}`) : null);
}

function trumpBox(obs) {
  let text;
  if (obs.phase === "choosing_trump") text = "Dealer is choosing…";
  else if (obs.trump_suit) text = suitLabel(obs.trump_suit);
  else if (!obs.trump_card) text = "No trump (last round)";
  else if (obs.trump_card.kind === "jester") text = "No trump (Jester)";
  else text = "No trump (Wizard)";
  return h("div", {class: "trump", "aria-label": `Trump: ${text}`},
    obs.trump_card ? cardView(obs.trump_card, {size: "sm", label: `Trump card: ${cardLabel(obs.trump_card)}`})
      : h("div", {class: "card card-sm card-back", "aria-hidden": "true"}),
    h("div", {class: "trump-text"}, h("small", null, "Trump"),
      h("span", null, obs.trump_suit ? suitIcon(obs.trump_suit, "trump-icon") : null, text)));
}

/** "3 over", "2 under", "even": the sum of the bids shown against the cards dealt. */
export function bidBalance(obs) {
  if (obs.phase !== "bidding" && obs.phase !== "playing") return null;
  const known = obs.bids.filter((b) => b !== null && b !== undefined);
  const placed = obs.has_bid.filter(Boolean).length;
  if (!placed) return null;
  if (known.length < placed) return {text: "Bids hidden until all have bid", total: null};
  const total = known.reduce((a, b) => a + b, 0);
  const diff = total - obs.round_number;
  const so = placed < obs.num_players ? " so far" : "";
  const verdict = diff > 0 ? `${diff} over` : diff < 0 ? `${-diff} under` : "even";
  return {text: `Bids${so}: ${total} of ${obs.round_number} (${verdict})`,
          total, diff, complete: placed === obs.num_players};
}

/** Who took a trick, in words: "You take the trick", "Ada takes the trick". */
export function trickWinnerText(name, isMe) {
  return isMe ? "You take the trick" : `${name} takes the trick`;
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
  const names = (seat) => (seats[seat] ? seats[seat].name : `Seat ${seat + 1}`);
  const to = winner !== null ? place(winner, bottom, n).seat : null;
  const trick = h("div", {
    class: `trick ${completedTrick ? "completed" : ""} ${sweep ? "sweep" : ""}`,
    role: "group",
    "aria-label": completedTrick ? `Completed trick, won by ${winner === me ? "you" : names(winner)}` : "Current trick",
    dataset: winner !== null ? {winner: String(winner)} : null,
  },
    trickCards.map((played, i) => h("div", {
      class: `trick-card ${played.player === winner ? "winner" : ""} ${isFresh(played.card.id) ? "fresh" : ""}`,
      style: {...place(played.player, bottom, n).card, zIndex: String(i + 1),
              ...(to ? {"--to-left": to.left, "--to-top": to.top} : {})},
      dataset: {seat: String(played.player), key: `trick-${played.card.id}`},
    }, cardView(played.card, {size: "md", label: `${names(played.player)} played ${cardLabel(played.card)}`}))));
  const caption = completedTrick && !sweep
    ? h("div", {class: "trick-caption", role: "status"}, trickWinnerText(names(winner), winner === me))
    : null;
  const roundText = obs.phase === "finished" ? "Game over"
    : `Round ${obs.round_number} of ${obs.total_rounds}` +
      (obs.phase === "playing" && obs.current_player !== null ? ` · Trick ${obs.trick_number} of ${obs.round_number}` : "");
  const balance = bidBalance(obs);
  const felt = h("div", {class: `felt felt-${n}`, dataset: {players: String(n)}},
    trick, caption,
    Array.from({length: n}, (_, seat) => seatPanel({seat, info: seats[seat], obs, bottom, n, clock, me})), onFelt);
  return h("div", {class: "felt-area"},
    h("div", {class: "felt-top"}, trumpBox(obs),
      h("div", {class: "felt-top-mid"}, topExtra),
      h("div", {class: "round-box"},
        h("div", {class: "round-info"}, roundText),
        balance ? h("div", {class: `bid-total ${balance.diff > 0 ? "over" : balance.diff < 0 ? "under" : ""}`,
                            id: "bid-total", role: "status"}, balance.text) : null)),
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
