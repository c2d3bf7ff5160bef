// @ts-check
/**
 * A two-click action button for dashboard rows (docs/dashboard.md): a first click arms
 * it, a second click within CONFIRM_MS sends one POST with the dashboard secret; the row
 * shows the action in flight, then the daemon's refusal if it refused. The kill button
 * of a process row and the approve button of a waiting publisher are two of these.
 *
 * Invariants: an action is sent only by two clicks on its own row's button (the armed
 * state is keyed by node and subject, and expires); at most one request per row is in
 * flight; the state lives here, not in the DOM, because the rows are rebuilt at every
 * tick.
 */
import { el } from './format.js';

/** How long an armed button waits for its confirming click (ms). */
const CONFIRM_MS = 4000;
/** How long a refusal stays on the row (ms). */
const ERROR_MS = 6000;

/** @typedef {{phase: 'armed'|'sending'|'failed', until: number, error?: string}} ButtonState */

/**
 * What one kind of button says and sends.
 * @typedef {object} ConfirmAction
 * @property {string} cls             CSS class of the button
 * @property {string} dataKey         dataset key naming the subject (e.g. 'pid')
 * @property {string} idle            label at rest
 * @property {string} armed           label once armed
 * @property {string} sending         label while the request is in flight
 * @property {(subject: string) => string} idleTitle
 * @property {(subject: string) => string} armedTitle
 * @property {string} refused         title prefix of a refusal ("not killed")
 * @property {string} url             where the POST goes
 * @property {(subject: string, nodeId: string) => object} body  the JSON body sent
 */

const secret = () => document.querySelector('meta[name="termite-eval-secret"]')?.getAttribute('content') ?? '';

/**
 * The buttons of one action, with their shared state.
 * @param {ConfirmAction} action
 */
export function confirmButtons(action) {
  /** @type {Map<string, ButtonState>} `${node}|${subject}` → its button's state */
  const states = new Map();
  /** @type {() => void} */
  let changed = () => {};

  /** @param {string} key @param {string} subject @param {string} nodeId */
  async function send(key, subject, nodeId) {
    states.set(key, { phase: 'sending', until: Infinity });
    changed();
    const error = await post(action.url, action.body(subject, nodeId));
    if (error === null) states.delete(key);
    else states.set(key, { phase: 'failed', until: Date.now() + ERROR_MS, error });
    changed();
  }

  /**
   * The button acting on `subject` on the node `nodeId`, followed by its refusal if any.
   * @param {string} subject @param {string} nodeId
   */
  function button(subject, nodeId) {
    const key = `${nodeId}|${subject}`;
    let s = states.get(key);
    if (s !== undefined && s.phase !== 'sending' && Date.now() > s.until) {
      states.delete(key);
      s = undefined;
    }
    const label = s?.phase === 'armed' ? action.armed : s?.phase === 'sending' ? action.sending : action.idle;
    const title = s?.phase === 'failed' ? `${action.refused}: ${s.error}` : s?.phase === 'armed' ? action.armedTitle(subject) : action.idleTitle(subject);
    const dataset = { [action.dataKey]: subject, nodeId };
    const b = el('button', { type: 'button', class: `${action.cls}${s ? ` ${s.phase}` : ''}`, title, 'aria-label': title, dataset }, label);
    if (s?.phase === 'sending') b.setAttribute('disabled', '');
    b.addEventListener('click', (e) => {
      e.stopPropagation();
      const now = states.get(key);
      if (now?.phase === 'sending') return;
      if (now?.phase === 'armed' && Date.now() <= now.until) void send(key, subject, nodeId);
      else states.set(key, { phase: 'armed', until: Date.now() + CONFIRM_MS });
      changed();
    });
    return s?.phase === 'failed' ? [b, el('span', { class: 'kill-error', text: s.error, title: s.error })] : [b];
  }

  /** Redraw the rows when a button's state changes. @param {() => void} f */
  const onChange = (f) => {
    changed = f;
  };
  return { button, onChange };
}

/**
 * POST `body` as JSON with the dashboard secret; null when the daemon answered ok,
 * else its error.
 * @param {string} url @param {object} body @returns {Promise<string|null>}
 */
async function post(url, body) {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-termite-eval': secret() },
      body: JSON.stringify(body),
    });
    const d = await res.json().catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
    return res.ok && d.ok === true ? null : String(d.error ?? `HTTP ${res.status}`);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
