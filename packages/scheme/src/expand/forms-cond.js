// @ts-check
/**
 * Conditionals (R7RS §4.2.1).
 *
 *   (cond (t e ...) (t => f) (t) (else e ...))
 *       ⇒ (if t (begin e ...) (let ((v t')) (if v (f v) (let ((w t'')) (if w w (begin e ...))))))
 *   (case k ((d ...) e ...) ((d) => f) (else => g))
 *       ⇒ (let ((key k)) (if (rt::memv key '(d ...)) (begin e ...) (if (rt::eqv? key 'd) (f key) (g key))))
 *   (and a b c) ⇒ (if a (if b c #f) #f)        (or a b) ⇒ (let ((v a)) (if v v b))
 *   (when t e ...) ⇒ (if t (begin e ...) <unspecified>)   unless: the arms swapped
 *
 * A cond or case without a matching clause and without else yields the unspecified
 * value. Chains are built from the last clause back, with loops, so a cond with
 * thousands of clauses needs no deep recursion. `else` and `=>` are recognised with
 * free-identifier=? (a local variable named else is not the keyword).
 */
import { Pair } from '../values.js';
import { Var, If, Let, Call, LocalRef, Const, Seq } from '../ir/core.js';
import { isAux, strip } from './hygiene.js';
import { expandExpr } from './expand-expr.js';
import { listOf, operands, rtCall, voidConst } from './util.js';
import { syntaxError } from './errors.js';

/** @typedef {import('./hygiene.js').Scope} Scope */
/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */

/**
 * Expand cond clauses to a chain ending in `fallback` (built when no else clause).
 * Shared with guard.
 * @param {any[]} clauses @param {Scope} env @param {Unit} u @param {Loc|null} loc
 * @param {string} who @param {() => any} fallback
 * @returns {Generator<any, any, any>}
 */
export function* expandCondClauses(clauses, env, u, loc, who, fallback) {
  /** @type {((rest: any) => any)[]} */
  const builders = [];
  let end = null;
  for (let i = 0; i < clauses.length; i++) {
    const c = clauses[i];
    const parts = c instanceof Pair ? listOf(c, who, c, loc) : syntaxError(who, 'a clause must be a non-empty list', c, loc);
    if (isAux(parts[0], env, 'else')) {
      if (i !== clauses.length - 1) syntaxError(who, 'else must be the last clause', c, loc);
      if (parts.length < 2) syntaxError(who, 'else needs at least one expression', c, loc);
      end = yield* expandSeq(parts.slice(1), env, u, loc);
      break;
    }
    const test = yield expandExpr(parts[0], env, u, loc);
    if (parts.length >= 2 && isAux(parts[1], env, '=>')) {
      if (parts.length !== 3) syntaxError(who, 'expected (test => receiver)', c, loc);
      const f = yield expandExpr(parts[2], env, u, loc);
      const v = new Var('t');
      builders.push((rest) => Let([v], [test], If(LocalRef(v, loc), Call(f, [LocalRef(v, loc)], loc), rest, loc), loc));
    } else if (parts.length === 1) {
      const v = new Var('t');
      builders.push((rest) => Let([v], [test], If(LocalRef(v, loc), LocalRef(v, loc), rest, loc), loc));
    } else {
      const body = yield* expandSeq(parts.slice(1), env, u, loc);
      builders.push((rest) => If(test, body, rest, loc));
    }
  }
  let node = end ?? fallback();
  for (let i = builders.length - 1; i >= 0; i--) node = builders[i](node);
  return node;
}

/** @param {any[]} forms @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandSeq(forms, env, u, loc) {
  const es = [];
  for (const f of forms) es.push(yield expandExpr(f, env, u, loc));
  return Seq(es, loc);
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc */
function* expandCond(x, env, u, loc) {
  const clauses = listOf(x.cdr, 'cond', x, loc);
  return yield* expandCondClauses(clauses, env, u, loc, 'cond', () => voidConst(loc));
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandCase(x, env, u, loc) {
  const ops = operands(x, 'case', loc, 1, Infinity, '(case key clause ...)');
  const keyNode = yield expandExpr(ops[0], env, u, loc);
  const key = new Var('key');
  const keyRef = () => LocalRef(key, loc);
  /** @type {((rest: any) => any)[]} */
  const builders = [];
  let end = null;
  const clauses = ops.slice(1);
  for (let i = 0; i < clauses.length; i++) {
    const c = clauses[i];
    const parts = c instanceof Pair ? listOf(c, 'case', c, loc) : [];
    if (parts.length < 2) syntaxError('case', 'a clause must be ((datum ...) expression ...)', c, loc);
    const isElse = isAux(parts[0], env, 'else');
    if (isElse && i !== clauses.length - 1) syntaxError('case', 'else must be the last clause', c, loc);
    let body;
    if (isAux(parts[1], env, '=>')) {
      if (parts.length !== 3) syntaxError('case', 'expected (datums => receiver)', c, loc);
      body = Call(yield expandExpr(parts[2], env, u, loc), [keyRef()], loc);
    } else {
      body = yield* expandSeq(parts.slice(1), env, u, loc);
    }
    if (isElse) {
      end = body;
      break;
    }
    const data = listOf(parts[0], 'case', c, loc, 'a clause must start with a list of data').map(strip);
    if (data.length === 0) continue;
    const test = data.length === 1 ? rtCall('eqv?', [keyRef(), Const(data[0], loc)], loc) : rtCall('memv', [keyRef(), Const(listFrom(data), loc)], loc);
    builders.push((rest) => If(test, body, rest, loc));
  }
  let node = end ?? voidConst(loc);
  for (let i = builders.length - 1; i >= 0; i--) node = builders[i](node);
  return Let([key], [keyNode], node, loc);
}

/** @param {any[]} a */
function listFrom(a) {
  let l = null;
  for (let i = a.length - 1; i >= 0; i--) l = new Pair(a[i], l);
  return l;
}

/** @param {boolean} isAnd */
function andOr(isAnd) {
  /** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
  return function* (x, env, u, loc) {
    const ops = listOf(x.cdr, isAnd ? 'and' : 'or', x, loc);
    if (ops.length === 0) return Const(isAnd, loc);
    const es = [];
    for (const o of ops) es.push(yield expandExpr(o, env, u, loc));
    let node = es[es.length - 1];
    for (let i = es.length - 2; i >= 0; i--) {
      if (isAnd) node = If(es[i], node, Const(false, loc), loc);
      else {
        const v = new Var('t');
        node = Let([v], [es[i]], If(LocalRef(v, loc), LocalRef(v, loc), node, loc), loc);
      }
    }
    return node;
  };
}

/** @param {boolean} isWhen */
function whenUnless(isWhen) {
  const who = isWhen ? 'when' : 'unless';
  /** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
  return function* (x, env, u, loc) {
    const ops = operands(x, who, loc, 2, Infinity, `(${who} test expression ...)`);
    const test = yield expandExpr(ops[0], env, u, loc);
    const body = yield* expandSeq(ops.slice(1), env, u, loc);
    return isWhen ? If(test, body, voidConst(loc), loc) : If(test, voidConst(loc), body, loc);
  };
}

export const condForms = {
  cond: expandCond,
  case: expandCase,
  and: andOr(true),
  or: andOr(false),
  when: whenUnless(true),
  unless: whenUnless(false),
};
