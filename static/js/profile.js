// A player's profile (#/player/<id>): rating ± uncertainty, provisional or not, the nearest
// bot level, the rating history as a line, the figures, and recent games with their replays.

import {h, mount} from "./dom.js";
import {gameRow} from "./replay.js";
import {fetchProfile, levelName, PROVISIONAL_GAMES, ratingText} from "./ratings.js";
import {ratingChart} from "./ratingchart.js";
import {shownName} from "./felt.js";
import {errorText} from "./errors.js";
import {formatNumber, t} from "./i18n.js";

function figure(label, value, key) {
  return h("div", {class: "figure", dataset: {figure: key}}, h("dt", null, label), h("dd", null, value));
}

function percent(x) {
  return x === null || x === undefined ? "–" : formatNumber(x, {style: "percent", maximumFractionDigits: 1});
}

export class ProfileView {
  constructor(ctx, playerId) {
    this.ctx = ctx;
    this.playerId = playerId;
  }

  mount(main) {
    this.root = h("div", {class: "profile-page"}, h("p", {class: "muted center-page"}, t("profile.loading")));
    main.append(this.root);
    document.title = t("profile.tabTitle");
    this.load();
  }

  async load() {
    let profile;
    try {
      profile = await fetchProfile(this.playerId);
    } catch (err) {
      this.problem(errorText(err));
      return;
    }
    if (!profile) {
      this.problem(t("error.no_such_player"));
      return;
    }
    this.render(profile);
  }

  problem(text) {
    mount(this.root, h("section", {class: "panel problem", role: "alert"},
      h("h1", null, t("profile.none")), h("p", {class: "muted"}, text),
      h("a", {class: "btn", href: "#/leaderboard"}, t("leaderboard.title"))));
  }

  render(p) {
    const name = shownName(p.name) || p.player_id;
    document.title = t("table.tabTitle", {table: name});
    const me = this.ctx.store.me && this.ctx.store.me.player_id === p.player_id;
    const r = p.rating;
    const head = h("section", {class: "panel profile-head", "aria-labelledby": "profile-title"},
      h("h1", {id: "profile-title"}, h("span", {class: "ellipsis", title: name}, name),
        p.bot ? h("span", {class: "tag tag-bot"}, t("profile.bot")) : null, me ? h("span", {class: "you"}, t("common.you")) : null),
      r ? h("p", {class: "profile-rating"},
        h("span", {class: "big-rating", id: "profile-rating", title: t("profile.ratingTitle")}, ratingText(r)),
        r.provisional ? h("span", {class: "tag tag-warn", id: "profile-provisional",
                                   title: t("profile.provisionalTitle", {count: PROVISIONAL_GAMES})},
          t("profile.provisional", {n: r.rated_games, count: PROVISIONAL_GAMES})) : null)
        : h("p", {class: "muted"}, t("profile.notRated")),
      r && r.near && !p.bot ? h("p", {class: "plays-like", id: "plays-like"}, t(`profile.playsLike.${r.near}`)) : null,
      p.bot ? h("p", {class: "muted"}, t("profile.landmark", {level: levelName(p.level)})) : null);
    const chart = h("section", {class: "panel", "aria-labelledby": "history-title"},
      h("h2", {id: "history-title"}, t("profile.history")),
      p.history.length ? ratingChart(p.history) : h("p", {class: "muted empty"}, t("profile.noRated")));
    const figures = h("section", {class: "panel", "aria-labelledby": "figures-title"},
      h("h2", {id: "figures-title"}, t("profile.figures")),
      h("dl", {class: "figures"},
        figure(t("profile.games"), String(p.games), "games"),
        figure(t("profile.wins"), `${p.wins}${p.games ? ` (${percent(p.wins / p.games)})` : ""}`, "wins"),
        figure(t("profile.average"), p.average_score === null ? "–" : formatNumber(p.average_score), "average"),
        figure(t("profile.bidsMade"), percent(p.bid_accuracy), "bids"),
        figure(t("profile.lost"), p.expected_points_lost === null ? "–"
          : t("profile.lostPerGame", {points: formatNumber(p.expected_points_lost), count: p.analysed_games}), "lost")));
    const recent = h("section", {class: "panel", "aria-labelledby": "profile-games-title"},
      h("h2", {id: "profile-games-title"}, t("header.recentGames")),
      p.recent_games.length ? h("ul", {class: "rows recent-games"}, p.recent_games.map(gameRow))
        : h("p", {class: "muted empty"}, t("profile.noGames")));
    mount(this.root, h("div", {class: "profile-main"}, head, chart, figures), h("div", {class: "profile-side"}, recent));
  }

  destroy() {
    this.root.remove();
  }
}
