// Between tricks, rounds and games: the previous trick (on request), the round summary that
// stands over the table after the last trick of a round, before the next deal, and the
// final ranking when the game is over.

import {h} from "./dom.js";
import {cardView} from "./cards.js";
import {ranking} from "./scoresheet.js";
import {t} from "./i18n.js";

/** "+20" / "−10": a round's points, with a true minus sign. */
export function pointsText(change) {
  return `${change >= 0 ? "+" : "−"}${Math.abs(change)}`;
}

/** The previous trick of the round, each card over its player's name, the winner marked. */
export function previousTrickPanel({trick, seats, me, onClose}) {
  const name = (seat) => (seat === me ? t("common.You") : seats[seat].name);
  return h("section", {class: "last-trick-panel", id: "last-trick-panel", "aria-label": t("review.label")},
    h("div", {class: "review-head"}, h("h2", null, t("review.title")),
      h("button", {type: "button", class: "btn btn-small btn-ghost", "aria-label": t("review.close"),
                   onClick: onClose}, t("common.close"))),
    h("ol", {class: "review-cards"}, trick.cards.map((played) => h("li", {
      class: played.player === trick.winner ? "winner" : "", dataset: {seat: String(played.player)}},
      cardView(played.card, {size: "sm"}),
      h("span", {class: "review-name", title: seats[played.player].name}, name(played.player))))),
    h("p", {class: "review-winner"}, trick.winner === me ? t("review.youTook") : t("review.took", {name: name(trick.winner)})));
}

/** The engine's RoundResult as a table: bid, won, made or missed, points, total per seat. */
export function roundSummaryPanel({result, seats, me, onContinue}) {
  const rows = result.bids.map((bid, seat) => {
    const won = result.tricks[seat];
    const change = result.score_changes[seat];
    const made = bid === won;
    const who = seat === me ? t("common.You") : seats[seat].name;
    const verdict = made ? t(seat === me ? "summary.madeYours" : "summary.made") : t("summary.missedBy", {n: Math.abs(won - bid)});
    return h("tr", {class: `${made ? "made" : "missed"} ${seat === me ? "mine" : ""}`, dataset: {seat: String(seat)}},
      h("th", {scope: "row", class: "sum-name", title: seats[seat].name}, who),
      h("td", null, String(bid)), h("td", null, String(won)),
      h("td", {class: "sum-verdict"}, verdict),
      h("td", {class: `sum-points ${change >= 0 ? "plus" : "minus"}`}, pointsText(change)),
      h("td", {class: "sum-total"}, String(result.scores[seat])));
  });
  return h("section", {class: "round-summary", id: "round-summary", role: "status", "aria-labelledby": "summary-title"},
    h("h2", {id: "summary-title"}, t("summary.title", {round: result.round_number})),
    h("table", {class: "summary-table"},
      h("thead", null, h("tr", null, h("th", {scope: "col"}, t("summary.player")), h("th", {scope: "col"}, t("seat.statBid")),
        h("th", {scope: "col"}, t("seat.statWon")), h("th", {scope: "col"}, ""), h("th", {scope: "col"}, t("summary.points")),
        h("th", {scope: "col"}, t("summary.total")))),
      h("tbody", null, rows)),
    h("div", {class: "row"}, h("button", {type: "button", class: "btn btn-primary btn-small", id: "summary-continue",
      onClick: onContinue}, t("summary.continue"))));
}

/** The final ranking over the felt, my rating change (`ratingLine`), "Play again" for a player. */
export function gameOverPanel({obs, name, ratingLine, onRematch}) {
  const seated = obs.player !== null;
  const order = ranking(obs.scores);
  const winners = new Set(obs.winners);
  return h("section", {class: "end", role: "dialog", "aria-labelledby": "end-title"},
    h("h2", {id: "end-title"}, t("game.over")),
    h("ol", {class: "ranking", "aria-label": t("end.ranking")}, order.map((entry) => h("li", {
      class: winners.has(entry.seat) ? "winner" : "", dataset: {seat: String(entry.seat), score: String(entry.score)},
    }, h("span", {class: "place"}, `${entry.place}.`),
      h("span", {class: "who", title: name(entry.seat)}, name(entry.seat), entry.seat === obs.player ? t("seat.youNote") : ""),
      winners.has(entry.seat) ? h("span", {class: "tag tag-win"}, t("end.winner")) : null,
      h("span", {class: "pts"}, String(entry.score))))),
    seated ? ratingLine : null,
    h("div", {class: "row"},
      seated ? h("button", {type: "button", class: "btn btn-primary", id: "play-again", onClick: onRematch}, t("end.playAgain")) : null,
      h("a", {class: "btn", href: "#/"}, t("common.backToLobby")),
      h("a", {class: "btn btn-ghost", href: "#/games"}, t("header.recentGames"))));
}
