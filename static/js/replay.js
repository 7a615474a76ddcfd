// Recent games (GET /api/games) and a step-by-step replay (GET /api/games/{id}/replay).
// The replay only *displays*: each step's state is rebuilt from the dealt hands, the actions
// and the engine's events (trick winners, round results); no rules are computed here.

import {h, mount, s} from "./dom.js";
import {cardLabel, cardView, sortHand, suitLabel} from "./cards.js";
import {displayNames, feltView} from "./felt.js";
import {ranking, scoreChart, scorePad} from "./scoresheet.js";
import {AnalysisPanel} from "./analysis.js";
import {gameRounds} from "./length.js";
// with the token of hello: "Recent games" then lists my private games (and bot games) too
import {getJson} from "./http.js";
import {errorText} from "./errors.js";
import {formatDate, t} from "./i18n.js";


function when(iso) {
  return formatDate(iso);
}

/** A game's replay link; a private game's carries its table's invite, so that it can be shared. */
function replayLink(game) {
  const tail = game.invite ? `/${encodeURIComponent(game.invite)}` : "";
  return `#/replay/${encodeURIComponent(game.id)}${tail}`;
}

/** A finished game's row: when, players and scores, winners, its replay link. */
export function gameRow(game) {
  const winners = new Set(game.winners);
  const players = [...game.players].sort((a, b) => a.seat - b.seat);
  const names = displayNames(players);
  return h("li", {class: "game-row", dataset: {game: game.id}},
    h("div", {class: "game-row-main"},
      h("time", {datetime: game.finished}, when(game.finished)),
      h("ul", {class: "game-players", "aria-label": t("games.players")}, players.map((p, i) =>
        h("li", {class: winners.has(p.seat) ? "winner" : ""},
          h("span", {class: "ellipsis", title: names[i]}, names[i]), " ", h("b", null, String(game.scores[p.seat])),
          winners.has(p.seat) ? h("span", {class: "tag tag-win"}, t("end.winner")) : null)))),
    h("a", {class: "btn btn-small", href: replayLink(game),
            "aria-label": t("games.replayOf", {when: when(game.finished)})}, t("replay.title")));
}

/** A short list of the latest games into `box` (the lobby). */
export async function recentGamesList(box, limit) {
  mount(box, h("p", {class: "muted"}, t("common.loading")));
  try {
    const data = await getJson(`/api/games?limit=${limit}`);
    mount(box, data.games.length ? h("ul", {class: "rows"}, data.games.map(gameRow))
      : h("p", {class: "muted empty"}, t("games.none")));
  } catch {
    mount(box, h("p", {class: "muted empty"}, t("games.unavailableHere")));
  }
}

export class GamesView {
  constructor(ctx) {
    this.ctx = ctx;
    this.before = null;
  }

  mount(main) {
    this.list = h("ul", {class: "rows"});
    this.more = h("div");
    this.root = h("section", {class: "panel games-page", "aria-labelledby": "games-title"},
      h("h1", {id: "games-title"}, t("header.recentGames")), this.list, this.more);
    main.append(this.root);
    document.title = t("games.tabTitle");
    this.load();
  }

  async load() {
    const query = new URLSearchParams({limit: "20"});
    if (this.before) query.set("before", this.before);
    try {
      const data = await getJson(`/api/games?${query}`);
      this.list.append(...data.games.map(gameRow));
      if (!this.list.children.length) this.list.append(h("li", {class: "muted empty"}, t("games.none")));
      this.before = data.next_before;
      mount(this.more, this.before ? h("button", {type: "button", class: "btn", onClick: () => this.load()}, t("games.older")) : null);
    } catch (err) {
      mount(this.more, h("p", {class: "muted", role: "alert"}, t("games.unavailable", {reason: errorText(err)})));
    }
  }

  destroy() {
    this.root.remove();
  }
}

function phaseOf(action) {
  return action ? {bid: "bidding", play: "playing", trump: "choosing_trump"}[action.type] : "finished";
}

function roundState(round, n, scores) {
  return {
    round_number: round.round_number, dealer: round.dealer, trump_card: round.trump_card,
    trump_suit: round.trump_suit, hands: round.hands.map((hand) => [...hand]),
    bids: Array(n).fill(null), tricks_won: Array(n).fill(0), current_trick: [], tricks_done: 0,
    scores: [...scores],
  };
}

