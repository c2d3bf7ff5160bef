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
 * Below a leaf extension (pids, tags, nodes) nothing is looked at. The result is the set
 * of shared objects only (emit looks objects up in it, not in all that were seen), null
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

/** findSpineShared's answer when it cannot decide (a cycle, merging lists, code). */
const UNDECIDED = Symbol('undecided');

/**
 * The objects reached more than once — the ones that need tag 28/29 — or null when no
 * object is (the common case: emit then skips every identity lookup).
 * @param {any} root @param {((unit: any) => void)|undefined} onCode
 * @returns {Set<any> | null}
 */
export function findShared(root, onCode) {
  const fast = findSpineShared(root);
  return fast !== UNDECIDED ? fast : findSharedExact(root, onCode);
}

/**
 * Whether `root` is made only of lists, vectors, bytevectors, mutable strings and
 * immutable values (atoms, leaf extensions) with no object reached twice: then a copy
 * of it needs no memo (copy.js in the runtime, a message between two processes). False
 * when unsure (anything else, or lists that loop or merge).
 * @param {any} root
 */
export function sharesNothing(root) {
  return findSpineShared(root, true) === null;
}

/**
 * findShared for values without code whose lists neither loop nor merge (the common
 * case), with no identity lookup for a list's pairs after its first: only the objects
 * reached otherwise than as a cdr (entries: the root, elements, fields, a dotted tail)
 * are recorded, and each list's last pair. Why that is exact: every entry that is a
 * pair has its list walked, so a pair reached twice — through two cdrs, or through a
 * cdr and as an entry — lies on two walked lists, and two lists that share a pair share
 * their last pair (from the first shared pair on they are the same list): recording
 * last pairs finds every such case. Once none is found, the walked lists are disjoint,
 * every object is reached once per reference to it, and a repeat among the entries is
 * exactly a shared object. A list that loops (Brent's cycle finding meets the tortoise),
 * two lists that share a pair, and any procedure or continuation (their code must be
 * reported once) answer UNDECIDED: findSharedExact decides. With `plainOnly`, so does
 * any object other than a pair, vector, bytevector, mutable string or leaf extension.
 * @param {any} root @param {boolean} [plainOnly]
 * @returns {Set<any> | null | typeof UNDECIDED}
 */
function findSpineShared(root, plainOnly = false) {
  const entries = new Seen();
  const ends = new Seen();
  /** @type {Set<any> | null} */
  let shared = null;
  const stack = [root];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x === null || typeof x !== 'object') continue;
    if (x instanceof Closure || x instanceof Frame) return UNDECIDED;
    const ext = extensionOf(x);
    if (ext !== undefined && ext.leaf === true) continue;
    if (plainOnly && !(x instanceof Pair || Array.isArray(x) || x instanceof MString || x instanceof Uint8Array) && (ext !== undefined || isShareable(x))) return UNDECIDED;
    if (!isShareable(x)) {
      if (x instanceof Record || x instanceof ErrorObject) continue;
      if (ext) for (const f of ext.encode(x)) stack.push(f);
      continue;
    }
    if (entries.add(x)) {
      (shared ??= new Set()).add(x);
      continue;
    }
    if (!(x instanceof Pair)) {
      pushChildren(x, stack);
      continue;
    }
    const last = walkSpine(x, stack);
    if (last === null || ends.add(last)) return UNDECIDED;
  }
  return shared;
}

/**
 * Walk the spine of the list at `x`, stacking its elements (and a dotted tail) that are
 * objects; its last pair, or null if it loops.
 * @param {Pair} x @param {any[]} stack
 * @returns {Pair | null}
 */
function walkSpine(x, stack) {
  let p = x;
  let tortoise = x;
  let power = 1;
  let steps = 0;
  for (;;) {
    const a = p.car;
    if (a !== null && typeof a === 'object') stack.push(a);
    const d = p.cdr;
    if (!(d instanceof Pair)) {
      if (d !== null && typeof d === 'object') stack.push(d);
      return p;
    }
    p = d;
    if (p === tortoise) return null;
    if (++steps === power) {
      tortoise = p;
      power *= 2;
      steps = 0;
    }
  }
}

/**
 * findShared by recording every object with identity it reaches (exported for the tests
 * that compare it with the fast pass).
 * @param {any} root @param {((unit: any) => void)|undefined} onCode
 * @returns {Set<any> | null}
 */
export function findSharedExact(root, onCode) {
  const seen = new Seen();
  /** @type {Set<any> | null} */
  let shared = null;
  const stack = [root];
  while (stack.length > 0) {
    let x = stack.pop();
    if (x === null || typeof x !== 'object') continue;
    if (x instanceof Pair) {
      // the commonest case first: a list's spine in one loop, its cars that are objects
      // stacked (popped in the order a pair-by-pair walk would take them); a pair is
      // shareable and has no code
      do {
        if (seen.add(x)) {
          (shared ??= new Set()).add(x);
          x = null;
          break;
        }
        const a = x.car;
        if (a !== null && typeof a === 'object') stack.push(a);
        x = x.cdr;
      } while (x instanceof Pair);
      if (x !== null && typeof x === 'object') stack.push(x);
      continue;
    }
    // a codec whose fields are never objects (pids, tags, node references): nothing
    // below it can be shared, and its fields need not be listed
    const ext = extensionOf(x);
    if (ext !== undefined && ext.leaf === true) continue;
    if (x instanceof Closure || x instanceof Frame) {
      const ref = codeRefOf(x.lam);
      if (onCode !== undefined && !seen.has(ref)) onCode(x.lam.unit);
      if (seen.add(ref)) (shared ??= new Set()).add(ref);
    }
    if (!isShareable(x)) {
      if (x instanceof Record || x instanceof ErrorObject) continue;
      if (ext) for (const f of ext.encode(x)) stack.push(f);
      continue;
    }
    if (seen.add(x)) (shared ??= new Set()).add(x);
    else pushChildren(x, stack);
  }
  return shared;
}

/** How many objects are kept in a short array, searched linearly, before a Set takes over. */
const SEEN_SMALL = 16;

/**
 * The objects findShared has seen. A message is usually a few objects: they are kept in
 * a short array searched linearly, which costs less than hashing; past SEEN_SMALL
 * objects a Set takes over (one hash operation an object: `add`, and its size says
 * whether it was there).
 */
class Seen {
  constructor() {
    /** @type {any[]} */
    this.keys = [];
    /** @type {Set<any> | null} */
    this.set = null;
  }

  /** @param {any} x */
  has(x) {
    return this.set !== null ? this.set.has(x) : this.keys.indexOf(x) >= 0;
  }

  /**
   * Record x; true if it had been seen before (it is shared).
   * @param {any} x
   */
  add(x) {
    const set = this.set;
    if (set !== null) {
      const n = set.size;
      set.add(x);
      return set.size === n;
    }
    if (this.keys.indexOf(x) >= 0) return true;
    if (this.keys.length < SEEN_SMALL) {
      this.keys.push(x);
      return false;
    }
    this.set = new Set(this.keys).add(x);
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
