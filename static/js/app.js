// Entry point: name, connection (hello with the saved token), connection state, routing.

import {h, keepInputs, mount, toast} from "./dom.js";
import {errorText} from "./errors.js";
import {LANGUAGES, language, languageEvents, setLanguage, t, translatePage} from "./i18n.js";
import {ACCOUNT_KEY, accountName, accountPanel, loginForm} from "./account.js";
import {GamesView, ReplayView} from "./replay.js";
import {HelpView} from "./help.js";
import {inviteNote} from "./invite.js";
import {LobbyView} from "./lobby.js";
import {ProfileView} from "./profile.js";
import {Socket} from "./socket.js";
import {Store} from "./state.js";
import {TableView} from "./table.js";
import {TutorialCoach} from "./tutorial.js";

const NAME_KEY = "wizard.name";
const TOKEN_KEY = "wizard.token";

const main = document.getElementById("main");
const connBox = document.getElementById("conn");
const meButton = document.getElementById("me");
const langSelect = document.getElementById("lang");

const store = new Store();
const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
const socket = new Socket(wsUrl);
let identified = false;
let everIdentified = false;
let current = null; // {key, view}
let reconnectedTimer = null;

const ctx = {
  store,
  socket,
  navigate(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
  /** A request whose refusal is shown to the player; resolves to null when refused. */
  async ask(message, {quiet = []} = {}) {
    try {
      return await socket.request(message);
    } catch (err) {
      if (!quiet.includes(err.code)) toast(errorText(err), "error");
      throw err;
    }
  },
};
ctx.tutorial = new TutorialCoach(ctx); // the lobby and the rules page offer it; it coaches its table
// The browser tests drive the client through its store and socket. Only they set
// `testHooks` (window.__WIZARD_CONFIG__, from their init script): a player's page does
// not hand its socket and store to any script that runs in it.
if ((window.__WIZARD_CONFIG__ || {}).testHooks === true) window.__wizard = ctx;

let connKey = "conn.connecting"; // the connection line's message, redrawn in a new language

function setConnState(state, key) {
  connBox.dataset.state = state;
  connKey = key;
  connBox.querySelector(".conn-text").textContent = t(key);
}

socket.addEventListener("status", (event) => {
  const {state} = event.detail;
  if (state === "reconnecting") {
    identified = false;
    store.connectionLost();
    setConnState("reconnecting", "conn.reconnecting");
  } else if (state === "stalled") {
    setConnState("stalled", "conn.stalled");
  } else if (state === "open" && event.detail.recovered) {
    setConnState(identified ? "open" : "connecting", identified ? "conn.connected" : "conn.connecting");
  } else if (state === "open") {
    setConnState("connecting", everIdentified ? "conn.reconnecting" : "conn.connecting");
  }
});

socket.addEventListener("open", () => hello());
socket.addEventListener("message", (event) => store.handle(event.detail));
store.onGap = (tableId) => {
  socket.request({type: "sync", table_id: tableId}).catch(() => {});
};
/** The name button of the header: a guest changes the name there, an account manages itself. */
function showMe() {
  meButton.hidden = false;
  meButton.textContent = store.me.name;
  const account = accountName() === store.me.name;
  // the label carries the whole name: on a phone the button may show only part of it
  meButton.title = t(account ? "me.accountTitle" : "me.nameTitle", {name: store.me.name});
  meButton.setAttribute("aria-label", meButton.title);
}

store.addEventListener("change", (event) => {
  const d = event.detail;
  if (d.what === "me" && store.me) {
    localStorage.setItem(TOKEN_KEY, store.me.token);
    showMe();
  } else if (d.what === "closed") {
    toast(t(d.reason === "idle" ? "table.closedIdle" : "table.closed"), "info");
  } else if (d.what === "error" && d.code !== "rate_limited") {
    toast(errorText(d), "error");
  }
});

/** What the welcome form says when the server refuses the name a hello carried (message keys). */
const NAME_REFUSALS = new Map([["name_taken", "welcome.nameTaken"], ["bad_name", "welcome.badName"]]);

async function hello() {
  const name = localStorage.getItem(NAME_KEY);
  const token = localStorage.getItem(TOKEN_KEY);
  try {
    try {
      await socket.request(token ? {type: "hello", name, token} : {type: "hello", name});
    } catch (err) {
      if (err.code !== "unknown_token") throw err;
      localStorage.removeItem(TOKEN_KEY); // the server forgot us (restart without a database)
      localStorage.removeItem(ACCOUNT_KEY); // or signed this device out (logout, new password)
      await socket.request({type: "hello", name});
    }
  } catch (err) {
    if (NAME_REFUSALS.has(err.code)) {
      connBox.hidden = true; // nothing to connect until a name is chosen (the socket waits)
      askName(t(NAME_REFUSALS.get(err.code))); // the name is an account's (or not a name): choose again
    } else if (err.code !== "disconnected") {
      toast(t("welcome.signInFailed", {reason: errorText(err)}), "error");
    }
    return;
  }
  identified = true;
  if (everIdentified) {
    setConnState("reconnected", "conn.reconnected");
    clearTimeout(reconnectedTimer);
    reconnectedTimer = setTimeout(() => {
      if (identified) setConnState("open", "conn.connected");
    }, 3000);
  } else {
    setConnState("open", "conn.connected");
  }
  everIdentified = true;
  route({resume: true});
}

function parseRoute() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  // a private table's link carries its invite: #/table/<id>/<invite> (the fragment never reaches a server)
  if (parts[0] === "table" && parts[1]) return {key: `table:${parts[1]}:${parts[2] || ""}`, make: () => new TableView(ctx, parts[1], "play", parts[2] || null)};
  if (parts[0] === "watch" && parts[1]) return {key: `watch:${parts[1]}:${parts[2] || ""}`, make: () => new TableView(ctx, parts[1], "watch", parts[2] || null)};
  if (parts[0] === "help") return {key: "help", make: () => new HelpView(ctx)};
  if (parts[0] === "games") return {key: "games", make: () => new GamesView(ctx)};
  if (parts[0] === "leaderboard") return {key: "leaderboard", make: () => new LobbyView(ctx, "leaderboard")};
  if (parts[0] === "player" && parts[1]) return {key: `player:${parts[1]}`, make: () => new ProfileView(ctx, parts[1])};
  if (parts[0] === "replay" && parts[1]) return {key: `replay:${parts[1]}:${parts[2] || ""}`, make: () => new ReplayView(ctx, parts[1], parts[2] || null)};
  return {key: "lobby", make: () => new LobbyView(ctx)};
}

