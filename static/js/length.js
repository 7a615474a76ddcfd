// Game length: the full game deals the whole deck (60 / players rounds); a short game
// (`options.rounds`) stops after the rounds its table chose.

import {t} from "./i18n.js";

/** Rounds of a full game: the deck (60 cards) dealt out. */
export function fullRounds(players) {
  return Math.floor(60 / players);
}

/** Rounds a game lasts: its `options.rounds`, or the full game when that is null or absent. */
export function gameRounds(options, players) {
  return (options && options.rounds) || fullRounds(players);
}

/** "Short game · 3 rounds" / "Full game · 15 rounds". */
export function lengthText(options, players) {
  const rounds = gameRounds(options, players);
  return t(options && options.rounds ? "length.short" : "length.full", {count: rounds});
}
