// The waiting room: seats, bots with a level (host), invite link, start.

import {h, toast} from "./dom.js";
import {LEVELS, optionBadges, tableTitle} from "./lobby.js";
import {levelName} from "./help.js";
import {shownName} from "./felt.js";
import {t} from "./i18n.js";

/** The link that seats a friend: a private table's carries its invite (its id alone opens nothing). */
export function inviteLink(tableId, invite = null) {
  const tail = invite ? `/${encodeURIComponent(invite)}` : "";
  return `${location.origin}/#/table/${encodeURIComponent(tableId)}${tail}`;
}

export async function copyInvite(link, input) {
  try {
    await navigator.clipboard.writeText(link);
    toast(t("invite.copied"), "ok");
  } catch {
    if (input) {
      input.focus();
      input.select();
    }
    toast(t("invite.copyByHand"), "info");
  }
}

function seatRow(view, info, seat, isHost) {
  const {ctx, tableId} = view;
  const me = ctx.store.me && ctx.store.me.player_id;
  const label = t("seat.numbered", {n: seat.seat + 1});
  const controls = [];
  if (isHost && seat.kind === "empty") {
    // the choice survives a re-render (any seat change redraws the room)
    view.botLevels = view.botLevels || {};
    const chosen = view.botLevels[seat.seat] || "medium";
    const levelSelect = h("select", {"aria-label": t("waiting.levelFor", {n: seat.seat + 1}), class: "level-select",
                                     onChange: (e) => { view.botLevels[seat.seat] = e.target.value; }},
      LEVELS.map((l) => h("option", {value: l, selected: l === chosen}, levelName(l))));
    controls.push(levelSelect, h("button", {
      type: "button", class: "btn btn-small", "aria-label": t("waiting.addBotTo", {n: seat.seat + 1}),
      onClick: () => ctx.ask({type: "add_bot", table_id: tableId, level: levelSelect.value, seat: seat.seat}).catch(() => {}),
    }, t("waiting.addBot")));
  }
  if (isHost && seat.kind === "bot") {
    controls.push(h("button", {
      type: "button", class: "btn btn-small btn-ghost", "aria-label": t("waiting.removeBotFrom", {n: seat.seat + 1}),
      onClick: () => ctx.ask({type: "remove_bot", table_id: tableId, seat: seat.seat}).catch(() => {}),
    }, t("waiting.remove")));
  }
  const who = seat.kind === "empty" ? h("span", {class: "muted"}, t("waiting.openSeat"))
    : h("span", {class: "who"}, h("span", {class: "who-name", title: shownName(seat.name)}, shownName(seat.name)),
      seat.player_id === me ? h("span", {class: "you"}, t("common.you")) : null,
      seat.player_id && seat.player_id === info.host ? h("span", {class: "tag"}, t("waiting.host")) : null,
      seat.kind === "player" && !seat.connected ? h("span", {class: "tag tag-warn"}, t("seat.offline")) : null);
  return h("li", {class: `wait-seat wait-${seat.kind}`, dataset: {seat: String(seat.seat)}},
    h("span", {class: "seat-no"}, label), who, h("span", {class: "seat-controls"}, controls));
}

export function waitingRoom(view, info) {
  const {ctx, tableId} = view;
  const isHost = ctx.store.isHost(tableId);
  const open = info.seats.filter((s) => s.kind === "empty").length;
  const link = inviteLink(tableId, info.invite);
  const linkInput = h("input", {id: "invite-link", readonly: true, value: link, "aria-label": t("waiting.inviteLink")});
  const hostSeat = info.seats.find((s) => s.player_id === info.host);
  return h("section", {class: "panel waiting", "aria-labelledby": "waiting-title"},
    h("h1", {id: "waiting-title"}, tableTitle(info), info.private ? h("span", {class: "tag"}, t("waiting.private")) : null),
    optionBadges(info.options, info.turn_seconds, info.seats.length, info.rated),
    h("ol", {class: "wait-seats", "aria-label": t("lobby.seats")}, info.seats.map((seat) => seatRow(view, info, seat, isHost))),
    h("div", {class: "invite"},
      h("label", {for: "invite-link"}, t("waiting.inviteFriends")),
      h("div", {class: "row"}, linkInput,
        h("button", {type: "button", class: "btn btn-small", id: "copy-invite", onClick: () => copyInvite(link, linkInput)}, t("waiting.copyLink")))),
    h("div", {class: "row wait-actions"},
      isHost ? h("button", {
        type: "button", class: "btn btn-primary btn-big", id: "start-game", disabled: open > 0,
        "aria-describedby": open ? "start-why" : null,
        onClick: () => ctx.ask({type: "start_game", table_id: tableId}).catch(() => {}),
      }, t("waiting.start")) : h("p", {class: "muted"}, hostSeat ? t("waiting.forHost", {name: hostSeat.name}) : t("waiting.forTheHost")),
      isHost && open ? h("span", {id: "start-why", class: "muted"}, t("waiting.openSeats", {count: open})) : null,
      view.leaveButton()));
}
