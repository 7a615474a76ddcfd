// What a table's link tells a guest before the name form: whose table it is and how many
// seats are free (GET /api/tables/<id>, a private table's with its invite).

import {h} from "./dom.js";
import {getJson} from "./http.js";

/** The table a link leads to ({tableId, invite, watch}), or null: #/table/<id>[/<invite>], #/watch/… */
export function linkedTable(hash) {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if ((parts[0] !== "table" && parts[0] !== "watch") || !parts[1]) return null;
  return {tableId: parts[1], invite: parts[2] || null, watch: parts[0] === "watch"};
}

const seatsWord = (n) => `${n} seat${n === 1 ? "" : "s"}`;

/** The preview in words (`t`: the server's {host, players, free_seats, status}). */
export function previewText(t, watch) {
  const whose = t.host ? `${t.host}'s table` : "a table";
  const at = `${whose} for ${t.players}`;
  if (watch) return `You are invited to watch ${at}.`;
  if (t.status !== "waiting") return `The game at ${at} has started: you can watch it.`;
  if (!t.free_seats) return `${at[0].toUpperCase()}${at.slice(1)} is full: you can watch the game.`;
  const who = t.host ? `${t.host} invites you` : "You are invited";
  return `${who} to a table for ${t.players}: ${seatsWord(t.free_seats)} of ${t.players} free.`;
}

const PROBLEMS = {
  invite_required: "This link does not open the table: it may be cut off or mistyped. Ask for the invite link again.",
  no_such_table: "This table is not open any more (or the link is mistyped).",
};

/** A line for the name form about the linked table (filled in once the server answers), or null. */
export function inviteNote(hash) {
  const link = linkedTable(hash);
  if (!link) return null;
  const note = h("p", {class: "invite-note", id: "invite-note", role: "status"});
  const query = link.invite ? `?invite=${encodeURIComponent(link.invite)}` : "";
  getJson(`/api/tables/${encodeURIComponent(link.tableId)}${query}`).then((t) => {
    note.textContent = `${previewText(t, link.watch)} Choose your name to ${link.watch ? "watch" : "join"}.`;
  }).catch((err) => {
    note.classList.add("invite-problem");
    note.textContent = PROBLEMS[err.code] || `The table could not be looked up: ${err.message}`;
  });
  return note;
}
