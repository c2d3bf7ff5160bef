// @ts-check
/**
 * L2 "CPS": continuations made explicit and second-class (Kennedy, "Compiling with
 * Continuations, Continued"). Every intermediate value is named; every non-tail call
 * names its continuation — the rest of the block after it, which binds the result —
 * and every join of control flow is a named join point.
 *
 *   Atom ::= Const(value) | LocalRef(v) | GlobalRef(g)
 *   Triv ::= Atom
 *          | PrimCall(prim, Atom*)                 never suspends; may throw an error
 *          | Lambda(params, rest, Term, name) | CaseLambda(Lambda*)
 *          | GlobalSet(g, Atom) | GlobalDef(g, Atom)
 *   Term ::= Return(Triv)                           deliver to the current continuation
 *          | TailCall(Atom, Atom*)
 *          | Call(Atom, Atom*, v, Term)             non-tail call: a return point; v gets the value
 *          | Let(v | null, Triv, Term)
 *          | Fix(v*, Lambda*, Term)                 mutually recursive closures
 *          | If(Atom, Term, Term)
 *          | LetJoin(j, v | null, Term_join, Term)  j is in scope in the last Term only
 *          | Jump(j, Atom | null)
 *
 * Changed from Core: no nested expressions (ANF), no Seq, no Letrec (fix-letrec), no
 * LocalSet (convert-assignments). A `Call` is exactly where a frame may be reified.
 */

/** A join point: the continuation of a non-tail `if`. */
export class Join {
  /** @param {number} id */
  constructor(id) {
    this.id = id;
  }
  toString() {
    return `j${this.id}`;
  }
}

/**
 * Print an L2 term.
 * @param {any} n @param {(x: any) => string} writeDatum
 * @returns {string}
 */
export function printCps(n, writeDatum) {
  /** @type {string[]} */
  const lines = [];
  /** @param {any} n @param {string} ind */
  const term = (n, ind) => {
    for (;;) {
      switch (n.t) {
        case 'Return': lines.push(`${ind}(return ${triv(n.e, ind)})`); return;
        case 'TailCall': lines.push(`${ind}(tail ${[n.fn, ...n.args].map((a) => triv(a, ind)).join(' ')})`); return;
        case 'Call':
          lines.push(`${ind}(call ${n.v} <- ${[n.fn, ...n.args].map((a) => triv(a, ind)).join(' ')})`);
          n = n.body; continue;
        case 'Let':
          lines.push(`${ind}(let ${n.v ?? '_'} ${triv(n.e, ind)})`);
          n = n.body; continue;
        case 'Fix':
          lines.push(`${ind}(fix ${n.vars.join(' ')})`);
          n.lambdas.forEach((/** @type {any} */ l, /** @type {number} */ i) => lines.push(`${ind}  ${n.vars[i]} = ${triv(l, ind + '  ')}`));
          n = n.body; continue;
        case 'If':
          lines.push(`${ind}(if ${triv(n.test, ind)}`);
          term(n.then, ind + '    ');
          lines.push(`${ind}  else`);
          term(n.else, ind + '    ');
          return;
        case 'LetJoin':
          lines.push(`${ind}(join ${n.j} (${n.v ?? ''})`);
          term(n.jbody, ind + '    ');
          lines.push(`${ind}  in`);
          n = n.body; continue;
        case 'Jump': lines.push(`${ind}(jump ${n.j}${n.e ? ' ' + triv(n.e, ind) : ''})`); return;
        default: throw new Error(`printCps: unknown term ${n && n.t}`);
      }
    }
  };
  /** @param {any} n @param {string} ind @returns {string} */
  const triv = (n, ind) => {
    switch (n.t) {
      case 'Const': return `'${writeDatum(n.value)}`;
      case 'LocalRef': return String(n.v);
      case 'GlobalRef': return `${n.g.ns}::${n.g.name}`;
      case 'PrimCall': return `(%${n.prim}${n.args.map((/** @type {any} */ a) => ' ' + triv(a, ind)).join('')})`;
      case 'GlobalSet': return `(set! ${n.g.ns}::${n.g.name} ${triv(n.e, ind)})`;
      case 'GlobalDef': return `(define ${n.g.ns}::${n.g.name} ${triv(n.e, ind)})`;
      case 'Lambda': {
        const save = lines.length;
        term(n.body, ind + '    ');
        const body = lines.splice(save).join('\n');
        return `(lambda${n.name ? ':' + n.name : ''} (${n.params.join(' ')}${n.rest ? ' . ' + n.rest : ''})\n${body})`;
      }
      case 'CaseLambda': return `(case-lambda ${n.clauses.map((/** @type {any} */ c) => triv(c, ind)).join(' ')})`;
      default: throw new Error(`printCps: unknown triv ${n && n.t}`);
    }
  };
  term(n, '');
  return lines.join('\n');
}
