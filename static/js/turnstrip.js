// On a phone the page scrolls (a tap on a card, the score sheet and chat below the table):
// a thin strip under the top bar then keeps the trump, the round and whose turn it is in
// view. It shows only while the felt's own trump and round boxes are out of view, so it never
// takes room from the table; on a wide screen it stays hidden (see .turn-strip in app.css).

import {h} from "./dom.js";
import {suitIcon, suitName} from "./cards.js";
import {t} from "./i18n.js";

const TOPBAR_PX = 48; // --topbar-h on a narrow screen: the top bar hides what is under it

function trumpText(obs) {
  if (obs.phase === "choosing_trump") return t("strip.choosing");
  if (obs.trump_suit) return suitName(obs.trump_suit);
  return t("strip.none");
}

/** `turn`: "Your turn: play", "Waiting for Ada", ... (the table words it). */
function stripParts(obs, turn, myTurn) {
  const round = obs.phase === "finished" ? t("game.over") : t("strip.round", {round: obs.round_number, total: obs.total_rounds});
  return [
    h("span", {class: "strip-trump"}, h("small", null, t("trump.title")),
      obs.trump_suit ? suitIcon(obs.trump_suit, "trump-icon") : null, trumpText(obs)),
    h("span", {class: "strip-round"}, round),
    h("span", {class: `strip-turn ${myTurn ? "mine" : ""}`}, turn),
  ];
}

export class TurnStrip {
  constructor() {
    this.el = h("div", {class: "turn-strip", "aria-hidden": "true", hidden: true});
    this.watched = null;
    this.away = false;
    // the strip duplicates what the felt shows: screen readers read the felt, not the strip
    this.observer = typeof IntersectionObserver === "function"
      ? new IntersectionObserver((entries) => {
        for (const entry of entries) this.away = entry.intersectionRatio < 1;
        this.el.hidden = !this.away || !this.el.childElementCount;
      }, {rootMargin: `-${TOPBAR_PX}px 0px 0px 0px`, threshold: [0, 1]})
      : null;
  }

  /** Show `obs` in the strip while `watched` (the felt's trump and round row) is out of view. */
  update(obs, turn, myTurn, watched) {
    this.el.replaceChildren(...stripParts(obs, turn, myTurn));
    if (watched !== this.watched && this.observer) {
      if (this.watched) this.observer.unobserve(this.watched);
      this.watched = watched;
      if (watched) this.observer.observe(watched);
    }
    this.el.hidden = !this.away;
  }

  clear() {
    this.el.replaceChildren();
    this.el.hidden = true;
  }

  destroy() {
    if (this.observer) this.observer.disconnect();
    this.el.remove();
  }
}
