// A table: the waiting room before the game, then the felt, my hand, the bid / trump /
// play controls, the score sheet, chat, and the ranking at the end.

import {h, keepFocus, mount, toast} from "./dom.js";
import {patch} from "./patch.js";
import {alertButtons, TurnAlert} from "./alerts.js";
import {gameOverPanel, previousTrickPanel, roundSummaryPanel} from "./roundend.js";
import {cardButton, cardLabel, isTouch, SUITS, sortHand, suitIcon, suitLabel, suitName} from "./cards.js";
import {ChatPanel} from "./chat.js";
import {displayNames, feltView, tickClocks} from "./felt.js";
import {ROUND_SHOW_MS} from "./state.js";
import {tableTitle, unratedTag} from "./lobby.js";
import {scoreChart, scorePad} from "./scoresheet.js";
import {GameRating} from "./ratingchange.js";
import {SeatRatings} from "./ratings.js";
import {waitingRoom} from "./waiting.js";
import {TurnStrip} from "./turnstrip.js";
import {errorText} from "./errors.js";
import {formatList, t} from "./i18n.js";

// refusals of a seat or a view that the page says in place of the table (their catalog text)
const JOIN_PROBLEMS = ["already_started", "table_full", "seat_taken", "no_such_table", "invite_required"];

function withInvite(message, invite) {
  return invite ? {...message, invite} : message;
}

export class TableView {
  constructor(ctx, tableId, mode, invite = null) {
    this.ctx = ctx;
    this.tableId = tableId;
    this.mode = mode; // "play" (sit, or join by invite) or "watch"
    this.invite = invite; // a private table's invite, from its link
    this.problem = null;
    this.leaveArmed = false;
    this.trickSeen = new Set(); // cards already on the table: only new ones slide in
    this.alert = new TurnAlert();
    this.reviewOpen = false; // the previous trick of the round, on request
    this.selected = null; // touch screens: the card tapped once, waiting for "Play"
    this.ratings = new SeatRatings(() => this.render()); // beside each seated name
    this.gameRating = new GameRating(() => this.render()); // my rating change at the end
    this.onChange = (event) => this.changed(event.detail);
    this.onKey = (event) => this.key(event);
    this.strip = new TurnStrip(); // a phone scrolled down still sees trump, round and turn
  }

  mount(main) {
    this.build(main);
    this.enter();
  }

  /** The page around the game (the game itself is drawn by `render`). */
  build(main) {
    this.body = h("div", {class: "table-body"});
    this.scoreBox = h("section", {class: "panel score-panel", id: "score-sheet", "aria-labelledby": "score-title", tabindex: "-1"});
    this.chat = new ChatPanel(this.ctx, this.tableId);
    this.side = h("aside", {class: "side"}, this.scoreBox, h("section", {class: "panel chat-panel", "aria-label": t("chat.tableLabel")},
      h("h2", null, t("chat.title")), this.chat.el));
    this.root = h("div", {class: "table-page"}, this.strip.el, this.body, this.side);
    main.append(this.root);
    this.ctx.store.addEventListener("change", this.onChange);
    document.addEventListener("keydown", this.onKey);
    this.timer = setInterval(() => tickClocks(this.root), 250);
    this.render();
  }

  /** The language changed: the same table drawn again in its words (the seat and the game stay). */
  relabel() {
    const main = this.root.parentNode;
    this.unhook();
    this.strip = new TurnStrip();
    this.build(main);
  }

  /** Stop listening and drawing (the seat, or the spectator's view, stays). */
  unhook() {
    clearInterval(this.timer);
    this.ctx.store.removeEventListener("change", this.onChange);
    document.removeEventListener("keydown", this.onKey);
    this.chat.destroy();
    this.strip.destroy();
    this.root.remove();
  }

  resume() {
    this.enter();
  }

  destroy() {
    this.unhook();
    this.alert.clear();
    if (this.ctx.store.watching.has(this.tableId)) {
      this.ctx.socket.send({type: "leave_table", table_id: this.tableId});
      this.ctx.store.forget(this.tableId);
    }
  }

