// Small DOM helpers: build elements without innerHTML (names and chat are user input).

const SVG_NS = "http://www.w3.org/2000/svg";

// A handler given to `h` is kept on the element (`el.__on[type]`) behind one listener per
// event type, so that an element kept by `patch` (patch.js) takes its redrawn twin's handlers.
function listen(el, type, handler) {
  if (!el.__on) el.__on = {};
  if (!(type in el.__on)) el.addEventListener(type, (event) => el.__on[type] && el.__on[type](event));
  el.__on[type] = handler;
}

/** `kept` (an element still on the page) answers events as `fresh` (its redrawn twin) would. */
export function takeHandlers(kept, fresh) {
  const handlers = fresh.__on || {};
  for (const type of Object.keys(kept.__on || {})) if (!(type in handlers)) kept.__on[type] = null;
  for (const [type, handler] of Object.entries(handlers)) listen(kept, type, handler);
}

function applyAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.setAttribute("class", value);
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") {
      for (const [prop, v] of Object.entries(value)) {
        if (prop.startsWith("--")) el.style.setProperty(prop, v);
        else el.style[prop] = v;
      }
    }
    else if (key.startsWith("on") && typeof value === "function") listen(el, key.slice(2).toLowerCase(), value);
    else if (value === true) el.setAttribute(key, "");
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

const TOASTS_SHOWN = 3;

/**
 * A short notice near the top of the screen. The same text again while it is still shown
 * renews that toast instead of stacking a copy; at most a few are shown at once.
 */
export function toast(message, kind = "info", ms = 4000) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const text = String(message);
  let el = [...box.children].find((t) => t.textContent === text && !t.classList.contains("toast-out"));
  if (el) {
    clearTimeout(el._fade);
    clearTimeout(el._gone);
    el.className = `toast toast-${kind}`;
    box.append(el); // the renewed one is the newest
  } else {
    el = h("div", {class: `toast toast-${kind}`}, text);
    box.append(el);
  }
  while (box.children.length > TOASTS_SHOWN) box.firstElementChild.remove();
  const shown = el;
  shown._fade = setTimeout(() => shown.classList.add("toast-out"), ms - 300);
  shown._gone = setTimeout(() => shown.remove(), ms);
}

export function formatClock(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  return `${minutes}:${String(total % 60).padStart(2, "0")}`;
}

/** What the user has typed or chosen in `root`'s form fields (those with an id), and which
 * of them has the focus; the returned function puts it back into a redrawn `root` (same
 * ids), firing "input" and "change" so that the view's own state follows. A language
 * switch redraws a view this way without losing a half-filled form. */
export function keepInputs(root) {
  const fields = [...root.querySelectorAll("input[id], select[id], textarea[id]")]
    .filter((el) => el.type !== "hidden" && el.type !== "file")
    .map((el) => ({id: el.id, checkable: el.type === "checkbox" || el.type === "radio",
                   value: el.value, checked: el.checked}));
  const focused = document.activeElement && root.contains(document.activeElement) ? document.activeElement.id : "";
  return () => {
    for (const field of fields) {
      const el = root.querySelector(`#${CSS.escape(field.id)}`);
      if (!el || el.disabled) continue;
      if (field.checkable ? el.checked === field.checked : el.value === field.value) continue;
      if (field.checkable) el.checked = field.checked;
      else if (el.tagName === "SELECT" && ![...el.options].some((o) => o.value === field.value)) continue;
      else el.value = field.value;
      el.dispatchEvent(new Event("input", {bubbles: true}));
      el.dispatchEvent(new Event("change", {bubbles: true}));
    }
    const again = focused && root.querySelector(`#${CSS.escape(focused)}`);
    if (again) again.focus({preventScroll: true});
  };
}
