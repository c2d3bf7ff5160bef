// @ts-check
/**
 * The vector procedures whose work grows with their argument, made resumable
 * (engine/resumable.js): make-vector, vector->list, list->vector, vector-copy,
 * vector-fill!, vector-copy!, vector-append. Each does at most CHUNK elements per call (BUILD_CHUNK of those that build) and continues through its
 * `%<name>/step` builtin.
 *
 * Invariants: a vector being built is an ordinary vector in the state (grown by push, never
 * holey), so a thread stopped between chunks serializes; a step re-checks the vectors and
 * bounds it is given (a program may call a step by name) and never writes into a literal
 * constant; a step that builds re-checks the per-call build limit (engine.js `built`)
 * against what it has built and has left, as the first call did, so a forged state
 * cannot build more; answers and errors are those of the single-call versions.
 */
import { Pair, VOID, schemeErrorOf } from '../values.js';
import { charge, built } from '../engine/engine.js';
import { CHUNK, BUILD_CHUNK, more, defineResumable, defineStep, stateCount } from '../engine/resumable.js';
import { absent, typeError, immutableError, checkRange, checkLength } from './prims-errors.js';

/** @param {string} who @param {any} v @returns {any[]} */
function checkVector(who, v) {
  if (Array.isArray(v)) return v;
  return typeError(who, 'a vector', v);
}

/** @param {string} who @param {any} v @returns {any[]} */
function checkMutableVector(who, v) {
  checkVector(who, v);
  if (Object.isFrozen(v)) immutableError(who, 'cannot mutate a literal constant', v);
  return v;
}

/**
 * A step's index pair: a <= b <= the length of v.
 * @param {string} who @param {any[]} v @param {any} a @param {any} b
 */
function stateRange(who, v, a, b) {
  const i = stateCount(who, a);
  const j = stateCount(who, b);
  if (i > j || j > v.length) schemeErrorOf('type', who, 'bad resumption state', a, b);
  return [i, j];
}

// ------------------------------------------------------------------ make-vector

const makeVectorStep = defineStep('make-vector', 3, (/** @type {any} */ out, /** @type {any} */ left, /** @type {any} */ fill) => {
  const v = checkMutableVector('make-vector', out);
  const n = stateCount('make-vector', left);
  built(v.length + n); // the cap the first call checked: a forged state cannot go past it
  return makeVectorFrom(v, n, fill);
});

/** Push `left` more copies of `fill` onto `out`. @param {any[]} out @param {number} left @param {any} fill */
function makeVectorFrom(out, left, fill) {
  const m = left < BUILD_CHUNK ? left : BUILD_CHUNK;
  for (let i = 0; i < m; i++) out.push(fill);
  charge(built(m));
  return left > m ? more(makeVectorStep, [out, left - m, fill]) : out;
}

defineResumable('make-vector', 1, 1, (/** @type {any} */ k, /** @type {any} */ fill) => {
  const n = checkLength('make-vector', k);
  const x = absent(fill) ? false : fill;
  if (n <= CHUNK) {
    charge(built(n));
    return new Array(n).fill(x);
  }
  built(n); // refuses more than the host allows in one call before anything is built
  return makeVectorFrom([], n, x);
});

// ------------------------------------------------------------------ vector->list

const vectorToListStep = defineStep('vector->list', 4, (/** @type {any} */ v, /** @type {any} */ a, /** @type {any} */ b, /** @type {any} */ l) => {
  const [i, j] = stateRange('vector->list', checkVector('vector->list', v), a, b);
  return vectorToListFrom(v, i, j, l);
});

/** Cons v[a..b) onto l, from the end. @param {any[]} v @param {number} a @param {number} b @param {any} l */
function vectorToListFrom(v, a, b, l) {
  const stop = b - a > BUILD_CHUNK ? b - BUILD_CHUNK : a;
  for (let i = b - 1; i >= stop; i--) l = new Pair(v[i], l);
  charge(built(b - stop));
  return stop > a ? more(vectorToListStep, [v, a, stop, l]) : l;
}

