// Rules and help in the client: a short illustrated page (wizards, jesters, following suit,
// trump, scoring, the table options) and the one-sentence texts the lobby shows as tooltips.
// The full rules, as the engine implements them, are in docs/rules.md.

import {h} from "./dom.js";
import {t} from "./i18n.js";
import {cardFromId, cardView} from "./cards.js";

/** One sentence per table option (tooltips in the lobby, the waiting room and here). */
export const OPTIONS = ["forbid_even_bids", "hidden_bids", "wizard_trump_dealer_chooses", "private", "turn_seconds", "rated", "rounds"];

/** The sentence for a table option (a key of OPTIONS). */
export function optionHelp(option) {
  return t(`option.${option}.help`);
}

/** The bot levels, weakest first. */
export const LEVELS = ["easy", "medium", "hard", "master"];

/** What each bot level is, in a sentence (from docs/ai.md, "Bot levels"). */
export function levelHelp(level) {
  return t(`level.${level}.help`);
}

/** A bot level's name: "Medium" / "Mittel". */
export function levelName(level) {
  return level ? t(`level.${level}`) : "";
}

// card ids: 0–12 red, 13–25 yellow, 26–38 green, 39–51 blue, 52–55 wizards, 56–59 jesters
const card = (id) => cardView(cardFromId(id), {size: "md"});
const row = (ids, note) => h("figure", {class: "help-cards"},
  h("div", {class: "help-row"}, ids.map(card)), h("figcaption", null, note));

export class HelpView {
  constructor(ctx) {
    this.ctx = ctx;
  }

  mount(main) {
    document.title = t("help.tabTitle");
    const section = (id, ...body) => h("section", {"aria-labelledby": `help-${id}`}, h("h2", {id: `help-${id}`}, t(`help.${id}.title`)), body);
    const option = (key, help) => [h("dt", null, t(key)), h("dd", null, help)];
    this.root = h("article", {class: "panel help-page", "aria-labelledby": "help-title"},
      h("h1", {id: "help-title"}, t("help.title")),
      h("p", null, this.ctx.tutorial.helpButton()),
      h("p", null, t("help.intro")),
      section("cards",
        h("p", null, t("help.cards.text")),
        row([12, 25, 38, 51], t("help.cards.suits")),
        row([52, 56], t("help.cards.special"))),
      section("follow",
        h("p", null, t("help.follow.text")),
        row([4, 9, 41], t("help.follow.example"))),
      section("trump",
        h("p", null, t("help.trump.text")),
        row([10, 26], t("help.trump.example"))),
      section("win",
        h("ol", null, ["wizard", "trump", "lead", "jesters"].map((k) => h("li", null, t(`help.win.${k}`))))),
      section("score",
        h("p", null, t("help.score.text")),
        h("p", {class: "muted"}, t("help.score.balance"))),
      section("options",
        h("dl", {class: "help-options"},
          option("lobby.rule.even", optionHelp("forbid_even_bids")),
          option("lobby.rule.hidden", optionHelp("hidden_bids")),
          option("lobby.rule.dealer", optionHelp("wizard_trump_dealer_chooses")),
          option("lobby.turnClock", optionHelp("turn_seconds")),
          option("lobby.private", optionHelp("private")),
          option("lobby.rated", optionHelp("rated")))),
      section("bots",
        h("dl", {class: "help-options"}, LEVELS.map((level) => [h("dt", null, levelName(level)), h("dd", null, levelHelp(level))]))),
      section("keys",
        h("ul", null, ["digits", "last", "touch"].map((k) => h("li", null, t(`help.keys.${k}`))))),
      h("p", null, h("a", {class: "btn", href: "#/"}, t("common.backToLobby"))));
    main.append(this.root);
  }

  destroy() {
    this.root.remove();
  }
}