/** Every step's display state: frames[0] is the deal, frames[k] the state after step k. */
export function buildFrames(replay) {
  const n = replay.num_players;
  const rounds = new Map(replay.rounds.map((r) => [r.round_number, r]));
  let state = roundState(replay.rounds[0], n, Array(n).fill(0));
  const history = [];
  const frames = [];
  const snapshot = (step, completed, next) => ({
    ...state, hands: state.hands.map((hand) => [...hand]), bids: [...state.bids],
    tricks_won: [...state.tricks_won], current_trick: [...state.current_trick], scores: [...state.scores],
    history: [...history], step, completed, next,
  });
  frames.push(snapshot(null, null, replay.steps[0] || null));
  replay.steps.forEach((step, k) => {
    let completed = null;
    const action = step.action;
    if (action.type === "bid") state.bids[step.seat] = action.value;
    else if (action.type === "trump") state.trump_suit = action.suit;
    else if (action.type === "play") {
      const hand = state.hands[step.seat];
      const i = hand.findIndex((c) => c.id === action.card);
      const card = i >= 0 ? hand.splice(i, 1)[0] : {id: action.card, kind: "number", suit: null, rank: 0};
      state.current_trick.push({player: step.seat, card});
    }
    for (const event of step.events) {
      if (event.type === "trump_chosen") state.trump_suit = event.suit;
      else if (event.type === "trick_completed") {
        completed = event.trick;
        state.current_trick = [];
        state.tricks_won[event.trick.winner] += 1;
        state.tricks_done += 1;
      } else if (event.type === "round_completed") {
        history.push(event.result);
        state.scores = [...event.result.scores];
      } else if (event.type === "round_started") {
        const round = rounds.get(event.round_number) || {...event, hands: Array(n).fill([])};
        state = roundState({...round, trump_card: event.trump_card, trump_suit: event.trump_suit}, n, state.scores);
      } else if (event.type === "game_finished") {
        state.scores = [...event.scores];
      }
    }
    frames.push(snapshot(step, completed, replay.steps[k + 1] || null));
  });
  return frames;
}

// Drawn icons: the ⏮ / ⏭ glyphs are empty boxes without an emoji font (Debian's Chromium).
const ICON_PATHS = {
  first: "M6 5v14M18 5l-9 7 9 7z",
  last: "M18 5v14M6 5l9 7-9 7z",
  back: "M15 5l-8 7 8 7z",
  forward: "M9 5l8 7-8 7z",
  "trick-back": "M12 5l-8 7 8 7zM20 5l-8 7 8 7z",
  "trick-forward": "M12 5l8 7-8 7zM4 5l8 7-8 7z",
};

