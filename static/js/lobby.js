// The lobby: play against bots, create a table, the live list of open tables, my tables.

import {h, mount} from "./dom.js";
import {recentGamesList} from "./replay.js";
import {LEVELS, levelHelp, levelName, optionHelp} from "./help.js";
import {fullRounds, lengthText} from "./length.js";
import {t} from "./i18n.js";
import {shownName} from "./felt.js";

const tr = t; // where `t` names a table
import {LeaderboardPanel} from "./leaderboard.js";

export {LEVELS};
const turnChoices = () => [[0, t("lobby.noClock")], [30, t("lobby.seconds", {n: 30})], [60, t("lobby.seconds", {n: 60})],
  [90, t("lobby.seconds", {n: 90})], [120, t("lobby.minutes", {n: 2})]];

export function optionBadges(options, turnSeconds, players, rated = true) {
  const badges = [];
  if (players !== undefined) badges.push([lengthText(options, players), optionHelp("rounds")]);
  if (rated === false) badges.push([t("lobby.unrated"), optionHelp("rated")]);
  badges.push(options.forbid_even_bids ? [t("badge.noEvenBids"), optionHelp("forbid_even_bids")]
    : [t("badge.anyBid"), t("badge.anyBidHelp")]);
  if (options.hidden_bids) badges.push([t("lobby.rule.hidden"), optionHelp("hidden_bids")]);
  if (options.wizard_trump_dealer_chooses) badges.push([t("badge.dealerTrump"), optionHelp("wizard_trump_dealer_chooses")]);
  if (turnSeconds !== undefined) badges.push([turnSeconds ? t("badge.perTurn", {n: turnSeconds}) : t("badge.noTurnClock"), optionHelp("turn_seconds")]);
  return h("ul", {class: "badges", "aria-label": t("lobby.rules")}, badges.map(([b, tip]) => h("li", {class: "badge", title: tip}, b)));
}

function select(id, label, choices, value, tip) {
  return [
    h("label", {for: id, title: tip}, label),
    h("select", {id, name: id, title: tip},
      choices.map(([v, text]) => h("option", {value: String(v), selected: String(v) === String(value)}, text))),
  ];
}

/** Game length: Full, or Short with a round count (1 to the full game of the chosen players). */
function lengthFields(prefix) {
  return h("div", {class: "row length-row"},
    h("div", {class: "field"}, select(`${prefix}-length`, t("lobby.length"), [["full", t("lobby.fullGame")], ["short", t("lobby.shortGame")]], "full", optionHelp("rounds"))),
    h("div", {class: "field"},
      h("label", {for: `${prefix}-rounds`, title: optionHelp("rounds")}, t("lobby.rounds")),
      h("input", {type: "number", id: `${prefix}-rounds`, name: `${prefix}-rounds`, min: "1", max: String(fullRounds(4)),
                  value: "5", required: true, disabled: true, inputmode: "numeric", title: optionHelp("rounds")})));
}

/** Keep a form's round count within the chosen players' full game, enabled for a short game only. */
function wireLength(form, prefix, playersId) {
  const length = form.querySelector(`#${prefix}-length`);
  const rounds = form.querySelector(`#${prefix}-rounds`);
  const players = form.querySelector(`#${playersId}`);
  const update = () => {
    const full = fullRounds(Number(players.value));
    rounds.max = String(full);
    if (Number(rounds.value) > full) rounds.value = String(full);
    rounds.disabled = length.value !== "short";
  };
  length.addEventListener("change", update);
  players.addEventListener("change", update);
  update();
}

/** The `rounds` option of a submitted form: null for the full game. */
function roundsOf(f, prefix) {
  return f.get(`${prefix}-length`) === "short" ? Number(f.get(`${prefix}-rounds`)) : null;
}

function checkbox(id, label, checked, hint, tip) {
  return h("div", {class: "check", title: tip},
    h("input", {type: "checkbox", id, name: id, checked}),
    h("label", {for: id}, label, hint ? h("span", {class: "hint"}, hint) : null));
}

