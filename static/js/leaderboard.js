// The leaderboard (a tab of the lobby): rated players best first, a page at a time; the
// bots are the scale's landmarks; provisional ratings (under 10 games) only on request.

import {h, mount} from "./dom.js";
import {getJson} from "./http.js";
import {levelName, PROVISIONAL_GAMES, profileLink, ratingText} from "./ratings.js";
import {shownName} from "./felt.js";
import {errorText} from "./errors.js";
import {t} from "./i18n.js";

const PAGE = 20;

export class LeaderboardPanel {
  constructor(ctx) {
    this.ctx = ctx;
    this.offset = 0;
    this.provisional = false;
    this.loads = 0;  // the latest load's number: an older answer arriving late is dropped
    this.list = h("div", {class: "leaderboard-list", "aria-live": "polite"});
    this.pager = h("div", {class: "row pager"});
    const toggle = h("input", {type: "checkbox", id: "lb-provisional", checked: false, onChange: () => {
      this.provisional = toggle.checked;
      this.offset = 0;
      this.load();
    }});
    this.el = h("section", {class: "panel leaderboard", "aria-labelledby": "leaderboard-title"},
      h("div", {class: "leaderboard-head"},
        h("h2", {id: "leaderboard-title"}, t("leaderboard.title")),
        h("div", {class: "check"}, toggle, h("label", {for: "lb-provisional"}, t("leaderboard.showProvisional"),
          h("span", {class: "hint"}, t("leaderboard.provisionalHint", {count: PROVISIONAL_GAMES}))))),
      h("p", {class: "muted"}, t("leaderboard.intro")),
      this.list, this.pager);
    this.load();
  }

  /** Load a page: the one at `this.offset`, or with `player` the one that lists that player. */
  async load(player = null) {
    const query = new URLSearchParams({offset: String(this.offset), limit: String(PAGE),
                                       provisional: String(this.provisional)});
    if (player) query.set("player", player);
    const number = ++this.loads;
    this.el.setAttribute("aria-busy", "true");
    let page;
    try {
      page = await getJson(`/api/leaderboard?${query}`);
    } catch (err) {
      if (number !== this.loads) return;
      this.el.setAttribute("aria-busy", "false");
      if (player && err.code === "not_on_leaderboard") {
        this.note(errorText(err));
        return;
      }
      mount(this.list, h("p", {class: "muted", role: "alert"}, t("leaderboard.unavailable", {reason: errorText(err)})));
      mount(this.pager);
      return;
    }
    if (number !== this.loads) return;
    this.el.setAttribute("aria-busy", "false");
    this.offset = page.offset;
    this.show(page, player);
  }

  /** A note above the list (the answer to "Find me" when I am not listed). */
  note(text) {
    const old = this.list.querySelector(".lb-note");
    if (old) old.remove();
    this.list.prepend(h("p", {class: "muted lb-note", role: "status"}, text));
  }

  show(page, found) {
    const me = this.ctx.store.me && this.ctx.store.me.player_id;
    mount(this.list, page.players.length ? h("table", {class: "lb-table"},
      h("thead", null, h("tr", null, ["#", t("summary.player"), t("leaderboard.rating"), t("profile.games"), t("leaderboard.playsLike")]
        .map((text) => h("th", {scope: "col"}, text)))),
      h("tbody", null, page.players.map((p) => h("tr", {
        class: [p.bot ? "landmark" : "", p.player_id === me ? "mine" : ""].join(" "), dataset: {player: p.player_id},
        tabindex: p.player_id === me ? "-1" : null},
        h("td", {class: "lb-rank"}, String(p.rank)),
        h("th", {scope: "row", class: "lb-name"},
          h("a", {href: profileLink(p.player_id), class: "ellipsis", title: shownName(p.name)}, shownName(p.name)),
          p.bot ? h("span", {class: "tag tag-bot", title: t("leaderboard.botTitle")}, t("profile.bot")) : null,
          p.player_id === me ? h("span", {class: "you"}, t("common.you")) : null,
          p.provisional ? h("span", {class: "tag tag-warn", title: t("leaderboard.provisionalTitle", {count: PROVISIONAL_GAMES})}, t("leaderboard.provisional")) : null),
        h("td", {class: "lb-rating"}, ratingText(p)),
        h("td", null, String(p.rated_games)),
        h("td", {class: "muted"}, p.bot ? "–" : levelName(p.near) || "–")))))
      : h("p", {class: "muted empty"}, this.provisional ? t("leaderboard.nobody")
        : t("leaderboard.nobodyYet", {count: PROVISIONAL_GAMES})));
    const last = Math.min(page.offset + page.players.length, page.total);
    mount(this.pager,
      h("button", {type: "button", class: "btn btn-small", id: "lb-prev", disabled: page.offset === 0, onClick: () => {
        this.offset = Math.max(0, this.offset - PAGE);
        this.load();
      }}, t("leaderboard.previous")),
      h("span", {class: "muted", id: "lb-range"}, page.total ? t("leaderboard.range", {from: page.offset + 1, to: last, total: page.total}) : ""),
      h("button", {type: "button", class: "btn btn-small", id: "lb-next", disabled: last >= page.total, onClick: () => {
        this.offset += PAGE;
        this.load();
      }}, t("leaderboard.next")),
      me ? h("button", {type: "button", class: "btn btn-small btn-ghost", id: "lb-me", title: t("leaderboard.findMeTitle"),
                        onClick: () => this.load(me)}, t("leaderboard.findMe")) : null);
    const mine = found && this.list.querySelector("tr.mine");
    if (mine) {
      mine.focus({preventScroll: true});
      mine.scrollIntoView({block: "nearest"});
    }
  }
}
