// @ts-check
/**
 * Import sets (R7RS §5.2) and binding imported names in a top-level scope.
 *
 *   <import set> ::= <library name> | (only <set> id ...) | (except <set> id ...)
 *                  | (prefix <set> id) | (rename <set> (from to) ...)
 *
 * An import set denotes a map from names to bindings. Importing binds each name in the
 * unit's top scope; a global is marked imported (so `set!` on it is an error). Importing
 * one name with two different bindings is an error, except in a REPL, where the later
 * import wins (as a later definition does).
 */
import { Pair, Sym } from '../values.js';
import { isIdentifier, rootSym, sameBinding } from './hygiene.js';
import { listOf } from './util.js';
import { syntaxError } from './errors.js';

/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./hygiene.js').Binding} Binding */
/** @typedef {import('./hygiene.js').Scope} Scope */
/** @typedef {import('./session.js').Library} Library */
/** @typedef {import('./session.js').Session} Session */

const SET_FORMS = new Set(['only', 'except', 'prefix', 'rename']);

/**
 * @param {any} set @param {Session} session @param {string|null} fromFile @param {Loc|null} loc
 * @returns {{bindings: Map<string, Binding>, libs: Library[]}}
 */
export function resolveImportSet(set, session, fromFile, loc) {
  if (set instanceof Pair && isIdentifier(set.car) && SET_FORMS.has(rootSym(set.car).name) && set.cdr instanceof Pair) {
    const kind = rootSym(set.car).name;
    const args = listOf(set.cdr.cdr, 'import', set, loc);
    const inner = resolveImportSet(set.cdr.car, session, fromFile, loc);
    const from = inner.bindings;
    /** @type {Map<string, Binding>} */
    const out = new Map();
    const name = (/** @type {any} */ x) => (isIdentifier(x) ? rootSym(x).name : syntaxError('import', `${kind}: expected identifiers`, set, loc));
    const need = (/** @type {string} */ n) => {
      if (!from.has(n)) syntaxError('import', `${kind}: ${n} is not exported by the import set`, set, loc);
    };
    switch (kind) {
      case 'only':
        for (const a of args) {
          const n = name(a);
          need(n);
          out.set(n, /** @type {Binding} */ (from.get(n)));
        }
        break;
      case 'except': {
        const drop = new Set(args.map(name));
        drop.forEach(need);
        for (const [n, b] of from) if (!drop.has(n)) out.set(n, b);
        break;
      }
      case 'prefix': {
        if (args.length !== 1) syntaxError('import', 'expected (prefix import-set prefix)', set, loc);
        const p = name(args[0]);
        for (const [n, b] of from) out.set(p + n, b);
        break;
      }
      case 'rename': {
        /** @type {Map<string, string>} */
        const renames = new Map();
        for (const r of args) {
          const pair = r instanceof Pair ? listOf(r, 'import', set, loc) : [];
          if (pair.length !== 2) syntaxError('import', 'expected (rename import-set (from to) ...)', set, loc);
          const f = name(pair[0]);
          need(f);
          renames.set(f, name(pair[1]));
        }
        for (const [n, b] of from) out.set(renames.get(n) ?? n, b);
        break;
      }
    }
    return { bindings: out, libs: inner.libs };
  }
  const lib = session.library(set, fromFile, loc);
  return { bindings: lib.exports, libs: lib.std ? [] : [lib] };
}

/**
 * Bind the names of a resolved import set in top-level scope `top`.
 * @param {Scope} top @param {{bindings: Map<string, Binding>, libs: Library[]}} resolved
 * @param {any} form the import form (for messages) @param {Loc|null} loc
 */
export function importInto(top, resolved, form, loc) {
  const info = /** @type {import('./hygiene.js').TopInfo} */ (top.info);
  for (const [name, b] of resolved.bindings) {
    const sym = Sym.intern(name);
    const existing = top.map.get(sym);
    if (existing !== undefined && info.kind !== 'repl') {
      if (info.imports.has(name) && !sameBinding(existing, b)) {
        syntaxError('import', `${name} is imported twice with different meanings`, form, loc);
      }
      if (!info.imports.has(name)) syntaxError('import', `cannot import ${name}: it is already defined`, form, loc);
    }
    top.bind(sym, b);
    info.imports.add(name);
  }
  for (const lib of resolved.libs) info.libs.add(lib);
}