  /** Get a seat or a view at the table: join by invite, spectate, or just refresh. */
  async enter() {
    const {store, socket} = this.ctx;
    const quiet = JOIN_PROBLEMS.concat(["already_seated"]);
    try {
      if (this.mode === "watch") {
        if (store.seatAt(this.tableId) !== null) {
          this.ctx.navigate(`#/table/${encodeURIComponent(this.tableId)}`);
          return;
        }
        await this.ctx.ask(withInvite({type: "spectate", table_id: this.tableId}, this.invite), {quiet});
        store.watching.add(this.tableId);
      } else if (store.seatAt(this.tableId) !== null) {
        await socket.request({type: "sync", table_id: this.tableId});
      } else {
        await this.ctx.ask(withInvite({type: "join_table", table_id: this.tableId}, this.invite), {quiet});
      }
      this.problem = null;
    } catch (err) {
      if (err.code === "already_seated") {
        this.ctx.navigate(`#/table/${encodeURIComponent(this.tableId)}`);
        return;
      }
      if (err.code === "disconnected" || err.code === "timeout") return;
      this.problem = {code: err.code, err};
    }
    this.render();
  }

  changed(detail) {
    if (detail.table_id !== undefined && detail.table_id !== this.tableId) return;
    if (detail.what === "closed") {
      this.ctx.navigate("#/");
      return;
    }
    if (detail.what === "table" || detail.what === "game") this.render();
    if (detail.what === "game" && detail.events && detail.events.length) this.announce(detail.events);
  }

  get info() {
    return this.ctx.store.tables.get(this.tableId);
  }

  get shown() {
    const game = this.ctx.store.games.get(this.tableId);
    return game ? game.shown : null;
  }

  name(seat) {
    const info = this.info;
    return info && info.seats[seat] ? displayNames(info.seats)[seat] : t("seat.numbered", {n: seat + 1});
  }

  announce(events) {
    const me = this.ctx.store.seatAt(this.tableId);
    for (const event of events) {
      if (event.type === "auto_played") {
        const mine = event.player === me;
        const key = event.reason === "timeout" ? (mine ? "auto.timeoutYou" : "auto.timeout") : (mine ? "auto.botYou" : "auto.bot");
        toast(t(key, {name: this.name(event.player)}), "info");
      } else if (event.type === "round_completed" && me !== null && ROUND_SHOW_MS <= 0) {
        const r = event.result;
        const change = r.score_changes[me];
        const made = r.bids[me] === r.tricks[me];
        toast(t(made ? "round.toastMade" : "round.toastMissed", {round: r.round_number, n: Math.abs(r.tricks[me] - r.bids[me]),
                                                                 points: `${change >= 0 ? "+" : "−"}${Math.abs(change)}`}), made ? "ok" : "info", 3000);
      } else if (event.type === "trump_chosen") {
        toast(t("trump.chosen", {name: this.name(event.player), suit: suitLabel(event.suit)}), "info", 3000);
      }
    }
  }

  leaveButton() {
    const watching = this.ctx.store.seatAt(this.tableId) === null;
    return h("button", {
      type: "button", class: `btn btn-small btn-ghost ${this.leaveArmed ? "armed" : ""}`, id: "leave-table",
      onClick: async () => {
        if (watching) {
          this.ctx.navigate("#/");
          return;
        }
        const playing = this.info && this.info.status === "playing";
        if (playing && !this.leaveArmed) {
          this.leaveArmed = true;
          this.render();
          setTimeout(() => {
            this.leaveArmed = false;
            this.render();
          }, 4000);
          return;
        }
        try {
          await this.ctx.ask({type: "leave_table", table_id: this.tableId});
        } catch {
          return;
        }
        this.ctx.store.forget(this.tableId);
        this.ctx.navigate("#/");
      },
    }, t(watching ? "table.stopWatching" : this.leaveArmed ? "table.reallyLeave" : "table.leave"));
  }

  render() {
    keepFocus(this.root, () => this._render());
  }

