// @ts-check
/**
 * Where each list, vector and bytevector read from a text starts: the source locations
 * the expander and the error messages use.
 *
 * Invariant: the location of any of the last GENERATION objects recorded is known, and of
 * up to GENERATION more before them; older ones may be forgotten (and their data freed).
 * Keys are compared by identity; recording never keeps more than 2 × GENERATION entries.
 */

/** @typedef {{file: string, line: number, col: number}} SourceLocation */

// Locations are kept in two generations of strong Maps, not in a WeakMap: V8's WeakMap
// costs 2-3 µs per entry for short-lived keys and its garbage collection degrades badly
// (minutes) past a few million entries. The newest GENERATION entries are always kept,
// the GENERATION before them too; older ones are dropped (and their data may be freed).
// So the locations of the last 500,000 to 1,000,000 lists and vectors read are known,
// which covers any source file the expander is working on. `read` on a port does not
// need locations and should pass `{locations: false}`.
const GENERATION = 500_000;
/** @type {Map<object, SourceLocation>} */
let recentLocations = new Map();
/** @type {Map<object, SourceLocation>} */
let olderLocations = new Map();

/**
 * The source location of a list (its first pair), vector or bytevector read by a Reader.
 * @param {any} obj @returns {SourceLocation|undefined}
 */
export function locationOf(obj) {
  if (obj === null || typeof obj !== 'object') return undefined;
  return recentLocations.get(obj) ?? olderLocations.get(obj);
}

/**
 * Record a location for an object (for example a form the expander builds from a source
 * form, so that errors in it can still be reported at a place in the file).
 * @param {object} obj @param {SourceLocation} loc
 */
export function setLocation(obj, loc) {
  if (recentLocations.size >= GENERATION) {
    olderLocations = recentLocations;
    recentLocations = new Map();
  }
  recentLocations.set(obj, loc);
}
