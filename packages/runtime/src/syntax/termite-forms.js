// @ts-check
/**
 * The special forms of the (termite) library (docs/scheme.md, "The (termite) library"),
 * defined through the expander's extension point (termite-library.js registers them).
 *
 *   (match e clause ...)    clause = (pattern [(where guard)] body ...)
 *     ⇒ (let ((v e))
 *          (let ((fail2 (lambda () (rt::error "match: no clause matches" v))))
 *            (let ((fail1 (lambda () <clause 2 on v, failing to (fail2)>)))
 *              <clause 1 on v, failing to (fail1)>)))
 *
 *   (recv clause ... [(after seconds body ...)])
 *     ⇒ ((rt::%recv (lambda (msg) <clauses on msg: each success is (lambda () body ...),
 *                                 the last failure #f>)
 *                   seconds-or-#f
 *                   (lambda () after-body ...)-or-#f))
 *     %recv scans the mailbox, removes the first message the matcher accepts and returns
 *     the matcher's thunk (or the after thunk on timeout); the outer call runs it in
 *     tail position, so a clause body is in tail position of the recv form.
 *
 *   (catch handler body ...)   ⇒ (rt::%catch handler (lambda () body ...))
 *   (handle handler body ...)  ⇒ (rt::%handle handler (lambda () body ...))
 *
 * Patterns are compiled by patterns.js. Clause bodies are bodies (internal definitions
 * allowed). `where` and `after` are recognised by name.
 *
 * %recv is defined by the runtime (scheme-sources/termite.scm); %catch and %handle by the
 * language's prelude (@termite/scheme), since the handler stack they use is the
 * language's; `error` and `equal?` are the language's too. An expansion is part of
 * the compiled code's identity (code travels named by its hash), so changing one
 * changes the hash of every program that uses the form.
 */
import { Pair } from '@termite/scheme';
import { expander } from '@termite/scheme/internal';
import { compileClause } from './patterns.js';

const { Var, Let, Lambda, Call, LocalRef, Const, Scope, isIdentifier, rootSym, expandExpr, expandBody, listOf, operands, rtCall, syntaxError } = expander;

/** @typedef {import('@termite/scheme/internal').expander.Loc} Loc */
/** @typedef {import('@termite/scheme/internal').expander.Unit} Unit */
/** @typedef {import('@termite/scheme/internal').expander.Scope} Scope */
/** @typedef {import('@termite/scheme/internal').expander.Var} Var */

/**
 * `(pattern [(where guard)] body ...)` → its parts.
 * @param {any} c @param {string} who @param {Loc|null} loc
 * @returns {{pattern: any, guard: any, body: any}}
 */
function parseClause(c, who, loc) {
  if (!(c instanceof Pair)) syntaxError(who, 'a clause must be (pattern [(where guard)] body ...)', c, loc);
  listOf(c, who, c, loc);
  const second = c.cdr instanceof Pair ? c.cdr.car : undefined;
  if (second instanceof Pair && isIdentifier(second.car) && rootSym(second.car).name === 'where') {
    const g = listOf(second, who, c, loc);
    if (g.length !== 2) syntaxError(who, 'expected (where guard)', c, loc);
    return { pattern: c.car, guard: g[1], body: /** @type {Pair} */ (c.cdr).cdr };
  }
  return { pattern: c.car, guard: undefined, body: c.cdr };
}

/**
 * Chain clauses: clause i fails to the clause i+1, the last to `last()`.
 * @param {any[]} clauses @param {Var} value @param {Scope} env @param {Unit} u @param {Loc|null} loc
 * @param {string} who @param {(body: any, scope: Scope) => any} onMatch generator: a clause's result
 * @param {() => any} last builds the node for "no clause matched"
 */