  _render() {
    this.body.classList.remove("in-game");
    this.strip.clear();
    const info = this.info;
    const shown = this.shown;
    if (this.problem && !info) {
      this.side.hidden = true;
      mount(this.body, h("section", {class: "panel problem", role: "alert"},
        h("h1", null, errorText(this.problem.err)),
        h("div", {class: "row"},
          this.problem.code !== "no_such_table" ? h("button", {type: "button", class: "btn btn-primary",
            onClick: () => this.ctx.navigate(`#/watch/${encodeURIComponent(this.tableId)}`)}, t("table.watchInstead")) : null,
          h("a", {class: "btn", href: "#/"}, t("common.backToLobby")))));
      return;
    }
    if (!info) {
      this.side.hidden = true;
      mount(this.body, h("p", {class: "muted center-page"}, t("table.takingSeat")));
      return;
    }
    this.side.hidden = false;
    const title = t("table.tabTitle", {table: tableTitle(info)});
    const obs = shown && shown.observation;
    const myTurn = Boolean(obs && obs.player !== null && obs.current_player === obs.player
      && obs.phase !== "finished" && !shown.completedTrick && !shown.roundSummary);
    const verb = obs && ["bidding", "choosing_trump", "playing"].includes(obs.phase) ? t(`alert.${obs.phase}`, {round: obs.round_number}) : "";
    this.alert.update(title, myTurn, verb);
    if (info.status === "waiting" || !shown) {
      this.scoreBox.hidden = true;
      mount(this.body, waitingRoom(this, info));
      return;
    }
    this.scoreBox.hidden = false;
    this.renderGame(info, shown);
  }

  renderGame(info, shown) {
    const obs = shown.observation;
    const me = obs.player;
    const n = obs.num_players;
    const game = this.ctx.store.games.get(this.tableId);
    const head = h("div", {class: "table-head"},
      h("h1", {title: tableTitle(info)}, tableTitle(info)),
      me === null ? h("span", {class: "tag tag-watch"}, t("table.watchingTag")) : null, unratedTag(info),
      h("div", {class: "head-actions"},
        h("a", {class: "btn btn-small btn-ghost", href: "#score-sheet", onClick: (e) => {
          e.preventDefault();
          this.scoreBox.scrollIntoView({behavior: "smooth", block: "start"});
          this.scoreBox.focus({preventScroll: true});
        }}, h("span", {class: "wide-only"}, t("pad.title")), h("span", {class: "narrow-only"}, t("table.scores"))),
        me !== null ? alertButtons(() => this.render()) : null,
        this.leaveButton()));
    const finished = obs.phase === "finished";
    const seats = displayNames(info.seats).map((name, i) => ({...info.seats[i], name, rating: this.ratings.get(info.seats[i], finished)}));
    if (finished && info.status === "finished" && me !== null) this.gameRating.await(info.game, this.ctx.store.me, this.ratings, info.rated !== false);
    // the previous trick of this round (the engine's last_trick also spans into the next deal)
    const lastTrick = !shown.completedTrick && obs.phase === "playing" && obs.trick_number > 1 ? obs.last_trick : null;
    if (!lastTrick) this.reviewOpen = false;
    const reviewButton = h("button", {
      type: "button", class: `btn btn-small last-trick-btn ${this.reviewOpen ? "active" : ""}`, id: "last-trick",
      disabled: !lastTrick, "aria-expanded": this.reviewOpen ? "true" : "false", "aria-controls": "last-trick-panel",
      title: t(lastTrick ? "table.lastTrickTitle" : "table.noTrickYet"),
      onClick: () => {
        this.reviewOpen = !this.reviewOpen;
        this.render();
      },
    }, t("table.lastTrick"));
    const overlays = [];
    if (this.reviewOpen && lastTrick) {
      overlays.push(previousTrickPanel({trick: lastTrick, seats, me, onClose: () => {
        this.reviewOpen = false;
        this.render();
      }}));
    }
    const summary = shown.roundSummary
      ? roundSummaryPanel({result: shown.roundSummary, seats, me, onContinue: () => game && game.skipHold()}) : null;
    const felt = feltView({
      n, bottom: me === null ? 0 : me, me, obs, seats,
      completedTrick: shown.completedTrick, sweep: shown.sweep, clock: shown.clock,
      isFresh: (id) => !this.trickSeen.has(id),
      topExtra: obs.phase === "finished" ? null : reviewButton, extra: overlays, onFelt: summary,
    });
    this.trickSeen = new Set((shown.completedTrick ? shown.completedTrick.cards : obs.current_trick).map((p) => p.card.id));
    const parts = [head, h("div", {class: "felt-wrap"}, felt, finished ? gameOverPanel({obs, name: (seat) => this.name(seat),
      ratingLine: this.gameRating.line(), onRematch: () => this.ctx.ask({type: "rematch", table_id: this.tableId}).catch(() => {})}) : null)];
    if (me !== null) parts.push(this.actionBar(obs, shown), this.hand(obs, shown));
    else parts.push(h("p", {class: "action-bar watching-note", role: "status"}, t("table.watchingNote")));
    this.body.classList.add("in-game");
    patch(this.body, parts); // in place: a control under the pointer outlives an update that leaves it be
    this.renderScores(info, obs);
    const turn = this.turnText(obs, shown);
    this.strip.update(obs, turn.text, turn.mine, this.body.querySelector(".felt-top"));
  }

