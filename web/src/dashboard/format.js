// @ts-check
/** Small formatting helpers shared by the dashboard's views. */

/** @param {string} id a node id (32 base-32 characters) @returns {string} */
export const shortId = (id) => (id ? id.slice(0, 6) : '?');

/**
 * A node's display name: a daemon by its address, a tab by its short id.
 * @param {any} n a node snapshot (or {id, kind})
 */
export function nodeName(n) {
  if (!n) return '?';
  if (n.unreachable) return `${shortId(n.id)} (unreachable)`;
  if (n.kind === 'tab') return `tab ${shortId(n.id)}`;
  return n.address ? n.address : `${n.kind ?? 'node'} ${shortId(n.id)}`;
}

/** @param {number} x @returns {string} a rate or count, compact: 0, 7, 12.5, 1.2k, 34k, 1.2M */
export function compact(x) {
  if (!Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  if (a < 10) return a === Math.round(a) ? String(Math.round(x)) : x.toFixed(1);
  if (a < 1000) return String(Math.round(x));
  if (a < 1e4) return `${(x / 1000).toFixed(1)}k`;
  if (a < 1e6) return `${Math.round(x / 1000)}k`;
  return `${(x / 1e6).toFixed(1)}M`;
}

/** @param {number} ms @returns {string} */
export function rtt(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return 'RTT not measured yet';
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${Math.round(ms)} ms`;
}

/** @param {number} t ms since the epoch @returns {string} HH:MM:SS */
export function clock(t) {
  const d = new Date(t);
  const p = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * Create an element: el('div', {class: 'x', dataset: {a: '1'}}, child, 'text').
 * @param {string} tag @param {Record<string, any>} [attrs] @param {...(Node|string|null|undefined|false)} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

const SVG = 'http://www.w3.org/2000/svg';
/**
 * Create an SVG element with attributes.
 * @param {string} tag @param {Record<string, any>} [attrs]
 * @returns {SVGElement}
 */
export function svg(tag, attrs = {}) {
  const e = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  return e;
}
