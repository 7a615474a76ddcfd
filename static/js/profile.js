// A player's profile (#/player/<id>): rating ± uncertainty, provisional or not, the nearest
// bot level, the rating history as a line, the figures, and recent games with their replays.

import {h, mount} from "./dom.js";
import {gameRow} from "./replay.js";
import {fetchProfile, levelName, PROVISIONAL_GAMES, ratingText} from "./ratings.js";
import {ratingChart} from "./ratingchart.js";

function figure(label, value, key) {
  return h("div", {class: "figure", dataset: {figure: key}}, h("dt", null, label), h("dd", null, value));
}

function percent(x) {
  return x === null || x === undefined ? "–" : `${Math.round(x * 1000) / 10} %`;
}

export class ProfileView {
  constructor(ctx, playerId) {
    this.ctx = ctx;
    this.playerId = playerId;
  }

  mount(main) {
    this.root = h("div", {class: "profile-page"}, h("p", {class: "muted center-page"}, "Loading the profile…"));
    main.append(this.root);
    document.title = "Player · Wizard online";
    this.load();
  }

  async load() {
    let profile;
    try {
      profile = await fetchProfile(this.playerId);
    } catch (err) {
      this.problem(err.message);
      return;
    }
    if (!profile) {
      this.problem("This player has not finished a game yet.");
      return;
    }
    this.render(profile);
  }

  problem(text) {
    mount(this.root, h("section", {class: "panel problem", role: "alert"},
      h("h1", null, "No profile to show"), h("p", {class: "muted"}, text),
      h("a", {class: "btn", href: "#/leaderboard"}, "Leaderboard")));
  }

  render(p) {
    document.title = `${p.name || p.player_id} · Wizard online`;
    const me = this.ctx.store.me && this.ctx.store.me.player_id === p.player_id;
    const r = p.rating;
    const head = h("section", {class: "panel profile-head", "aria-labelledby": "profile-title"},
      h("h1", {id: "profile-title"}, h("span", {class: "ellipsis", title: p.name}, p.name || p.player_id),
        p.bot ? h("span", {class: "tag tag-bot"}, "bot") : null, me ? h("span", {class: "you"}, "you") : null),
      r ? h("p", {class: "profile-rating"},
        h("span", {class: "big-rating", id: "profile-rating", title: "Rating ± uncertainty"}, ratingText(r)),
        r.provisional ? h("span", {class: "tag tag-warn", id: "profile-provisional",
                                   title: `Provisional until ${PROVISIONAL_GAMES} rated games`},
          `provisional · ${r.rated_games} of ${PROVISIONAL_GAMES} games`) : null)
        : h("p", {class: "muted"}, "Not rated yet."),
      r && r.near && !p.bot ? h("p", {class: "plays-like", id: "plays-like"}, `Plays like ${/^[aeiou]/i.test(r.near) ? "an" : "a"} ${levelName(r.near)} bot`) : null,
      p.bot ? h("p", {class: "muted"}, `The ${levelName(p.level)} bot: a landmark of the scale, rated by the same games as everyone.`) : null);
    const chart = h("section", {class: "panel", "aria-labelledby": "history-title"},
      h("h2", {id: "history-title"}, "Rating history"),
      p.history.length ? ratingChart(p.history) : h("p", {class: "muted empty"}, "No rated games yet."));
    const figures = h("section", {class: "panel", "aria-labelledby": "figures-title"},
      h("h2", {id: "figures-title"}, "Figures"),
      h("dl", {class: "figures"},
        figure("Games", String(p.games), "games"),
        figure("Wins", `${p.wins}${p.games ? ` (${percent(p.wins / p.games)})` : ""}`, "wins"),
        figure("Average score", p.average_score === null ? "–" : String(p.average_score), "average"),
        figure("Bids made", percent(p.bid_accuracy), "bids"),
        figure("Points lost to the master bot", p.expected_points_lost === null ? "–"
          : `${p.expected_points_lost} per game (${p.analysed_games} analysed)`, "lost")));
    const recent = h("section", {class: "panel", "aria-labelledby": "profile-games-title"},
      h("h2", {id: "profile-games-title"}, "Recent games"),
      p.recent_games.length ? h("ul", {class: "rows recent-games"}, p.recent_games.map(gameRow))
        : h("p", {class: "muted empty"}, "No games to show."));
    mount(this.root, h("div", {class: "profile-main"}, head, chart, figures), h("div", {class: "profile-side"}, recent));
  }

  destroy() {
    this.root.remove();
  }
}
