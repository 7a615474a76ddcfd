// The first-game tutorial: a guided game against easy bots (three short rounds, unrated) with
// tips that come up when the table shows what they explain: trump, Wizards and Jesters,
// bidding exactly and the forbidden bid, leading and following suit, who takes a trick,
// scoring. A newcomer is offered it in the lobby until it is finished or skipped; the rules
// page always offers it.
//
// Every word the tutorial shows is in the message catalog (static/i18n/*.json): the
// `tutorial.ui.*` keys and a title and a text per step (`tutorial.<step>.title`, `.text`).
// `{name}` placeholders are filled from the table (`fill` in WHEN).

import {h} from "./dom.js";
import {cardLabel, suitName, suitSymbolName} from "./cards.js";
import {goToNewTable} from "./lobby.js";
import {formatList, t} from "./i18n.js";

/** The steps in the lesson's order. */
export const TUTORIAL_STEPS = ["welcome", "trump", "no_trump", "wizard", "jester", "bid", "forbidden", "lead", "follow",
  "open", "free", "trick", "scoring", "finish"];

const ui = (key) => t(`tutorial.ui.${key}`);

/** localStorage: "done" or "skipped" once the tutorial was finished or skipped (not offered again). */
const SEEN_KEY = "wizard.tutorial";
/** localStorage: the table of the guided game in progress (the tips follow it across a reload). */
const TABLE_KEY = "wizard.tutorial.table";
/** The guided game: three rounds are enough for each seat to bid last once (the forbidden bid). */
const TUTORIAL_GAME = {
  type: "play_bots", players: 3, level: "easy", turn_seconds: 0, rated: false,
  options: {rounds: 3, forbid_even_bids: true, hidden_bids: false, wizard_trump_dealer_chooses: false},
};

const mine = (obs) => obs.player !== null && obs.current_player === obs.player;
const myTurnTo = (phase) => (obs) => mine(obs) && obs.phase === phase;
const holds = (cards, kind) => cards.some((c) => c.kind === kind);
const trickCards = (obs) => obs.current_trick.map((p) => p.card);
const holdsLeadSuit = (obs) => obs.hand.some((c) => c.kind === "number" && c.suit === obs.lead_suit);
const playing = myTurnTo("playing");
const leadSuit = (obs) => ({suit: obs.lead_suit ? suitName(obs.lead_suit) : ""});

/** When each step applies (`when(obs)`) and what fills its placeholders; the order of TUTORIAL_STEPS is the lesson's. */
const WHEN = {
  welcome: {when: (obs) => obs.round_number === 1},
  trump: {when: (obs) => obs.trump_suit !== null,
          fill: (obs) => ({suit: suitName(obs.trump_suit), symbol: suitSymbolName(obs.trump_suit),
                           card: obs.trump_card ? cardLabel(obs.trump_card) : suitName(obs.trump_suit)})},
  no_trump: {when: (obs) => obs.trump_suit === null && obs.trump_card !== null && obs.phase !== "choosing_trump"},
  wizard: {when: (obs) => holds(obs.hand, "wizard") || holds(trickCards(obs), "wizard")},
  jester: {when: (obs) => holds(obs.hand, "jester") || holds(trickCards(obs), "jester")},
  bid: {when: myTurnTo("bidding"), with: "forbidden"},
  forbidden: {when: (obs) => myTurnTo("bidding")(obs) && forbiddenBids(obs).length > 0,
              fill: (obs) => ({bids: formatList(forbiddenBids(obs)), cards: String(obs.round_number)})},
  lead: {when: (obs) => playing(obs) && obs.current_trick.length === 0},
  follow: {when: (obs) => playing(obs) && obs.lead_suit !== null && holdsLeadSuit(obs), fill: leadSuit},
  open: {when: (obs) => playing(obs) && obs.current_trick.length > 0 && obs.lead_suit === null},
  free: {when: (obs) => playing(obs) && obs.lead_suit !== null && !holdsLeadSuit(obs), fill: leadSuit},
  trick: {when: (obs) => obs.last_trick !== null || obs.round_history.length > 0},
  scoring: {when: (obs) => obs.round_history.length > 0},
  finish: {when: (obs) => obs.phase === "finished"},
};

