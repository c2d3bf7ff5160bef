// @ts-check
/**
 * Waiting with a bound, and saying why something failed: what the dashboard's sampling
 * and its REPL need so that a slow or dead node never holds a request or a tick forever.
 *
 * Invariant: the bound's timer never keeps the process alive (unref) and is cleared as
 * soon as the promise settles.
 */

/**
 * `p`, or a rejection naming `what` if it takes longer than `ms`.
 * @template T
 * @param {Promise<T>} p @param {number} ms @param {string} what
 * @returns {Promise<T>}
 */
export function bounded(p, ms, what) {
  /** @type {NodeJS.Timeout|undefined} */
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    timer.unref();
  });
  return /** @type {Promise<T>} */ (Promise.race([p, timeout]).finally(() => clearTimeout(timer)));
}

/** The message of an error, or the thrown value as text. @param {unknown} e */
export function errorText(e) {
  return e instanceof Error ? e.message : String(e);
}
