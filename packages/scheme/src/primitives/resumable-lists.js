// @ts-check
/**
 * The list procedures whose work grows with their argument, made resumable
 * (engine/resumable.js): length, list-tail, list-ref, list-set!, memq, memv, %member,
 * assq, assv, %assoc, reverse, list-copy, append, make-list. Each does at most CHUNK
 * elements of a walk (BUILD_CHUNK of those that build)
 * elements per call and continues through its `%<name>/step` builtin, so a walk over a
 * list of millions of pairs is a series of calls the scheduler can preempt between.
 *
 * Invariants (as prims-lists.js): every walk that could meet a cyclic list runs Floyd's
 * tortoise and hare, with the tortoise carried in the state across chunks, so a cyclic
 * argument gives an error instead of a walk without end; errors name the procedure the
 * program called and the whole argument as irritant; the answer is the one the
 * single-call version gave (proper-list checks, shared last argument of append, improper
 * tail kept by list-copy).
 */
import { Pair, VOID, schemeErrorOf } from '../values.js';
import { charge, walked, built } from '../engine/engine.js';
import { CHUNK, BUILD_CHUNK, more, defineResumable, defineStep, stateCount } from '../engine/resumable.js';
import { equalWithin, equalStepsUsed, isEqv } from './prims-equivalence.js';
import { continueEqual } from './resumable-equal.js'; // also defines equal? itself
import { absent, typeError, immutableError, checkLength, isExactInt } from './prims-errors.js';

/** @param {string} who @param {any} l @returns {never} */
const cyclic = (who, l) => schemeErrorOf('type', who, 'expected a proper list, got a cyclic list', l);

// ------------------------------------------------------------------ length

const lengthStep = defineStep('length', 4, (/** @type {any} */ l, /** @type {any} */ x, /** @type {any} */ n, /** @type {any} */ slow) =>
  lengthFrom(l, x, stateCount('length', n), slow));

/**
 * Count the pairs of `l` from `x` on (n counted so far, `slow` the tortoise).
 * @param {any} l @param {any} x @param {number} n @param {any} slow
 */
function lengthFrom(l, x, n, slow) {
  const n0 = n;
  const stop = n + CHUNK;
  while (x instanceof Pair) {
    if (n === stop) {
      charge(walked(CHUNK));
      return more(lengthStep, [l, x, n, slow]);
    }
    x = x.cdr;
    n++;
    if ((n & 1) === 0) {
      slow = slow.cdr;
      if (slow === x) cyclic('length', l);
    }
  }
  charge(walked(n - n0));
  if (x !== null) typeError('length', 'a proper list', l);
  return n;
}

defineResumable('length', 1, 0, (/** @type {any} */ l) => lengthFrom(l, l, 0, l));

// ------------------------------------------------------------------ list-tail, list-ref, list-set!

/** What a walk of k pairs does at its end: 0 list-tail, 1 list-ref, 2 list-set!. */
const TAIL_WHO = ['list-tail', 'list-ref', 'list-set!'];

const tailStep = defineStep('list-tail', 6, (/** @type {any} */ mode, /** @type {any} */ l, /** @type {any} */ x, /** @type {any} */ left, /** @type {any} */ k, /** @type {any} */ v) => {
  if (mode !== 0 && mode !== 1 && mode !== 2) schemeErrorOf('type', 'list-tail', 'bad resumption state', mode);
  return tailFrom(mode, l, x, stateCount('list-tail', left), k, v);
});

/** @param {string} who @param {any} k */
function checkCount(who, k) {
  if (typeof k === 'number' && Number.isInteger(k) && k >= 0) return k;
  if (isExactInt(k) && k > 0) return schemeErrorOf('range', who, 'index out of range', k);
  return typeError(who, 'an exact non-negative integer', k);
}

/**
 * Walk `left` more pairs from `x`, then finish as `mode` says.
 * @param {number} mode @param {any} l @param {any} x @param {number} left @param {any} k @param {any} v
 */
