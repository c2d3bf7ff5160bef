// @ts-check
/**
 * Lambda and bodies.
 *
 *   (lambda (a b . r) body ...)     ⇒ Lambda([a, b], r, <body>)
 *   body = (define x e1) (f x) (define y e2) y
 *                                   ⇒ (letrec* ((x e1) (_ (f x)) (y e2)) y)
 *
 * A body is a definition context (definitions.js): internal definitions anywhere in
 * it, including ones produced by macros, become one Letrec with letrec* semantics (so a
 * reference to a variable before its definition has run is a runtime error, which the
 * compiler's Letrec checks). Expressions between definitions are kept in order as
 * bindings of unused variables. A body must end with an expression.
 */
import { Pair } from '../values.js';
import { Var, Lambda, Letrec, Seq } from '../ir/core.js';
import { Scope, isIdentifier, rootSym } from './hygiene.js';
import { scanForms, expandItem, isPlainExpression } from './definitions.js';
import { expandExpr } from './expand-expr.js';
import { listOf, spine } from './util.js';
import { syntaxError } from './errors.js';

/** @typedef {import('./hygiene.js').Identifier} Identifier */
/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */

/**
 * Parse lambda formals: `(a b)`, `(a b . r)` or `r`. Checks for duplicates.
 * @param {any} formals @param {string} who @param {any} form @param {Loc|null} loc
 * @returns {{req: Identifier[], rest: Identifier|null}}
 */
export function parseFormals(formals, who, form, loc) {
  /** @type {Identifier[]} */
  const req = [];
  const s = spine(formals);
  if (s === null) return syntaxError(who, 'circular parameter list', form, loc);
  const t = s.tail;
  for (const p of s.items) {
    if (!isIdentifier(p)) syntaxError(who, 'a parameter must be an identifier', form, loc);
    if (req.includes(p)) syntaxError(who, `parameter ${rootSym(p).name} appears twice`, form, loc);
    req.push(p);
  }
  if (t !== null && !isIdentifier(t)) syntaxError(who, 'a rest parameter must be an identifier', form, loc);
  if (t !== null && req.includes(t)) syntaxError(who, `parameter ${rootSym(t).name} appears twice`, form, loc);
  return { req, rest: t };
}

/**
 * Bind `id` to a fresh local variable in `scope`.
 * @param {Scope} scope @param {Identifier} id @returns {Var}
 */
export function bindLocal(scope, id) {
  const v = new Var(rootSym(id).name);
  scope.bind(id, { kind: 'local', v });
  return v;
}

/**
 * `(lambda formals . body)` as a Lambda node.
 * @param {any} formals @param {any} body the list of body forms @param {Scope} env
 * @param {Unit} u @param {Loc|null} loc @param {string|null} name
 * @returns {Generator<any, any, any>}
 */
export function* expandLambda(formals, body, env, u, loc, name) {
  const f = parseFormals(formals, 'lambda', formals, loc);
  const scope = new Scope(env);
  const params = f.req.map((id) => bindLocal(scope, id));
  const rest = f.rest === null ? null : bindLocal(scope, f.rest);
  const node = yield expandBody(body, scope, u, loc, 'lambda');
  return Lambda(params, rest, node, name, loc);
}

/**
 * Expand a body in `scope` (a fresh scope the caller made, holding the parameters).
 * @param {any} body list of forms @param {Scope} scope @param {Unit} u @param {Loc|null} loc
 * @param {string} who the enclosing form, for messages
 * @returns {Generator<any, any, any>}
 */
export function* expandBody(body, scope, u, loc, who) {
  const forms = listOf(body, who, body, loc, 'a body must be a proper list of forms');
  if (forms.length === 0) syntaxError(who, 'empty body', body, loc);
  if (forms.length === 1 && isPlainExpression(forms[0], scope)) return yield expandExpr(forms[0], scope, u, loc);
  const items = scanForms(forms, loc, u, {
    scope,
    bind(id, l, form) {
      if (scope.map.has(id)) syntaxError('define', `${rootSym(id).name} is defined twice in one body`, form, l);
      return bindLocal(scope, id);
    },
    bindSyntax(id, binding, l, form) {
      if (scope.map.has(id)) syntaxError('define-syntax', `${rootSym(id).name} is defined twice in one body`, form, l);
      scope.bind(id, binding);
    },
    onImport: null,
    onDefineLibrary: null,
  });
  const vars = [];
  const inits = [];
  let tail = [];
  for (const item of items) {
    const outs = yield expandItem(item, scope, u);
    for (const o of outs) {
      if (o.target === null) {
        tail.push(o.node);
        continue;
      }
      for (const e of tail) {
        vars.push(new Var('_'));
        inits.push(e);
      }
      tail = [];
      vars.push(o.target);
      inits.push(o.node);
    }
  }
  if (tail.length === 0) syntaxError(who, 'a body must end with an expression, not a definition', body, loc);
  const node = Seq(tail, loc);
  return vars.length === 0 ? node : Letrec(vars, inits, node, loc);
}
