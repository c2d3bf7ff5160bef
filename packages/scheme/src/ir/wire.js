// @ts-check
/**
 * L3 "Wire": closure-converted code, the form in which code is content-addressed,
 * shipped between nodes and checked by the receiver before it generates JavaScript.
 * Plain data only (arrays, numbers, strings and the unit's constants), so it encodes to
 * canonical CBOR and hashes the same everywhere.
 *
 * A unit:
 *   { v: WIRE_VERSION, name, consts: datum[], globals: [ns, name][], prims: string[],
 *     lambdas: Lam[], requires: string[] }
 * Lambda 0 is the unit's top level: no parameters, no free variables.
 * A Lam is  { name, nfree, clauses: Clause[] }   (one clause unless case-lambda)
 * A Clause  { nreq, rest: 0|1, nlocals, body: Block }
 *   Locals are numbered per clause: parameters first (then the rest parameter), then
 *   every other variable bound in the clause in order of appearance.
 *
 * Atoms                                        Trivs (right-hand sides of LET, RETURN)
 *   [A_CONST, k]     constant k                  any Atom
 *   [A_LOCAL, i]     local i                     [T_PRIM, p, Atom...]     primitive p
 *   [A_FREE, i]      free value i                [T_CLOSURE, lam, Atom...] closure of lambda lam
 *   [A_GLOBAL, g]    global g (unbound → error)  [T_GSET, g, Atom]         set! a global
 *   [A_SELF]         the running closure         [T_GDEF, g, Atom]         define a global
 *   [A_FIX, n]       small exact integer n (inline literal)
 *
 * Blocks (a clause body, an arm of K_IF, a join body): an array of instructions ending
 * with exactly one terminal. Sequences are flat, so nesting depth is the depth of
 * conditionals, not the length of the program.
 *   instructions
 *   [K_CALL, label, dest, [live...], Atom_f, [Atom...]]
 *        a non-tail call, i.e. a return point: `label` is unique in the Lam; if the
 *        stack is unwound here, the frame saves the closure and the `live` locals
 *        (ascending) — exactly those the rest of the clause reads; `dest` gets the value
 *   [K_LET, dest | -1, Triv]
 *   [K_FIX, [[local, lam, [Atom...]]...]]   closures that may refer to each other
 *   [K_JOIN, j, param | -1, Block_inner]    run the inner block; a [K_JUMP, j, x] in it
 *                                           sets param to x and continues with the
 *                                           instructions after this K_JOIN (the join
 *                                           point). j is numbered per Lam. This is
 *                                           JavaScript's `j: { inner } rest`, so a long
 *                                           sequence of conditionals stays flat.
 *   terminals
 *   [K_RETURN, Triv]
 *   [K_TAIL, Atom_f, [Atom...]]
 *   [K_IF, Atom, Block, Block]
 *   [K_JUMP, j, Atom | null]
 *   [K_LOOP, [Atom...]]                     self tail call with exactly nreq arguments
 */

export const WIRE_VERSION = 1;

export const A_CONST = 0, A_LOCAL = 1, A_FREE = 2, A_GLOBAL = 3, A_SELF = 4, A_FIX = 5;
export const T_PRIM = 10, T_CLOSURE = 11, T_GSET = 12, T_GDEF = 13;
export const K_RETURN = 20, K_TAIL = 21, K_CALL = 22, K_LET = 23, K_FIX = 24, K_IF = 25, K_JOIN = 26, K_JUMP = 27, K_LOOP = 28;

/** The largest integer inlined as A_FIX (fits every JS engine's small-integer range). */
export const MAX_INLINE_FIXNUM = 2 ** 30 - 1;

/** Thrown when IR received from elsewhere is malformed. The message says where. */
export class IRCheckError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'IRCheckError';
  }
}

/**
 * Print a wire unit for --trace-pass: one lambda per block, terms indented.
 * @param {any} unit @param {(x: any) => string} writeDatum
 */
