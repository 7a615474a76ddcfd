// Ratings in the client: how a rating reads, a player's profile, and the ratings beside
// the names at a table (each seat's profile, fetched once per game).

import {getJson, HttpError} from "./http.js";
import {levelName as levelWord} from "./help.js";

/** A new player's shown rating (docs/ratings.md: the 1500 scale). */
export const START_RATING = 1500;
export const PROVISIONAL_GAMES = 10;

export function profileLink(playerId) {
  return `#/player/${encodeURIComponent(playerId)}`;
}

export function levelName(level) {
  return levelWord(level);
}

/** "1523 ± 212". */
export function ratingText(rating) {
  return `${rating.rating} ± ${rating.uncertainty}`;
}

/** "+23" / "−8" / "±0". */
export function signed(delta) {
  return delta > 0 ? `+${delta}` : delta < 0 ? `−${-delta}` : "±0";
}

/** A player's profile (GET /api/players/{id}), or null for one with no finished game. */
export async function fetchProfile(playerId) {
  try {
    return await getJson(`/api/players/${encodeURIComponent(playerId)}`);
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return null;
    throw err;
  }
}

/** The ratings of a table's seats, each fetched once (again after `refresh`); `onChange` redraws. */
export class SeatRatings {
  constructor(onChange) {
    this.onChange = onChange;
    this.known = new Map(); // player id → {rating, fetchedFinished} | null; absent: not asked
  }

  /** The seat's rating object, or null (not rated, an empty seat, or still loading). */
  get(seat, finished = false) {
    const id = seat && seat.kind !== "empty" ? seat.player_id : null;
    if (!id) return null;
    if (!this.known.has(id)) {
      this.known.set(id, null);
      fetchProfile(id).then((profile) => {
        this.known.set(id, {rating: profile && profile.rating, finished});
        this.onChange();
      }).catch(() => {});
    }
    const entry = this.known.get(id);
    return entry ? entry.rating : null;
  }

  /** Games rated before this one, if the rating was read while the game was still on. */
  gamesBefore(playerId) {
    const entry = this.known.get(playerId);
    if (!entry || entry.finished) return null;
    return entry.rating ? entry.rating.rated_games : 0;
  }

  refresh() {
    this.known.clear();
  }
}