/** The rule options, the same in both forms (ids `${prefix}-even`, `-hidden`, `-dealer`). */
function rulesFields(prefix) {
  return h("fieldset", null, h("legend", null, t("lobby.rules"), " ", h("a", {href: "#/help", class: "legend-link"}, t("lobby.howToPlay"))),
    checkbox(`${prefix}-even`, t("lobby.rule.even"), true, t("lobby.rule.evenHint"), optionHelp("forbid_even_bids")),
    checkbox(`${prefix}-hidden`, t("lobby.rule.hidden"), false, t("lobby.rule.hiddenHint"), optionHelp("hidden_bids")),
    checkbox(`${prefix}-dealer`, t("lobby.rule.dealer"), false, t("lobby.rule.dealerHint"), optionHelp("wizard_trump_dealer_chooses")));
}

/** The game options of a submitted form: its rules and its length. */
function optionsOf(f, prefix, lengthPrefix) {
  return {
    hidden_bids: f.get(`${prefix}-hidden`) !== null,
    forbid_even_bids: f.get(`${prefix}-even`) !== null,
    wizard_trump_dealer_chooses: f.get(`${prefix}-dealer`) !== null,
    rounds: roundsOf(f, lengthPrefix),
  };
}

/** The turn clock's choice (described by `${id}-why`: why its default differs between the forms). */
function turnField(id, value) {
  const field = h("div", {class: "field"}, select(id, t("lobby.turnClock"), turnChoices(), value, optionHelp("turn_seconds")));
  field.querySelector("select").setAttribute("aria-describedby", `${id}-why`);
  return field;
}

function turnWhy(id, why) {
  return h("p", {class: "hint turn-why", id: `${id}-why`}, why);
}

/** The table's `rated` option, checked by default (as the server's). */
function ratedCheck(id) {
  return checkbox(id, t("lobby.rated"), true, t("lobby.ratedHint"), optionHelp("rated"));
}

/** A tag saying a table is unrated (its games change no rating), or null for a rated one. */
export function unratedTag(info) {
  return info.rated === false ? h("span", {class: "tag tag-unrated", title: optionHelp("rated")}, t("lobby.unrated")) : null;
}

/** Run `send()` (a create/play_bots request) and go to the table it seated me at. */
export async function goToNewTable(ctx, send) {
  const before = new Set(ctx.store.tables.keys());
  try {
    await send();
  } catch {
    return;
  }
  const fresh = [...ctx.store.tables.keys()].filter(
    (id) => !before.has(id) && ctx.store.seatAt(id) !== null);
  if (fresh.length) ctx.navigate(`#/table/${encodeURIComponent(fresh[fresh.length - 1])}`);
}

/** The lobby's tabs: the tables (#/) and the leaderboard (#/leaderboard), as links. */
function lobbyTabs(tab) {
  const link = (href, key, text) => h("a", {href, class: "lobby-tab", id: `tab-${key}`,
                                            "aria-current": tab === key ? "page" : null}, text);
  return h("nav", {class: "lobby-tabs", "aria-label": t("header.lobby")},
    link("#/", "tables", t("lobby.tables")), link("#/leaderboard", "leaderboard", t("leaderboard.title")));
}

export class LobbyView {
  constructor(ctx, tab = "tables") {
    this.ctx = ctx;
    this.tab = tab;
    this.onChange = (event) => {
      const what = event.detail.what;
      if (what === "tables" || what === "table" || what === "closed") this.renderLists();
    };
  }

