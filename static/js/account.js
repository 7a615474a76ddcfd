// Accounts (optional; guests play as before): claim my name with a password, log in on
// another device (a token of its own), log out (every device), change the password.
// Each refusal is shown from its code; a rate limit says when to try again.

import {h, mount, toast} from "./dom.js";
import {postJson} from "./http.js";
import {errorText} from "./errors.js";
import {t} from "./i18n.js";

const NAME_KEY = "wizard.name";
const TOKEN_KEY = "wizard.token";
/** The account's name, on a device that claimed it or logged in (the server's welcome does not say). */
export const ACCOUNT_KEY = "wizard.account";

// the account forms say these refusals their own way (the catalog's account.problem.<code>);
// any other code is said as everywhere else
const PROBLEMS = ["bad_request", "unknown_token"];

/** A refusal in words; a rate limit says in how many seconds to try again. */
export function problemText(err) {
  if (err.code === "rate_limited") {
    return err.retryAfter === null ? t("account.rateLimited")
      : t("account.rateLimitedIn", {seconds: Math.max(1, Math.ceil(err.retryAfter))});
  }
  return PROBLEMS.includes(err.code) ? t(`account.problem.${err.code}`) : errorText(err);
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
    id: "login-form", title: t("account.login"), note: t("account.loginNote"),
    fields: [[t("account.name"), h("input", {id: "login-name", name: "login-name", required: true, maxlength: "32", autocomplete: "username"})],
             [t("account.password"), passwordInput("login-password", "current-password")]],
    button: t("account.login"),
    submit: async (f) => {
      signedIn(await postJson("/api/login", {name: f.get("login-name"), password: f.get("login-password")}, null));
      toast(t("account.loggedIn", {name: accountName()}), "ok");
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
  const box = h("section", {class: "account-panel", "aria-label": t("account.label")});
  const render = () => {
    const account = accountName();
    if (!account) {
      mount(box, accountForm({
        id: "claim-form", title: t("account.claimTitle", {name}),
        note: t("account.claimNote"),
        fields: [[t("account.password"), passwordInput("claim-password", "new-password")]],
        button: t("account.claim"),
        submit: async (f) => {
          const answer = await postJson("/api/account", {name, password: f.get("claim-password")});
          signedIn(answer);
          toast(t("account.claimed", {name: answer.name}), "ok");
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
      h("p", {class: "account-status", id: "account-status"}, t("account.signedInTo"), " ", h("strong", null, account), t("account.signedInEnd")),
      accountForm({
        id: "password-form", title: t("account.passwordTitle"), note: t("account.passwordNote"),
        fields: [[t("account.currentPassword"), passwordInput("old-password", "current-password")],
                 [t("account.newPassword"), passwordInput("new-password", "new-password")]],
        button: t("account.changePassword"),
        submit: async (f) => {
          signedIn(await postJson("/api/password", {password: f.get("old-password"), new_password: f.get("new-password")}));
          toast(t("account.passwordChanged"), "ok");
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
        toast(t("account.loggedOut"), "info");
        close();
        reconnect();
      }}, t("account.logout")));
  };
  render();
  return box;
}
