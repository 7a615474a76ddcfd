// Between tricks, rounds and games: the previous trick (on request), the round summary that
// stands over the table after the last trick of a round, before the next deal, and the
// final ranking when the game is over.

import {h} from "./dom.js";
import {cardView} from "./cards.js";
import {ranking} from "./scoresheet.js";

/** The previous trick of the round, each card over its player's name, the winner marked. */
export function previousTrickPanel({trick, seats, me, onClose}) {
  const name = (seat) => (seat === me ? "You" : seats[seat].name);
  return h("section", {class: "last-trick-panel", id: "last-trick-panel", "aria-label": "The previous trick"},
    h("div", {class: "review-head"}, h("h2", null, "Previous trick"),
      h("button", {type: "button", class: "btn btn-small btn-ghost", "aria-label": "Close the previous trick",
                   onClick: onClose}, "Close")),
    h("ol", {class: "review-cards"}, trick.cards.map((played) => h("li", {
      class: played.player === trick.winner ? "winner" : "", dataset: {seat: String(played.player)}},
      cardView(played.card, {size: "sm"}),
      h("span", {class: "review-name", title: seats[played.player].name}, name(played.player))))),
    h("p", {class: "review-winner"}, `${name(trick.winner)} took the trick.`));
}

/** The engine's RoundResult as a table: bid, won, made or missed, points, total per seat. */
export function roundSummaryPanel({result, seats, me, onContinue}) {
  const rows = result.bids.map((bid, seat) => {
    const won = result.tricks[seat];
    const change = result.score_changes[seat];
    const made = bid === won;
    const who = seat === me ? "You" : seats[seat].name;
    const verdict = made ? (seat === me ? "made your bid" : "made it") : `missed by ${Math.abs(won - bid)}`;
    return h("tr", {class: `${made ? "made" : "missed"} ${seat === me ? "mine" : ""}`, dataset: {seat: String(seat)}},
      h("th", {scope: "row", class: "sum-name", title: seats[seat].name}, who),
      h("td", null, String(bid)), h("td", null, String(won)),
      h("td", {class: "sum-verdict"}, verdict),
      h("td", {class: `sum-points ${change >= 0 ? "plus" : "minus"}`}, `${change >= 0 ? "+" : "−"}${Math.abs(change)}`),
      h("td", {class: "sum-total"}, String(result.scores[seat])));
  });
  return h("section", {class: "round-summary", id: "round-summary", role: "status", "aria-labelledby": "summary-title"},
    h("h2", {id: "summary-title"}, `Round ${result.round_number} is over`),
    h("table", {class: "summary-table"},
      h("thead", null, h("tr", null, h("th", {scope: "col"}, "Player"), h("th", {scope: "col"}, "Bid"),
        h("th", {scope: "col"}, "Won"), h("th", {scope: "col"}, ""), h("th", {scope: "col"}, "Points"),
        h("th", {scope: "col"}, "Total"))),
      h("tbody", null, rows)),
    h("div", {class: "row"}, h("button", {type: "button", class: "btn btn-primary btn-small", id: "summary-continue",
      onClick: onContinue}, "Continue")));
}

/** The final ranking over the felt, my rating change (`ratingLine`), "Play again" for a player. */
export function gameOverPanel({obs, name, ratingLine, onRematch}) {
  const seated = obs.player !== null;
  const order = ranking(obs.scores);
  const winners = new Set(obs.winners);
  return h("section", {class: "end", role: "dialog", "aria-labelledby": "end-title"},
    h("h2", {id: "end-title"}, "Game over"),
    h("ol", {class: "ranking", "aria-label": "Final ranking"}, order.map((entry) => h("li", {
      class: winners.has(entry.seat) ? "winner" : "", dataset: {seat: String(entry.seat), score: String(entry.score)},
    }, h("span", {class: "place"}, `${entry.place}.`),
      h("span", {class: "who", title: name(entry.seat)}, name(entry.seat), entry.seat === obs.player ? " (you)" : ""),
      winners.has(entry.seat) ? h("span", {class: "tag tag-win"}, "winner") : null,
      h("span", {class: "pts"}, String(entry.score))))),
    seated ? ratingLine : null,
    h("div", {class: "row"},
      seated ? h("button", {type: "button", class: "btn btn-primary", id: "play-again", onClick: onRematch}, "Play again") : null,
      h("a", {class: "btn", href: "#/"}, "Back to the lobby"),
      h("a", {class: "btn btn-ghost", href: "#/games"}, "Recent games")));
}
