// @ts-check
/**
 * L1 "Core": what the expander produces and the compiler consumes.
 *
 * Every derived form (cond, case, do, named let, quasiquote, guard, parameterize,
 * define-record-type, ...) has been expanded away. Variables are resolved: a local
 * variable is a unique `Var` object (alpha-renamed), a global is a `GlobalName`
 * (namespace + name). Grammar:
 *
 *   Node ::= Const(value)                      literal datum (already frozen)
 *          | LocalRef(v)                        v: Var
 *          | GlobalRef(g)                       g: GlobalName
 *          | LocalSet(v, e) | GlobalSet(g, e)   set!
 *          | GlobalDef(g, e)                    top-level define (unit top level only)
 *          | If(test, then, else)
 *          | Lambda(params, rest, body, name)   rest: Var|null
 *          | CaseLambda(clauses, name)          clauses: Lambda[]
 *          | Seq(es)                            es non-empty, value of the last
 *          | Call(fn, args)
 *          | Let(vars, inits, body)             parallel binding
 *          | Letrec(vars, inits, body)          letrec* (inits evaluated left to right)
 *          | PrimCall(prim, args)               introduced by recognize-primitives only
 *
 * Namespaces: `'rt'` is the runtime library (every builtin procedure: car, +, map, ...);
 * `'.'` is the environment the unit is instantiated in (a program's or REPL's own
 * top-level definitions); a library's globals live in `'lib:' + library name` (for
 * example `lib:(foo bar)`). A unit never names its environment any other way, so
 * its IR (and hash) does not depend on where it runs.
 *
 * Every node may carry `loc`: a `Loc` ({file, line, col}) or null.
 */

/** @typedef {{file: string, line: number, col: number}} Loc */
/** @typedef {{ns: string, name: string}} GlobalName */

let varCounter = 0;

/** A local variable. Unique object; `name` is for printing only. */
export class Var {
  /** @param {string} name */
  constructor(name) {
    this.name = name;
    this.id = ++varCounter;
  }
  toString() {
    return `${this.name}.${this.id}`;
  }
}

/** @param {string} ns @param {string} name @returns {GlobalName} */
export const globalName = (ns, name) => ({ ns, name });

/** @param {any} value @param {Loc|null} [loc] */
export const Const = (value, loc = null) => ({ t: 'Const', value, loc });
/** @param {Var} v @param {Loc|null} [loc] */
export const LocalRef = (v, loc = null) => ({ t: 'LocalRef', v, loc });
/** @param {GlobalName} g @param {Loc|null} [loc] */
export const GlobalRef = (g, loc = null) => ({ t: 'GlobalRef', g, loc });
/** @param {Var} v @param {any} e @param {Loc|null} [loc] */
export const LocalSet = (v, e, loc = null) => ({ t: 'LocalSet', v, e, loc });
/** @param {GlobalName} g @param {any} e @param {Loc|null} [loc] */
export const GlobalSet = (g, e, loc = null) => ({ t: 'GlobalSet', g, e, loc });
/** @param {GlobalName} g @param {any} e @param {Loc|null} [loc] */
export const GlobalDef = (g, e, loc = null) => ({ t: 'GlobalDef', g, e, loc });
/** @param {any} test @param {any} then @param {any} els @param {Loc|null} [loc] */
export const If = (test, then, els, loc = null) => ({ t: 'If', test, then, else: els, loc });
/**
 * @param {Var[]} params @param {Var|null} rest @param {any} body
 * @param {string|null} [name] @param {Loc|null} [loc]
 */
export const Lambda = (params, rest, body, name = null, loc = null) => ({ t: 'Lambda', params, rest, body, name, loc });
/** @param {any[]} clauses Lambda nodes @param {string|null} [name] @param {Loc|null} [loc] */
export const CaseLambda = (clauses, name = null, loc = null) => ({ t: 'CaseLambda', clauses, name, loc });
/** @param {any[]} es @param {Loc|null} [loc] */
export const Seq = (es, loc = null) => (es.length === 1 ? es[0] : { t: 'Seq', es, loc });
/** @param {any} fn @param {any[]} args @param {Loc|null} [loc] */
export const Call = (fn, args, loc = null) => ({ t: 'Call', fn, args, loc });
/** @param {Var[]} vars @param {any[]} inits @param {any} body @param {Loc|null} [loc] */
export const Let = (vars, inits, body, loc = null) => ({ t: 'Let', vars, inits, body, loc });
/** @param {Var[]} vars @param {any[]} inits @param {any} body @param {Loc|null} [loc] */
export const Letrec = (vars, inits, body, loc = null) => ({ t: 'Letrec', vars, inits, body, loc });
/** @param {string} prim @param {any[]} args @param {Loc|null} [loc] */
export const PrimCall = (prim, args, loc = null) => ({ t: 'PrimCall', prim, args, loc });

/**
 * A compilation unit as the expander hands it to the compiler.
 * @typedef {object} CoreUnit
 * @property {'program'|'library'|'repl'} kind
 * @property {string} name          file name, library name or "repl"
 * @property {any} body             a Node; its value is the unit's value
 * @property {string[]} requires    namespaces of libraries that must be instantiated first
 */

/**
 * Print a Core node as an s-expression, for --trace-pass and tests.
 * Locals print as name.id, globals as ns::name.
 * @param {any} n @param {(x: any) => string} [writeDatum] how to print constants
 * @returns {string}
 */
export function printCore(n, writeDatum = defaultWriteDatum) {
  /** @param {any} n @returns {string} */
  const p = (n) => {
    switch (n.t) {
      case 'Const': return `(quote ${writeDatum(n.value)})`;
      case 'LocalRef': return String(n.v);
      case 'GlobalRef': return `${n.g.ns}::${n.g.name}`;
      case 'LocalSet': return `(set! ${n.v} ${p(n.e)})`;
      case 'GlobalSet': return `(set! ${n.g.ns}::${n.g.name} ${p(n.e)})`;
      case 'GlobalDef': return `(define ${n.g.ns}::${n.g.name} ${p(n.e)})`;
      case 'If': return `(if ${p(n.test)} ${p(n.then)} ${p(n.else)})`;
      case 'Lambda': {
        const ps = n.params.map(String).join(' ');
        const formals = n.rest ? (n.params.length ? `(${ps} . ${n.rest})` : String(n.rest)) : `(${ps})`;
        return `(lambda${n.name ? ':' + n.name : ''} ${formals} ${p(n.body)})`;
      }
      case 'CaseLambda': return `(case-lambda ${n.clauses.map(p).join(' ')})`;
      case 'Seq': return `(begin ${n.es.map(p).join(' ')})`;
      case 'Call': return `(${[n.fn, ...n.args].map(p).join(' ')})`;
      case 'Let':
      case 'Letrec': {
        const bs = n.vars.map((/** @type {any} */ v, /** @type {number} */ i) => `(${v} ${p(n.inits[i])})`).join(' ');
        return `(${n.t === 'Let' ? 'let' : 'letrec*'} (${bs}) ${p(n.body)})`;
      }
      case 'PrimCall': return `(%${n.prim} ${n.args.map(p).join(' ')})`;
      default: throw new Error(`printCore: unknown node ${n && n.t}`);
    }
  };
  return p(n);
}

/** @param {any} x */
function defaultWriteDatum(x) {
  if (typeof x === 'string') return JSON.stringify(x);
  if (x === null) return '()';
  if (x && typeof x === 'object' && 'name' in x) return String(x.name);
  return String(x);
}