  mount(main) {
    if (this.tab === "leaderboard") {
      document.title = t("leaderboard.tabTitle");
      this.root = h("div", {class: "lobby-page"}, lobbyTabs(this.tab), new LeaderboardPanel(this.ctx).el);
      main.append(this.root);
      return;
    }
    document.title = t("app.title");
    this.listBox = h("div", {class: "table-list", "aria-live": "polite"});
    this.mineBox = h("div");
    this.historyBox = h("div", {class: "history-box"});
    const levelNote = h("p", {class: "hint level-help", id: "level-help", "aria-live": "polite"}, levelHelp("medium"));
    const botsForm = h("form", {class: "stack", "aria-labelledby": "bots-title", onSubmit: (e) => {
      e.preventDefault();
      const f = new FormData(botsForm);
      goToNewTable(this.ctx, () => this.ctx.ask({
        type: "play_bots", players: Number(f.get("bots-players")), level: f.get("bots-level"),
        turn_seconds: Number(f.get("bots-turn")), options: optionsOf(f, "bots", "bots"),
        rated: f.get("bots-rated") !== null,
      }));
    }},
      h("div", {class: "row"},
        h("div", {class: "field"}, select("bots-players", t("lobby.players"), [3, 4, 5, 6].map((n) => [n, t("lobby.youAndBots", {n, bots: n - 1})]), 4)),
        h("div", {class: "field"}, select("bots-level", t("lobby.botLevel"), LEVELS.map((l) => [l, levelName(l)]), "medium",
          t("lobby.botLevelHelp"))),
        turnField("bots-turn", 0)),
      turnWhy("bots-turn", t("lobby.botsTurnWhy")),
      lengthFields("bots"),
      ratedCheck("bots-rated"),
      rulesFields("bots"),
      levelNote,
      h("button", {class: "btn btn-primary btn-big", type: "submit", id: "play-bots"}, t("lobby.playBots")));

    const createForm = h("form", {class: "stack", "aria-labelledby": "create-title", onSubmit: (e) => {
      e.preventDefault();
      const f = new FormData(createForm);
      goToNewTable(this.ctx, () => this.ctx.ask({
        type: "create_table",
        players: Number(f.get("create-players")),
        options: optionsOf(f, "opt", "create"),
        private: f.get("opt-private") !== null,
        turn_seconds: Number(f.get("create-turn")),
        rated: f.get("create-rated") !== null,
      }));
    }},
      h("div", {class: "row"},
        h("div", {class: "field"}, select("create-players", t("lobby.players"), [3, 4, 5, 6].map((n) => [n, String(n)]), 4)),
        turnField("create-turn", 60)),
      turnWhy("create-turn", t("lobby.createTurnWhy")),
      lengthFields("create"),
      ratedCheck("create-rated"),
      rulesFields("opt"),
      checkbox("opt-private", t("lobby.private"), false, t("lobby.privateHint"), optionHelp("private")),
      h("button", {class: "btn", type: "submit", id: "create-table"}, t("lobby.createButton")));

    const joinInput = h("input", {id: "join-id", name: "join-id", placeholder: t("lobby.joinPlaceholder"), autocomplete: "off"});
    const joinForm = h("form", {class: "row join-row", onSubmit: (e) => {
      e.preventDefault();
      const raw = joinInput.value.trim();
      // a pasted link keeps its invite (#/table/<id>/<invite>); a bare id opens public tables
      const path = raw.includes("/table/") ? raw.split("/table/").pop() : encodeURIComponent(raw);
      if (path) this.ctx.navigate(`#/table/${path}`);
    }},
      h("label", {class: "sr-only", for: "join-id"}, t("lobby.joinLabel")), joinInput,
      h("button", {class: "btn", type: "submit"}, t("lobby.join")));

    wireLength(botsForm, "bots", "bots-players");
    wireLength(createForm, "create", "create-players");
    const levelSelect = botsForm.querySelector("#bots-level");
    levelSelect.setAttribute("aria-describedby", "level-help");
    levelSelect.addEventListener("change", () => {
      levelNote.textContent = levelHelp(levelSelect.value);
    });
    this.root = h("div", {class: "lobby-page"}, this.ctx.tutorial.offer(), lobbyTabs(this.tab), h("div", {class: "lobby"},
      h("div", {class: "lobby-col"},
        h("section", {class: "panel hero", "aria-labelledby": "bots-title"},
          h("h2", {id: "bots-title"}, t("lobby.quickGame")),
          h("p", {class: "muted"}, t("lobby.quickGameText")),
          botsForm),
        h("section", {class: "panel", "aria-labelledby": "recent-title"},
          h("h2", {id: "recent-title"}, t("header.recentGames")), this.historyBox,
          h("a", {class: "more-link", href: "#/games"}, t("lobby.allRecent")))),
      h("div", {class: "lobby-col"},
        h("section", {class: "panel tables-panel", "aria-labelledby": "tables-title"},
          h("h2", {id: "tables-title"}, t("lobby.openTables")),
          this.mineBox,
          this.listBox,
          joinForm)),
      h("div", {class: "lobby-col"},
        h("section", {class: "panel", "aria-labelledby": "create-title"},
          h("h2", {id: "create-title"}, t("lobby.createTitle")), createForm))));
    main.append(this.root);
    this.ctx.store.addEventListener("change", this.onChange);
    this.renderLists();
    this.resume();
    recentGamesList(this.historyBox, 5);
  }

