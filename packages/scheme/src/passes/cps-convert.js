// @ts-check
/**
 * pass: cps-convert : Core (after fix-letrec, convert-assignments) -> L2 CPS
 *
 *   (f (g x) y)            ⇒ (call t1 <- g x) (tail f t1 y)          in tail position
 *   (let ((v (if a b c))) body)
 *                          ⇒ (join j (v) body in (if a (jump j b) (jump j c)))
 *   (begin (display x) y)  ⇒ (let _ (%display x)) (return y)
 *
 * The conversion is the one-pass "meta-continuation" CPS transform: a context is
 * either TAIL (return the value) or a JS function from the atom holding the value to
 * the rest of the term. A context is invoked at most once — where control would
 * otherwise duplicate it (the two arms of a non-tail `if`), a join point is made —
 * so no code is ever copied.
 *
 * Evaluation order: operator, then operands left to right. Global variable reads are
 * bound to temporaries where they are evaluated, so a later `set!` of the same global
 * cannot change an operand already evaluated.
 *
 * Why separate: it is the only pass that decides where continuations (return points)
 * are; closure conversion then only computes what each one must save.
 */
import { Var } from '../ir/core.js';
import { Join } from '../ir/cps.js';
import { CompilerBug } from './walk-core.js';

const TAIL = null;

let joinCounter = 0;

/**
 * Convert a Core expression in tail position (a lambda body or a unit body).
 * @param {any} node
 * @returns {any} an L2 Term
 */
export function cpsConvert(node) {
  return convert(node, TAIL);
}

/**
 * @param {any} n Core node
 * @param {((a: any) => any) | null} k TAIL or the meta-continuation
 * @returns {any} Term
 */
function convert(n, k) {
  switch (n.t) {
    case 'Const':
    case 'LocalRef':
      return deliver(n, k);
    case 'GlobalRef':
    case 'PrimCall':
    case 'Lambda':
    case 'CaseLambda':
    case 'GlobalSet':
    case 'GlobalDef':
      return convertTriv(n, (triv) => bindTriv(triv, k, n));
    case 'If':
      return convert(n.test, (test) => convertIf(test, n, k));
    case 'Seq':
      return convertSeq(n.es, k);
    case 'Call':
      return convertOperator(n.fn, (f) => convertArgs(n.args, 0, [], (args) => makeCall(f, args, k, n.loc)));
    case 'Let':
      return convertLet(n, 0, k);
    case 'Fix':
      return { t: 'Fix', vars: n.vars, lambdas: n.lambdas.map(convertLambda), body: convert(n.body, k) };
    default:
      throw new CompilerBug(`cps-convert: unexpected Core node ${n && n.t}`);
  }
}

/**
 * Convert a node whose value is a Triv (not an atom) once its operands are atoms.
 * @param {any} n @param {(t: any) => any} use
 */
function convertTriv(n, use) {
  switch (n.t) {
    case 'GlobalRef':
      return use(n);
    case 'PrimCall':
      return convertArgs(n.args, 0, [], (args) => use({ t: 'PrimCall', prim: n.prim, args, loc: n.loc }));
    case 'Lambda':
      return use(convertLambda(n));
    case 'CaseLambda':
      return use({ t: 'CaseLambda', clauses: n.clauses.map(convertLambda), name: n.name, loc: n.loc });
    case 'GlobalSet':
    case 'GlobalDef':
      return convert(n.e, (e) => use({ t: n.t, g: n.g, e, loc: n.loc }));
    default:
      throw new CompilerBug(`cps-convert: not a triv ${n.t}`);
  }
}

/** @param {any} n a Core Lambda */
function convertLambda(n) {
  return { t: 'Lambda', params: n.params, rest: n.rest, body: convert(n.body, TAIL), name: n.name, loc: n.loc };
}

/**
 * Hand an atom to the context.
 * @param {any} atom @param {((a: any) => any) | null} k
 */
function deliver(atom, k) {
  return k === TAIL ? { t: 'Return', e: atom } : k(atom);
}

/**
 * Bind a triv to a fresh variable (or return it in tail position).
 * @param {any} triv @param {((a: any) => any) | null} k @param {any} src for the name
 */