  /** Whose turn, in a few words (the turn strip of a phone). */
  turnText(obs, shown) {
    if (obs.phase === "finished") return {text: "", mine: false};
    if (obs.current_player === null || shown.completedTrick || shown.roundSummary) return {text: "…", mine: false};
    if (obs.current_player === obs.player) {
      return {text: t(`strip.turn.${obs.phase}`), mine: true};
    }
    return {text: t("strip.waitingFor", {name: this.name(obs.current_player)}), mine: false};
  }

  actionBar(obs, shown) {
    const me = obs.player;
    const myTurn = obs.current_player === me && obs.phase !== "finished";
    const bar = h("div", {class: "action-bar", role: "region", "aria-label": t("move.label")});
    if (obs.phase === "finished") {
      bar.append(h("p", null, t("move.gameOver")));
      return bar;
    }
    if (obs.current_player === null) {
      bar.append(h("p", {class: "waiting-for"}, t("move.roundOver", {round: obs.round_number})));
      return bar;
    }
    if (!myTurn) {
      const phase = ["bidding", "choosing_trump", "playing"].includes(obs.phase) ? obs.phase : "playing";
      bar.append(h("p", {class: "waiting-for"}, t(`move.waiting.${phase}`, {name: this.name(obs.current_player)})));
      return bar;
    }
    const legal = obs.legal_actions;
    if (obs.phase === "bidding") {
      const allowed = new Set(legal.filter((a) => a.type === "bid").map((a) => a.value));
      const forbidden = [];
      const buttons = [];
      for (let v = 0; v <= obs.round_number; v++) {
        const ok = allowed.has(v);
        if (!ok) forbidden.push(v);
        buttons.push(h("button", {
          type: "button", class: "btn bid-btn", disabled: !ok, dataset: {bid: String(v), focusKey: `bid-${v}`, focusGroup: "bids"},
          "aria-label": t(ok ? "bid.label" : "bid.labelForbidden", {n: v}), "aria-describedby": ok ? null : "bid-why",
          onClick: () => this.act({type: "bid", value: v}),
        }, String(v)));
      }
      bar.append(h("p", {class: "prompt"}, h("strong", null, t("bid.prompt")), " ", t("bid.question", {count: obs.round_number})),
        h("div", {class: "bids", role: "group", "aria-label": t("bid.group")}, buttons));
      if (forbidden.length) {
        bar.append(h("p", {id: "bid-why", class: "why"}, t("bid.forbidden", {bids: formatList(forbidden), cards: obs.round_number})));
      }
    } else if (obs.phase === "choosing_trump") {
      const suits = new Set(legal.filter((a) => a.type === "trump").map((a) => a.suit));
      bar.append(h("p", {class: "prompt"}, h("strong", null, t("choose.turned")), " ", t("choose.prompt")),
        h("div", {class: "suits", role: "group", "aria-label": t("choose.group")}, SUITS.filter((suit) => suits.has(suit)).map((suit) =>
          h("button", {type: "button", class: `btn suit-btn suit-${suit}`, dataset: {suit, focusKey: `suit-${suit}`},
                       "aria-label": t("trump.label", {text: suitLabel(suit)}), onClick: () => this.act({type: "trump", suit})},
            suitIcon(suit), suitLabel(suit)))));
    } else {
      const selected = this.selectedCard(obs);
      bar.append(h("p", {class: "prompt your-turn"}, h("strong", null, t("play.yourTurn")), " ",
        t(selected ? "play.again" : isTouch() ? "play.tap" : "play.card"),
        obs.lead_suit ? ` ${t("play.lead", {suit: suitLabel(obs.lead_suit)})}` : ""));
      if (selected) {
        bar.append(h("button", {type: "button", class: "btn btn-primary confirm-play", id: "confirm-play",
                                onClick: () => this.play(selected)}, t("hand.play", {card: cardLabel(selected)})),
          h("button", {type: "button", class: "btn btn-small btn-ghost", id: "cancel-play", onClick: () => {
            this.selected = null;
            this.render();
          }}, t("common.cancel")));
      }
    }
    if (shown.clock && shown.clock.player === me) {
      bar.append(h("span", {class: "clock clock-me", dataset: {deadline: String(shown.clock.deadlineAt)}, "aria-label": t("move.clock")}, ""));
    }
    return bar;
  }

