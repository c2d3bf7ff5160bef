// @ts-check
/**
 * What the blocking calls of Core and Space share: the results that say a
 * process now waits or its timeout had passed, the options bounding a wait
 * (clock and absolute time), and the check of a clock id.
 *
 * Invariant: BLOCKED and TIMED_OUT are registered symbols, so they are the
 * same values in every copy of this package loaded in one realm.
 */
import { InvalidArgumentError } from './errors.js';
import { CLOCKS } from './layout.js';

/** Returned by blocking operations whose process now waits. */
export const BLOCKED = Symbol.for('termite.core.blocked');
/** Returned by receiveOrWait when the timeout had already passed. */
export const TIMED_OUT = Symbol.for('termite.core.timed-out');

/**
 * @typedef {object} WaitOptions
 * @property {number} [clock] clock id (0..3) the timeout is measured on
 *   (default 0)
 * @property {number} [timeoutAt] absolute time on that clock in ms;
 *   Infinity (the default) waits forever
 */

/** @param {unknown} n @param {string} what */
export function checkClock(n, what) {
  if (!Number.isInteger(n) || /** @type {number} */ (n) < 0 || /** @type {number} */ (n) >= CLOCKS)
    throw new InvalidArgumentError(`${what}: clock must be an integer 0..${CLOCKS - 1}, got ${String(n)}`);
}
