// @ts-check
/**
 * Isolation of processes on one node: a message is copied as it is sent, so two
 * processes never share a mutable object (Termite paper §3.2; docs/processes.md).
 *
 * What is shared rather than copied: everything immutable — numbers, immutable
 * strings, symbols, characters, booleans, pids, tags, nodes, literal constants (frozen),
 * record types, parameters, procedures without free values. What is copied: pairs,
 * vectors, bytevectors, mutable strings, records, boxes, closures with free values,
 * continuation frames, memory ports. Sharing and cycles inside a message are preserved (a memo of what was
 * copied); the copy is iterative, so a long list costs no recursion.
 *
 * A bigger message in which no object is reached twice and that holds only lists,
 * vectors, bytevectors and strings (the codec's sharesNothing: a long list of numbers)
 * is copied with no memo lookups at all.
 *
 * Small messages (the common case) take a fast path with a tiny linear memo instead of
 * a Map: a bounded
 * recursive copy that gives up — and falls back to the general copy — when the message
 * is bigger than a few dozen objects (which also covers any cycle).
 *
 * `!` to a local process copies a bigger message in bounded chunks (copy-job.js), with
 * this file's small copy and its general copy for what fits in one chunk.
 */
import { Pair, Box, Record, Closure, Frame, Values, ErrorObject, Port, Sym, Flonum, Ratnum } from './scheme-data.js';
import { Char, Special, RecordType, MString, Compnum } from '@termite/scheme';
import { ParamKey, charge, sharesNothing } from '@termite/scheme/internal';
import { Pid, Tag, NodeRef, SpaceRef, Formal } from './termite-values.js';

/**
 * Marks the classes whose instances are immutable values, so the copy recognises them
 * with one property load (an inline-cached lookup on the prototype).
 */
const IMMUTABLE = Symbol('termite.immutable');
for (const C of [Sym, Char, Flonum, Ratnum, Compnum, Special, RecordType, ParamKey, Pid, Tag, NodeRef, SpaceRef, Formal]) {
  Object.defineProperty(C.prototype, IMMUTABLE, { value: true });
}

const FAST_BUDGET = 64;

/** @param {any} x */
export function copyMessage(x) {
  const small = copySmall(x, false);
  return small !== GIVE_UP ? small : graphCopy(x);
}

/**
 * The copy of a value shared as it is or of a small message (at most FAST_BUDGET
 * objects), or GIVE_UP: the general copy (graphCopy, or copy-job.js for `!`) must do it.
 * @param {any} x @param {boolean} longVectors whether a long vector of immutable values
 *   gives up too (for `!`, whose general copy is made in chunks)
 */
export function copySmall(x, longVectors) {
  if (typeof x !== 'object' || x === null || x[IMMUTABLE] === true) return x;
  // the commonest message: a pair of two immutable values, e.g. (cons (self) n)
  if (x instanceof Pair) {
    const a = x.car;
    const b = x.cdr;
    if ((typeof a !== 'object' || a === null || a[IMMUTABLE] === true) && (typeof b !== 'object' || b === null || b[IMMUTABLE] === true)) {
      return Object.isFrozen(x) ? x : new Pair(a, b);
    }
  }
  budget = FAST_BUDGET;
  vectorShift = longVectors ? 4 : 31;
  seen = 0;
  const fast = fastCopy(x);
  // drop references to the message from the scratch memo
  for (let i = 0; i < seen; i++) memoFrom[i] = memoTo[i] = null;
  return fast;
}

/** What copySmall answers for a message it does not copy. */
export const GIVE_UP = Symbol('give up');

/**
 * Whether a value is shared by a copy rather than copied: immutable values and literal
 * constants (frozen).
 * @param {any} x
 */
export const isShared = (x) => typeof x !== 'object' || x === null || x[IMMUTABLE] === true || Object.isFrozen(x);

let budget = 0;
/** A vector's length is shifted right by this to count against `budget` (31: not counted). */
let vectorShift = 31;
/** A tiny memo for the fast path (linear search; at most FAST_BUDGET entries). */
const memoFrom = new Array(FAST_BUDGET).fill(null);
const memoTo = new Array(FAST_BUDGET).fill(null);
let seen = 0;

