// @ts-check
/**
 * The approve button of a library publisher waiting for approval (docs/dashboard.md,
 * "Libraries"): a first click arms it ("approve?"), a second click within CONFIRM_MS
 * sends POST /api/libraries/approve with the dashboard secret to the daemon serving this
 * page, which then trusts the publisher (kept in its DATA/trust) and lets the installs
 * waiting for it go on; the row shows the error if the daemon refused.
 *
 * Invariants: a publisher is approved only by two clicks on its own row's button (the
 * armed state is keyed by node and publisher, and expires); at most one request per row
 * is in flight; the state lives here, not in the DOM (the rows are rebuilt every tick).
 */
import { el } from './format.js';

/** How long an armed button waits for its confirming click (ms). */
const CONFIRM_MS = 4000;
/** How long a refusal stays on the row (ms). */
const ERROR_MS = 6000;

/** @type {Map<string, {phase: 'armed'|'sending'|'failed', until: number, error?: string}>} */
const states = new Map();
/** @type {() => void} */
let changed = () => {};
const secret = () => document.querySelector('meta[name="termite-eval-secret"]')?.getAttribute('content') ?? '';

/** Redraw the rows when a button's state changes. @param {() => void} f */
export function onApproveChange(f) {
  changed = f;
}

/**
 * The button approving `publisher` on the node `nodeId` (the daemon serving this page
 * approves only for itself: another node's row shows its refusal).
 * @param {string} publisher @param {string} nodeId
 */
export function approveButton(publisher, nodeId) {
  const key = `${nodeId}|${publisher}`;
  let s = states.get(key);
  if (s !== undefined && s.phase !== 'sending' && Date.now() > s.until) {
    states.delete(key);
    s = undefined;
  }
  const label = s?.phase === 'armed' ? 'approve?' : s?.phase === 'sending' ? 'approving…' : 'approve';
  const title = s?.phase === 'failed' ? `not approved: ${s.error}` : `trust publisher ${publisher} on this node (asks to confirm)`;
  const b = el('button', { type: 'button', class: `approve${s ? ` ${s.phase}` : ''}`, title, 'aria-label': title, dataset: { publisher, nodeId } }, label);
  if (s?.phase === 'sending') b.setAttribute('disabled', '');
  b.addEventListener('click', (e) => {
    e.stopPropagation();
    const now = states.get(key);
    if (now?.phase === 'sending') return;
    if (now?.phase === 'armed' && Date.now() <= now.until) void send(key, publisher, nodeId);
    else states.set(key, { phase: 'armed', until: Date.now() + CONFIRM_MS });
    changed();
  });
  return s?.phase === 'failed' ? [b, el('span', { class: 'kill-error', text: s.error, title: s.error })] : [b];
}

/** @param {string} key @param {string} publisher @param {string} nodeId */
async function send(key, publisher, nodeId) {
  states.set(key, { phase: 'sending', until: Infinity });
  changed();
  let error = null;
  try {
    const res = await fetch('/api/libraries/approve', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-termite-eval': secret() },
      body: JSON.stringify({ publisher, node: nodeId }),
    });
    const d = await res.json().catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
    if (!res.ok || d.ok !== true) error = String(d.error ?? `HTTP ${res.status}`);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  if (error === null) states.delete(key);
  else states.set(key, { phase: 'failed', until: Date.now() + ERROR_MS, error });
  changed();
}
