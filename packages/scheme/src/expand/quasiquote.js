// @ts-check
/**
 * `quasiquote` (R7RS §4.2.8), nested levels included.
 *
 *   `(a ,b ,@c d)      ⇒ (rt::append (rt::list 'a b) c '(d))
 *   `(a ,b)            ⇒ (rt::list 'a b)
 *   `(a . ,b)          ⇒ (rt::cons 'a b)
 *   `#(a ,b)           ⇒ (rt::list->vector (rt::list 'a b))
 *   `(1 `(2 ,(3 ,x)))  ⇒ inner levels stay data: only the innermost ,x (level 0) is evaluated
 *   `(a b c)           ⇒ '(a b c)   (a part with nothing to evaluate is one constant)
 *
 * A part without any unquote is found by an iterative scan and emitted as one Const,
 * untouched, so a large literal costs one pass. Runs of elements between splices become
 * one `rt::list` call; a run of constants becomes one constant list.
 */
import { Pair, arrayToList } from '../values.js';
import { Const } from '../ir/core.js';
import { isIdentifier, lookup, rootSym, strip } from './hygiene.js';
import { expandExpr } from './expand-expr.js';
import { operands, rtCall, spine } from './util.js';
import { syntaxError } from './errors.js';

/** @typedef {import('./hygiene.js').Scope} Scope */
/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */

const KEYWORDS = new Set(['quasiquote', 'unquote', 'unquote-splicing']);

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandQuasiquote(x, env, u, loc) {
  const [t] = operands(x, 'quasiquote', loc, 1, 1, '(quasiquote template)');
  return yield qq(t, 1, env, u, loc);
}

/**
 * Whether `x` is `(name e)` with `name` meaning the quasiquote keyword `name` here.
 * @param {any} x @param {string} name @param {Scope} env
 */
function isForm(x, name, env) {
  if (!(x instanceof Pair) || !isIdentifier(x.car) || rootSym(x.car).name !== name) return false;
  if (!(x.cdr instanceof Pair) || x.cdr.cdr !== null) return false;
  const b = lookup(x.car, env);
  return b === null || ((b.kind === 'special' || b.kind === 'aux') && b.name === name);
}

/**
 * Whether the datum mentions quasiquote, unquote or unquote-splicing anywhere.
 * Iterative, safe on cyclic data.
 * @param {any} root
 */
function mentionsUnquote(root) {
  const seen = new Set();
  const stack = [root];
  while (stack.length > 0) {
    let x = stack.pop();
    while (x instanceof Pair) {
      if (seen.has(x)) break;
      seen.add(x);
      const a = x.car;
      if (isIdentifier(a) && KEYWORDS.has(rootSym(a).name)) return true;
      if (a instanceof Pair || Array.isArray(a)) stack.push(a);
      x = x.cdr;
    }
    if (Array.isArray(x) && !seen.has(x)) {
      seen.add(x);
      for (const e of x) if (e instanceof Pair || Array.isArray(e)) stack.push(e);
    }
  }
  return false;
}

/** @param {any} n */
const isConst = (n) => n.t === 'Const';

/**
 * @param {any} x template @param {number} depth quasiquote nesting (1 = outermost)
 * @param {Scope} env @param {Unit} u @param {Loc|null} loc
 * @returns {Generator<any, any, any>}
 */
function* qq(x, depth, env, u, loc) {
  if ((!(x instanceof Pair) && !Array.isArray(x)) || !mentionsUnquote(x)) return Const(strip(x), loc);
  if (Array.isArray(x)) {
    const elems = [];
    for (const el of x) elems.push(yield* qqElement(el, depth, env, u, loc));
    const l = buildList(elems, null, loc);
    return isConst(l) ? Const(listValues(l.value), loc) : rtCall('list->vector', [l], loc);
  }
  if (isForm(x, 'unquote', env)) {
    if (depth === 1) return yield expandExpr(x.cdr.car, env, u, loc);
    return wrap(x.car, yield qq(x.cdr.car, depth - 1, env, u, loc), loc);
  }
  if (isForm(x, 'quasiquote', env)) return wrap(x.car, yield qq(x.cdr.car, depth + 1, env, u, loc), loc);
  /** @type {{node: any, splice: boolean}[]} */
  const elems = [];
  if (spine(x) === null) syntaxError('quasiquote', 'a circular template cannot contain unquote', x, loc);
  let t = x;
  while (t instanceof Pair) {
    if (t !== x && (isForm(t, 'unquote', env) || isForm(t, 'quasiquote', env))) break;
    elems.push(yield* qqElement(t.car, depth, env, u, loc));
    t = t.cdr;
  }
  const tail = t === null ? null : yield qq(t, depth, env, u, loc);
  return buildList(elems, tail, loc);
}

/**
 * One element of a list or vector template: `,@e` at level 1 splices.
 * @param {any} el @param {number} depth @param {Scope} env @param {Unit} u @param {Loc|null} loc
 * @returns {Generator<any, {node: any, splice: boolean}, any>}
 */
function* qqElement(el, depth, env, u, loc) {
  if (!isForm(el, 'unquote-splicing', env)) return { node: yield qq(el, depth, env, u, loc), splice: false };
  if (depth === 1) return { node: yield expandExpr(el.cdr.car, env, u, loc), splice: true };
  return { node: wrap(el.car, yield qq(el.cdr.car, depth - 1, env, u, loc), loc), splice: false };
}

/** `(keyword inner)` as data. @param {any} keyword @param {any} inner @param {Loc|null} loc */
function wrap(keyword, inner, loc) {
  const k = Const(strip(keyword), loc);
  return isConst(inner) ? Const(new Pair(k.value, new Pair(inner.value, null)), loc) : rtCall('list', [k, inner], loc);
}

/**
 * @param {{node: any, splice: boolean}[]} elems @param {any} tail node or null for ()
 * @param {Loc|null} loc
 * @returns {any} a Core node
 */
function buildList(elems, tail, loc) {
  const hasSplice = elems.some((e) => e.splice);
  if (!hasSplice && elems.every((e) => isConst(e.node)) && (tail === null || isConst(tail))) {
    return Const(arrayToList(elems.map((e) => e.node.value), tail === null ? null : tail.value), loc);
  }
  /** @type {any[]} */
  const args = [];
  /** @type {any[]} */
  let run = [];
  const flush = () => {
    if (run.length === 0) return;
    args.push(run.every(isConst) ? Const(arrayToList(run.map((n) => n.value)), loc) : rtCall('list', run, loc));
    run = [];
  };
  for (const e of elems) {
    if (e.splice) {
      flush();
      args.push(e.node);
    } else {
      run.push(e.node);
    }
  }
  if (!hasSplice) {
    if (tail === null) return rtCall('list', run, loc);
    if (run.length === 1) return rtCall('cons', [run[0], tail], loc);
  }
  flush();
  if (tail !== null) args.push(tail);
  return rtCall('append', args, loc);
}

/** @param {any} l a proper list @returns {any[]} */
function listValues(l) {
  const out = [];
  for (; l instanceof Pair; l = l.cdr) out.push(l.car);
  return out;
}

export const quasiquoteForms = { quasiquote: expandQuasiquote };