function bindTriv(triv, k, src) {
  if (k === TAIL) return { t: 'Return', e: triv };
  const v = new Var(tempName(src));
  return { t: 'Let', v, e: triv, body: k({ t: 'LocalRef', v, loc: src.loc }) };
}

/** @param {any} src */
function tempName(src) {
  if (src.t === 'GlobalRef') return src.g.name;
  if (src.t === 'PrimCall') return 't';
  if (src.t === 'Lambda' || src.t === 'CaseLambda') return src.name || 'proc';
  return 't';
}

/**
 * The operator of a call. A global in operator position stays an atom, read at the
 * call itself: the call protocol needs no unbound-variable check there (an unbound
 * global's placeholder signals the error when called), and R7RS leaves the order of
 * evaluating operator and operands unspecified.
 * @param {any} fn @param {(a: any) => any} use
 */
function convertOperator(fn, use) {
  return fn.t === 'GlobalRef' ? use(fn) : convert(fn, use);
}

/**
 * Convert operands left to right into atoms.
 * @param {any[]} args @param {number} i @param {any[]} acc @param {(atoms: any[]) => any} use
 * @returns {any}
 */
function convertArgs(args, i, acc, use) {
  if (i === args.length) return use(acc);
  return convert(args[i], (a) => convertArgs(args, i + 1, [...acc, a], use));
}

/**
 * @param {any} f @param {any[]} args @param {((a: any) => any) | null} k @param {any} loc
 */
function makeCall(f, args, k, loc) {
  if (k === TAIL) return { t: 'TailCall', fn: f, args, loc };
  const v = new Var('r');
  return { t: 'Call', fn: f, args, v, body: k({ t: 'LocalRef', v, loc }), loc };
}

/**
 * @param {any} test atom @param {any} n Core If @param {((a: any) => any) | null} k
 */
function convertIf(test, n, k) {
  if (k === TAIL) {
    return { t: 'If', test, then: convert(n.then, TAIL), else: convert(n.else, TAIL) };
  }
  const j = new Join(++joinCounter);
  const v = new Var('j');
  const jump = (/** @type {any} */ a) => ({ t: 'Jump', j, e: a });
  return {
    t: 'LetJoin',
    j,
    v,
    jbody: k({ t: 'LocalRef', v, loc: n.loc }),
    body: { t: 'If', test, then: convert(n.then, jump), else: convert(n.else, jump) },
  };
}

/**
 * A sequence is converted element by element without nesting JS calls: each
 * non-final element is converted with a context that returns a placeholder term,
 * and the placeholder is then overwritten with the conversion of what follows. A
 * context is invoked at most once, so there is at most one placeholder per element.
 * This keeps the compiler's stack depth independent of the length of a program.
 * @param {any[]} es @param {((a: any) => any) | null} k
 * @returns {any}
 */
function convertSeq(es, k) {
  /** @type {any} */
  let root = null;
  /** @type {any} */
  let hole = null;
  for (let i = 0; i < es.length; i++) {
    const last = i === es.length - 1;
    const next = last ? null : { t: 'Hole' };
    const term = convert(es[i], last ? k : () => next);
    // an atom in effect position emits nothing: the hole to fill stays the same
    if (!last && term === next) continue;
    if (hole === null) root = term;
    else Object.assign(hole, term);
    hole = next;
  }
  return root;
}

/**
 * Let binds its variables directly to the triv or call result (no copy through a
 * temporary), in order.
 * @param {any} n Core Let @param {number} i @param {((a: any) => any) | null} k
 * @returns {any}
 */
function convertLet(n, i, k) {
  if (i === n.vars.length) return convert(n.body, k);
  const v = n.vars[i];
  const init = n.inits[i];
  const rest = () => convertLet(n, i + 1, k);
  switch (init.t) {
    case 'Call':
      return convertOperator(init.fn, (f) =>
        convertArgs(init.args, 0, [], (args) => ({ t: 'Call', fn: f, args, v, body: rest(), loc: init.loc })));
    case 'PrimCall':
    case 'Lambda':
    case 'CaseLambda':
    case 'GlobalRef':
    case 'GlobalSet':
    case 'GlobalDef':
      return convertTriv(init, (triv) => ({ t: 'Let', v, e: triv, body: rest() }));
    default:
      return convert(init, (a) => ({ t: 'Let', v, e: a, body: rest() }));
  }
}
