// My rating change on the game-over screen: once a finished game is rated (in the same
// commit as the game's end), my profile counts one more rated game; it is polled a few
// times (bounded), then "Your rating: 1500 → 1523 (+23)" is shown, or nothing if the game
// was not rated (an unrated table's game is not polled for).

import {h} from "./dom.js";
import {fetchProfile, signed, START_RATING} from "./ratings.js";
import {t} from "./i18n.js";

const POLL_MS = 600;
const POLLS = 15;

/**
 * My rating before and after the game just finished: polls until my profile counts more
 * rated games than `gamesBefore` (not knowing that: takes its latest point). Resolves to
 * {before, after, delta, provisional, games} or null.
 */
export async function ratingChange(playerId, gamesBefore) {
  for (let poll = 0; poll < POLLS; poll++) {
    const profile = await fetchProfile(playerId).catch(() => null);
    const rated = profile && profile.rating;
    if (rated && (gamesBefore === null || rated.rated_games > gamesBefore)) {
      const points = profile.history;
      const after = points.length ? points[points.length - 1].rating : rated.rating;
      const before = points.length > 1 ? points[points.length - 2].rating : START_RATING;
      return {before, after, delta: after - before, provisional: rated.provisional, games: rated.rated_games};
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return null;
}

/** A table's rating change per finished game; `onChange` redraws the table. */
export class GameRating {
  constructor(onChange) {
    this.onChange = onChange;
    this.game = null; // the table's game counter whose change is shown or awaited
    this.change = null; // {state: "waiting" | "none" | "done", before, after, delta}
    this.counted = null; // my rated games after the last change shown: the next game's "before"
  }

  /**
   * Once per finished game: start waiting for my new rating (`ratings`: the seats' SeatRatings).
   * An unrated table's game (`rated` false) changes no rating: nothing is polled or shown.
   */
  await(game, me, ratings, rated = true) {
    if (this.game === game || !me) return;
    this.game = game;
    if (!rated) {
      this.change = {state: "none"};
      return;
    }
    this.change = {state: "waiting"};
    const before = this.counted !== null ? this.counted : ratings.gamesBefore(me.player_id);
    ratingChange(me.player_id, before).then((change) => {
      if (this.game !== game) return;
      if (change) this.counted = change.games;
      this.change = change ? {state: "done", ...change} : {state: "none"};
      ratings.refresh(); // the next game shows the new ratings
      this.onChange();
    });
  }

  line() {
    const c = this.change;
    if (!c || c.state === "none") return null;
    if (c.state === "waiting") return h("p", {class: "rating-change muted", id: "rating-change"}, t("rating.waiting"));
    return h("p", {class: `rating-change ${c.delta >= 0 ? "up" : "down"}`, id: "rating-change", dataset: {delta: String(c.delta)}},
      t("rating.yours"), " ", h("span", {class: "rc-before"}, String(c.before)), " → ", h("strong", {class: "rc-after"}, String(c.after)),
      " ", h("span", {class: "rc-delta"}, `(${signed(c.delta)})`),
      c.provisional ? h("span", {class: "tag tag-warn"}, t("leaderboard.provisional")) : null);
  }
}
