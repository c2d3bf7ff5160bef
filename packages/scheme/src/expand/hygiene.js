// @ts-check
/**
 * Identifiers, scopes and name resolution: the heart of hygiene.
 *
 * Algorithm: renaming with definition environments ("Macros That Work", Clinger & Rees
 * 1991; the same idea as syntactic closures and Chibi's renamed identifiers).
 *
 *  - An identifier is either a symbol written by the user (`Sym`) or an `Alias`: the
 *    identifier that a macro template inserted, renamed. Each expansion of a macro makes
 *    ONE fresh Alias per distinct template identifier (so `tmp` twice in a template is
 *    the same Alias within one expansion, and a different one in the next expansion).
 *    An Alias remembers the identifier it renames (`id`, itself maybe an Alias, for
 *    macro-defining macros) and the scope where the macro was defined (`env`).
 *  - A scope (`Scope`) maps identifier OBJECTS to bindings and points to its parent.
 *    Binding forms bind whatever identifier object they are given: a `let` written by
 *    a template binds the Alias, never the user's symbol.
 *  - Resolving identifier `id` in scope `s`: look `id` up (by identity) in `s` and its
 *    ancestors. If not found and `id` is an Alias, resolve `alias.id` in `alias.env`.
 *
 * Why this is hygienic, both ways:
 *  1. A binding introduced by a macro binds an Alias no user symbol is identical to, so
 *     it cannot capture user code (`swap!`'s `tmp`, `my-or`'s `t`).
 *  2. A free template identifier is an Alias nothing at the use site binds, so it falls
 *     through to the macro's definition scope: `if` in a template means the `if` seen
 *     where the macro was defined even inside `(let ((if list)) ...)`, and a library
 *     macro reaches the library's private globals (they resolve in the library's top
 *     scope to GlobalNames in the library's namespace).
 *  3. User code that a pattern variable carried into the template keeps its own
 *     identifiers, which resolve where the user wrote them.
 * `quote` strips Aliases back to their symbols (`strip`), and literals in syntax-rules
 * and cond's `else`/`=>` compare with free-identifier=? (same binding, or both unbound
 * with the same name).
 *
 * This holds at top level too: a definition of an Alias at a unit's top level binds
 * only the Alias, to a global with a name of its own ("tmp%3", see unit.js), so two
 * uses of a macro that defines a helper do not share it and the user's `tmp` is untouched.
 */
import { Sym, Pair } from '../values.js';
import { ExpanderBug } from './errors.js';

/** An identifier inserted by a macro expansion, renamed. */
export class Alias {
  /** @param {Sym|Alias} id the identifier renamed @param {Scope} env the macro's definition scope */
  constructor(id, env) {
    this.id = id;
    this.env = env;
    /** @type {Sym} the symbol the user (or the innermost template) wrote */
    this.sym = id instanceof Alias ? id.sym : id;
  }
  toString() {
    return this.sym.name;
  }
}

/** @typedef {Sym|Alias} Identifier */

/**
 * What an identifier means. `special` and `aux` are the expander's own keywords
 * (`if`, `else`); `macro` a syntax-rules transformer; `local` a lexical variable;
 * `global` a top-level variable of some namespace.
 * @typedef {{kind: 'local', v: import('../ir/core.js').Var}
 *   | {kind: 'global', g: import('../ir/core.js').GlobalName, imported: boolean}
 *   | {kind: 'special', name: string, handler: Function, scan?: Function}
 *   | {kind: 'aux', name: string}
 *   | {kind: 'macro', name: string, macro: any}} Binding
 */

/**
 * What a top-level scope knows about its unit: the namespace its definitions live in
 * and how forward references are treated.
 * @typedef {object} TopInfo
 * @property {string} ns          '.', or 'lib:(foo bar)'
 * @property {'program'|'library'|'repl'} kind
 * @property {boolean} sealed     a finished library: an unbound name reaching it is an error
 * @property {Map<string, any>} freeRefs  names referenced before (or without) a definition → loc
 * @property {string} label       for messages: "library (foo bar)", "program"
 * @property {Set<string>} imports  names currently bound by an import
 * @property {Set<any>} libs        user libraries imported (session.js Library objects)
 * @property {number} hidden        global definitions of macro-introduced names so far
 */

/** A lexical scope: identifier objects → bindings. */
export class Scope {
  /** @param {Scope|null} parent @param {TopInfo} [topInfo] only for a unit's top scope */
  constructor(parent, topInfo) {
    this.parent = parent;
    /** @type {Map<Identifier, Binding>} */
    this.map = new Map();
    /** @type {Scope} the top-level scope of the unit this scope belongs to */
    this.top = parent ? parent.top : this;
    /** @type {TopInfo|null} */
    this.info = topInfo ?? null;
    if (!parent && !topInfo) throw new ExpanderBug('a top-level scope needs its TopInfo');
  }

  /** Bind `id` in this scope. @param {Identifier} id @param {Binding} b */
  bind(id, b) {
    if (this.parent !== null && !boundLocally.has(id)) boundLocally.add(id);
    this.map.set(id, b);
  }
}

/**
 * Identifiers some non-top scope has ever bound. Resolving any other identifier (`if`,
 * `car`, a global) skips straight to the top scope instead of walking every enclosing
 * scope, so expanding 10,000 nested `let`s stays linear.
 * @type {WeakSet<Identifier>}
 */