function replayIcon(name) {
  return s("svg", {class: "icon icon-solid", viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false"},
    s("path", {d: ICON_PATHS[name]}));
}

export class ReplayView {
  constructor(ctx, gameId, invite = null) {
    this.ctx = ctx;
    this.invite = invite; // a private game's link carries its table's invite
    this.gameId = gameId;
    this.index = 0;
    this.frames = null;
    this.playing = null;
    this.onKey = (event) => {
      if (!this.frames || event.target.closest("input, textarea, select")) return;
      const moves = {ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity};
      if (event.key in moves) {
        event.preventDefault();
        this.go(moves[event.key]);
      }
    };
  }

  mount(main) {
    this.root = h("div", {class: "replay-page"}, h("p", {class: "muted center-page"}, t("replay.loading")));
    main.append(this.root);
    document.title = t("replay.tabTitle");
    document.addEventListener("keydown", this.onKey);
    this.load();
  }

  async load() {
    try {
      const query = this.invite ? `?invite=${encodeURIComponent(this.invite)}` : "";
      this.replay = await getJson(`/api/games/${encodeURIComponent(this.gameId)}/replay${query}`);
    } catch (err) {
      mount(this.root, h("section", {class: "panel problem", role: "alert"},
        h("h1", null, t("replay.unavailable")), h("p", {class: "muted"}, errorText(err)),
        h("a", {class: "btn", href: "#/games"}, t("header.recentGames"))));
      return;
    }
    this.replay.players.sort((a, b) => a.seat - b.seat);
    this.frames = buildFrames(this.replay);
    this.makeAnalysis();
    this.render();
  }

  makeAnalysis() {
    this.analysis = new AnalysisPanel(this.ctx, this.gameId, {onJump: (index) => this.go(index - this.index), invite: this.invite});
    this.analysis.onShown = () => this.render();
  }

  /** The language changed: the same step drawn again in its words, with the analysis shown so far. */
  relabel() {
    document.title = t("replay.tabTitle");
    if (!this.frames) {
      this.load();
      return;
    }
    const report = this.analysis.report;
    this.analysis.destroy();
    this.makeAnalysis();
    if (report) this.analysis.show(report);
    this.render();
  }

  go(delta) {
    this.goTo(this.index + delta);
  }

  goTo(index) {
    const last = this.frames.length - 1;
    this.index = Math.max(0, Math.min(last, index));
    this.render();
  }

  /** The step that ends the next (+1) or the previous (−1) trick, or the first / last step. */
  trickStep(direction) {
    const ends = (k) => this.frames[k].completed !== null;
    if (direction > 0) {
      for (let k = this.index + 1; k < this.frames.length; k++) if (ends(k)) return k;
      return this.frames.length - 1;
    }
    for (let k = this.index - 1; k > 0; k--) if (ends(k)) return k;
    return 0;
  }

  /** The first step that shows round `round` (its deal). */
  roundStep(round) {
    const k = this.frames.findIndex((f) => f.round_number === round && !f.completed);
    return k < 0 ? 0 : k;
  }

  toggleAutoplay() {
    if (this.playing) {
      clearInterval(this.playing);
      this.playing = null;
    } else {
      this.playing = setInterval(() => {
        if (this.index >= this.frames.length - 1) this.toggleAutoplay();
        else this.go(1);
      }, 700);
    }
    this.render();
  }

  describe(frame) {
    const names = displayNames(this.replay.players);
    if (!frame.step) return t("replay.dealt");
    const {seat, action} = frame.step;
    const parts = [];
    if (action.type === "bid") parts.push(t("replay.bids", {name: names[seat], n: action.value}));
    else if (action.type === "trump") parts.push(t("replay.names", {name: names[seat], suit: suitLabel(action.suit)}));
    else parts.push(t("replay.plays", {name: names[seat], card: cardLabel(frame.completed ? frame.completed.cards.at(-1).card : frame.current_trick.at(-1).card)}));
    for (const event of frame.step.events) {
      if (event.type === "trick_completed") parts.push(`${t("trick.takes", {name: names[event.trick.winner]})}.`);
      if (event.type === "round_completed") parts.push(t("replay.scored", {round: event.result.round_number}));
      if (event.type === "game_finished") parts.push(t("move.gameOver"));
    }
    return parts.join(" ");
  }

  render() {
    const replay = this.replay;
    const frame = this.frames[this.index];
    const n = replay.num_players;
    const last = this.frames.length - 1;
    const names = displayNames(replay.players);
    const seats = replay.players.map((p, i) => ({name: names[i], kind: p.kind, connected: true}));
    const phase = phaseOf(frame.next && frame.next.action);
    const obs = {
      ...frame, phase, current_player: frame.next ? frame.next.seat : null,
      has_bid: frame.bids.map((b) => b !== null), total_rounds: gameRounds(replay.options, n),
      trick_number: frame.tricks_done + 1, hand_sizes: frame.hands.map((hand) => hand.length),
    };
    const justPlayed = frame.step && frame.step.action.type === "play" ? frame.step.action.card : null;
    const button = (label, content, target, disabled, id) => h("button", {
      type: "button", class: "btn btn-small", "aria-label": label, title: label, disabled, id,
      onClick: () => this.goTo(target)}, content);
    const rounds = replay.rounds.map((r) => r.round_number);
    const roundSelect = h("select", {id: "replay-round", "aria-label": t("replay.jump"), class: "round-select",
                                     onChange: (e) => this.goTo(this.roundStep(Number(e.target.value)))},
      rounds.map((r) => h("option", {value: String(r), selected: r === frame.round_number}, t("replay.round", {round: r}))));
    const controls = h("div", {class: "replay-controls", role: "group", "aria-label": t("replay.controls")},
      button(t("replay.first"), replayIcon("first"), 0, this.index === 0, "replay-first"),
      button(t("replay.prevTrick"), [replayIcon("trick-back"), h("span", {class: "wide-only"}, t("replay.trick"))], this.trickStep(-1), this.index === 0, "replay-trick-back"),
      button(t("replay.stepBack"), [replayIcon("back"), t("replay.back")], this.index - 1, this.index === 0, "replay-back"),
      h("span", {class: "step-count", id: "replay-step", "aria-live": "polite"}, t("replay.step", {step: this.index, last})),
      button(t("replay.stepForward"), [t("replay.forward"), replayIcon("forward")], this.index + 1, this.index === last, "replay-forward"),
      button(t("replay.nextTrick"), [h("span", {class: "wide-only"}, t("replay.trick")), replayIcon("trick-forward")], this.trickStep(1), this.index === last, "replay-trick-forward"),
      button(t("replay.last"), replayIcon("last"), last, this.index === last, "replay-last"),
      roundSelect,
      h("button", {type: "button", class: "btn btn-small btn-ghost", onClick: () => this.toggleAutoplay()},
        t(this.playing ? "replay.pause" : "replay.autoplay")));
    const hands = h("div", {class: "replay-hands"}, frame.hands.map((hand, seat) => h("div", {class: "replay-hand", dataset: {seat: String(seat)}},
      h("span", {class: "replay-hand-name", title: names[seat]}, names[seat]),
      h("div", {class: "replay-hand-cards", "aria-label": t("replay.hand", {name: names[seat]})},
        sortHand(hand).map((card) => cardView(card, {size: "sm"}))))));
    const sheet = {names, totalRounds: gameRounds(replay.options, n), history: frame.history, mySeat: null,
                   current: phase === "finished" ? null : {round_number: frame.round_number, bids: frame.bids, has_bid: obs.has_bid, tricks_won: frame.tricks_won}};
    const done = this.index === last && phase === "finished";
    const order = ranking(frame.scores);
    const keep = document.activeElement && this.root.contains(document.activeElement) ? document.activeElement.id : null;
    mount(this.root,
      h("div", {class: "table-body"},
        h("div", {class: "table-head"}, h("h1", null, t("replay.title")), h("span", {class: "muted"}, names.join(" · ")),
          h("div", {class: "head-actions"}, h("a", {class: "btn btn-small btn-ghost", href: "#/games"}, t("replay.allGames")))),
        controls,
        h("p", {class: "step-text", "aria-live": "polite"}, this.describe(frame), " ", this.analysis.stepNote(this.index - 1)),
        h("div", {class: "felt-wrap"}, feltView({n, bottom: 0, me: null, seats, obs, completedTrick: frame.completed, clock: null}),
          done ? h("section", {class: "end", "aria-labelledby": "end-title"}, h("h2", {id: "end-title"}, t("replay.finalScores")),
            h("ol", {class: "ranking", "aria-label": t("end.ranking")}, order.map((e) => h("li", {
              class: replay.winners.includes(e.seat) ? "winner" : "", dataset: {seat: String(e.seat), score: String(e.score)},
            }, h("span", {class: "place"}, `${e.place}.`), h("span", {class: "who"}, names[e.seat]),
              replay.winners.includes(e.seat) ? h("span", {class: "tag tag-win"}, t("end.winner")) : null,
              h("span", {class: "pts"}, String(e.score)))))) : null),
        hands),
      h("aside", {class: "side"}, h("section", {class: "panel score-panel", "aria-labelledby": "score-title"},
        h("h2", {id: "score-title"}, t("pad.title")), scorePad(sheet), scoreChart(sheet)), this.analysis.root));
    if (justPlayed !== null) {
      for (const el of this.root.querySelectorAll(`.trick [data-card="${justPlayed}"]`)) el.classList.add("just-played");
    }
    if (keep) {
      const again = document.getElementById(keep);
      if (again && !again.disabled) again.focus();
    }
  }

  destroy() {
    clearInterval(this.playing);
    if (this.analysis) this.analysis.destroy();
    document.removeEventListener("keydown", this.onKey);
    this.root.remove();
  }
}
