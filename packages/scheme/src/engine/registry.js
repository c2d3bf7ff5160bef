// @ts-check
/**
 * The registry of primitive procedures: builtins implemented in JavaScript.
 *
 * Contract for a primitive implementation `fn`:
 *  - it takes Scheme values as positional arguments (variadic ones use a JS rest
 *    parameter) and returns one Scheme value — never `undefined` (return VOID);
 *  - it validates its arguments and signals errors only with `schemeError` /
 *    `schemeErrorOf` from values.js, naming itself as `who` and the offending value
 *    as an irritant: `(car 5)` → "car: expected a pair" with irritant 5;
 *  - it never calls a Scheme procedure (procedures that must, such as `map`,
 *    `apply` or `dynamic-wind`, are written in Scheme or as control primitives in
 *    the driver), so no JS closure can ever end up inside a continuation;
 *  - it holds no hidden state shared between processes.
 *
 * Compiled code calls primitives directly (`fn(a, b)`); a primitive used as a value
 * (`(map car l)`) is wrapped in a Closure by the runtime.
 */

/**
 * @typedef {object} PrimitiveDef
 * @property {string} name   the Scheme name in the runtime namespace ('rt'), e.g. "string-append"
 * @property {number} min    minimum number of arguments
 * @property {number} max    maximum number of arguments, or -1 for any number
 * @property {Function} fn   the implementation
 * @property {boolean} pure  no side effects and result depends only on the arguments
 *                           (the compiler may fold it on constants or drop an unused call)
 */

/** @type {Map<string, PrimitiveDef>} */
export const primitives = new Map();

/**
 * Register a primitive. Registering the same name twice is a programming error.
 * @param {string} name
 * @param {number} min
 * @param {number} max  -1 for variadic
 * @param {Function} fn
 * @param {{pure?: boolean}} [opts]
 */
export function definePrimitive(name, min, max, fn, opts = {}) {
  if (primitives.has(name)) throw new Error(`primitive ${name} defined twice`);
  primitives.set(name, { name, min, max, fn, pure: opts.pure ?? false });
}