defineResumable('vector->list', 1, 2, (/** @type {any} */ v, /** @type {any} */ start, /** @type {any} */ end) => {
  checkVector('vector->list', v);
  const [a, b] = checkRange('vector->list', start, end, v.length);
  return vectorToListFrom(v, a, b, null);
});

// ------------------------------------------------------------------ list->vector

const listToVectorStep = defineStep('list->vector', 4, (/** @type {any} */ l, /** @type {any} */ out, /** @type {any} */ x, /** @type {any} */ slow) =>
  listToVectorFrom(l, checkMutableVector('list->vector', out), x, slow));

/**
 * Push the elements of `l` from `x` on onto `out` (`slow` the tortoise of the walk).
 * @param {any} l @param {any[]} out @param {any} x @param {any} slow
 */
function listToVectorFrom(l, out, x, slow) {
  const n0 = out.length;
  const stop = n0 + BUILD_CHUNK;
  for (; x instanceof Pair; x = x.cdr) {
    if (out.length === stop) {
      charge(built(BUILD_CHUNK));
      return more(listToVectorStep, [l, out, x, slow]);
    }
    out.push(x.car);
    if ((out.length & 1) === 0) {
      slow = slow.cdr;
      if (slow === x.cdr) schemeErrorOf('type', 'list->vector', 'expected a proper list, got a cyclic list', l);
    }
  }
  charge(built(out.length - n0));
  if (x !== null) typeError('list->vector', 'a proper list', l);
  return out;
}

defineResumable('list->vector', 1, 0, (/** @type {any} */ l) => listToVectorFrom(l, [], l, l));

// ------------------------------------------------------------------ vector-copy

const vectorCopyStep = defineStep('vector-copy', 4, (/** @type {any} */ v, /** @type {any} */ out, /** @type {any} */ a, /** @type {any} */ b) => {
  const [i, j] = stateRange('vector-copy', checkVector('vector-copy', v), a, b);
  return vectorCopyFrom(v, checkMutableVector('vector-copy', out), i, j);
});

/** Push v[a..b) onto out. @param {any[]} v @param {any[]} out @param {number} a @param {number} b */
function vectorCopyFrom(v, out, a, b) {
  const stop = b - a > BUILD_CHUNK ? a + BUILD_CHUNK : b;
  for (let i = a; i < stop; i++) out.push(v[i]);
  charge(built(stop - a));
  return stop < b ? more(vectorCopyStep, [v, out, stop, b]) : out;
}

defineResumable('vector-copy', 1, 2, (/** @type {any} */ v, /** @type {any} */ start, /** @type {any} */ end) => {
  checkVector('vector-copy', v);
  const [a, b] = checkRange('vector-copy', start, end, v.length);
  if (b - a <= CHUNK) {
    charge(built(b - a));
    return v.slice(a, b);
  }
  return vectorCopyFrom(v, [], a, b);
});

// ------------------------------------------------------------------ vector-fill!

const vectorFillStep = defineStep('vector-fill!', 4, (/** @type {any} */ v, /** @type {any} */ x, /** @type {any} */ a, /** @type {any} */ b) => {
  const [i, j] = stateRange('vector-fill!', checkMutableVector('vector-fill!', v), a, b);
  return vectorFillFrom(v, x, i, j);
});

/** Fill v[a..b) with x. @param {any[]} v @param {any} x @param {number} a @param {number} b */
function vectorFillFrom(v, x, a, b) {
  const stop = b - a > CHUNK ? a + CHUNK : b;
  v.fill(x, a, stop);
  charge(built(stop - a));
  return stop < b ? more(vectorFillStep, [v, x, stop, b]) : VOID;
}

defineResumable('vector-fill!', 2, 2, (/** @type {any} */ v, /** @type {any} */ x, /** @type {any} */ start, /** @type {any} */ end) => {
  checkMutableVector('vector-fill!', v);
  const [a, b] = checkRange('vector-fill!', start, end, v.length);
  return vectorFillFrom(v, x, a, b);
});

// ------------------------------------------------------------------ vector-copy!