  resume() {
    this.ctx.socket.request({type: "list_tables"}).catch(() => {});
  }

  renderLists() {
    const {store} = this.ctx;
    const mine = [...store.tables.values()].filter((t) => store.seatAt(t.table_id) !== null);
    mount(this.mineBox, mine.length ? h("div", {class: "mine"},
      h("h3", null, t("lobby.yourTables")),
      h("ul", {class: "rows"}, mine.map((t) => h("li", {class: "table-row"},
        h("span", {class: "ellipsis", title: tableTitle(t)}, tableTitle(t), " · ", statusText(t.status), unratedTag(t)),
        h("a", {class: "btn btn-small btn-primary", href: `#/table/${encodeURIComponent(t.table_id)}`}, tr("lobby.return")))))) : null);
    const open = store.lobbyTables;
    if (!open.length) {
      mount(this.listBox, h("p", {class: "muted empty"}, tr("lobby.noTables")));
      return;
    }
    mount(this.listBox, h("ul", {class: "rows"}, open.map((t) => this.tableRow(t))));
  }

  tableRow(t) {
    const free = t.seats.filter((s) => s.kind === "empty").length;
    const seated = this.ctx.store.seatAt(t.table_id) !== null;
    const canJoin = t.status === "waiting" && free > 0 && !seated;
    return h("li", {class: "table-row", dataset: {table: t.table_id}},
      h("div", {class: "table-row-main"},
        h("strong", {class: "ellipsis", title: tableTitle(t)}, tableTitle(t)),
        h("span", {class: `status status-${t.status}`}, statusText(t.status)),
        h("span", {class: "muted"}, tr("lobby.seated", {n: t.seats.length - free, of: t.seats.length}),
          t.spectators ? ` · ${tr("lobby.watching", {count: t.spectators})}` : ""),
        h("ul", {class: "seat-chips", "aria-label": tr("lobby.seats")}, t.seats.map((s) => h("li", {class: `chip chip-${s.kind}`,
          title: s.kind === "empty" ? null : shownName(s.name)}, s.kind === "empty" ? tr("lobby.openSeat") : shownName(s.name)))),
        optionBadges(t.options, t.turn_seconds, t.seats.length, t.rated)),
      h("div", {class: "table-row-actions"},
        seated ? h("a", {class: "btn btn-small btn-primary", href: `#/table/${encodeURIComponent(t.table_id)}`}, tr("lobby.return")) : null,
        canJoin ? h("button", {class: "btn btn-small btn-primary", type: "button", "aria-label": tr("lobby.joinTable", {table: tableTitle(t)}),
                                onClick: () => this.ctx.navigate(`#/table/${encodeURIComponent(t.table_id)}`)}, tr("lobby.join")) : null,
        !seated ? h("button", {class: "btn btn-small", type: "button", "aria-label": tr("lobby.watchTable", {table: tableTitle(t)}),
                                onClick: () => this.ctx.navigate(`#/watch/${encodeURIComponent(t.table_id)}`)}, tr("lobby.watch")) : null));
  }

  destroy() {
    this.ctx.store.removeEventListener("change", this.onChange);
    if (this.root) this.root.remove();
  }
}

export function tableTitle(info) {
  const host = info.seats.find((s) => s.player_id && s.player_id === info.host);
  return host ? t("lobby.hostTable", {host: host.name}) : t("lobby.table");
}

export function statusText(status) {
  return ["waiting", "playing", "finished"].includes(status) ? t(`lobby.status.${status}`) : status;
}
