// Rules and help in the client: a short illustrated page (wizards, jesters, following suit,
// trump, scoring, the table options) and the one-sentence texts the lobby shows as tooltips.
// The full rules, as the engine implements them, are in docs/rules.md.

import {h} from "./dom.js";
import {cardFromId, cardView} from "./cards.js";

/** One sentence per table option (tooltips in the lobby, the waiting room and here). */
export const OPTION_HELP = {
  forbid_even_bids: "The last bidder may not make the bids add up to the number of cards dealt, so at least one player misses.",
  hidden_bids: "Nobody sees the other bids until everyone has bid; you always see your own.",
  wizard_trump_dealer_chooses: "When the turned-up trump card is a Wizard, the dealer names the trump suit; otherwise that round has no trump.",
  private: "The table is not listed in the lobby and its finished game is only shown to its players; others join with your invite link.",
  turn_seconds: "How long each player has for a move; when it runs out, a card or bid is chosen for them.",
  rated: "A rated table's finished games change its players' ratings; an unrated table's change no rating (they still count in your profile's games).",
  rounds: "The full game deals 1, 2, 3 … cards until the deck runs out (60 / players rounds); a short game stops after the rounds you choose.",
};

/** What each bot level is, in a sentence (from docs/ai.md, "Bot levels"). */
export const LEVEL_HELP = {
  easy: "Plays simple rules of thumb and makes a random move about one time in five: good for learning.",
  medium: "Plays the shipped policy (or the rules of thumb) with a random move about one time in ten.",
  hard: "Plays the shipped policy and makes a random move only in 1 to 3 moves of a hundred.",
  master: "Plays the shipped policy at full strength, with almost no random moves (under 1 in 100).",
};

// card ids: 0–12 red, 13–25 yellow, 26–38 green, 39–51 blue, 52–55 wizards, 56–59 jesters
const card = (id) => cardView(cardFromId(id), {size: "md"});
const row = (ids, note) => h("figure", {class: "help-cards"},
  h("div", {class: "help-row"}, ids.map(card)), h("figcaption", null, note));

export class HelpView {
  constructor(ctx) {
    this.ctx = ctx;
  }

  mount(main) {
    document.title = "Rules · Wizard online";
    this.root = h("article", {class: "panel help-page", "aria-labelledby": "help-title"},
      h("h1", {id: "help-title"}, "How to play Wizard"),
      h("p", null, this.ctx.tutorial.helpButton()),
      h("p", null, "Wizard is a trick-taking game for 3 to 6 players. In round 1 everyone gets one card, in round 2 two cards, and so on until the deck of 60 runs out (20 rounds for 3 players, 15 for 4, 12 for 5, 10 for 6). Before each round you bid how many tricks you will take; you score only if you take exactly that many."),
      h("section", {"aria-labelledby": "help-cards"},
        h("h2", {id: "help-cards"}, "The cards"),
        h("p", null, "Four suits of 1 to 13, each with its own colour and symbol (red heart, yellow star, green leaf, blue drop), and 4 Wizards and 4 Jesters."),
        row([12, 25, 38, 51], "The four suits: 13 is the highest card of each."),
        row([52, 56], "A Wizard wins the trick (the first Wizard played, if there are more). A Jester never wins, unless the trick is only Jesters.")),
      h("section", {"aria-labelledby": "help-follow"},
        h("h2", {id: "help-follow"}, "Following suit"),
        h("p", null, "The first number card played sets the lead suit. If you have a card of that suit you must play one, or a Wizard or a Jester: those may always be played. Without the lead suit you may play anything. There is no duty to play trump."),
        row([4, 9, 41], "Red was led with the 5: a player holding red must follow with red (or play a Wizard or Jester); the blue 3 is only allowed without red.")),
      h("section", {"aria-labelledby": "help-trump"},
        h("h2", {id: "help-trump"}, "Trump"),
        h("p", null, "After dealing, the next card is turned up: its suit is trump for the round. Any trump beats every card of the lead suit. A turned-up Jester means no trump; a turned-up Wizard means no trump too, unless the table lets the dealer name one. The last round has no trump (all cards are dealt)."),
        row([10, 26], "Red 11 was led, green is trump: the green 1 takes the trick.")),
      h("section", {"aria-labelledby": "help-win"},
        h("h2", {id: "help-win"}, "Who takes the trick"),
        h("ol", null,
          h("li", null, "the first Wizard played;"),
          h("li", null, "otherwise the highest trump;"),
          h("li", null, "otherwise the highest card of the lead suit (another suit never wins, however high);"),
          h("li", null, "a trick of only Jesters goes to the first Jester."))),
      h("section", {"aria-labelledby": "help-score"},
        h("h2", {id: "help-score"}, "Scoring"),
        h("p", null, "Exactly your bid: 20 points plus 10 per trick (a bid of 0 made is 20). Otherwise minus 10 per trick you are off: bid 2 and take 4, −20; bid 3 and take none, −30. The highest total after the last round wins."),
        h("p", {class: "muted"}, "At the table the bid overview says whether the bids add up to more (\"2 over\") or fewer (\"1 under\") tricks than there are cards: over means someone must fall short, under means someone takes more than they bid.")),
      h("section", {"aria-labelledby": "help-options"},
        h("h2", {id: "help-options"}, "Table options"),
        h("dl", {class: "help-options"},
          h("dt", null, "Bids may not add up to the cards dealt"), h("dd", null, OPTION_HELP.forbid_even_bids),
          h("dt", null, "Hidden bids"), h("dd", null, OPTION_HELP.hidden_bids),
          h("dt", null, "Dealer names trump when a Wizard is turned"), h("dd", null, OPTION_HELP.wizard_trump_dealer_chooses),
          h("dt", null, "Turn clock"), h("dd", null, OPTION_HELP.turn_seconds),
          h("dt", null, "Private table"), h("dd", null, OPTION_HELP.private),
          h("dt", null, "Rated"), h("dd", null, OPTION_HELP.rated))),
      h("section", {"aria-labelledby": "help-bots"},
        h("h2", {id: "help-bots"}, "Bot levels"),
        h("dl", {class: "help-options"}, Object.entries(LEVEL_HELP).map(([level, text]) => [
          h("dt", null, level[0].toUpperCase() + level.slice(1)), h("dd", null, text)]))),
      h("section", {"aria-labelledby": "help-keys"},
        h("h2", {id: "help-keys"}, "At the table"),
        h("ul", null,
          h("li", null, "Digits 0–9 place a bid; arrow keys walk your hand and Enter plays the card."),
          h("li", null, "\"Last trick\" (or the L key) shows the previous trick of the round."),
          h("li", null, "On a touch screen, tap a card to pick it and tap it again (or \"Play\") to play it."))),
      h("p", null, h("a", {class: "btn", href: "#/"}, "Back to the lobby")));
    main.append(this.root);
  }

  destroy() {
    this.root.remove();
  }
}