const vectorCopyIntoStep = defineStep('vector-copy!', 5, (/** @type {any} */ to, /** @type {any} */ at, /** @type {any} */ from, /** @type {any} */ a, /** @type {any} */ b) => {
  const [i, j] = stateRange('vector-copy!', checkVector('vector-copy!', from), a, b);
  const t = stateCount('vector-copy!', at);
  if (t + (j - i) > checkMutableVector('vector-copy!', to).length) schemeErrorOf('type', 'vector-copy!', 'bad resumption state', at);
  return vectorCopyIntoFrom(to, t, from, i, j);
});

/**
 * Copy from[a..b) into to[t..): at most CHUNK elements a call, from the end when the
 * two are the same vector and the destination is after the source (so an overlapping
 * copy reads nothing it already wrote, as R7RS asks).
 * @param {any[]} to @param {number} t @param {any[]} from @param {number} a @param {number} b
 */
function vectorCopyIntoFrom(to, t, from, a, b) {
  const m = b - a > CHUNK ? CHUNK : b - a;
  charge(built(m));
  if (to === from) {
    if (t > a) {
      to.copyWithin(t + (b - a) - m, b - m, b);
      return b - m > a ? more(vectorCopyIntoStep, [to, t, from, a, b - m]) : VOID;
    }
    to.copyWithin(t, a, a + m);
  } else {
    for (let i = 0; i < m; i++) to[t + i] = from[a + i];
  }
  return a + m < b ? more(vectorCopyIntoStep, [to, t + m, from, a + m, b]) : VOID;
}

/**
 * Check the arguments of vector-copy! and return [at, start, end].
 * @param {any[]} to @param {any} at @param {any[]} from @param {any} start @param {any} end
 * @returns {[number, number, number]}
 */
function copyArgs(to, at, from, start, end) {
  const [a, b] = checkRange('vector-copy!', start, end, from.length);
  const [t] = checkRange('vector-copy!', at, undefined, to.length);
  if (to.length - t < b - a) schemeErrorOf('range', 'vector-copy!', 'not enough room in the destination', at, b - a, to.length);
  return [t, a, b];
}

defineResumable('vector-copy!', 3, 2, (/** @type {any} */ to, /** @type {any} */ at, /** @type {any} */ from, /** @type {any} */ start, /** @type {any} */ end) => {
  checkMutableVector('vector-copy!', to);
  checkVector('vector-copy!', from);
  const [t, a, b] = copyArgs(to, at, from, start, end);
  return vectorCopyIntoFrom(to, t, from, a, b);
});

// ------------------------------------------------------------------ vector-append

const vectorAppendStep = defineStep('vector-append', 4, (/** @type {any} */ vs, /** @type {any} */ i, /** @type {any} */ j, /** @type {any} */ out) => {
  if (!Array.isArray(vs)) schemeErrorOf('type', 'vector-append', 'bad resumption state', vs);
  const k = stateCount('vector-append', i);
  const v = checkMutableVector('vector-append', out);
  built(v.length); // what it built so far is within the first call's limit
  return vectorAppendFrom(vs, k, stateCount('vector-append', j), v);
});

/**
 * Push the elements of vs[i] from j on, then of the vectors after it, onto `out`.
 * @param {any[]} vs @param {number} i @param {number} j @param {any[]} out
 */
function vectorAppendFrom(vs, i, j, out) {
  let work = 0;
  for (; i < vs.length; i++, j = 0) {
    const v = checkVector('vector-append', vs[i]);
    if (j > v.length) schemeErrorOf('type', 'vector-append', 'bad resumption state', j);
    const m = Math.min(v.length - j, BUILD_CHUNK - work);
    for (let k = j; k < j + m; k++) out.push(v[k]);
    work += m + 1;
    if (work >= BUILD_CHUNK) {
      charge(built(work));
      return more(vectorAppendStep, [vs, j + m < v.length ? i : i + 1, j + m < v.length ? j + m : 0, out]);
    }
  }
  charge(built(work));
  return out;
}

defineResumable('vector-append', 0, -1, (/** @type {any[]} */ ...vs) => {
  let n = 0;
  for (const v of vs) n += checkVector('vector-append', v).length;
  if (n <= CHUNK) {
    charge(built(n));
    return [].concat(...vs);
  }
  built(n); // refuses more than the host allows in one call before anything is built
  return vectorAppendFrom(vs, 0, 0, []);
});
