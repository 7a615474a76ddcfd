// What a table's link tells a guest before the name form: whose table it is and how many
// seats are free (GET /api/tables/<id>, a private table's with its invite).

import {h} from "./dom.js";
import {getJson} from "./http.js";
import {errorText} from "./errors.js";
import {t} from "./i18n.js";

const tr = t; // where `t` names the previewed table

/** The table a link leads to ({tableId, invite, watch}), or null: #/table/<id>[/<invite>], #/watch/… */
export function linkedTable(hash) {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if ((parts[0] !== "table" && parts[0] !== "watch") || !parts[1]) return null;
  return {tableId: parts[1], invite: parts[2] || null, watch: parts[0] === "watch"};
}

/** The preview in words (`table`: the server's {host, players, free_seats, status}). */
export function previewText(table, watch) {
  const host = table.host ? "Host" : "";
  const params = {host: table.host, players: table.players, count: table.free_seats};
  if (watch) return t(`invite.watch${host}`, params);
  if (table.status !== "waiting") return t(`invite.started${host}`, params);
  if (!table.free_seats) return t(`invite.full${host}`, params);
  return t(`invite.join${host}`, params);
}

// a link's refusals in the words of a link (the catalog's invite.problem.<code>)
const PROBLEMS = ["invite_required", "no_such_table"];

/** A line for the name form about the linked table (filled in once the server answers), or null. */
export function inviteNote(hash) {
  const link = linkedTable(hash);
  if (!link) return null;
  const note = h("p", {class: "invite-note", id: "invite-note", role: "status"});
  const query = link.invite ? `?invite=${encodeURIComponent(link.invite)}` : "";
  getJson(`/api/tables/${encodeURIComponent(link.tableId)}${query}`).then((t) => {
    note.textContent = `${previewText(t, link.watch)} ${tr(link.watch ? "invite.nameToWatch" : "invite.nameToJoin")}`;
  }).catch((err) => {
    note.classList.add("invite-problem");
    note.textContent = PROBLEMS.includes(err.code) ? tr(`invite.problem.${err.code}`) : tr("invite.lookupFailed", {reason: errorText(err)});
  });
  return note;
}
