// "Your turn" outside the page: the tab title and favicon change, an optional short sound
// (off unless the player turns it on) and a desktop notification (if the player allowed it)
// when the page is not in view.

import {h, s, toast} from "./dom.js";
import {t} from "./i18n.js";

const SOUND_KEY = "wizard.sound";
const NOTIFY_KEY = "wizard.notify";

function faviconUrl(dot) {
  const star = "%3Cpath fill='%23f2c14e' d='M12 2.5l2.9 6.1 6.6.8-4.9 4.6 1.3 6.6L12 17.3l-5.9 3.3 1.3-6.6-4.9-4.6 6.6-.8z'/%3E";
  const mark = dot ? "%3Ccircle cx='18.5' cy='5.5' r='5' fill='%23ef4b4b' stroke='%23111' stroke-width='1'/%3E" : "";
  return `data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'%3E${star}${mark}%3C/svg%3E`;
}

export const FAVICON = faviconUrl(false);
export const FAVICON_TURN = faviconUrl(true);

function faviconLink() {
  let link = document.querySelector("link[rel=icon]");
  if (!link) {
    link = h("link", {rel: "icon"});
    document.head.append(link);
  }
  return link;
}

function beep() {
  const Audio = window.AudioContext || window.webkitAudioContext;
  if (!Audio) return;
  try {
    const audio = new Audio();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.0001, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.2, audio.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.35);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.4);
    tone.addEventListener("ended", () => audio.close());
  } catch {
    // no audio device: the title and the icon still say it
  }
}

export const alertPrefs = {
  get sound() {
    return localStorage.getItem(SOUND_KEY) === "on";
  },
  set sound(on) {
    localStorage.setItem(SOUND_KEY, on ? "on" : "off");
  },
  get notify() {
    return localStorage.getItem(NOTIFY_KEY) === "on" && "Notification" in window
      && Notification.permission === "granted";
  },
};

/** Ask for notifications (a click is needed for the browser to ask); resolves to on/off. */
export async function enableNotifications() {
  if (!("Notification" in window)) return false;
  let permission = Notification.permission;
  if (permission === "default") permission = await Notification.requestPermission();
  localStorage.setItem(NOTIFY_KEY, permission === "granted" ? "on" : "off");
  return permission === "granted";
}

export function disableNotifications() {
  localStorage.setItem(NOTIFY_KEY, "off");
}

/** Tracks whose turn it is at one table and tells the player when it becomes theirs. */
export class TurnAlert {
  constructor() {
    this.myTurn = false;
    this.baseTitle = document.title;
  }

  /** `title`: the page title without the mark; `myTurn`: is it my move now? */
  update(title, myTurn, what = t("alert.yourTurn")) {
    this.baseTitle = title;
    const started = myTurn && !this.myTurn;
    this.myTurn = myTurn;
    document.title = myTurn ? t("alert.titleMark", {title}) : title;
    const link = faviconLink();
    link.href = myTurn ? FAVICON_TURN : FAVICON;
    link.dataset.turn = myTurn ? "yes" : "no";
    if (!started || !document.hidden) return;
    if (alertPrefs.sound) beep();
    if (alertPrefs.notify) {
      try {
        const note = new Notification(t("alert.notification"), {body: what, tag: "wizard-turn"});
        note.addEventListener("click", () => {
          window.focus();
          note.close();
        });
      } catch {
        // some browsers only allow notifications from a service worker: the title still says it
      }
    }
  }

  clear() {
    this.myTurn = false;
    document.title = this.baseTitle;
    const link = faviconLink();
    link.href = FAVICON;
    link.dataset.turn = "no";
  }
}

const ICONS = {
  sound: "M4 9h4l5-4v14l-5-4H4zM16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12",
  mute: "M4 9h4l5-4v14l-5-4H4zM16 9l5 6M21 9l-5 6",
  bell: "M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0",
  "bell-off": "M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0M3 3l18 18",
};

/** A small line icon drawn in SVG (no icon font needed). */
function icon(name) {
  return s("svg", {class: "icon", viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false"},
    s("path", {d: ICONS[name]}));
}

/** The sound and notification toggles of the table head; `changed()` redraws them. */
export function alertButtons(changed) {
  const sound = alertPrefs.sound;
  const notify = alertPrefs.notify;
  return [
    h("button", {type: "button", class: "btn btn-small btn-ghost", id: "alert-sound", "aria-pressed": sound ? "true" : "false",
                 title: t("alert.soundTitle"),
                 "aria-label": t(sound ? "alert.soundOnLabel" : "alert.soundOffLabel"),
                 onClick: () => {
                   alertPrefs.sound = !sound;
                   changed();
                 }}, icon(sound ? "sound" : "mute"), h("span", {class: "wide-only"}, t(sound ? "alert.soundOn" : "alert.soundOff"))),
    "Notification" in window ? h("button", {type: "button", class: "btn btn-small btn-ghost", id: "alert-notify",
      "aria-pressed": notify ? "true" : "false",
      "aria-label": t(notify ? "alert.notifyOnLabel" : "alert.notifyOffLabel"),
      title: t("alert.notifyTitle"),
      onClick: async () => {
        if (notify) disableNotifications();
        else if (!(await enableNotifications())) toast(t("alert.blocked"), "info");
        changed();
      }}, icon(notify ? "bell" : "bell-off"), h("span", {class: "wide-only"}, t(notify ? "alert.notifyOn" : "alert.notifyOff"))) : null,
  ];
}
