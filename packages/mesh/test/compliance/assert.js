// @ts-check
/**
 * The few assertions the compliance suite needs, without node:assert, so the
 * suite bundles for Chromium unchanged.
 */

/** @param {unknown} cond @param {string} message @returns {asserts cond} */
export function ok(cond, message) {
  if (!cond) throw new Error(`assertion failed: ${message}`);
}

/** @param {unknown} actual @param {unknown} expected @param {string} what */
export function equal(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: expected ${String(expected)}, got ${String(actual)}`);
}

/** @param {Uint8Array} a @param {Uint8Array} b @param {string} what */
export function equalBytes(a, b, what) {
  if (a.length !== b.length) throw new Error(`${what}: length ${a.length}, expected ${b.length}`);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) throw new Error(`${what}: byte ${i} is ${a[i]}, expected ${b[i]}`);
}

/**
 * @param {() => unknown} fn @param {string} name expected error name @param {string} what
 */
export function throwsNamed(fn, name, what) {
  try {
    fn();
  } catch (e) {
    if (/** @type {Error} */ (e).name !== name) throw new Error(`${what}: threw ${/** @type {Error} */ (e).name}, expected ${name}`);
    return /** @type {Error} */ (e);
  }
  throw new Error(`${what}: did not throw (expected ${name})`);
}

/**
 * @param {Promise<unknown>} p @param {string} name @param {string} what
 */
export async function rejectsNamed(p, name, what) {
  try {
    await p;
  } catch (e) {
    if (/** @type {Error} */ (e).name !== name) throw new Error(`${what}: rejected with ${/** @type {Error} */ (e).name} (${/** @type {Error} */ (e).message}), expected ${name}`);
    return /** @type {Error} */ (e);
  }
  throw new Error(`${what}: resolved (expected ${name})`);
}

/**
 * Await `p` for at most `ms`; the timer never outlives the wait.
 * @template T @param {Promise<T>} p @param {number} ms @param {string} what @returns {Promise<T>}
 */
export function within(p, ms, what) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let t;
  return Promise.race([p, new Promise((_, reject) => { t = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}
