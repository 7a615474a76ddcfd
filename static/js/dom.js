// Small DOM helpers: build elements without innerHTML (names and chat are user input).

const SVG_NS = "http://www.w3.org/2000/svg";

function applyAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.setAttribute("class", value);
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** `h("button", {class: "btn", onClick}, "Play")` → an element. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  applyAttrs(el, attrs);
  append(el, children);
  return el;
}

/** The same for SVG elements. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  applyAttrs(el, attrs);
  append(el, children);
  return el;
}

/** Replace the children of `el`. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Re-render `container` with `render()` while keeping keyboard focus on the element
 * with the same `data-focus-key` (or a neighbour of the same group, if it is gone).
 */
export function keepFocus(container, render) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.dataset.focusKey : undefined;
  const group = key ? active.dataset.focusGroup : undefined;
  const groupIndex = group
    ? [...container.querySelectorAll(`[data-focus-group="${group}"]`)].indexOf(active) : -1;
  render();
  if (!key) return;
  let target = container.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
  if ((!target || target.disabled) && group) {
    const peers = [...container.querySelectorAll(`[data-focus-group="${group}"]:not([disabled])`)];
    target = peers[Math.min(Math.max(groupIndex, 0), peers.length - 1)];
  }
  if (target && !target.disabled) target.focus({preventScroll: true});
}

/** A short notice at the bottom of the screen. */
export function toast(message, kind = "info", ms = 4000) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const el = h("div", {class: `toast toast-${kind}`}, message);
  box.append(el);
  setTimeout(() => el.classList.add("toast-out"), ms - 300);
  setTimeout(() => el.remove(), ms);
}

export function formatClock(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  return `${minutes}:${String(total % 60).padStart(2, "0")}`;
}