function route({resume = false} = {}) {
  if (!localStorage.getItem(NAME_KEY)) return;
  const next = parseRoute();
  // views over HTTP alone (history, replay, leaderboard, profiles) need no hello
  const offline = ["games", "help", "leaderboard"].includes(next.key) || next.key.startsWith("replay:")
    || next.key.startsWith("player:");
  if (!identified && !offline) return; // views that talk to the server wait for hello
  if (current && current.key === next.key) {
    if (resume && current.view.resume) current.view.resume();
    return;
  }
  if (current) current.view.destroy();
  current = {key: next.key, view: next.make()};
  main.replaceChildren();
  current.view.mount(main);
  ctx.tutorial.follow(next.key, main);
  window.scrollTo(0, 0); // a new view starts at its top (a table opened from low in the lobby did not)
  // where am I: at a table (playing or watching) none of the header's sections is current
  const atTable = next.key.startsWith("table:") || next.key.startsWith("watch:");
  const section = atTable ? null : next.key === "games" || next.key.startsWith("replay:") ? "#/games"
    : next.key === "help" ? "#/help" : "#/";
  for (const link of document.querySelectorAll(".topnav a")) {
    if (link.getAttribute("href") === section) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

function nameForm({initial = "", onDone, refused = "", intro = null}) {
  const problem = h("p", {class: "form-problem", id: "name-problem", role: "alert"}, refused);
  const input = h("input", {id: "name-input", name: "name", required: true, maxlength: "32",
                            autocomplete: "nickname", value: initial, placeholder: t("welcome.namePlaceholder"),
                            "aria-describedby": "name-problem",
                            onInput: () => {
                              problem.textContent = "";
                              input.removeAttribute("aria-invalid");
                            }});
  const form = h("form", {class: "panel name-panel", "aria-labelledby": "name-title",
                          onSubmit: (event) => {
                            event.preventDefault();
                            const name = input.value.trim();
                            if (!name) {
                              problem.textContent = t("welcome.nameBlank");
                              input.setAttribute("aria-invalid", "true");
                              input.focus();
                              return;
                            }
                            localStorage.setItem(NAME_KEY, name);
                            onDone(name);
                          }},
    h("h1", {id: "name-title"}, t("welcome.title")), intro,
    h("p", {class: "muted"}, t("welcome.intro")),
    h("label", {for: "name-input"}, t("welcome.nameLabel")),
    input, problem,
    h("button", {class: "btn btn-primary", type: "submit"}, t("welcome.play")));
  setTimeout(() => input.focus(), 0);
  return form;
}

function askName(refused = "") {
  // after a refused hello the socket is open: the new name says hello on it
  const onDone = () => {
    if (!socket.isOpen) return start();
    connBox.hidden = false;
    return hello();
  };
  const initial = refused ? localStorage.getItem(NAME_KEY) || "" : "";
  mount(main, h("div", {class: "center-page"}, h("div", {class: "welcome-forms"}, nameForm({onDone, initial, refused, intro: inviteNote(location.hash)}),
    h("details", {class: "panel login-panel"}, h("summary", null, t("welcome.haveAccount")), loginForm(onDone)))));
}

meButton.addEventListener("click", () => {
  const dialog = h("dialog", {class: "dialog", "aria-label": meButton.getAttribute("aria-label")});
  const close = () => {
    dialog.close();
    dialog.remove();
  };
  // an account's name does not change; a guest's does, and a guest may claim it or log in
  const name = store.me ? store.me.name : localStorage.getItem(NAME_KEY) || "";
  const guest = accountName() !== name;
  dialog.append(h("div", {class: "panel me-panel"},
    guest ? nameForm({
      initial: localStorage.getItem(NAME_KEY) || "",
      onDone: (newName) => {
        close();
        if (store.me && newName !== store.me.name) socket.reconnectNow();
      },
    }) : null,
    accountPanel({name, close, reconnect: () => socket.reconnectNow(), claimed: showMe}),
    h("button", {type: "button", class: "btn btn-small btn-ghost dialog-close", onClick: close}, t("common.close"))));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
});

function start() {
  // the header says nothing about a connection before there is one to make (the name form)
  connBox.hidden = false;
  mount(main, h("div", {class: "center-page"}, h("p", {class: "muted"}, t("conn.connecting"))));
  socket.connect();
  route(); // offline views (history, replay) need no connection
}

window.addEventListener("hashchange", () => route());

/** The header's language switch: the languages with a catalog, the current one chosen. */
function fillLanguages() {
  langSelect.replaceChildren(...LANGUAGES.map((l) => h("option", {value: l.code, lang: l.code, title: l.name,
                                                                   selected: l.code === language()}, l.code.toUpperCase())));
}

/** A new language: the header and the view on screen are drawn again; the game goes on. */
function relabel() {
  translatePage();
  document.title = t("app.title");
  fillLanguages();
  connBox.querySelector(".conn-text").textContent = t(connKey);
  if (store.me) showMe();
  if (!current) {
    if (!localStorage.getItem(NAME_KEY)) {
      const restore = keepInputs(main);
      const opened = main.querySelector("details.login-panel[open]");
      askName();
      if (opened) main.querySelector("details.login-panel").open = true;
      restore();
    }
    return;
  }
  const restore = keepInputs(main);
  if (current.view.relabel) {
    current.view.relabel();
  } else {
    current.view.destroy();
    current.view = parseRoute().make();
    main.replaceChildren();
    current.view.mount(main);
  }
  restore();
  ctx.tutorial.relabel();
  ctx.tutorial.follow(current.key, main);
}

langSelect.addEventListener("change", () => setLanguage(langSelect.value));
languageEvents.addEventListener("change", relabel);
translatePage();
document.title = t("app.title");
fillLanguages();

if (localStorage.getItem(NAME_KEY)) start();
else askName();
