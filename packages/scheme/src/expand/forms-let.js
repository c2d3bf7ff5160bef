// @ts-check
/**
 * The binding forms of R7RS §4.2.2 and iteration (§4.2.4).
 *
 *   (let ((x e) ...) body)           ⇒ Let([x ...], [e ...], body)
 *   (let loop ((x e) ...) body)      ⇒ ((letrec* ((loop (lambda (x ...) body))) loop) e ...)
 *   (let* ((x e) (y f)) body)        ⇒ Let([x], [e], Let([y], [f], body))
 *   (letrec / letrec* ((x e) ...) body) ⇒ Letrec([x ...], [e ...], body)
 *   (let-values (((a b) e) ((c . d) f)) body)
 *       ⇒ (rt::call-with-values (lambda () e) (lambda (a b)
 *            (rt::call-with-values (lambda () f) (lambda (c . d) body))))
 *     with every init expanded in the outer scope (let*-values: each in the previous one)
 *   (do ((v init step) ...) (test res ...) cmd ...)
 *       ⇒ ((letrec* ((loop (lambda (v ...) (if test (begin res ...) (begin cmd ... (loop step ...))))))
 *           loop) init ...)
 *
 * The loop variable of named let and do is bound in no scope the user's code sees
 * except, for named let, as the name the user gave.
 */
import { Pair } from '../values.js';
import { Var, Let, Letrec, Lambda, Call, LocalRef, If, Seq } from '../ir/core.js';
import { Scope, isIdentifier, rootSym } from './hygiene.js';
import { expandExpr } from './expand-expr.js';
import { expandBody, bindLocal, parseFormals } from './body.js';
import { listOf, operands, rtCall, nameLambda, voidConst } from './util.js';
import { syntaxError } from './errors.js';

/** @typedef {import('./hygiene.js').Identifier} Identifier */
/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */

/**
 * `((name init) ...)` → [{id, init}], checking shape and duplicates.
 * @param {any} bindings @param {string} who @param {any} x @param {Loc|null} loc @param {boolean} unique
 * @returns {{id: Identifier, init: any}[]}
 */
function parseBindings(bindings, who, x, loc, unique) {
  const out = listOf(bindings, who, x, loc, 'expected a list of bindings').map((b) => {
    const parts = b instanceof Pair ? listOf(b, who, x, loc) : [];
    if (parts.length !== 2 || !isIdentifier(parts[0])) syntaxError(who, 'a binding must be (variable init)', b, loc);
    return { id: parts[0], init: parts[1] };
  });
  if (unique) {
    out.forEach((b, i) => {
      if (out.findIndex((c) => c.id === b.id) !== i) syntaxError(who, `${rootSym(b.id).name} is bound twice`, x, loc);
    });
  }
  return out;
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandLet(x, env, u, loc) {
  const ops = operands(x, 'let', loc, 2, Infinity, '(let ((variable init) ...) body ...)');
  if (isIdentifier(ops[0])) return yield* namedLet(x, ops, env, u, loc);
  const bs = parseBindings(ops[0], 'let', x, loc, true);
  const inits = [];
  for (const b of bs) inits.push(nameLambda(yield expandExpr(b.init, env, u, loc), rootSym(b.id).name));
  const scope = new Scope(env);
  const vars = bs.map((b) => bindLocal(scope, b.id));
  const body = yield expandBody(/** @type {Pair} */ (x.cdr).cdr, scope, u, loc, 'let');
  return vars.length === 0 ? body : Let(vars, inits, body, loc);
}

/**
 * @param {any} x @param {any[]} ops @param {Scope} env @param {Unit} u @param {Loc|null} loc
 * @returns {Generator<any, any, any>}
 */
function* namedLet(x, ops, env, u, loc) {
  if (ops.length < 3) syntaxError('let', 'expected (let name ((variable init) ...) body ...)', x, loc);
  const bs = parseBindings(ops[1], 'let', x, loc, true);
  const inits = [];
  for (const b of bs) inits.push(yield expandExpr(b.init, env, u, loc));
  const loopScope = new Scope(env);
  const loop = bindLocal(loopScope, ops[0]);
  const scope = new Scope(loopScope);
  const params = bs.map((b) => bindLocal(scope, b.id));
  const body = yield expandBody(/** @type {any} */ (x.cdr).cdr.cdr, scope, u, loc, 'let');
  const lambda = Lambda(params, null, body, loop.name, loc);
  return Call(Letrec([loop], [lambda], LocalRef(loop, loc), loc), inits, loc);
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandLetStar(x, env, u, loc) {
  const ops = operands(x, 'let*', loc, 2, Infinity, '(let* ((variable init) ...) body ...)');
  const bs = parseBindings(ops[0], 'let*', x, loc, false);
  const vars = [];
  const inits = [];
  let scope = env;
  for (const b of bs) {
    inits.push(nameLambda(yield expandExpr(b.init, scope, u, loc), rootSym(b.id).name));
    scope = new Scope(scope);
    vars.push(bindLocal(scope, b.id));
  }
  let node = yield expandBody(/** @type {Pair} */ (x.cdr).cdr, new Scope(scope), u, loc, 'let*');
  for (let i = vars.length - 1; i >= 0; i--) node = Let([vars[i]], [inits[i]], node, loc);
  return node;
}

/** @param {string} who */
function letrecForm(who) {
  /** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
  return function* (x, env, u, loc) {
    const ops = operands(x, who, loc, 2, Infinity, `(${who} ((variable init) ...) body ...)`);
    const bs = parseBindings(ops[0], who, x, loc, true);
    const scope = new Scope(env);
    const vars = bs.map((b) => bindLocal(scope, b.id));
    const inits = [];
    for (const b of bs) inits.push(nameLambda(yield expandExpr(b.init, scope, u, loc), rootSym(b.id).name));
    const body = yield expandBody(/** @type {Pair} */ (x.cdr).cdr, scope, u, loc, who);
    return vars.length === 0 ? body : Letrec(vars, inits, body, loc);
  };
}