const boundLocally = new WeakSet();

/** @param {any} x @returns {x is Identifier} */
export const isIdentifier = (x) => x instanceof Sym || x instanceof Alias;

/** The symbol an identifier stands for. @param {Identifier} id @returns {Sym} */
export const rootSym = (id) => (id instanceof Alias ? id.sym : id);

/**
 * The binding of `id` in `scope`, or null when it is unbound.
 * @param {Identifier} id @param {Scope} scope @returns {Binding|null}
 */
export function lookup(id, scope) {
  /** @type {Identifier} */
  let i = id;
  /** @type {Scope} */
  let s = scope;
  for (;;) {
    if (boundLocally.has(i)) {
      /** @type {Scope|null} */
      let e = s;
      for (; e !== null; e = e.parent) {
        const b = e.map.get(i);
        if (b !== undefined) return b;
      }
    } else {
      const b = s.top.map.get(i);
      if (b !== undefined) return b;
    }
    if (!(i instanceof Alias)) return null;
    s = i.env;
    i = i.id;
  }
}

/**
 * For an unbound identifier: the top-level scope where its resolution ended (the use
 * site's for a user symbol, the macro definition's for a template identifier).
 * @param {Identifier} id @param {Scope} scope @returns {Scope}
 */
export function unboundHome(id, scope) {
  let s = scope;
  for (let i = id; i instanceof Alias; i = i.id) s = i.env;
  return s.top;
}

/** @param {Binding|null} a @param {Binding|null} b */
export function sameBinding(a, b) {
  if (a === b) return true;
  if (a === null || b === null || a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'global': return a.g.ns === /** @type {any} */ (b).g.ns && a.g.name === /** @type {any} */ (b).g.name;
    case 'special':
    case 'aux': return a.name === /** @type {any} */ (b).name;
    case 'macro': return a.macro === /** @type {any} */ (b).macro;
    case 'local': return a.v === /** @type {any} */ (b).v;
    default: return false;
  }
}

/**
 * R7RS free-identifier=?: both mean the same binding, or both are unbound and have
 * the same name.
 * @param {Identifier} a @param {Scope} sa @param {Identifier} b @param {Scope} sb
 */
export function freeIdentifierEquals(a, sa, b, sb) {
  const ba = lookup(a, sa);
  const bb = lookup(b, sb);
  if (ba === null && bb === null) return rootSym(a) === rootSym(b);
  return sameBinding(ba, bb);
}

/**
 * Whether `x` is the auxiliary keyword `name` (`else`, `=>`, `_`, `...`, `unquote`) as
 * seen from `scope`: bound to that keyword, or unbound and spelled that way.
 * @param {any} x @param {Scope} scope @param {string} name
 */
export function isAux(x, scope, name) {
  if (!isIdentifier(x) || rootSym(x).name !== name) return false;
  const b = lookup(x, scope);
  return b === null || (b.kind === 'aux' && b.name === name);
}

/**
 * A datum with every Alias replaced by its symbol (what `quote` sees). Data without
 * Aliases (everything the user wrote) is returned as is, after a scan that uses an
 * explicit stack; only macro-built data is copied.
 * @param {any} x @returns {any}
 */
export function strip(x) {
  if (x instanceof Alias) return x.sym;
  if (!(x instanceof Pair) && !Array.isArray(x)) return x;
  return containsAlias(x) ? copyStripped(x, new Map()) : x;
}

/** @param {any} root */
function containsAlias(root) {
  const seen = new Set();
  const stack = [root];
  while (stack.length > 0) {
    let x = stack.pop();
    while (x instanceof Pair) {
      if (seen.has(x)) break;
      seen.add(x);
      const a = x.car;
      if (a instanceof Alias) return true;
      if (a instanceof Pair || Array.isArray(a)) stack.push(a);
      x = x.cdr;
    }
    if (x instanceof Alias) return true;
    if (Array.isArray(x) && !seen.has(x)) {
      seen.add(x);
      for (const e of x) {
        if (e instanceof Alias) return true;
        if (e instanceof Pair || Array.isArray(e)) stack.push(e);
      }
    }
  }
  return false;
}

/**
 * Copy of macro-built data with Aliases replaced. Recursion only follows cars (the
 * template's nesting); cdr chains are followed by a loop. `done` keeps shared and
 * cyclic structure intact.
 * @param {any} x @param {Map<any, any>} done @returns {any}
 */
function copyStripped(x, done) {
  if (x instanceof Alias) return x.sym;
  if (Array.isArray(x)) {
    const got = done.get(x);
    if (got !== undefined) return got;
    const v = new Array(x.length);
    done.set(x, v);
    for (let i = 0; i < x.length; i++) v[i] = copyStripped(x[i], done);
    return v;
  }
  if (!(x instanceof Pair)) return x;
  const got = done.get(x);
  if (got !== undefined) return got;
  const head = new Pair(null, null);
  done.set(x, head);
  let out = head;
  out.car = copyStripped(x.car, done);
  let t = x.cdr;
  while (t instanceof Pair) {
    const seen = done.get(t);
    if (seen !== undefined) {
      out.cdr = seen;
      return head;
    }
    const p = new Pair(null, null);
    done.set(t, p);
    out.cdr = p;
    out = p;
    p.car = copyStripped(t.car, done);
    t = t.cdr;
  }
  out.cdr = copyStripped(t, done);
  return head;
}
