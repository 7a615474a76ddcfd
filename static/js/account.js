// Accounts (optional; guests play as before): claim my name with a password, log in on
// another device (a token of its own), log out (every device), change the password.
// Each refusal is shown from its code; a rate limit says when to try again.

import {h, mount, toast} from "./dom.js";
import {postJson} from "./http.js";

const NAME_KEY = "wizard.name";
const TOKEN_KEY = "wizard.token";
/** The account's name, on a device that claimed it or logged in (the server's welcome does not say). */
export const ACCOUNT_KEY = "wizard.account";

const PROBLEMS = {
  bad_name: "That is not a player name (visible characters, at most 32, nothing that looks like a bot).",
  bad_password: "A password has 8 to 128 characters.",
  bad_request: "Please fill in every field.",
  token_required: "This device is not signed in yet: reload the page and try again.",
  unknown_token: "This device is signed out (logged out or the password was changed elsewhere): reload the page.",
  unknown_account: "No account has this name.",
  wrong_password: "Wrong password.",
  no_account: "This name has no account on this device: claim it first.",
  name_taken: "Someone already has an account with this name: pick another name, or log in.",
  already_claimed: "You already have an account: log in with its name and password.",
  too_large: "That is too long.",
  unavailable: "The server cannot save right now; nothing changed. Try again later.",
};

/** A refusal in words; a rate limit says in how many seconds to try again. */
export function problemText(err) {
  if (err.code === "rate_limited") {
    const wait = err.retryAfter === null ? "" : ` in ${Math.max(1, Math.ceil(err.retryAfter))} s`;
    return `Too many password attempts: try again${wait}.`;
  }
  return PROBLEMS[err.code] || err.message || String(err);
}

export function accountName() {
  return localStorage.getItem(ACCOUNT_KEY);
}

/** Keep what a login or password change answered: this device's token, the account's name. */
function signedIn(answer) {
  localStorage.setItem(NAME_KEY, answer.name);
  localStorage.setItem(ACCOUNT_KEY, answer.name);
  if (answer.token) localStorage.setItem(TOKEN_KEY, answer.token);
}

function passwordInput(id, autocomplete) {
  return h("input", {type: "password", id, name: id, required: true, maxlength: "128", autocomplete});
}

/** A small form: fields, a submit button, a problem line; `submit(form)` resolves or throws. */
function accountForm({id, title, note, fields, button, submit}) {
  const problem = h("p", {class: "form-problem", id: `${id}-problem`, role: "alert"});
  const form = h("form", {class: "stack account-form", id, "aria-labelledby": `${id}-title`, onSubmit: async (event) => {
    event.preventDefault();
    problem.textContent = "";
    const send = form.querySelector("button[type=submit]");
    send.disabled = true;
    try {
      await submit(new FormData(form));
    } catch (err) {
      problem.textContent = problemText(err);
    } finally {
      send.disabled = false;
    }
  }},
    h("h3", {id: `${id}-title`}, title), note ? h("p", {class: "hint"}, note) : null,
    fields.map(([label, input]) => h("div", {class: "field"}, h("label", {for: input.id}, label), input)),
    problem, h("button", {class: "btn btn-small", type: "submit"}, button));
  return form;
}

/** Log in with name and password (another device): `onSignedIn()` reconnects with the new token. */
export function loginForm(onSignedIn) {
  return accountForm({
    id: "login-form", title: "Log in", note: "Played before with an account? Use its name and password.",
    fields: [["Name", h("input", {id: "login-name", name: "login-name", required: true, maxlength: "32", autocomplete: "username"})],
             ["Password", passwordInput("login-password", "current-password")]],
    button: "Log in",
    submit: async (f) => {
      signedIn(await postJson("/api/login", {name: f.get("login-name"), password: f.get("login-password")}, null));
      toast(`Logged in as ${accountName()}.`, "ok");
      onSignedIn();
    },
  });
}

/**
 * The account part of the "me" dialog: a guest claims the name or logs in; an account
 * changes its password or logs out. `reconnect()` says hello again with the stored token,
 * `claimed()` shows the name as an account's, `close()` closes the dialog.
 */
export function accountPanel({name, reconnect, close, claimed}) {
  const box = h("section", {class: "account-panel", "aria-label": "Account"});
  const render = () => {
    const account = accountName();
    if (!account) {
      mount(box, accountForm({
        id: "claim-form", title: `Keep the name ${name}`,
        note: "Claim it with a password: your games and rating stay yours, and you can log in on another device.",
        fields: [["Password", passwordInput("claim-password", "new-password")]],
        button: "Claim this name",
        submit: async (f) => {
          const answer = await postJson("/api/account", {name, password: f.get("claim-password")});
          signedIn(answer);
          toast(`The name ${answer.name} is yours now.`, "ok");
          claimed();
          render();
        },
      }), loginForm(() => {
        close();
        reconnect();
      }));
      return;
    }
    mount(box,
      h("p", {class: "account-status", id: "account-status"}, "Signed in to the account ", h("strong", null, account), "."),
      accountForm({
        id: "password-form", title: "Change the password", note: "Your other devices are signed out.",
        fields: [["Current password", passwordInput("old-password", "current-password")],
                 ["New password", passwordInput("new-password", "new-password")]],
        button: "Change password",
        submit: async (f) => {
          signedIn(await postJson("/api/password", {password: f.get("old-password"), new_password: f.get("new-password")}));
          toast("Password changed.", "ok");
          close();
          reconnect();
        },
      }),
      h("button", {type: "button", class: "btn btn-small btn-ghost", id: "logout", onClick: async () => {
        try {
          await postJson("/api/logout");
        } catch (err) {
          // a token the server no longer knows is signed out already
          if (err.code !== "unknown_token") {
            toast(problemText(err), "error");
            return;
          }
        }
        localStorage.removeItem(ACCOUNT_KEY);
        localStorage.removeItem(TOKEN_KEY);
        toast("Logged out on every device. You play on as a guest.", "info");
        close();
        reconnect();
      }}, "Log out (every device)"));
  };
  render();
  return box;
}
