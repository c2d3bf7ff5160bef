// @ts-check
/**
 * Forms whose meaning lives in the runtime: the expander packages their parts as
 * thunks and calls a runtime hook (namespace 'rt'), which the lead's runtime implements
 * with serializable continuations.
 *
 *   (delay e)        ⇒ (rt::%delay (lambda () e))
 *   (delay-force e)  ⇒ (rt::%delay-force (lambda () e))
 *   (parameterize ((p v) ...) body ...)
 *                    ⇒ (rt::%parameterize (rt::list p ...) (rt::list v ...) (lambda () body ...))
 *   (guard (var clause ...) body ...)
 *                    ⇒ (rt::%guard (lambda () body ...)
 *                                  (lambda (var reraise) <clauses as cond, else (reraise)>))
 *
 * %guard runs the thunk; on a raise it unwinds to the guard's dynamic environment and
 * calls the handler with the condition and a `reraise` thunk; the handler returns the
 * value of the matching clause, or tail-calls `(reraise)` when none matches, which
 * re-raises (raise-continuable) in the dynamic environment of the original raise.
 */
import { Pair } from '../values.js';
import { Var, Lambda, Call, LocalRef } from '../ir/core.js';
import { Scope, isIdentifier } from './hygiene.js';
import { expandExpr } from './expand-expr.js';
import { expandBody, bindLocal } from './body.js';
import { expandCondClauses } from './forms-cond.js';
import { listOf, operands, rtCall } from './util.js';
import { syntaxError } from './errors.js';

/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */

/** @param {string} who @param {string} hook */
function promiseForm(who, hook) {
  /** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
  return function* (x, env, u, loc) {
    const [e] = operands(x, who, loc, 1, 1, `(${who} expression)`);
    return rtCall(hook, [Lambda([], null, yield expandExpr(e, env, u, loc), null, loc)], loc);
  };
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandParameterize(x, env, u, loc) {
  const ops = operands(x, 'parameterize', loc, 2, Infinity, '(parameterize ((parameter value) ...) body ...)');
  const params = [];
  const values = [];
  for (const b of listOf(ops[0], 'parameterize', x, loc)) {
    const parts = b instanceof Pair ? listOf(b, 'parameterize', x, loc) : [];
    if (parts.length !== 2) syntaxError('parameterize', 'a binding must be (parameter value)', b, loc);
    params.push(yield expandExpr(parts[0], env, u, loc));
    values.push(yield expandExpr(parts[1], env, u, loc));
  }
  const body = yield expandBody(/** @type {Pair} */ (x.cdr).cdr, new Scope(env), u, loc, 'parameterize');
  return rtCall('%parameterize', [rtCall('list', params, loc), rtCall('list', values, loc), Lambda([], null, body, null, loc)], loc);
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandGuard(x, env, u, loc) {
  const ops = operands(x, 'guard', loc, 2, Infinity, '(guard (variable clause ...) body ...)');
  const spec = ops[0] instanceof Pair ? listOf(ops[0], 'guard', x, loc) : [];
  if (spec.length === 0 || !isIdentifier(spec[0])) syntaxError('guard', 'expected (variable clause ...) after guard', x, loc);
  const body = yield expandBody(/** @type {Pair} */ (x.cdr).cdr, new Scope(env), u, loc, 'guard');
  const scope = new Scope(env);
  const condition = bindLocal(scope, spec[0]);
  const reraise = new Var('reraise');
  const clauses = yield* expandCondClauses(spec.slice(1), scope, u, loc, 'guard', () => Call(LocalRef(reraise, loc), [], loc));
  const handler = Lambda([condition, reraise], null, clauses, null, loc);
  return rtCall('%guard', [Lambda([], null, body, null, loc), handler], loc);
}

export const controlForms = {
  delay: promiseForm('delay', '%delay'),
  'delay-force': promiseForm('delay-force', '%delay-force'),
  parameterize: expandParameterize,
  guard: expandGuard,
};