/** @param {any} x @returns {any} */
function fastCopy(x) {
  if (typeof x !== 'object' || x === null || x[IMMUTABLE] === true) return x;
  for (let i = 0; i < seen; i++) if (memoFrom[i] === x) return memoTo[i];
  if (--budget < 0) return GIVE_UP;
  if (x instanceof Pair) {
    if (Object.isFrozen(x)) return x; // a literal constant: immutable, shared
    const out = new Pair(null, null);
    remember(x, out);
    const a = fastCopy(x.car);
    if (a === GIVE_UP) return GIVE_UP;
    const d = fastCopy(x.cdr);
    if (d === GIVE_UP) return GIVE_UP;
    out.car = a;
    out.cdr = d;
    return out;
  }
  if (Array.isArray(x)) {
    if (Object.isFrozen(x)) return x;
    // for `!`, a long vector counts against the budget too (one per 16 elements): copied
    // in one call here, a 1,000,000-element one would hold the event loop (copy-job.js)
    if ((budget -= x.length >> vectorShift) < 0) return GIVE_UP;
    const out = new Array(x.length);
    remember(x, out);
    for (let i = 0; i < x.length; i++) {
      const e = fastCopy(x[i]);
      if (e === GIVE_UP) return GIVE_UP;
      out[i] = e;
    }
    return out;
  }
  if (x instanceof Closure) {
    if (x.fv === null || x.fv.length === 0) return x;
    const fv = new Array(x.fv.length);
    for (let i = 0; i < fv.length; i++) {
      const e = fastCopy(x.fv[i]);
      if (e === GIVE_UP) return GIVE_UP;
      fv[i] = e;
    }
    const out = sameValues(fv, x.fv) ? x : new Closure(x.fn, x.lam, fv);
    remember(x, out);
    return out;
  }
  if (x instanceof MString) {
    const out = copyString(x);
    remember(x, out);
    return out;
  }
  if (needsCopy(x)) return GIVE_UP;
  return x;
}

/** A fresh mutable string with the same characters (in whichever form `s` has them). @param {MString} s */
export const copyString = (s) => new MString(s.s, s.cp === null ? null : s.cp.slice());

/** @param {any} from @param {any} to */
function remember(from, to) {
  if (seen < FAST_BUDGET) {
    memoFrom[seen] = from;
    memoTo[seen] = to;
    seen++;
  }
}

