// The client's words: one message catalog per language (static/i18n/<code>.json, listed in
// static/i18n/languages.json), so that a new language is a file and not a code change.
// `t(key, params)` looks a message up in the current language (the default language's
// catalog fills a gap), fills its `{name}` placeholders and picks its plural form with
// `Intl.PluralRules` when the message is an object of forms ({one, other, ...}) and
// `params.count` is given. Numbers, dates and lists are formatted with `Intl` for the language.
//
// The language: the one chosen in the header (localStorage), else the first of the
// browser's `navigator.languages` that has a catalog, else the manifest's default.
// This module loads its catalogs before any view is drawn (a top-level await).

const BASE = "/static/i18n";
const LANG_KEY = "wizard.lang";

async function loadJson(url) {
  try {
    const response = await fetch(url);
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

const manifest = (await loadJson(`${BASE}/languages.json`)) || {default: "en", languages: [{code: "en", name: "English"}]};

/** The languages with a catalog: [{code, name}] (the name in its own language). */
export const LANGUAGES = manifest.languages;
const DEFAULT = manifest.default;
const codes = LANGUAGES.map((l) => l.code);

const catalogs = new Map();
let current = DEFAULT;
let plurals = new Intl.PluralRules(DEFAULT);
let ordinals = new Intl.PluralRules(DEFAULT, {type: "ordinal"});

async function catalog(code) {
  if (!catalogs.has(code)) catalogs.set(code, (await loadJson(`${BASE}/${code}.json`)) || {});
  return catalogs.get(code);
}

/** The first language of `wanted` (BCP 47 tags, best first) that has a catalog, or the default. */
export function pickLanguage(wanted) {
  for (const tag of wanted || []) {
    const code = String(tag).toLowerCase().split("-")[0];
    if (codes.includes(code)) return code;
  }
  return DEFAULT;
}

/** The language in use ("en", "de", ...). */
export function language() {
  return current;
}

/** Listeners hear "change" after `setLanguage` switched the language (views redraw). */
export const languageEvents = new EventTarget();

/**
 * Switch to `code` (a code of LANGUAGES): load its catalog, set `<html lang>`, remember the
 * choice when `remember` (the header's switch), and tell the listeners.
 */
export async function setLanguage(code, {remember = true} = {}) {
  const next = codes.includes(code) ? code : DEFAULT;
  await catalog(next);
  if (remember) localStorage.setItem(LANG_KEY, next);
  const changed = next !== current;
  current = next;
  plurals = new Intl.PluralRules(next);
  ordinals = new Intl.PluralRules(next, {type: "ordinal"});
  document.documentElement.lang = next;
  if (changed) languageEvents.dispatchEvent(new Event("change"));
}

function message(key) {
  const own = catalogs.get(current);
  if (own && own[key] !== undefined) return own[key];
  const fallback = catalogs.get(DEFAULT);
  return fallback ? fallback[key] : undefined;
}

/** Whether `key` has a message (e.g. an error code the catalog knows). */
export function has(key) {
  return message(key) !== undefined;
}

/**
 * The message `key` in the current language, `{name}` filled from `params`; a message with
 * plural forms takes the form of `params.count` (or the ordinal form of `params.ordinal`:
 * "1st", "2nd"). An unknown key comes back as itself.
 */
export function t(key, params = {}) {
  let text = message(key);
  if (text === undefined) return key;
  if (typeof text === "object") {
    const form = "ordinal" in params ? ordinals.select(Number(params.ordinal)) : plurals.select(Number(params.count));
    text = text[form] ?? text.other;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** `t` for a message with plural forms: `plural("seat.cards", 3)`. */
export function plural(key, count, params = {}) {
  return t(key, {...params, count});
}

/** A number written the language's way (`options`: Intl.NumberFormat's). */
export function formatNumber(value, options = {}) {
  return new Intl.NumberFormat(current, options).format(value);
}

/** A date (a Date or an ISO string) written the language's way; an unreadable one as given. */
export function formatDate(value, options = {dateStyle: "medium", timeStyle: "short"}) {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : new Intl.DateTimeFormat(current, options).format(date);
}

/** "0 or 2" / "0 oder 2": items joined the language's way (`type`: "disjunction" or "conjunction"). */
export function formatList(items, type = "disjunction") {
  return new Intl.ListFormat(current, {type}).format(items.map(String));
}

/**
 * The page's own markup (index.html) in the current language: `data-i18n="key"` sets an
 * element's text, `data-i18n-attr="aria-label=key title=key2"` its attributes.
 */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.trim().split(/\s+/)) {
      const [attr, key] = pair.split("=");
      el.setAttribute(attr, t(key));
    }
  }
}

await catalog(DEFAULT);
await setLanguage(localStorage.getItem(LANG_KEY) || pickLanguage(navigator.languages), {remember: false});
