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
 * Jump contexts (made by convertIf). They are cheap and pure, so unlike other contexts
 * they may be invoked more than once: a non-tail `if` nested in an arm of another
 * reuses the outer join point instead of making its own.
 * @type {WeakSet<Function>}
 */
const jumpContexts = new WeakSet();

/**
 * Conversions postponed to keep the compiler's JS stack shallow: a subterm converted in
 * a TAIL or jump context (an arm of an `if`, a lambda body, a `let` body) is not
 * needed to build the term around it, so it is left as a placeholder and converted
 * later by cpsConvert's loop. The depth of JS recursion then follows only the nesting
 * of operands, not of `if` chains (a `cond` of thousands of clauses) or bodies.
 * @type {{hole: any, node: any, k: ((a: any) => any) | null}[]}
 */
let postponed = [];

/**
 * Convert a Core expression in tail position (a lambda body or a unit body).
 * @param {any} node
 * @returns {any} an L2 Term
 */
export function cpsConvert(node) {
  const outer = postponed;
  postponed = [];
  try {
    const root = convert(node, TAIL);
    for (let work = postponed.pop(); work !== undefined; work = postponed.pop()) {
      fill(work.hole, convert(work.node, work.k));
    }
    return root;
  } finally {
    postponed = outer;
  }
}

/**
 * The conversion of `n` in context `k`, or a placeholder for it when it can wait.
 * @param {any} n @param {((a: any) => any) | null} k
 */
function convertLater(n, k) {
  if (k !== TAIL && !jumpContexts.has(k)) return convert(n, k);
  const hole = { t: 'Hole' };
  postponed.push({ hole, node: n, k });
  return hole;
}

/** Placeholders that were handed on before being filled, by placeholder. @type {WeakMap<any, any[]>} */
const aliasesOf = new WeakMap();

/**
 * Fill placeholder `hole` with `term`. A context may hand its own placeholder back as
 * the term (an atom in effect position, the last element of a nested `begin`); then
 * `hole` is filled when that one is, so a placeholder is never copied while empty.
 * @param {any} hole @param {any} term
 */
function fill(hole, term) {
  if (term.t === 'Hole') {
    const aliases = aliasesOf.get(term);
    if (aliases) aliases.push(hole);
    else aliasesOf.set(term, [hole]);
    return;
  }
  Object.assign(hole, term);
  const aliases = aliasesOf.get(hole);
  if (aliases) {
    aliasesOf.delete(hole);
    for (const a of aliases) fill(a, term);
  }
}

/**
 * Terms linked through placeholders, built without nesting JS calls: each term added
 * ends in the placeholder that the next one fills (operands, `let` bindings, the
 * elements of a sequence).
 */
class Chain {
  /** @type {any} */ root = null;
  /** @type {any} */ hole = null;

  /** Append `term`, which ends in placeholder `next`. @param {any} term @param {any} next */
  link(term, next) {
    if (this.hole === null) this.root = term;
    else fill(this.hole, term);
    this.hole = next;
  }

  /** The whole chain, ending in `last`. @param {any} last */
  close(last) {
    if (this.hole === null) return last;
    fill(this.hole, last);
    return this.root;
  }
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
      return convertOperator(n.fn, (f) => convertArgs(n.args, (args) => makeCall(f, args, k, n.loc)));
    case 'Let':
      return convertLet(n, k);
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
      return convertArgs(n.args, (args) => use({ t: 'PrimCall', prim: n.prim, args, loc: n.loc }));
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
  return { t: 'Lambda', params: n.params, rest: n.rest, body: convertLater(n.body, TAIL), name: n.name, loc: n.loc };
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
 * Convert operands left to right into atoms, without nesting JS calls per operand: each
 * operand's context records its atom and returns a placeholder, filled afterwards with
 * the conversion of what follows. JS recursion depth is then the nesting depth of
 * operands, not the size of what follows.
 * @param {any[]} args @param {(atoms: any[]) => any} use
 * @returns {any}
 */
function convertArgs(args, use) {
  const atoms = [];
  const chain = new Chain();
  for (const arg of args) {
    const next = { t: 'Hole' };
    /** @type {any} */
    let atom = null;
    const term = convert(arg, (a) => { atom = a; return next; });
    atoms.push(atom);
    if (term !== next) chain.link(term, next); // else an atom: nothing was emitted
  }
  return chain.close(use(atoms));
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
  if (k === TAIL || jumpContexts.has(k)) {
    return { t: 'If', test, then: convertLater(n.then, k), else: convertLater(n.else, k) };
  }
  const j = new Join(++joinCounter);
  const v = new Var('j');
  const jump = (/** @type {any} */ a) => ({ t: 'Jump', j, e: a });
  jumpContexts.add(jump);
  return {
    t: 'LetJoin',
    j,
    v,
    jbody: k({ t: 'LocalRef', v, loc: n.loc }),
    body: { t: 'If', test, then: convertLater(n.then, jump), else: convertLater(n.else, jump) },
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
  const chain = new Chain();
  for (let i = 0; i < es.length - 1; i++) {
    const next = { t: 'Hole' };
    const term = convert(es[i], () => next);
    // an atom in effect position emits nothing: the hole to fill stays the same
    if (term !== next) chain.link(term, next);
  }
  return chain.close(convert(es[es.length - 1], k));
}

/**
 * Let binds its variables directly to the triv or call result (no copy through a
 * temporary), in order. The bindings are chained through placeholders like a sequence,
 * and the body is converted later when its context allows (a chain of nested `let`s,
 * as `let*` makes, then costs no JS stack).
 * @param {any} n Core Let @param {((a: any) => any) | null} k
 * @returns {any}
 */
function convertLet(n, k) {
  const chain = new Chain();
  for (let i = 0; i < n.vars.length; i++) {
    const v = n.vars[i];
    const init = n.inits[i];
    const next = { t: 'Hole' };
    switch (init.t) {
      case 'Call':
        chain.link(convertOperator(init.fn, (f) =>
          convertArgs(init.args, (args) => ({ t: 'Call', fn: f, args, v, body: next, loc: init.loc }))), next);
        break;
      case 'PrimCall':
      case 'Lambda':
      case 'CaseLambda':
      case 'GlobalRef':
      case 'GlobalSet':
      case 'GlobalDef':
        chain.link(convertTriv(init, (triv) => ({ t: 'Let', v, e: triv, body: next })), next);
        break;
      default:
        chain.link(convert(init, (a) => ({ t: 'Let', v, e: a, body: next })), next);
    }
  }
  // convert never returns a postponed placeholder (callers copy what it returns)
  if (chain.hole === null) return convert(n.body, k);
  // a postponed body's placeholder is aliased by the chain's end and fills it in turn
  return chain.close(convertLater(n.body, k));
}