function tailFrom(mode, l, x, left, k, v) {
  const who = TAIL_WHO[mode];
  const m = left < CHUNK ? left : CHUNK;
  for (let i = 0; i < m; i++) {
    if (!(x instanceof Pair)) schemeErrorOf('range', who, 'index out of range', k, l);
    x = x.cdr;
  }
  charge(walked(m));
  if (left > m) return more(tailStep, [mode, l, x, left - m, k, v]);
  if (mode === 0) return x;
  if (!(x instanceof Pair)) schemeErrorOf('range', who, 'index out of range', k, l);
  if (mode === 1) return x.car;
  if (Object.isFrozen(x)) immutableError(who, 'cannot mutate a literal constant', x);
  x.car = v;
  return VOID;
}

defineResumable('list-tail', 2, 0, (/** @type {any} */ l, /** @type {any} */ k) => tailFrom(0, l, l, checkCount('list-tail', k), k, false));
defineResumable('list-ref', 2, 0, (/** @type {any} */ l, /** @type {any} */ k) => tailFrom(1, l, l, checkCount('list-ref', k), k, false));
defineResumable('list-set!', 3, 0, (/** @type {any} */ l, /** @type {any} */ k, /** @type {any} */ v) => {
  if (l instanceof Pair || l === null) return tailFrom(2, l, l, checkCount('list-set!', k), k, v);
  return typeError('list-set!', 'a pair', l);
});

// ------------------------------------------------------------------ memq ... %assoc

/** @param {any} a @param {any} b */
const isEq = (a, b) => a === b;

/**
 * The searches, by mode: [name, sameness, whether the list is an association list];
 * sameness null: equal?, compared by a bounded walk (resumable-equal.js) so that one
 * long comparison is cut into calls too.
 */
const SEARCHES = /** @type {const} */ ([
  ['memq', isEq, false], ['memv', isEqv, false], ['member', null, false],
  ['assq', isEq, true], ['assv', isEqv, true], ['assoc', null, true],
]);

/** @param {any} mode */
function searchMode(mode) {
  if (!(stateCount('memq', mode) < SEARCHES.length)) schemeErrorOf('type', 'memq', 'bad resumption state', mode);
  return mode;
}

/** @param {any} slow */
function tortoise(slow) {
  if (!(slow instanceof Pair)) schemeErrorOf('type', 'memq', 'bad resumption state', slow);
  return slow;
}

const searchStep = defineStep('memq', 6, (/** @type {any} */ mode, /** @type {any} */ x, /** @type {any} */ l, /** @type {any} */ p, /** @type {any} */ n, /** @type {any} */ slow) =>
  searchFrom(searchMode(mode), x, l, p, stateCount('memq', n), tortoise(slow)));

/**
 * Where a search goes on after the equal? comparison of the element at `p` was cut
 * into calls: `answer` is that comparison's.
 */
const afterEqualStep = defineStep('member', 7, (/** @type {any} */ answer, /** @type {any} */ mode, /** @type {any} */ x, /** @type {any} */ l, /** @type {any} */ p, /** @type {any} */ n, /** @type {any} */ slow) => {
  if (typeof answer !== 'boolean' || SEARCHES[searchMode(mode)][1] !== null || !(p instanceof Pair)) schemeErrorOf('type', 'member', 'bad resumption state', answer, mode);
  const isAss = SEARCHES[mode][2];
  if (answer) return isAss ? p.car : p;
  return searchNext(mode, x, l, p, stateCount('member', n), tortoise(slow), 0);
});

/**
 * The first tail of `l` (from `p` on) whose car matches `x`, or for an association list
 * the first entry whose car does; #f when none does. `n` counts the elements passed
 * (the tortoise's pace); `work` bounds what this call does: one an element, plus the
 * steps of equal? comparisons (which charge for themselves).
 * @param {number} mode @param {any} x @param {any} l @param {any} p @param {number} n @param {any} slow
 * @param {number} [work]
 */
