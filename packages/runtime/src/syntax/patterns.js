// @ts-check
/**
 * The pattern compiler shared by Termite's `match` and `recv` (docs/scheme.md, "The
 * (termite) library"; the Termite paper §4.3). A clause `(pattern [(where guard)] body ...)` against a value
 * in variable v compiles to tests and bindings, each test failing to `fail`:
 *
 *   identifier    binds the value (a second occurrence in the same pattern must be
 *                 equal? to the first: (rt::equal? v first))
 *   _             matches anything
 *   'datum        (rt::equal? v 'datum)      also numbers, strings, chars, booleans
 *   ,expr         (rt::equal? v expr)        expr is evaluated in the scope of the
 *                                            match form (not the pattern's variables)
 *   (p . q)       (if (rt::pair? v) (let ((a (rt::car v)) (d (rt::cdr v))) <p on a, q on d>) fail)
 *   ()            (rt::null? v)
 *   #(p ...)      (rt::vector? v), (rt::eqv? (rt::vector-length v) n), then (rt::vector-ref v i)
 *
 * Then the guard, if any, is tested with the pattern's variables in scope, and the
 * success continuation (given by match or recv) builds the clause's result. Tests are
 * built as a flat list and nested from the end, with loops, so a long list pattern
 * does not recurse deeply; recursion follows the nesting of sub-patterns only.
 */
import { Pair } from '@termite/scheme';
import { expander } from '@termite/scheme/internal';

const { Var, Let, If, LocalRef, Const, Scope, isIdentifier, rootSym, strip, expandExpr, rtCall, syntaxError } = expander;

/** @typedef {import('@termite/scheme/internal').expander.Identifier} Identifier */
/** @typedef {import('@termite/scheme/internal').expander.Loc} Loc */
/** @typedef {import('@termite/scheme/internal').expander.Unit} Unit */
/** @typedef {import('@termite/scheme/internal').expander.Scope} Scope */
/** @typedef {import('@termite/scheme/internal').expander.Var} Var */

/**
 * @typedef {{op: 'bind', v: Var, init: any} | {op: 'test', node: any}} Step
 */

/**
 * Compile one clause.
 * @param {any} pattern
 * @param {any} guard the guard form, or undefined
 * @param {Var} value the variable holding the value to match
 * @param {Scope} env the scope of the match/recv form
 * @param {Unit} u @param {Loc|null} loc @param {string} who
 * @param {(scope: Scope) => any} success generator function: the clause's result, in the pattern's scope
 * @param {() => any} fail builds (a fresh copy of) the failure node
 * @returns {Generator<any, any, any>}
 */
export function* compileClause(pattern, guard, value, env, u, loc, who, success, fail) {
  const scope = new Scope(env);
  /** @type {Step[]} */
  const steps = [];
  /** @type {Map<Identifier, Var>} */
  const bound = new Map();
  yield* walk(pattern, () => LocalRef(value, loc), true, steps, bound, scope, env, u, loc, who);
  let node = yield* success(scope);
  if (guard !== undefined) node = If(yield expandExpr(guard, scope, u, loc), node, fail(), loc);
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i];
    node = s.op === 'bind' ? Let([s.v], [s.init], node, loc) : If(s.node, node, fail(), loc);
  }
  return node;
}

/**
 * Emit the steps matching `p` against the value computed by `init`.
 * @param {any} p @param {() => any} init builds the node computing the value
 * @param {boolean} initIsVar whether init is a plain variable reference (no need to bind a temp)
 * @param {Step[]} steps @param {Map<Identifier, Var>} bound
 * @param {Scope} scope the pattern's scope @param {Scope} env the match form's scope
 * @param {Unit} u @param {Loc|null} loc @param {string} who
 * @returns {Generator<any, void, any>}
 */
function* walk(p, init, initIsVar, steps, bound, scope, env, u, loc, who) {
  if (isIdentifier(p)) {
    if (rootSym(p).name === '_') return;
    const prev = bound.get(p);
    if (prev) {
      steps.push({ op: 'test', node: rtCall('equal?', [init(), LocalRef(prev, loc)], loc) });
      return;
    }
    const v = new Var(rootSym(p).name);
    steps.push({ op: 'bind', v, init: init() });
    bound.set(p, v);
    scope.bind(p, { kind: 'local', v });
    return;
  }
  const quoted = quoteOperand(p, 'quote');
  if (quoted !== NONE) {
    steps.push({ op: 'test', node: rtCall('equal?', [init(), Const(strip(quoted), loc)], loc) });
    return;
  }
  const unquoted = quoteOperand(p, 'unquote');
  if (unquoted !== NONE) {
    steps.push({ op: 'test', node: rtCall('equal?', [init(), yield expandExpr(unquoted, env, u, loc)], loc) });
    return;
  }
  if (!(p instanceof Pair) && !Array.isArray(p) && p !== null) {
    steps.push({ op: 'test', node: rtCall('equal?', [init(), Const(p, loc)], loc) });
    return;
  }
  // A structured pattern looks at its value several times: hold it in a variable.
  let ref = init;
  if (!initIsVar) {
    const tmp = new Var('v');
    steps.push({ op: 'bind', v: tmp, init: init() });
    ref = () => LocalRef(tmp, loc);
  }
  if (Array.isArray(p)) {
    steps.push({ op: 'test', node: rtCall('vector?', [ref()], loc) });
    steps.push({ op: 'test', node: rtCall('eqv?', [rtCall('vector-length', [ref()], loc), Const(p.length, loc)], loc) });
    for (let i = 0; i < p.length; i++) {
      const r = ref;
      yield* walk(p[i], () => rtCall('vector-ref', [r(), Const(i, loc)], loc), false, steps, bound, scope, env, u, loc, who);
    }
    return;
  }
  let t = p;
  while (t instanceof Pair && quoteOperand(t, 'quote') === NONE && quoteOperand(t, 'unquote') === NONE) {
    const r = ref;
    steps.push({ op: 'test', node: rtCall('pair?', [r()], loc) });
    yield* walk(t.car, () => rtCall('car', [r()], loc), false, steps, bound, scope, env, u, loc, who);
    t = t.cdr;
    if (t === null) {
      steps.push({ op: 'test', node: rtCall('null?', [rtCall('cdr', [r()], loc)], loc) });
      return;
    }
    if (!(t instanceof Pair) || quoteOperand(t, 'quote') !== NONE || quoteOperand(t, 'unquote') !== NONE) {
      yield* walk(t, () => rtCall('cdr', [r()], loc), false, steps, bound, scope, env, u, loc, who);
      return;
    }
    const d = new Var('d');
    steps.push({ op: 'bind', v: d, init: rtCall('cdr', [r()], loc) });
    ref = () => LocalRef(d, loc);
  }
  if (t === null) steps.push({ op: 'test', node: rtCall('null?', [ref()], loc) });
  else syntaxError(who, 'bad pattern', p, loc);
}

const NONE = Symbol('none');

/**
 * The operand of `(quote d)` / `(unquote e)` (as the reader writes 'd and ,e), or NONE.
 * @param {any} x @param {string} name @returns {any}
 */
function quoteOperand(x, name) {
  if (!(x instanceof Pair) || !isIdentifier(x.car) || rootSym(x.car).name !== name) return NONE;
  if (!(x.cdr instanceof Pair) || x.cdr.cdr !== null) return NONE;
  return x.cdr.car;
}
