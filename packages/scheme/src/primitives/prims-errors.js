// @ts-check
/**
 * R7RS §6.11 error objects (`error`, `error-object?`, `error-object-message`,
 * `error-object-irritants`, `read-error?`, `file-error?`), and the argument checks every
 * primitive file uses to signal its errors in one format:
 *
 *   who = the primitive's name, message = what was expected, irritants = offending values.
 *   `(car 5)`          → kind 'type',  "car: expected a pair" 5
 *   `(vector-ref v 10)` → kind 'range', "vector-ref: index out of range" 10 3
 *
 * `raise`, `with-exception-handler`, `guard` and `error-object-message` on conditions that
 * are not error objects belong to the control primitives (the driver), not here.
 */
import { ErrorObject, SchemeError, DEFAULT, Sym, arrayToList, schemeErrorOf } from '../values.js';
import * as printer from '../printer.js';
import { definePrimitive } from '../engine/registry.js';

// ---------------------------------------------------------------------------------------
// Argument checks shared by the primitive files.

/**
 * Whether an optional argument was omitted (JS `undefined`, or the DEFAULT object when the
 * caller passes it explicitly).
 * @param {any} x
 */
export const absent = (x) => x === undefined || x === DEFAULT;

/**
 * Signal "who: expected <what>" with the offending value as irritant (kind 'type').
 * @param {string} who @param {string} what e.g. "a pair" @param {any} x
 * @returns {never}
 */
export function typeError(who, what, x) {
  return schemeErrorOf('type', who, `expected ${what}`, x);
}

/**
 * The most characters one call may make a string of, or turn between a string's two
 * forms (text and code points): 1,048,576. Making or converting a string is one JS call
 * (a JS string cannot be built in pieces), at 2–30 ns a character for the slowest of
 * them (the code points of a string about to be changed), so this keeps any one call
 * to a few milliseconds on a quiet machine and the node's event loop within its bound
 * (docs/processes.md, "Fairness"). Longer strings can still arrive in a message.
 */
export const STRING_CALL_LIMIT = 2 ** 20;

/**
 * Refuse, with a `resource-limit` error, a string of n characters (or n bytes of UTF-8)
 * past STRING_CALL_LIMIT, before anything is built.
 * @param {string} who @param {number} n
 */
export function checkStringSize(who, n) {
  if (n > STRING_CALL_LIMIT) {
    schemeErrorOf('resource-limit', who, `cannot make a string of ${n} characters in one call: at most ${STRING_CALL_LIMIT} (a longer call would hold the node's event loop)`, n);
  }
}

/**
 * Signal "who: <message>" of kind 'immutable' (literal constants, strings).
 * @param {string} who @param {string} message @param {any} x
 * @returns {never}
 */
export function immutableError(who, message, x) {
  return schemeErrorOf('immutable', who, message, x);
}

/**
 * Whether `k` is an exact integer (a JS number that is an integer, or a bigint).
 * @param {any} k
 */
export const isExactInt = (k) => (typeof k === 'number' && Number.isInteger(k)) || typeof k === 'bigint';

/**
 * Check that `k` is an exact integer with 0 <= k < len and return it as a JS number.
 * @param {string} who @param {any} k @param {number} len
 * @returns {number}
 */
export function checkIndex(who, k, len) {
  if (typeof k === 'number' && Number.isInteger(k) && k >= 0 && k < len) return k;
  if (!isExactInt(k)) typeError(who, 'an exact integer index', k);
  return schemeErrorOf('range', who, 'index out of range', k, len);
}

/**
 * Check an optional bound (a start or end) with lo <= k <= len; `dflt` when absent.
 * @param {string} who @param {any} k @param {number} lo @param {number} len @param {number} dflt
 * @returns {number}
 */
function checkBound(who, k, lo, len, dflt) {
  if (absent(k)) return dflt;
  if (typeof k === 'number' && Number.isInteger(k) && k >= lo && k <= len) return k;
  if (!isExactInt(k)) typeError(who, 'an exact integer index', k);
  return schemeErrorOf('range', who, 'index out of range', k, len);
}

/**
 * Check optional `start` and `end` arguments against a sequence of length `len`
 * (0 <= start <= end <= len) and return them as JS numbers, defaulting to [0, len].
 * @param {string} who @param {any} start @param {any} end @param {number} len
 * @returns {[number, number]}
 */
export function checkRange(who, start, end, len) {
  const s = checkBound(who, start, 0, len, 0);
  const e = checkBound(who, end, s, len, len);
  return [s, e];
}

/** The largest length any sequence may be created with (a JS array's limit). */
const MAX_LENGTH = 2 ** 32 - 1;

/**
 * Check a length or count argument: an exact non-negative integer, no larger than what a JS
 * array or string can hold.
 * @param {string} who @param {any} k
 * @returns {number}
 */
export function checkLength(who, k) {
  if (typeof k === 'number' && Number.isInteger(k) && k >= 0 && k <= MAX_LENGTH) return k;
  if (!isExactInt(k) || k < 0) typeError(who, 'an exact non-negative integer', k);
  return schemeErrorOf('range', who, 'length too large', k);
}

// ---------------------------------------------------------------------------------------
// §6.11 Error objects.

/**
 * `(error message irritant ...)`: raise a new error object of kind 'error'. R7RS says the
 * message should be a string; anything else is accepted and converted as `display` would
 * print it (a symbol gives its name).
 * @param {any} message @param {...any} irritants
 * @returns {never}
 */
function error(message, ...irritants) {
  const text = typeof message === 'string' ? message : message instanceof Sym ? message.name : printer.displayString(message);
  throw new SchemeError(new ErrorObject(text, arrayToList(irritants), 'error', null));
}

/** @param {string} who @param {any} x @returns {ErrorObject} */
function checkErrorObject(who, x) {
  if (x instanceof ErrorObject) return x;
  return typeError(who, 'an error object', x);
}

definePrimitive('error', 1, -1, error);
definePrimitive('error-object?', 1, 1, (/** @type {any} */ x) => x instanceof ErrorObject, { pure: true });
definePrimitive('error-object-message', 1, 1, (/** @type {any} */ x) => checkErrorObject('error-object-message', x).message, { pure: true });
definePrimitive('error-object-irritants', 1, 1, (/** @type {any} */ x) => checkErrorObject('error-object-irritants', x).irritants, {
  pure: true,
});
/**
 * `(error-object-who e)` (Termite, not R7RS): the name of the procedure that signalled the
 * error, as a symbol, or #f for errors raised by `error` and `raise`.
 */
definePrimitive('error-object-who', 1, 1, (/** @type {any} */ x) => {
  const who = checkErrorObject('error-object-who', x).who;
  return who === null ? false : Sym.intern(who);
}, { pure: true });
definePrimitive('read-error?', 1, 1, (/** @type {any} */ x) => x instanceof ErrorObject && x.kind === 'read', { pure: true });
definePrimitive('file-error?', 1, 1, (/** @type {any} */ x) => x instanceof ErrorObject && x.kind === 'file', { pure: true });
