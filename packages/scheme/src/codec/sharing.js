// @ts-check
/**
 * The two-pass encoder's first pass: which objects of a value are reached more than
 * once, so that the second pass (emit.js) marks them with tag 28 and refers to them by
 * tag 29 (shared structure and cycles survive a round trip).
 *
 * Invariants: the walk is iterative (an explicit stack), so a 1,000,000-element list
 * costs no recursion; only objects with identity (pairs, vectors, bytevectors, boxes,
 * closures, frames, records, record types, error objects, multiple values, and
 * extension values registered as shareable) are counted, and a code reference is
 * counted once per closure or frame that names it (it is shared as soon as two do).
 * Below a leaf extension (pids, tags, nodes) nothing is looked at. The result is null
 * when nothing is shared, the common case, so emit skips every identity lookup.
 */
import { Pair, Closure, Frame, Box, Record, RecordType, Values, ErrorObject, MString } from '../values.js';
import { extensionOf } from './registry.js';
import { codeRefOf } from './code-ref.js';
import { stringsAsText } from './emit.js';

/** @param {any} x */
function isShareable(x) {
  return (
    x instanceof Pair || Array.isArray(x) || x instanceof Uint8Array || x instanceof Closure ||
    x instanceof Frame || x instanceof Box || x instanceof Record || x instanceof RecordType ||
    x instanceof ErrorObject || x instanceof Values || (x instanceof MString && !stringsAsText()) || (x !== null && typeof x === 'object' && extensionOf(x)?.shareable === true)
  );
}

/**
 * Objects reached more than once (count 2) — the ones that need tag 28/29 — or null
 * when no object is (the common case: emit then skips every identity lookup).
 * @param {any} root @param {((unit: any) => void)|undefined} onCode
 * @returns {SeenCounts | null} object → 1 (seen once) or 2 (shared)
 */
export function findShared(root, onCode) {
  const seen = new SeenCounts();
  let sharing = false;
  const stack = [root];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x === null || typeof x !== 'object') continue;
    if (x instanceof Pair) {
      // the commonest case first; a pair is shareable and has no code
      if (seen.bump(x)) sharing = true;
      else stack.push(x.car, x.cdr);
      continue;
    }
    // a codec whose fields are never objects (pids, tags, node references): nothing
    // below it can be shared, and its fields need not be listed
    const ext = extensionOf(x);
    if (ext !== undefined && ext.leaf === true) continue;
    if (x instanceof Closure || x instanceof Frame) {
      const ref = codeRefOf(x.lam);
      if (onCode !== undefined && seen.get(ref) === undefined) onCode(x.lam.unit);
      if (seen.bump(ref)) sharing = true;
    }
    if (!isShareable(x)) {
      if (x instanceof Record || x instanceof ErrorObject) continue;
      if (ext) for (const f of ext.encode(x)) stack.push(f);
      continue;
    }
    if (seen.bump(x)) sharing = true;
    else pushChildren(x, stack);
  }
  return sharing ? seen : null;
}

/** How many encodings of small values keep their seen objects in arrays. */
const SEEN_SMALL = 16;

/**
 * Objects seen by findShared and how often (1 or 2). A message is usually a few
 * objects: they are kept in two short arrays searched linearly, which costs less than
 * a Map's hashing; past SEEN_SMALL objects a Map takes over.
 */
export class SeenCounts {
  constructor() {
    /** @type {any[]} */
    this.keys = [];
    /** @type {number[]} */
    this.counts = [];
    /** @type {Map<any, number> | null} */
    this.map = null;
  }

  /** @param {any} x @returns {number | undefined} */
  get(x) {
    if (this.map !== null) return this.map.get(x);
    const i = this.keys.indexOf(x);
    return i < 0 ? undefined : this.counts[i];
  }

  /**
   * Count one more sighting of x; true if it had been seen before (it is shared).
   * @param {any} x
   */
  bump(x) {
    const map = this.map;
    if (map !== null) {
      const had = map.has(x);
      map.set(x, had ? 2 : 1);
      return had;
    }
    const i = this.keys.indexOf(x);
    if (i >= 0) {
      this.counts[i] = 2;
      return true;
    }
    if (this.keys.length < SEEN_SMALL) {
      this.keys.push(x);
      this.counts.push(1);
      return false;
    }
    const m = new Map();
    for (let k = 0; k < this.keys.length; k++) m.set(this.keys[k], this.counts[k]);
    m.set(x, 1);
    this.map = m;
    return false;
  }
}

/** @param {any} x @param {any[]} stack */
function pushChildren(x, stack) {
  if (x instanceof Pair) {
    stack.push(x.car, x.cdr);
  } else if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) stack.push(x[i]);
  } else if (x instanceof Closure) {
    if (x.fv) for (const v of x.fv) stack.push(v);
  } else if (x instanceof Frame) {
    for (const v of x.s) stack.push(v);
    stack.push(x.next);
  } else if (x instanceof Box) {
    stack.push(x.v);
  } else if (x instanceof Record) {
    stack.push(x.rtd);
    for (const v of x.f) stack.push(v);
  } else if (x instanceof ErrorObject) {
    stack.push(x.irritants);
  } else if (x instanceof Values) {
    for (const v of x.vals) stack.push(v);
  } else {
    const ext = extensionOf(x);
    if (ext) for (const f of ext.encode(x)) stack.push(f);
  }
}