export function printWire(unit, writeDatum) {
  /** @type {string[]} */
  const out = [];
  const atom = (/** @type {any} */ a) => {
    switch (a[0]) {
      case A_CONST: return `'${writeDatum(unit.consts[a[1]])}`;
      case A_LOCAL: return `l${a[1]}`;
      case A_FREE: return `f${a[1]}`;
      case A_GLOBAL: return `${unit.globals[a[1]].join('::')}`;
      case A_SELF: return 'self';
      case A_FIX: return String(a[1]);
      default: return `?${a[0]}`;
    }
  };
  const triv = (/** @type {any} */ t) => {
    switch (t[0]) {
      case T_PRIM: return `(%${unit.prims[t[1]]}${t.slice(2).map((/** @type {any} */ a) => ' ' + atom(a)).join('')})`;
      case T_CLOSURE: return `(closure L${t[1]}${t.slice(2).map((/** @type {any} */ a) => ' ' + atom(a)).join('')})`;
      case T_GSET: return `(set! ${unit.globals[t[1]].join('::')} ${atom(t[2])})`;
      case T_GDEF: return `(define ${unit.globals[t[1]].join('::')} ${atom(t[2])})`;
      default: return atom(t);
    }
  };
  /** @param {any[]} block @param {string} ind */
  const term = (block, ind) => {
    for (const k of block) {
      switch (k[0]) {
        case K_CALL:
          out.push(`${ind}l${k[2]} <- call#${k[1]} ${atom(k[4])}(${k[5].map(atom).join(', ')})  live [${k[3].map((/** @type {number} */ i) => 'l' + i).join(' ')}]`);
          break;
        case K_LET: out.push(`${ind}${k[1] < 0 ? '_' : 'l' + k[1]} = ${triv(k[2])}`); break;
        case K_FIX:
          for (const [l, lam, fvs] of k[1]) out.push(`${ind}l${l} = fix L${lam}(${fvs.map(atom).join(', ')})`);
          break;
        case K_JOIN:
          out.push(`${ind}block j${k[1]}:`);
          term(k[3], ind + '  ');
          out.push(`${ind}j${k[1]}(${k[2] < 0 ? '' : 'l' + k[2]}):`);
          break;
        case K_RETURN: out.push(`${ind}return ${triv(k[1])}`); break;
        case K_TAIL: out.push(`${ind}tail ${atom(k[1])}(${k[2].map(atom).join(', ')})`); break;
        case K_IF:
          out.push(`${ind}if ${atom(k[1])}`);
          term(k[2], ind + '  ');
          out.push(`${ind}else`);
          term(k[3], ind + '  ');
          break;
        case K_JUMP: out.push(`${ind}jump j${k[1]}${k[2] ? ' ' + atom(k[2]) : ''}`); break;
        case K_LOOP: out.push(`${ind}loop(${k[1].map(atom).join(', ')})`); break;
        default: out.push(`${ind}?${k[0]}`); break;
      }
    }
  };
  unit.lambdas.forEach((/** @type {any} */ lam, /** @type {number} */ i) => {
    out.push(`L${i} ${lam.name} free=${lam.nfree}`);
    for (const c of lam.clauses) {
      out.push(`  clause nreq=${c.nreq} rest=${c.rest} locals=${c.nlocals}`);
      term(c.body, '    ');
    }
  });
  return out.join('\n');
}

/**
 * Visit every instruction of a Lam in a fixed order (clauses in order, each block's
 * instructions in order, an instruction before the blocks nested in it), numbering
 * them from 0: the *site* numbers that debug information is keyed by. Deterministic,
 * so the node that compiled a unit and a node that received it agree.
 * @param {any} lam @param {(ins: any[], site: number) => void} f
 */
export function forEachSite(lam, f) {
  let site = 0;
  /** @param {any[]} block */
  const walk = (block) => {
    for (const ins of block) {
      f(ins, site++);
      if (ins[0] === K_IF) {
        walk(ins[2]);
        walk(ins[3]);
      } else if (ins[0] === K_JOIN) {
        walk(ins[3]);
      }
    }
  };
  for (const c of lam.clauses) walk(c.body);
}

/**
 * Source location of a site as "file:line:col", from a unit's debug information
 * ({file, sites: per lambda, per site, [line, col] or null}).
 * @param {any} debug @param {number} lam @param {number} site
 */
export function siteLocation(debug, lam, site) {
  const pos = debug?.sites?.[lam]?.[site];
  return Array.isArray(pos) ? `${debug.file}:${pos[0]}:${pos[1]}` : null;
}