function* chainClauses(clauses, value, env, u, loc, who, onMatch, last) {
  const parsed = clauses.map((c) => parseClause(c, who, loc));
  if (parsed.length === 0) return last();
  const fails = parsed.map(() => new Var('fail'));
  const nodes = [];
  for (let i = 0; i < parsed.length; i++) {
    const c = parsed[i];
    const fail = i === parsed.length - 1 ? last : () => Call(LocalRef(fails[i], loc), [], loc);
    nodes.push(yield* compileClause(c.pattern, c.guard, value, env, u, loc, who, (scope) => onMatch(c.body, scope), fail));
  }
  // fails[i]'s thunk runs clause i+1, which may call fails[i+1]: bind fails[i+1] outside.
  let node = nodes[0];
  for (let i = 0; i < parsed.length - 1; i++) node = Let([fails[i]], [Lambda([], null, nodes[i + 1], null, loc)], node, loc);
  return node;
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandMatch(x, env, u, loc) {
  const ops = operands(x, 'match', loc, 1, Infinity, '(match expression (pattern [(where guard)] body ...) ...)');
  const init = yield expandExpr(ops[0], env, u, loc);
  const v = new Var('value');
  const noMatch = () => rtCall('error', [Const('match: no clause matches', loc), LocalRef(v, loc)], loc);
  const body = yield* chainClauses(ops.slice(1), v, env, u, loc, 'match', (b, scope) => bodyIn(b, scope, u, loc, 'match'), noMatch);
  return Let([v], [init], body, loc);
}

/** @param {any} b @param {Scope} scope @param {Unit} u @param {Loc|null} loc @param {string} who @returns {Generator<any, any, any>} */
function* bodyIn(b, scope, u, loc, who) {
  return yield expandBody(b, new Scope(scope), u, loc, who);
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandRecv(x, env, u, loc) {
  let clauses = listOf(x.cdr, 'recv', x, loc);
  /** @type {any} */
  let timeout = Const(false, loc);
  /** @type {any} */
  let after = Const(false, loc);
  const isAfter = (/** @type {any} */ c) => c instanceof Pair && isIdentifier(c.car) && rootSym(c.car).name === 'after';
  clauses.forEach((c, i) => {
    if (isAfter(c) && i !== clauses.length - 1) syntaxError('recv', 'the after clause must be the last', x, loc);
  });
  if (clauses.length > 0 && isAfter(clauses[clauses.length - 1])) {
    const a = clauses[clauses.length - 1];
    const parts = listOf(a, 'recv', x, loc);
    if (parts.length < 3) syntaxError('recv', 'expected (after seconds body ...)', a, loc);
    timeout = yield expandExpr(parts[1], env, u, loc);
    after = Lambda([], null, yield expandBody(a.cdr.cdr, new Scope(env), u, loc, 'recv'), null, loc);
    clauses = clauses.slice(0, -1);
  }
  const msg = new Var('msg');
  /** @returns {Generator<any, any, any>} */
  const thunk = function* (/** @type {any} */ b, /** @type {Scope} */ scope) {
    return Lambda([], null, yield expandBody(b, new Scope(scope), u, loc, 'recv'), null, loc);
  };
  const matcherBody = yield* chainClauses(clauses, msg, env, u, loc, 'recv', thunk, () => Const(false, loc));
  const matcher = Lambda([msg], null, matcherBody, null, loc);
  return Call(rtCall('%recv', [matcher, timeout, after], loc), [], loc);
}

/** @param {string} who @param {string} hook */
function handlerForm(who, hook) {
  /** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
  return function* (x, env, u, loc) {
    const ops = operands(x, who, loc, 2, Infinity, `(${who} handler body ...)`);
    const handler = yield expandExpr(ops[0], env, u, loc);
    const body = yield expandBody(/** @type {Pair} */ (x.cdr).cdr, new Scope(env), u, loc, who);
    return rtCall(hook, [handler, Lambda([], null, body, null, loc)], loc);
  };
}

export const termiteForms = {
  match: expandMatch,
  recv: expandRecv,
  catch: handlerForm('catch', '%catch'),
  handle: handlerForm('handle', '%handle'),
};
