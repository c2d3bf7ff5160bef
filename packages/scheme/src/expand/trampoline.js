// @ts-check
/**
 * Deep recursion without the JS stack.
 *
 * The expander is naturally recursive (an expression contains expressions), and a
 * program may nest 10,000 `let`s. Every recursive expansion step is therefore written
 * as a generator that `yield`s the sub-expansion it needs and receives its result:
 *
 *     const test = yield expandExpr(form.test, env, u, loc);
 *
 * `run` keeps the chain of suspended generators in an array, so nesting depth costs
 * heap, not stack. A yielded value that is not a generator (a Core node an expansion
 * step could build at once, such as a variable reference) is handed straight back.
 * Exceptions thrown by a child propagate into its parent generator (which may catch
 * them) exactly as with ordinary calls.
 */

/**
 * @param {any} x @returns {x is Generator<any, any, any>}
 */
const isGenerator = (x) => x !== null && typeof x === 'object' && typeof x.next === 'function' && typeof x.throw === 'function';

/**
 * Run a generator-based computation to completion and return its result.
 * @param {any} start a generator, or an already computed value
 * @returns {any}
 */
export function run(start) {
  if (!isGenerator(start)) return start;
  /** @type {Generator<any, any, any>[]} */
  const stack = [];
  let cur = start;
  /** @type {any} */
  let input;
  let failing = false;
  /** @type {any} */
  let error = null;
  for (;;) {
    /** @type {IteratorResult<any, any>} */
    let r;
    try {
      if (failing) {
        failing = false;
        r = cur.throw(error);
      } else {
        r = cur.next(input);
      }
    } catch (e) {
      if (stack.length === 0) throw e;
      cur = /** @type {Generator<any, any, any>} */ (stack.pop());
      failing = true;
      error = e;
      continue;
    }
    if (r.done) {
      if (stack.length === 0) return r.value;
      cur = /** @type {Generator<any, any, any>} */ (stack.pop());
      input = r.value;
    } else if (isGenerator(r.value)) {
      stack.push(cur);
      cur = r.value;
      input = undefined;
    } else {
      input = r.value;
    }
  }
}