function forbiddenBids(obs) {
  const allowed = new Set(obs.legal_actions.filter((a) => a.type === "bid").map((a) => a.value));
  return Array.from({length: obs.round_number + 1}, (_, v) => v).filter((v) => !allowed.has(v));
}

function stepText(id, field, obs) {
  return t(`tutorial.${id}.${field}`, WHEN[id].fill ? WHEN[id].fill(obs) : {});
}

/** Was the tutorial finished or skipped on this device? */
function settled() {
  return localStorage.getItem(SEEN_KEY) !== null;
}

/**
 * Offers the guided game (lobby, rules page) and coaches it: a small panel beside the felt
 * (above it on a narrow screen) that never covers the hand, the trick or the bid buttons.
 * app.js calls `follow(routeKey, main)` after each view it mounts.
 */
export class TutorialCoach {
  constructor(ctx) {
    this.ctx = ctx;
    this.tableId = null; // the guided table on screen, or null
    this.page = null; // its .table-page
    this.seen = new Set(); // steps shown whose moment has passed (or that were dismissed)
    this.step = null; // the step on show
    this.panel = this.buildPanel();
    this.resize = new ResizeObserver(() => this.measure());
    this.resize.observe(this.panel);
    ctx.store.addEventListener("change", (event) => this.changed(event.detail));
  }

  /** The lobby's offer to a newcomer, or null once the tutorial was finished or skipped. */
  offer() {
    if (settled()) return null;
    const box = h("section", {class: "panel tutorial-offer", id: "tutorial-offer", "aria-labelledby": "tutorial-offer-title"},
      h("div", {class: "tutorial-offer-text"},
        h("h2", {id: "tutorial-offer-title"}, ui("offerTitle")),
        h("p", {class: "muted"}, ui("offerText"))),
      h("div", {class: "row tutorial-offer-actions"},
        h("button", {type: "button", class: "btn btn-primary", id: "tutorial-start", onClick: () => this.start()}, ui("offerStart")),
        h("button", {type: "button", class: "btn btn-ghost", id: "tutorial-dismiss", onClick: () => {
          localStorage.setItem(SEEN_KEY, "skipped");
          box.remove();
        }}, ui("offerDismiss"))));
    return box;
  }

  /** The rules page's way in: always there, also after the tutorial was finished or skipped. */
  helpButton() {
    return h("button", {type: "button", class: "btn btn-primary", id: "tutorial-help-start", onClick: () => this.start()},
      ui("helpStart"));
  }

  /** Deal the guided game (or go back to the one in progress). */
  async start() {
    const running = localStorage.getItem(TABLE_KEY);
    const info = running && this.ctx.store.tables.get(running);
    if (info && info.status === "playing" && this.ctx.store.seatAt(running) !== null) {
      this.ctx.navigate(`#/table/${encodeURIComponent(running)}`);
      return;
    }
    localStorage.removeItem(SEEN_KEY); // asked for again: coach it again
    await goToNewTable(this.ctx, () => this.ctx.ask(TUTORIAL_GAME));
    const match = /^#\/table\/([^/]+)$/.exec(location.hash);
    if (!match) return;
    localStorage.setItem(TABLE_KEY, decodeURIComponent(match[1]));
    this.seen.clear();
    this.step = null;
  }

  /** A view was mounted: coach the guided table when it is on screen. */
  follow(routeKey, main) {
    const [kind, tableId] = routeKey.split(":");
    if (kind !== "table" || tableId !== localStorage.getItem(TABLE_KEY) || settled()) {
      this.detach();
      return;
    }
    this.tableId = tableId;
    this.page = main.querySelector(".table-page");
    this.page.prepend(this.panel);
    this.update();
  }

  /** The language changed: the panel is built again in its words (`follow` puts it back). */
  relabel() {
    this.resize.unobserve(this.panel);
    this.panel.remove();
    this.panel = this.buildPanel();
    this.resize.observe(this.panel);
  }

