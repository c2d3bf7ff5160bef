// @ts-check
/**
 * The expander's extension point: a host package (the process runtime) defines a
 * library of its own — special forms and procedure names — without the language
 * knowing what they are for. The language knows nothing of processes; the runtime
 * defines `(termite)`'s `recv`, `match`, `catch`, `handle` and its procedures through
 * this module (packages/runtime/src/syntax/).
 *
 *   defineHostLibrary('(my lib)', {
 *     syntax: { 'my-form': function* (form, env, u, loc) { ... return coreNode; } },
 *     procedures: ['my-proc'],            // runtime procedures of namespace 'rt'
 *     defaultImport: true,                // programs without an `import` form get it
 *   });
 *
 * Invariants:
 *   - Define host libraries before programs are expanded: libraries are looked up when a
 *     program imports them, and an environment made earlier keeps what it imported.
 *   - A keyword is defined once: a special form whose name is already a keyword (the
 *     language's `if`, or another library's form) is refused, unless it is the same
 *     handler — so defining the same library again is harmless (idempotent).
 *   - A library may be defined in several steps; each step adds the names it lacks. The
 *     language itself declares `(termite)` with the procedures it defines (stdlib.js);
 *     the runtime adds the rest. The R7RS libraries, `(scheme ...)`, are not extended.
 *   - Procedures are names only: the host defines them in 'rt' (definePrimitive, or
 *     Scheme compiled by loadRuntimeSource) before a program using them runs.
 *
 * A special form's handler receives the whole form, the scope it appears in, the unit
 * being expanded and the inherited source location, and returns a Core node
 * (../ir/core.js), or a generator that yields each sub-expansion it needs and returns
 * the node (trampoline.js: deep nesting costs heap, not stack):
 *
 *   const test = yield expandExpr(form.cdr.car, env, u, loc);
 *
 * Everything such a handler needs is exported here, so a host depends on this one
 * module of the expander (re-exported as `expander` by ../internal.js).
 */
import { STANDARD_LIBRARIES, DEFAULT_IMPORTS } from './stdlib.js';
import { defineSpecialForms } from './special-forms.js';
import { forgetStandardLibrary } from './session.js';

export { Var, Let, Lambda, Call, LocalRef, Const, If, printCore } from '../ir/core.js';
export { Scope, isIdentifier, rootSym, strip } from './hygiene.js';
export { expandExpr } from './expand-expr.js';
export { expandBody } from './body.js';
export { listOf, operands, rtCall } from './util.js';
export { syntaxError, SchemeSyntaxError } from './errors.js';
export { expandProgram } from './toplevel.js';

/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */
/** @typedef {import('./hygiene.js').Identifier} Identifier */

/**
 * A special form: `(form, env, u, loc)` → a Core node, or a generator returning one.
 * @typedef {(form: any, env: import('./hygiene.js').Scope, u: Unit, loc: Loc|null) => any} SpecialFormHandler
 */

/**
 * What a host library defines.
 * @typedef {object} HostLibrary
 * @property {Record<string, SpecialFormHandler>} [syntax] keyword → handler
 * @property {string[]} [procedures] names of runtime procedures ('rt' namespace) it exports
 * @property {boolean} [defaultImport] programs without an `import` form import it
 */

/**
 * Define the library `key` ("(termite)"), or add to it. See the invariants above.
 * @param {string} key @param {HostLibrary} lib
 */
export function defineHostLibrary(key, lib) {
  if (typeof key !== 'string' || !key.startsWith('(')) throw new TypeError(`defineHostLibrary: a library key such as "(termite)", not ${String(key)}`);
  if (key.startsWith('(scheme ')) throw new Error(`defineHostLibrary: ${key} is an R7RS library; its exports are fixed by the report`);
  const syntax = Object.entries(lib.syntax ?? {});
  const procedures = lib.procedures ?? [];
  const clash = procedures.find((name) => Object.hasOwn(lib.syntax ?? {}, name));
  if (clash !== undefined) throw new Error(`defineHostLibrary ${key}: ${clash} is both a keyword and a procedure`);
  defineSpecialForms(syntax, key);
  const old = STANDARD_LIBRARIES[key] ?? { syntax: [], procedures: [] };
  const added = (/** @type {string[]} */ have, /** @type {string[]} */ names) => names.filter((n) => !have.includes(n));
  STANDARD_LIBRARIES[key] = {
    syntax: [...old.syntax, ...added(old.syntax, syntax.map(([name]) => name))],
    procedures: [...old.procedures, ...added(old.procedures, procedures)],
  };
  forgetStandardLibrary(key);
  if (lib.defaultImport && !DEFAULT_IMPORTS.includes(key)) DEFAULT_IMPORTS.push(key);
}

/**
 * The names library `key` exports (a standard or host library), or null.
 * @param {string} key @returns {{syntax: string[], procedures: string[]}|null}
 */
export function libraryExports(key) {
  const lib = STANDARD_LIBRARIES[key];
  return lib ? { syntax: [...lib.syntax], procedures: [...lib.procedures] } : null;
}

/** Whether programs without an `import` form import library `key`. @param {string} key */
export const isDefaultImport = (key) => DEFAULT_IMPORTS.includes(key);