/** @param {boolean} sequential let*-values */
function letValuesForm(sequential) {
  const who = sequential ? 'let*-values' : 'let-values';
  /** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
  return function* (x, env, u, loc) {
    const ops = operands(x, who, loc, 2, Infinity, `(${who} ((formals init) ...) body ...)`);
    const bs = listOf(ops[0], who, x, loc).map((b) => {
      const parts = b instanceof Pair ? listOf(b, who, x, loc) : [];
      if (parts.length !== 2) syntaxError(who, 'a binding must be (formals init)', b, loc);
      return { formals: parseFormals(parts[0], who, x, loc), init: parts[1] };
    });
    const bodyScope = new Scope(env);
    let scope = env;
    const producers = [];
    const consumers = [];
    /** @type {Set<any>} */
    const seen = new Set();
    for (const b of bs) {
      producers.push(Lambda([], null, yield expandExpr(b.init, sequential ? scope : env, u, loc), null, loc));
      const s = sequential ? new Scope(scope) : bodyScope;
      for (const id of [...b.formals.req, ...(b.formals.rest ? [b.formals.rest] : [])]) {
        if (!sequential && seen.has(id)) syntaxError(who, `${rootSym(id).name} is bound twice`, x, loc);
        seen.add(id);
      }
      consumers.push({ params: b.formals.req.map((id) => bindLocal(s, id)), rest: b.formals.rest ? bindLocal(s, b.formals.rest) : null });
      scope = s;
    }
    let node = yield expandBody(/** @type {Pair} */ (x.cdr).cdr, sequential ? new Scope(scope) : new Scope(bodyScope), u, loc, who);
    for (let i = bs.length - 1; i >= 0; i--) {
      node = rtCall('call-with-values', [producers[i], Lambda(consumers[i].params, consumers[i].rest, node, null, loc)], loc);
    }
    return node;
  };
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandDo(x, env, u, loc) {
  const ops = operands(x, 'do', loc, 2, Infinity, '(do ((variable init [step]) ...) (test expression ...) command ...)');
  const specs = listOf(ops[0], 'do', x, loc).map((s) => {
    const parts = s instanceof Pair ? listOf(s, 'do', x, loc) : [];
    if (parts.length < 2 || parts.length > 3 || !isIdentifier(parts[0])) syntaxError('do', 'a variable spec must be (variable init [step])', s, loc);
    return { id: parts[0], init: parts[1], step: parts.length === 3 ? parts[2] : null };
  });
  specs.forEach((s, i) => {
    if (specs.findIndex((t) => t.id === s.id) !== i) syntaxError('do', `${rootSym(s.id).name} is bound twice`, x, loc);
  });
  const exit = ops[1] instanceof Pair ? listOf(ops[1], 'do', x, loc) : syntaxError('do', 'expected (test expression ...)', x, loc);
  const inits = [];
  for (const s of specs) inits.push(yield expandExpr(s.init, env, u, loc));
  const loop = new Var('do-loop');
  const scope = new Scope(env);
  const params = specs.map((s) => bindLocal(scope, s.id));
  const test = yield expandExpr(exit[0], scope, u, loc);
  const results = [];
  for (const e of exit.slice(1)) results.push(yield expandExpr(e, scope, u, loc));
  const commands = [];
  for (const c of ops.slice(2)) commands.push(yield expandExpr(c, scope, u, loc));
  const steps = [];
  for (let i = 0; i < specs.length; i++) {
    steps.push(specs[i].step === null ? LocalRef(params[i], loc) : yield expandExpr(specs[i].step, scope, u, loc));
  }
  const again = Call(LocalRef(loop, loc), steps, loc);
  const body = If(test, results.length ? Seq(results, loc) : voidConst(loc), Seq([...commands, again], loc), loc);
  const lambda = Lambda(params, null, body, 'do-loop', loc);
  return Call(Letrec([loop], [lambda], LocalRef(loop, loc), loc), inits, loc);
}

export const letForms = {
  let: expandLet,
  'let*': expandLetStar,
  letrec: letrecForm('letrec'),
  'letrec*': letrecForm('letrec*'),
  'let-values': letValuesForm(false),
  'let*-values': letValuesForm(true),
  do: expandDo,
};
