// @ts-check
/**
 * Expanding one expression to Core: the dispatcher every form goes through.
 *
 *   identifier            ⇒ LocalRef / GlobalRef (an unbound name is a global of the
 *                            scope where its resolution ended, checked at the unit's end)
 *   (keyword ...)         ⇒ the special form's handler (special-forms.js)
 *   (macro ...)           ⇒ transcribe, then expand the result (a loop, not recursion)
 *   (f arg ...)           ⇒ Call
 *   number, string, #t, char, vector, bytevector ⇒ Const
 *
 * Handlers are generators run by trampoline.js: `expandExpr` returns either a finished
 * node or a generator that the caller `yield`s. The location of a form is the one the
 * reader recorded, or else the enclosing form's (macro output gets the use site's).
 */
import { Pair } from '../values.js';
import { Call, Const, LocalRef, GlobalRef, Seq, globalName } from '../ir/core.js';
import { isIdentifier, lookup, rootSym, unboundHome, strip } from './hygiene.js';
import { transcribe } from './syntax-rules.js';
import { syntaxError } from './errors.js';
import { locOf } from './source.js';
import { spine } from './util.js';

/** @typedef {import('./hygiene.js').Scope} Scope */
/** @typedef {import('./hygiene.js').Identifier} Identifier */
/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */

/**
 * @param {any} x a form @param {Scope} env @param {Unit} u @param {Loc|null} loc inherited location
 * @returns {any} a Core node, or a generator producing one (yield it)
 */
export function expandExpr(x, env, u, loc) {
  for (;;) {
    if (x instanceof Pair) {
      const l = locOf(x) ?? loc;
      const head = x.car;
      if (isIdentifier(head)) {
        const b = lookup(head, env);
        if (b !== null) {
          if (b.kind === 'macro') {
            x = transcribe(b.macro, x, env, l);
            loc = l;
            continue;
          }
          if (b.kind === 'special') return b.handler(x, env, u, l);
          if (b.kind === 'aux') syntaxError(rootSym(head).name, 'auxiliary syntax used out of place', x, l);
        }
      }
      return expandApplication(x, env, u, l);
    }
    if (isIdentifier(x)) return expandReference(x, env, loc);
    if (x === null) return syntaxError('', "() is not an expression (write '() for the empty list)", x, loc);
    return Const(Array.isArray(x) ? strip(x) : x, loc);
  }
}

/**
 * A variable reference.
 * @param {Identifier} id @param {Scope} env @param {Loc|null} loc
 */
export function expandReference(id, env, loc) {
  const b = lookup(id, env);
  if (b === null) return GlobalRef(freeGlobal(id, env, loc), loc);
  switch (b.kind) {
    case 'local': return LocalRef(b.v, loc);
    case 'global': return GlobalRef(b.g, loc);
    default: return syntaxError(rootSym(id).name, 'syntactic keyword used as a variable', id, loc);
  }
}

/**
 * The global an unbound identifier denotes: its name in the namespace of the top
 * level where its resolution ended. A program or library must define it before the
 * unit ends (checked by unit.js); a finished library cannot gain definitions, so a
 * macro of a library naming something the library lacks is an error right away.
 * @param {Identifier} id @param {Scope} env @param {Loc|null} loc
 */
export function freeGlobal(id, env, loc) {
  const home = unboundHome(id, env);
  const info = /** @type {import('./hygiene.js').TopInfo} */ (home.info);
  const name = rootSym(id).name;
  if (info.sealed) syntaxError(name, `unbound identifier (inserted by a macro of ${info.label})`, id, loc);
  if (!info.freeRefs.has(name)) info.freeRefs.set(name, loc);
  return globalName(info.ns, name);
}

/**
 * `(f arg ...)`. A call whose parts are all atoms (the common `(car x)`, `(+ i 1)`) is
 * built at once; otherwise a generator expands the parts.
 * @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc
 */
function expandApplication(x, env, u, loc) {
  const s = spine(x.cdr);
  if (s === null || s.tail !== null) syntaxError('', 'a procedure call must be a proper list', x, loc);
  if (x.car instanceof Pair || s.items.some((a) => a instanceof Pair)) return expandCall(x.car, s.items, env, u, loc);
  return Call(expandExpr(x.car, env, u, loc), s.items.map((a) => expandExpr(a, env, u, loc)), loc);
}

/**
 * @param {any} head @param {any[]} items @param {Scope} env @param {Unit} u @param {Loc|null} loc
 * @returns {Generator<any, any, any>}
 */
function* expandCall(head, items, env, u, loc) {
  const fn = yield expandExpr(head, env, u, loc);
  const args = [];
  for (const a of items) args.push(yield expandExpr(a, env, u, loc));
  return Call(fn, args, loc);
}

/**
 * Expand a sequence of expressions (not a body: no definitions) to one node.
 * @param {any[]} forms non-empty @param {Scope} env @param {Unit} u @param {Loc|null} loc
 * @returns {Generator<any, any, any>}
 */
export function* expandSequence(forms, env, u, loc) {
  const es = [];
  for (const f of forms) es.push(yield expandExpr(f, env, u, loc));
  return Seq(es, loc);
}
