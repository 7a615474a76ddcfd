// Card faces: suit colour AND a suit symbol, rank in the corners, ARIA labels; hand sorting.
// Card JSON is the engine's `{id, kind, suit, rank}`; ids 0–12 red, 13–25 yellow,
// 26–38 green, 39–51 blue, 52–55 wizards, 56–59 jesters.

import {h, s} from "./dom.js";
import {t} from "./i18n.js";

export const SUITS = ["red", "yellow", "green", "blue"];

/** "Red" / "Rot". */
export function suitName(suit) {
  return t(`suit.${suit}`);
}

/** Each suit has its own shape, so the colour is never the only cue: "heart" / "Herz". */
export function suitSymbolName(suit) {
  return t(`suit.${suit}.symbol`);
}

const PATHS = {
  red: "M12 21.2s-7.6-4.7-9.6-9.4C.9 8.2 3.2 4.3 6.9 4.3c2.1 0 3.6 1.1 5.1 3 1.5-1.9 3-3 5.1-3 3.7 0 6 3.9 4.5 7.5-2 4.7-9.6 9.4-9.6 9.4z",
  yellow: "M12 2.3l2.9 6.2 6.7.8-5 4.6 1.4 6.7L12 17.2l-6 3.4 1.4-6.7-5-4.6 6.7-.8z",
  green: "M20.5 3.2C10 3.2 3.4 9.2 3.4 18.6c0 .8.1 1.5.2 2.2 1.2-4.7 4.3-8.6 9.4-11.4-4 3.2-6.6 7-7.7 11.5.6.1 1.3.1 2 .1 9.4 0 13.2-8 13.2-17.8z",
  blue: "M12 2.4S4.8 10.6 4.8 15.2a7.2 7.2 0 0 0 14.4 0C19.2 10.6 12 2.4 12 2.4z",
  wizard: "M12 2.3l2.9 6.2 6.7.8-5 4.6 1.4 6.7L12 17.2l-6 3.4 1.4-6.7-5-4.6 6.7-.8z",
  jester: "M4 7l4 4 4-7 4 7 4-4-2 11H6zM6 19.5h12V21H6z",
};

/** The engine's card JSON for an id (the replay only needs ids in places). */
export function cardFromId(id) {
  if (id >= 56) return {id, kind: "jester", suit: null, rank: 0};
  if (id >= 52) return {id, kind: "wizard", suit: null, rank: 0};
  return {id, kind: "number", suit: SUITS[Math.floor(id / 13)], rank: (id % 13) + 1};
}

export function cardLabel(card) {
  if (card.kind === "wizard") return t("card.wizard");
  if (card.kind === "jester") return t("card.jester");
  return t("card.number", {suit: suitName(card.suit), rank: card.rank});
}

export function suitLabel(suit) {
  return suit ? t("suit.label", {suit: suitName(suit), symbol: suitSymbolName(suit)}) : t("trump.none");
}

/** Wizards first, then red, yellow, green, blue by rank, jesters last. */
export function sortHand(cards) {
  const key = (c) => (c.kind === "wizard" ? -100 + c.id : c.kind === "jester" ? 1000 + c.id : c.id);
  return [...cards].sort((a, b) => key(a) - key(b));
}

/** An inline SVG symbol for a suit (or "wizard" / "jester"). */
export function suitIcon(suit, cls = "suit-icon") {
  return s("svg", {class: `${cls} fill-${suit}`, viewBox: "0 0 24 24", "aria-hidden": "true",
                   focusable: "false"},
           s("path", {d: PATHS[suit]}));
}

function face(card) {
  if (card.kind === "wizard") {
    return [
      h("span", {class: "corner tl"}, t("card.wizardLetter")),
      h("span", {class: "card-center"}, suitIcon("wizard", "card-big")),
      h("span", {class: "card-word"}, t("card.wizard")),
      h("span", {class: "corner br"}, t("card.wizardLetter")),
    ];
  }
  if (card.kind === "jester") {
    return [
      h("span", {class: "corner tl"}, t("card.jesterLetter")),
      h("span", {class: "card-center"}, suitIcon("jester", "card-big")),
      h("span", {class: "card-word"}, t("card.jester")),
      h("span", {class: "corner br"}, t("card.jesterLetter")),
    ];
  }
  return [
    h("span", {class: "corner tl"}, h("b", null, String(card.rank)), suitIcon(card.suit, "corner-icon")),
    h("span", {class: "card-center"}, suitIcon(card.suit, "card-big")),
    h("span", {class: "card-rank"}, String(card.rank)),
    h("span", {class: "corner br"}, h("b", null, String(card.rank)), suitIcon(card.suit, "corner-icon")),
  ];
}

function cardClass(card, size, extra) {
  const tone = card.kind === "number" ? `suit-${card.suit}` : `kind-${card.kind}`;
  return ["card", `card-${size}`, tone, extra].filter(Boolean).join(" ");
}

/** A card shown (not played from here): an element with role img and a label. */
export function cardView(card, {size = "md", extra = "", label} = {}) {
  return h("div", {class: cardClass(card, size, extra), role: "img",
                   "aria-label": label || cardLabel(card), dataset: {card: String(card.id)}},
           face(card));
}

/**
 * A card in the own hand: a button. `state` is "playable", "illegal" (my turn, but the
 * rules forbid it: dimmed) or "idle" (not my turn). Only playable cards act on a click;
 * the others stay focusable (aria-disabled) so arrow keys can walk the whole hand.
 */
export function cardButton(card, {state, onPlay, why, tabindex = -1}) {
  const playable = state === "playable";
  const note = playable ? t("hand.notePlay") : state === "illegal" ? (why ? t("hand.noteIllegalWhy", {why}) : t("hand.noteIllegal")) : "";
  return h("button", {
    type: "button",
    class: cardClass(card, "hand", state),
    "aria-label": cardLabel(card) + note,
    "aria-disabled": playable ? null : "true",
    title: playable ? t("hand.play", {card: cardLabel(card)}) : state === "illegal" ? why || t("hand.notNow") : cardLabel(card),
    tabindex: String(tabindex),
    dataset: {card: String(card.id), focusKey: `card-${card.id}`, focusGroup: "hand"},
    onClick: (event) => playable && onPlay(card, event),
  }, face(card));
}

/** The back of a card (other players' hand sizes). */
export function cardBack(size = "sm") {
  return h("div", {class: `card card-${size} card-back`, "aria-hidden": "true"});
}

/** A touch screen without a fine pointer: cards are tapped to select, then confirmed. */
export function isTouch() {
  return typeof matchMedia === "function" && matchMedia("(pointer: coarse)").matches
    && !matchMedia("(any-pointer: fine)").matches;
}
