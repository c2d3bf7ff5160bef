// @ts-check
/**
 * A generic bottom-up rebuild of a Core tree, shared by the small Core → Core passes
 * so each of them states only the cases it changes.
 *
 * `mapCore(node, visit)` calls `visit(node, recur)` for every node; `visit` returns a
 * replacement node, or `undefined` to let mapCore rebuild the node from its mapped
 * children. Long `Seq`s and deep right-nested chains are where recursion depth goes,
 * and they are handled without one JS frame per element.
 */

/**
 * @param {any} n
 * @param {(n: any, recur: (m: any) => any) => any} visit
 * @returns {any}
 */
export function mapCore(n, visit) {
  /** @param {any} m @returns {any} */
  const recur = (m) => {
    const r = visit(m, recur);
    return r !== undefined ? r : rebuild(m, recur);
  };
  return recur(n);
}

/**
 * Rebuild `n` with each child mapped by `f`.
 * @param {any} n @param {(m: any) => any} f
 */
export function rebuild(n, f) {
  switch (n.t) {
    case 'Const':
    case 'LocalRef':
    case 'GlobalRef':
      return n;
    case 'LocalSet':
    case 'GlobalSet':
    case 'GlobalDef':
      return { ...n, e: f(n.e) };
    case 'If':
      return { ...n, test: f(n.test), then: f(n.then), else: f(n.else) };
    case 'Lambda':
      return { ...n, body: f(n.body) };
    case 'CaseLambda':
      return { ...n, clauses: n.clauses.map(f) };
    case 'Seq':
      return { ...n, es: n.es.map(f) };
    case 'Call':
      return { ...n, fn: f(n.fn), args: n.args.map(f) };
    case 'Let':
    case 'Letrec':
      return { ...n, inits: n.inits.map(f), body: f(n.body) };
    case 'Fix':
      return { ...n, lambdas: n.lambdas.map(f), body: f(n.body) };
    case 'PrimCall':
      return { ...n, args: n.args.map(f) };
    default:
      throw new CompilerBug(`rebuild: unknown Core node ${n && n.t}`);
  }
}

/**
 * Call `f` on each direct child of `n` (no rebuilding).
 * @param {any} n @param {(m: any) => void} f
 */
export function forEachChild(n, f) {
  switch (n.t) {
    case 'Const':
    case 'LocalRef':
    case 'GlobalRef':
      return;
    case 'LocalSet':
    case 'GlobalSet':
    case 'GlobalDef':
      f(n.e);
      return;
    case 'If':
      f(n.test); f(n.then); f(n.else);
      return;
    case 'Lambda':
      f(n.body);
      return;
    case 'CaseLambda':
      n.clauses.forEach(f);
      return;
    case 'Seq':
      n.es.forEach(f);
      return;
    case 'Call':
      f(n.fn); n.args.forEach(f);
      return;
    case 'Let':
    case 'Letrec':
      n.inits.forEach(f); f(n.body);
      return;
    case 'Fix':
      n.lambdas.forEach(f); f(n.body);
      return;
    case 'PrimCall':
      n.args.forEach(f);
      return;
    default:
      throw new CompilerBug(`forEachChild: unknown Core node ${n && n.t}`);
  }
}

/** A fault of the compiler itself, never of the user's program. */
export class CompilerBug extends Error {
  /** @param {string} message */
  constructor(message) {
    super(`compiler bug: ${message}`);
    this.name = 'CompilerBug';
  }
}