  detach() {
    if (this.page) this.page.classList.remove("has-tutorial", "tutorial-follow");
    this.panel.remove();
    this.page = null;
    this.tableId = null;
  }

  changed(detail) {
    if (detail.what === "closed" && detail.table_id === localStorage.getItem(TABLE_KEY)) {
      localStorage.removeItem(TABLE_KEY);
      this.detach();
    } else if (this.tableId !== null && detail.table_id === this.tableId
               && (detail.what === "game" || detail.what === "table")) {
      this.update();
    }
  }

  buildPanel() {
    this.title = h("h2", {id: "tutorial-title"});
    this.text = h("p", {class: "tutorial-text"});
    this.extra = h("p", {class: "tutorial-text tutorial-extra"});
    this.next = h("button", {type: "button", class: "btn btn-small btn-primary", id: "tutorial-next",
                             onClick: () => this.dismiss()}, ui("next"));
    const skip = h("button", {type: "button", class: "btn btn-small btn-ghost", id: "tutorial-skip",
                              onClick: () => this.finish("skipped")}, ui("skip"));
    return h("aside", {class: "panel tutorial", id: "tutorial", "aria-label": ui("panelLabel"), hidden: true},
      h("div", {"aria-live": "polite"}, this.title, this.text, this.extra),
      h("div", {class: "row tutorial-actions"}, this.next, skip));
  }

  /** The first step (in lesson order) not yet seen that applies to the table as shown. */
  update() {
    const game = this.ctx.store.games.get(this.tableId);
    const obs = game && game.shown ? game.shown.observation : null;
    if (!obs || obs.player === null) {
      this.show(null, null);
      return;
    }
    if (this.step && !WHEN[this.step].when(obs)) {
      this.seen.add(this.step); // its moment passed: the player saw it and acted
      if (WHEN[this.step].with) this.seen.add(WHEN[this.step].with);
      this.step = null;
    }
    const next = obs.phase === "finished" ? "finish"
      : TUTORIAL_STEPS.find((id) => !this.seen.has(id) && WHEN[id].when(obs)) || null;
    this.show(next, obs);
    if (this.step === "finish") localStorage.setItem(SEEN_KEY, "done"); // the whole game was played
  }

  show(id, obs) {
    this.step = id;
    const visible = id !== null && this.page !== null;
    this.panel.hidden = !visible;
    if (this.page) {
      this.page.classList.toggle("has-tutorial", visible);
      this.page.classList.toggle("tutorial-follow", id === "follow");
    }
    if (!visible) {
      delete this.panel.dataset.step;
      return;
    }
    this.panel.dataset.step = id;
    this.title.textContent = stepText(id, "title", obs);
    this.text.textContent = stepText(id, "text", obs);
    const companion = WHEN[id].with;
    const extra = companion && WHEN[companion].when(obs) ? companion : null;
    this.extra.hidden = extra === null;
    this.extra.textContent = extra ? stepText(extra, "text", obs) : "";
    this.next.textContent = ui(id === "finish" ? "done" : "next");
  }

  dismiss() {
    if (this.step === null) return; // the tip went (the table moved on) as it was clicked
    if (this.step === "finish") {
      this.finish("done");
      return;
    }
    this.seen.add(this.step);
    if (WHEN[this.step].with && !this.extra.hidden) this.seen.add(WHEN[this.step].with);
    this.step = null;
    this.update();
  }

  /** Finished or skipped: not offered again (the game itself goes on). */
  finish(how) {
    localStorage.setItem(SEEN_KEY, how);
    localStorage.removeItem(TABLE_KEY);
    this.detach();
  }

  /** On a narrow screen the panel sits above the table, which gives up that much height. */
  measure() {
    if (!this.page) return;
    const gap = parseFloat(getComputedStyle(this.page).rowGap) || 0;
    const height = this.panel.hidden ? 0 : this.panel.offsetHeight + gap;
    this.page.style.setProperty("--tutorial-h", `${height}px`);
  }
}