  hand(obs) {
    const myTurn = obs.current_player === obs.player && obs.phase === "playing";
    const legal = new Set(obs.legal_actions.filter((a) => a.type === "play").map((a) => a.card));
    const cards = sortHand(obs.hand);
    const why = obs.lead_suit ? t("hand.mustFollow", {suit: suitName(obs.lead_suit)}) : t("hand.notAllowed");
    let first = cards.findIndex((c) => legal.has(c.id));
    if (first < 0) first = 0;
    const selected = this.selectedCard(obs);
    const buttons = cards.map((card, i) => {
      const button = cardButton(card, {
        state: !myTurn ? "idle" : legal.has(card.id) ? "playable" : "illegal",
        why,
        tabindex: i === first ? 0 : -1,
        onPlay: (c, event) => this.pick(c, event),
      });
      if (selected && selected.id === card.id) {
        button.classList.add("selected");
        button.setAttribute("aria-pressed", "true");
      }
      return button;
    });
    // two rows on a narrow screen once a row would show only slivers of each card
    const rows = cards.length > 10 ? [buttons.slice(0, Math.ceil(cards.length / 2)), buttons.slice(Math.ceil(cards.length / 2))]
      : [buttons];
    return h("div", {class: `hand ${myTurn ? "my-turn" : ""} ${rows.length > 1 ? "split" : ""}`, role: "toolbar",
                     style: {"--count": String(cards.length)}, "aria-label": t("hand.label", {count: cards.length}),
                     onKeydown: (e) => this.handKeys(e)},
      buttons.length ? rows.map((row) => h("div", {class: "hand-row", style: {"--row-count": String(row.length)}}, row))
        : h("p", {class: "muted"}, t("hand.empty")));
  }

  /** The card tapped once on a touch screen, if it is still in the hand and playable. */
  selectedCard(obs) {
    if (this.selected === null || obs.current_player !== obs.player || obs.phase !== "playing") return null;
    const legal = obs.legal_actions.some((a) => a.type === "play" && a.card === this.selected);
    return legal ? obs.hand.find((c) => c.id === this.selected) || null : null;
  }

  /** A click on a playable card: play it, or on a touch screen select it first. */
  pick(card, event) {
    const touch = isTouch() || (event && event.pointerType === "touch");
    if (!touch || this.selected === card.id) {
      this.play(card);
      return;
    }
    this.selected = card.id;
    this.render();
  }

  play(card) {
    this.selected = null;
    this.act({type: "play", card: card.id});
  }

  handKeys(event) {
    if (!["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) return;
    const cards = [...event.currentTarget.querySelectorAll("button.card")];
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    event.preventDefault();
    const next = {ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: cards.length - 1}[event.key];
    const target = cards[(next + cards.length) % cards.length];
    cards.forEach((c) => c.setAttribute("tabindex", c === target ? "0" : "-1"));
    target.focus();
  }

  key(event) {
    if (event.target.closest("input, textarea, select") || event.altKey || event.ctrlKey || event.metaKey) return;
    if ((event.key === "l" || event.key === "L") && this.body.querySelector("#last-trick:not([disabled])")) {
      event.preventDefault();
      this.reviewOpen = !this.reviewOpen;
      this.render();
      return;
    }
    if (event.key === "Escape" && this.reviewOpen) {
      this.reviewOpen = false;
      this.render();
      return;
    }
    if (/^[0-9]$/.test(event.key)) {
      const button = this.body.querySelector(`.bid-btn[data-bid="${event.key}"]`);
      if (button && !button.disabled) {
        event.preventDefault();
        button.click();
      }
    }
  }

  async act(action) {
    try {
      await this.ctx.ask({type: "act", table_id: this.tableId, action}, {quiet: ["not_your_turn"]});
    } catch {
      // refused: the error toast (if any) says why; the next update shows the truth
    }
  }

  renderScores(info, obs) {
    const names = displayNames(info.seats);
    const sheet = {
      names, totalRounds: obs.total_rounds, history: obs.round_history, mySeat: obs.player,
      current: obs.phase === "finished" ? null
        : {round_number: obs.round_number, bids: obs.bids, has_bid: obs.has_bid, tricks_won: obs.tricks_won},
    };
    patch(this.scoreBox, h("h2", {id: "score-title"}, t("pad.title")), scorePad(sheet), scoreChart(sheet));
  }
}