function searchFrom(mode, x, l, p, n, slow, work = 0) {
  const [who, same, isAss] = SEARCHES[mode];
  const n0 = n;
  for (; p instanceof Pair; p = p.cdr) {
    if (work >= CHUNK) {
      charge(walked(n - n0));
      return more(searchStep, [mode, x, l, p, n, slow]);
    }
    const e = p.car;
    if (isAss && !(e instanceof Pair)) typeError(who, 'an association list (a list of pairs)', e);
    const y = isAss ? e.car : e;
    if (same !== null) {
      if (same(x, y)) return found(n - n0 + 1, isAss ? e : p);
    } else {
      const answer = equalWithin(x, y, CHUNK - work);
      work += equalStepsUsed();
      if (answer === null) {
        charge(walked(n - n0));
        return continueEqual(afterEqualStep, [mode, x, l, p, n, slow]);
      }
      if (answer) return found(n - n0 + 1, isAss ? e : p);
    }
    work++;
    if ((++n & 1) === 0) {
      slow = slow.cdr;
      if (slow === p.cdr) cyclic(who, l);
    }
  }
  charge(walked(n - n0));
  if (p !== null) typeError(who, 'a proper list', l);
  return false;
}

/**
 * Go on with the search after the element at `p` did not match.
 * @param {number} mode @param {any} x @param {any} l @param {Pair} p @param {number} n @param {any} slow @param {number} work
 */
function searchNext(mode, x, l, p, n, slow, work) {
  if ((++n & 1) === 0) {
    slow = slow.cdr;
    if (slow === p.cdr) cyclic(SEARCHES[mode][0], l);
  }
  return searchFrom(mode, x, l, p.cdr, n, slow, work + 1);
}

/** A search's answer, after charging for the n elements it walked. @param {number} n @param {any} answer */
function found(n, answer) {
  charge(walked(n));
  return answer;
}

SEARCHES.forEach(([name], mode) => {
  defineResumable(name === 'member' || name === 'assoc' ? `%${name}` : name, 2, 0, (/** @type {any} */ x, /** @type {any} */ l) => searchFrom(mode, x, l, l, 0, l));
});

// ------------------------------------------------------------------ reverse, list-copy

const reverseStep = defineStep('reverse', 5, (/** @type {any} */ l, /** @type {any} */ x, /** @type {any} */ r, /** @type {any} */ n, /** @type {any} */ slow) =>
  reverseFrom(l, x, r, stateCount('reverse', n), slow));

/**
 * Cons the elements of `l` from `x` on onto `r`.
 * @param {any} l @param {any} x @param {any} r @param {number} n @param {any} slow
 */
function reverseFrom(l, x, r, n, slow) {
  const n0 = n;
  const stop = n + BUILD_CHUNK;
  while (x instanceof Pair) {
    if (n === stop) {
      charge(built(BUILD_CHUNK));
      return more(reverseStep, [l, x, r, n, slow]);
    }
    r = new Pair(x.car, r);
    x = x.cdr;
    n++;
    if ((n & 1) === 0) {
      slow = slow.cdr;
      if (slow === x) cyclic('reverse', l);
    }
  }
  charge(built(n - n0));
  if (x !== null) typeError('reverse', 'a proper list', l);
  return r;
}

defineResumable('reverse', 1, 0, (/** @type {any} */ l) => reverseFrom(l, l, null, 0, l));

const listCopyStep = defineStep('list-copy', 6, (/** @type {any} */ l, /** @type {any} */ head, /** @type {any} */ last, /** @type {any} */ x, /** @type {any} */ n, /** @type {any} */ slow) => {
  if (!(last instanceof Pair) || Object.isFrozen(last)) schemeErrorOf('type', 'list-copy', 'bad resumption state', last);
  return listCopyFrom(l, head, last, x, stateCount('list-copy', n), slow);
});

/**
 * Copy the pairs of `l` from `x` on after `last` (the last pair copied so far).
 * @param {any} l @param {Pair} head @param {Pair} last @param {any} x @param {number} n @param {any} slow
 */