/** @param {any[]} a @param {any[]} b */
function sameValues(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Objects with identity and mutable contents (beyond pairs, vectors, closures). @param {any} x */
function needsCopy(x) {
  return x instanceof Uint8Array || x instanceof Box || x instanceof Record || x instanceof Frame || x instanceof Values || x instanceof ErrorObject || x instanceof Port;
}

/**
 * The general copy: a memo (so sharing and cycles are kept) and an explicit work list.
 * Objects are created empty first and filled afterwards, which is what makes cycles work.
 * @param {any} root
 */
export function graphCopy(root) {
  // a message that shares nothing (a long list of numbers...) is copied with no lookups
  const memo = sharesNothing(root) ? new NoMemo() : new Map();
  try {
    return graphCopyWith(memo, root);
  } finally {
    charge(memo.size * 8); // ~25 ns an object copied: charged to the sending slice (docs/processes.md, "Fairness")
  }
}

/** The memo of a message in which no object is reached twice: nothing to look up; it counts the copies (the charge). */
class NoMemo {
  size = 0;
  get() { return undefined; }
  has() { return false; }
  set() { this.size++; return this; }
}

/** graphCopy's work, with its memo of what was copied. @param {Map<any, any>|NoMemo} memo @param {any} root */
function graphCopyWith(memo, root) {
  /** @type {(() => void)[]} */
  const fill = [];
  /** @param {any} x @returns {any} */
  const copy = (x) => {
    if (typeof x !== 'object' || x === null || x[IMMUTABLE] === true || Object.isFrozen(x)) return x;
    const seen = memo.get(x);
    if (seen !== undefined) return seen;
    /** @type {any} the copy, filled in later (its parts may refer back to it) */
    let out;
    if (x instanceof Pair) {
      return copySpine(x, memo, fill, copy);
    } else if (Array.isArray(x)) {
      out = new Array(x.length);
      fill.push(() => {
        for (let i = 0; i < x.length; i++) out[i] = copy(x[i]);
      });
    } else if (x instanceof Uint8Array) {
      out = x.slice();
    } else if (x instanceof MString) {
      out = copyString(x);
    } else if (x instanceof Closure) {
      if (x.fv === null || x.fv.length === 0) return x;
      const fv = x.fv;
      out = new Closure(x.fn, x.lam, new Array(fv.length));
      fill.push(() => {
        for (let i = 0; i < fv.length; i++) out.fv[i] = copy(fv[i]);
      });
    } else if (x instanceof Box) {
      out = new Box(null);
      fill.push(() => {
        out.v = copy(x.v);
      });
    } else if (x instanceof Record) {
      out = new Record(x.rtd, new Array(x.f.length));
      fill.push(() => {
        for (let i = 0; i < x.f.length; i++) out.f[i] = copy(x.f[i]);
      });
    } else if (x instanceof Frame) {
      out = new Frame(x.lam, x.label, new Array(x.s.length), null);
      fill.push(() => {
        for (let i = 0; i < x.s.length; i++) out.s[i] = copy(x.s[i]);
        out.next = copy(x.next);
      });
    } else if (x instanceof Values) {
      out = new Values(new Array(x.vals.length));
      fill.push(() => {
        for (let i = 0; i < x.vals.length; i++) out.vals[i] = copy(x.vals[i]);
      });
    } else if (x instanceof ErrorObject) {
      out = new ErrorObject(x.message, null, x.kind, x.who);
      out.loc = x.loc;
      fill.push(() => {
        out.irritants = copy(x.irritants);
      });
    } else if (x instanceof Port) {
      out = copyPort(x);
    } else {
      return x; // pids, tags, nodes, symbols, chars, flonums, ratnums, specials: immutable
    }
    memo.set(x, out);
    return out;
  };
  const result = copy(root);
  for (let i = 0; i < fill.length; i++) fill[i]();
  return result;
}

/**
 * graphCopy of a pair: a list's spine is copied in one loop (a long list is the
 * commonest big message): each pair not met before gets its copy at once, linked to the
 * next; only the cars (and a last cdr) that are themselves mutable wait in `fill`.
 * @param {Pair} x @param {Map<any, any>|NoMemo} memo @param {(() => void)[]} fill
 * @param {(x: any) => any} copy graphCopy's copy of any value
 */
function copySpine(x, memo, fill, copy) {
  const head = new Pair(null, null);
  memo.set(x, head);
  let from = x;
  let to = head;
  for (;;) {
    const a = from.car;
    if (typeof a !== 'object' || a === null || a[IMMUTABLE] === true) to.car = a;
    else fill.push(fillCar(to, a, copy));
    const d = from.cdr;
    if (d instanceof Pair && !Object.isFrozen(d) && !memo.has(d)) {
      const next = new Pair(null, null);
      memo.set(d, next);
      to.cdr = next;
      to = next;
      from = d;
      continue;
    }
    if (typeof d !== 'object' || d === null || d[IMMUTABLE] === true) to.cdr = d;
    else fill.push(fillCdr(to, d, copy));
    return head;
  }
}

/** @param {Pair} to @param {any} a @param {(x: any) => any} copy */
const fillCar = (to, a, copy) => () => {
  to.car = copy(a);
};

/** @param {Pair} to @param {any} d @param {(x: any) => any} copy */
const fillCdr = (to, d, copy) => () => {
  to.cdr = copy(d);
};

/**
 * A memory port is copied with its unread input and accumulated output; other ports
 * (console, process, file) are resources and are shared.
 * @param {any} p
 */
export function copyPort(p) {
  if (p.kind === 'string-output' || p.kind === 'string-input' || p.kind === 'bytevector-output' || p.kind === 'bytevector-input') {
    const q = Object.create(Object.getPrototypeOf(p));
    Object.assign(q, p);
    if (p.outBytes instanceof Uint8Array) q.outBytes = p.outBytes.slice();
    return q;
  }
  return p;
}
