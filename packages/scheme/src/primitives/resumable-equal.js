// @ts-check
/**
 * equal? as a resumable builtin (engine/resumable.js): one call compares at most CHUNK
 * steps of two values (prims-equivalence.js has the walk), then continues through
 * `%equal?/step` (the general walk's state) or `%equal?-spine/step` (two lists' spines
 * walked side by side), so comparing structures of millions of elements is a series of
 * calls the scheduler can preempt between. member and assoc (resumable-lists.js) use the
 * same bounded comparison for each element and continue here when one element's
 * comparison is itself long (`continueEqual`).
 *
 * A comparison in progress can hand its answer on: `then` is #f (the answer is equal?'s
 * result) or a procedure called with the answer followed by the elements of `args`
 * (member's search goes on that way). A forged `then` is only a call the program could
 * make itself.
 *
 * Invariants: the state is Scheme values (lists, vectors, fixnums), except the
 * union-find sets of slow mode, which are a JS Map kept beside the state (`setsOf`, by
 * the work stack): a comparison resumed on another node (a migrated thread) or from a
 * forged state starts with fresh sets, which costs steps on cyclic data, never a wrong
 * answer. Every step re-checks its state (types, ranges, mutability) before using it.
 */
import { Closure, schemeErrorOf } from '../values.js';
import { CHUNK, more, defineResumable, defineStep, stateCount } from '../engine/resumable.js';
import { equalWithin, spineWithin, stackWithin, pending, FAST_BUDGET, SLOW_STEPS } from './prims-equivalence.js';

/** Most values `args` may hold (a continuation's own state is a handful of values). */
const MAX_ARGS = 8;
/** A spine count above this is a forged state (n + CHUNK must stay an exact float). */
const MAX_COUNT = 2 ** 50;

/** The union-find sets of comparisons in progress, by their work stack. @type {WeakMap<any[], Map<object, any>>} */
const setsOf = new WeakMap();

/** @param {...any} irritants @returns {never} */
const badState = (...irritants) => schemeErrorOf('type', 'equal?', 'bad resumption state', ...irritants);

/** @param {any} x @param {number} lo @param {number} hi */
const isIntIn = (x, lo, hi) => typeof x === 'number' && Number.isInteger(x) && x >= lo && x <= hi;

/** @param {any} then @param {any} args */
function checkThen(then, args) {
  if (then === false) return;
  if (!(then instanceof Closure) || !Array.isArray(args) || args.length > MAX_ARGS) badState(then, args);
}

const spineStep = defineStep('equal?-spine', 6, (/** @type {any} */ x, /** @type {any} */ y, /** @type {any} */ slow, /** @type {any} */ n, /** @type {any} */ then, /** @type {any} */ args) => {
  const count = stateCount('equal?', n);
  if (count > MAX_COUNT) badState(n);
  checkThen(then, args);
  return decided(spineWithin(x, y, slow, count, CHUNK), then, args);
});

const stackStep = defineStep('equal?', 6, (/** @type {any} */ stack, /** @type {any} */ runs, /** @type {any} */ k, /** @type {any} */ seed, /** @type {any} */ then, /** @type {any} */ args) => {
  if (!Array.isArray(stack) || Object.isFrozen(stack) || (stack.length & 1) !== 0) badState(stack);
  if (!(runs === null || (Array.isArray(runs) && !Object.isFrozen(runs)))) badState(runs);
  if (!isIntIn(k, -SLOW_STEPS, 2 * FAST_BUDGET) || !isIntIn(seed, -(2 ** 31), 2 ** 32)) badState(k, seed);
  checkThen(then, args);
  return decided(stackWithin(stack, runs, setsOf.get(stack) ?? null, k, seed, CHUNK), then, args);
});

/**
 * A bounded comparison's outcome: its answer handed on, or its next step.
 * @param {boolean|null} answer @param {any} then @param {any[]|null} args
 */
function decided(answer, then, args) {
  if (answer === null) return continueEqual(then, args);
  return then === false ? answer : more(then, [answer, ...(/** @type {any[]} */ (args))]);
}

/**
 * The next step of the comparison a bounded run left in `pending` (after it answered
 * null), handing its answer to `then` with `args` when done (#f: return it).
 * @param {any} then @param {any[]|null} args
 */
export function continueEqual(then, args) {
  if (pending.spine) {
    const state = [pending.x, pending.y, pending.slow, pending.n, then, args];
    pending.x = pending.y = pending.slow = null;
    return more(spineStep, state);
  }
  const stack = pending.stack;
  if (pending.sets !== null) setsOf.set(stack, pending.sets);
  const state = [stack, pending.runs, pending.k, pending.seed, then, args];
  pending.stack = [];
  pending.runs = null;
  pending.sets = null;
  return more(stackStep, state);
}

defineResumable('equal?', 2, 0, (/** @type {any} */ a, /** @type {any} */ b) => {
  const answer = equalWithin(a, b, CHUNK);
  return answer === null ? continueEqual(false, null) : answer;
});