function listCopyFrom(l, head, last, x, n, slow) {
  const n0 = n;
  const stop = n + BUILD_CHUNK;
  for (; x instanceof Pair; x = x.cdr) {
    if (n === stop) {
      charge(built(BUILD_CHUNK));
      return more(listCopyStep, [l, head, last, x, n, slow]);
    }
    const p = new Pair(x.car, null);
    last.cdr = p;
    last = p;
    if ((++n & 1) === 0) {
      slow = slow.cdr;
      if (slow === x.cdr) schemeErrorOf('type', 'list-copy', 'expected a list, got a cyclic list', l);
    }
  }
  last.cdr = x;
  charge(built(n - n0));
  return head;
}

defineResumable('list-copy', 1, 0, (/** @type {any} */ l) => {
  if (!(l instanceof Pair)) return l;
  const head = new Pair(l.car, null);
  return listCopyFrom(l, head, head, l.cdr, 1, l);
});

// ------------------------------------------------------------------ append

const appendStep = defineStep('append', 7, (/** @type {any} */ ls, /** @type {any} */ i, /** @type {any} */ head, /** @type {any} */ last, /** @type {any} */ x, /** @type {any} */ n, /** @type {any} */ slow) => {
  if (!Array.isArray(ls) || !(stateCount('append', i) < ls.length - 1) || !(last === null || (last instanceof Pair && !Object.isFrozen(last)))) {
    schemeErrorOf('type', 'append', 'bad resumption state', ls);
  }
  return appendFrom(ls, i, head, last, x, stateCount('append', n), slow);
});

/**
 * Copy the arguments of append from `ls[i]` (its rest `x`, n pairs of it copied) on,
 * after `last`; the last argument is shared.
 * @param {any[]} ls @param {number} i @param {any} head @param {Pair|null} last @param {any} x @param {number} n @param {any} slow
 */
function appendFrom(ls, i, head, last, x, n, slow) {
  let work = 0;
  for (;;) {
    while (x instanceof Pair) {
      if (work === BUILD_CHUNK) {
        charge(built(BUILD_CHUNK));
        return more(appendStep, [ls, i, head, last, x, n, slow]);
      }
      const p = new Pair(x.car, null);
      if (last === null) head = p;
      else last.cdr = p;
      last = p;
      x = x.cdr;
      work++;
      if ((++n & 1) === 0) {
        slow = slow.cdr;
        if (slow === x) cyclic('append', ls[i]);
      }
    }
    if (x !== null) typeError('append', 'a proper list', ls[i]);
    if (++i >= ls.length - 1) break;
    x = slow = ls[i];
    n = 0;
  }
  charge(built(work));
  const end = ls[ls.length - 1];
  if (last === null) return end;
  last.cdr = end;
  return head;
}

defineResumable('append', 0, -1, (/** @type {any[]} */ ...ls) => {
  if (ls.length <= 1) return ls.length === 0 ? null : ls[0];
  return appendFrom(ls, 0, null, null, ls[0], 0, ls[0]);
});

// ------------------------------------------------------------------ make-list

const makeListStep = defineStep('make-list', 3, (/** @type {any} */ left, /** @type {any} */ v, /** @type {any} */ l) => {
  const n = stateCount('make-list', left);
  built(n); // the cap the first call checked: a forged state cannot go past it
  return makeListFrom(n, v, l);
});

/** Cons `left` more copies of `v` onto `l`. @param {number} left @param {any} v @param {any} l */
function makeListFrom(left, v, l) {
  const m = left < BUILD_CHUNK ? left : BUILD_CHUNK;
  for (let i = 0; i < m; i++) l = new Pair(v, l);
  charge(built(m));
  return left > m ? more(makeListStep, [left - m, v, l]) : l;
}

defineResumable('make-list', 1, 1, (/** @type {any} */ k, /** @type {any} */ fill) => {
  const n = checkLength('make-list', k);
  built(n); // refuses more than the host allows in one call before anything is built
  return makeListFrom(n, absent(fill) ? false : fill, null);
});
