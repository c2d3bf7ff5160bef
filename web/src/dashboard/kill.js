// @ts-check
/**
 * The kill button of a process row (docs/dashboard.md, "Processes"): a first click
 * arms it ("kill?"), a second click within CONFIRM_MS sends POST /api/kill with the
 * dashboard secret; the row shows "killing…", then the error if the daemon refused.
 *
 * Invariants: a process is killed only by two clicks on its own row's button (the
 * armed state is keyed by node and pid, and expires); at most one request per row is
 * in flight; the state lives here, not in the DOM, because the rows are rebuilt at
 * every tick.
 */
import { el } from './format.js';

/** How long an armed button waits for its confirming click (ms). */
const CONFIRM_MS = 4000;
/** How long a refusal stays on the row (ms). */
const ERROR_MS = 6000;

/** @typedef {{phase: 'armed'|'sending'|'failed', until: number, error?: string}} KillState */

/** @type {Map<string, KillState>} `${node}|${pid}` → its button's state */
const states = new Map();
/** @type {() => void} */
let changed = () => {};
const secret = () => document.querySelector('meta[name="termite-eval-secret"]')?.getAttribute('content') ?? '';

/** Redraw the rows when a button's state changes. @param {() => void} f */
export function onKillChange(f) {
  changed = f;
}

/**
 * The button for the process `pid` (as the snapshot lists it) on the node `nodeId`.
 * @param {string} pid @param {string} nodeId
 */
export function killButton(pid, nodeId) {
  const key = `${nodeId}|${pid}`;
  let s = states.get(key);
  if (s !== undefined && s.phase !== 'sending' && Date.now() > s.until) {
    states.delete(key);
    s = undefined;
  }
  const label = s === undefined ? '✕' : s.phase === 'armed' ? 'kill?' : s.phase === 'sending' ? 'killing…' : '✕';
  const title = s?.phase === 'failed' ? `not killed: ${s.error}` : s?.phase === 'armed' ? `click again to terminate ${pid}` : `terminate ${pid} (asks to confirm)`;
  const b = el('button', { type: 'button', class: `kill${s ? ` ${s.phase}` : ''}`, title, 'aria-label': title, dataset: { pid, nodeId } }, label);
  if (s?.phase === 'sending') b.setAttribute('disabled', '');
  b.addEventListener('click', (e) => {
    e.stopPropagation();
    const now = states.get(key);
    if (now?.phase === 'sending') return;
    if (now?.phase === 'armed' && Date.now() <= now.until) void send(key, pid, nodeId);
    else states.set(key, { phase: 'armed', until: Date.now() + CONFIRM_MS });
    changed();
  });
  return s?.phase === 'failed' ? [b, el('span', { class: 'kill-error', text: s.error, title: s.error })] : [b];
}

/** @param {string} key @param {string} pid @param {string} nodeId */
async function send(key, pid, nodeId) {
  states.set(key, { phase: 'sending', until: Infinity });
  changed();
  let error = null;
  try {
    const res = await fetch('/api/kill', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-termite-eval': secret() },
      body: JSON.stringify({ pid, at: nodeId }),
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
