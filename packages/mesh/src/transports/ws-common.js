// @ts-check
/**
 * What the Node and browser WebSocket transports share: defaults, URL
 * checks, the wording of close reasons, and the dial guard (abort + timeout).
 */
import { AbortError, DialError, InvalidArgumentError } from '../errors.js';

/** Default largest WebSocket message a connection carries (larger frames are chunked). */
export const DEFAULT_WS_MAX_MESSAGE_BYTES = 1024 * 1024;
/** Default bound on a dial (TCP connect + HTTP upgrade). */
export const DEFAULT_DIAL_TIMEOUT_MS = 10_000;

/**
 * Options of webSocketTransport(init).
 * @typedef {object} WebSocketInit
 * @property {number} [maxMessageBytes] largest message sent or accepted on a
 *   connection; frames above it are chunked by the mesh. (default 1048576)
 * @property {number} [hardLimitBytes] a single WebSocket message above this
 *   closes the connection (code 1009) without being buffered; between
 *   maxMessageBytes and this, the mesh answers FrameTooLargeError and carries
 *   on. Node only. (default 4 × maxMessageBytes)
 * @property {number} [dialTimeoutMs] (default 10000)
 * @property {string} [origin] an `Origin` header on the upgrades this node dials, as a
 *   browser page sends (Node only; the node it dials then knows it as a browser peer:
 *   tests use it to play a tab). (default none)
 */

/** @param {string} url */
export function checkWsUrl(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    throw new InvalidArgumentError(`not a URL: ${JSON.stringify(url)}`);
  }
  if (u.protocol !== 'ws:' && u.protocol !== 'wss:') throw new InvalidArgumentError(`not a ws:// or wss:// URL: ${url}`);
  return u;
}

/** @param {number} code @param {string} reason @param {string | null} localReason @param {Error | null} error */
export function describeClose(code, reason, localReason, error) {
  if (localReason !== null) return localReason;
  const why = reason ? `: ${reason}` : '';
  if (error && /max payload/i.test(error.message)) return `message too big: ${error.message} (code ${code})`;
  if (code === 1006) return `connection lost (code 1006${error ? ', ' + error.message : ''})`;
  if (code === 1009) return `message too big (code 1009${why})`;
  return `closed by peer (code ${code}${why})`;
}

/**
 * Close reasons travel in the WebSocket close frame, which holds 123 bytes.
 * @param {string} reason
 */
export function closeReasonBytes(reason) {
  const enc = new TextEncoder();
  let r = reason;
  while (enc.encode(r).length > 123) r = r.slice(0, r.length - 8);
  return r;
}

/**
 * Await `open` with a time bound and an abort signal; `cancel` tears the
 * half-open socket down on failure.
 * @template T
 * @param {string} url
 * @param {(resolve: (v: T) => void, reject: (e: Error) => void) => void} start
 * @param {() => void} cancel
 * @param {{signal?: AbortSignal, timeoutMs?: number}} options
 * @returns {Promise<T>}
 */
export function guardedDial(url, start, cancel, options) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DIAL_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (/** @type {() => void} */ f) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      f();
    };
    const onAbort = () => finish(() => { cancel(); reject(new AbortError(`dial ${url} aborted`)); });
    const timer = setTimeout(() => finish(() => { cancel(); reject(new DialError(`dial ${url} timed out after ${timeoutMs} ms`)); }), timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    start((v) => finish(() => resolve(v)), (e) => finish(() => { cancel(); reject(e); }));
  });
}
