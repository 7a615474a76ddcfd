// Redraw in place: bring the elements on the page in line with a freshly built tree, keeping
// each element that is still there. A card or a bid button under the pointer, the focus, a
// scrolled score sheet and a panel's entry animation survive an update that leaves them be;
// only what changed is touched.

import {takeHandlers} from "./dom.js";

/** An element's identity among its siblings: its id, `data-key` or `data-focus-key`. */
function keyOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  return node.id || (node.dataset && (node.dataset.key || node.dataset.focusKey)) || null;
}

/** What an element without a key is matched by: its tag and first class. */
function kindOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return `#${node.nodeType}`;
  const cls = node.getAttribute("class");
  return `${node.nodeName} ${cls ? cls.trim().split(/\s+/, 1)[0] : ""}`;
}

// Inline styles go through the CSSOM: the page's Content-Security-Policy refuses a style attribute.
function syncStyle(el, fresh) {
  const want = fresh.style;
  for (let i = el.style.length - 1; i >= 0; i--) {
    if (!want.getPropertyValue(el.style[i])) el.style.removeProperty(el.style[i]);
  }
  for (let i = 0; i < want.length; i++) {
    const value = want.getPropertyValue(want[i]);
    if (el.style.getPropertyValue(want[i]) !== value) el.style.setProperty(want[i], value);
  }
}

function syncAttributes(el, fresh) {
  for (const name of el.getAttributeNames()) {
    if (name !== "style" && !fresh.hasAttribute(name)) el.removeAttribute(name);
  }
  syncStyle(el, fresh);
  for (const name of fresh.getAttributeNames()) {
    if (name === "style") continue;
    const value = fresh.getAttribute(name);
    if (el.getAttribute(name) !== value) el.setAttribute(name, value);
  }
}

/** Make `el` look and act like `fresh` (same tag), keeping `el` and what it can of its children. */
function morph(el, fresh) {
  if (el.nodeType !== Node.ELEMENT_NODE) {
    if (el.nodeValue !== fresh.nodeValue) el.nodeValue = fresh.nodeValue;
    return;
  }
  syncAttributes(el, fresh);
  takeHandlers(el, fresh);
  patch(el, [...fresh.childNodes]);
}

function toNodes(children) {
  return children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (c instanceof Node ? c : document.createTextNode(String(c))));
}

/**
 * Replace the children of `parent` by `children` (as `mount` in dom.js does), reusing the
 * present child with the same tag and key (or, without a key, the next one of the same kind).
 */
export function patch(parent, ...children) {
  const fresh = toNodes(children);
  const old = [...parent.childNodes];
  const keyed = new Map();
  const loose = [];
  for (const node of old) {
    const key = keyOf(node);
    if (key === null) loose.push(node);
    else if (!keyed.has(`${node.nodeName}#${key}`)) keyed.set(`${node.nodeName}#${key}`, node);
  }
  let next = 0; // the first unkeyed present child not matched yet
  const placed = fresh.map((node) => {
    if (node.isConnected) return node; // an element some component keeps on the page itself
    const key = keyOf(node);
    let match = null;
    if (key !== null) {
      match = keyed.get(`${node.nodeName}#${key}`) || null;
      keyed.delete(`${node.nodeName}#${key}`);
    } else {
      const kind = kindOf(node);
      const at = loose.findIndex((candidate, i) => i >= next && kindOf(candidate) === kind);
      if (at >= 0) {
        match = loose[at];
        next = at + 1;
      }
    }
    if (!match) return node;
    morph(match, node);
    return match;
  });
  const kept = new Set(placed);
  for (const node of old) if (!kept.has(node)) node.remove();
  // the kept children are already in order unless the order changed: move only what must move
  let at = parent.firstChild;
  for (const node of placed) {
    if (node === at) at = at.nextSibling;
    else parent.insertBefore(node, at);
  }
  return parent;
}
