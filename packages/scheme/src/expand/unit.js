// @ts-check
/**
 * Unit top levels (program, library body, REPL input): where definitions become
 * GlobalDefs in the unit's namespace, and the checks a finished unit must pass.
 *
 *   (define x e) ...  ⇒ (define ns::x e)   after every top-level name of the forms is
 *                       bound (definitions.js phase 1), so forward references resolve
 *   expressions       ⇒ kept in order; the unit's value is the last one's
 *
 * A top-level definition of a name that a macro template introduced (an Alias) is
 * hygienic like any other binding: it binds only the Alias, to a global of its own
 * named "name%N" (N counts such definitions in the top level), so it neither clobbers
 * nor is seen by the user's own `name`. A library may not define a name twice or define what it
 * imports; a program may redefine (and so shadow) an imported name, and a REPL input
 * may redefine anything. At the end of a program or library, every name referenced but
 * never bound is reported as unbound; a REPL allows references to names it will define
 * later.
 */
import { Sym } from '../values.js';
import { Seq, GlobalDef, GlobalSet, globalName } from '../ir/core.js';
import { Scope, Alias, rootSym } from './hygiene.js';
import { scanForms, expandItem } from './definitions.js';
import { voidConst } from './util.js';
import { syntaxError } from './errors.js';

/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./hygiene.js').Identifier} Identifier */
/** @typedef {import('./hygiene.js').Binding} Binding */
/** @typedef {import('./session.js').Session} Session */

/**
 * The state of one unit's expansion.
 * @typedef {object} Unit
 * @property {Session} session
 * @property {Scope} top
 * @property {string|null} file    for includes without a location
 * @property {number} records      define-record-type forms so far (the next ordinal)
 */

/**
 * A fresh top-level scope.
 * @param {string} ns @param {'program'|'library'|'repl'} kind @param {string} label
 */
export function makeTop(ns, kind, label) {
  return new Scope(null, { ns, kind, label, sealed: false, freeRefs: new Map(), imports: new Set(), libs: new Set(), hidden: 0 });
}

/** @param {Session} session @param {Scope} top @param {string|null} file @returns {Unit} */
export const makeUnit = (session, top, file) => ({ session, top, file, records: 0 });

/**
 * The definition context of a unit's top level.
 * @param {Unit} u
 * @param {((form: any, loc: Loc|null) => void)|null} onImport
 * @param {((form: any, loc: Loc|null) => void)|null} onDefineLibrary
 * @returns {import('./definitions.js').DefContext}
 */
export function topDefContext(u, onImport, onDefineLibrary) {
  const top = u.top;
  const info = /** @type {import('./hygiene.js').TopInfo} */ (top.info);
  /** @param {Identifier} id @param {Binding} b @param {Loc|null} loc @param {any} form @param {string} who */
  const define = (id, b, loc, form, who) => {
    const name = rootSym(id).name;
    const existing = top.map.get(id);
    if (existing !== undefined && info.kind === 'library') {
      if (info.imports.has(name) && !(id instanceof Alias)) syntaxError(who, `cannot define ${name}: ${info.label} imports it`, form, loc);
      syntaxError(who, `${name} is defined twice in ${info.label}`, form, loc);
    }
    if (!(id instanceof Alias)) info.imports.delete(name);
    top.bind(id, b);
  };
  return {
    scope: top,
    bind(id, loc, form) {
      // A name a macro template introduced gets a global name of its own (hygiene).
      const name = id instanceof Alias ? `${rootSym(id).name}%${++info.hidden}` : rootSym(id).name;
      const g = globalName(info.ns, name);
      define(id, { kind: 'global', g, imported: false }, loc, form, 'define');
      return g;
    },
    bindSyntax(id, binding, loc, form) {
      define(id, binding, loc, form, 'define-syntax');
    },
    onImport,
    onDefineLibrary,
  };
}

/**
 * Both phases over a unit's top-level forms.
 * @param {any[]} forms @param {Unit} u @param {import('./definitions.js').DefContext} dc @param {Loc|null} loc
 * @returns {Generator<any, any[], any>} the unit's nodes, in order
 */
export function* expandTopLevel(forms, u, dc, loc) {
  const items = scanForms(forms, loc, u, dc);
  const nodes = [];
  for (const item of items) {
    const outs = yield expandItem(item, u.top, u);
    for (const o of outs) {
      if (o.target === null) nodes.push(o.node);
      else if (o.set) nodes.push(GlobalSet(o.target, o.node, item.loc));
      else nodes.push(GlobalDef(o.target, o.node, item.loc));
    }
  }
  return nodes;
}

/**
 * The unit's body: its nodes in sequence, or the unspecified value.
 * @param {any[]} nodes @param {Loc|null} loc
 */
export const unitBody = (nodes, loc) => (nodes.length === 0 ? voidConst(loc) : Seq(nodes, loc));

/**
 * Report the first name referenced in the unit but never bound.
 * @param {Scope} top
 */
export function checkFreeRefs(top) {
  const info = /** @type {import('./hygiene.js').TopInfo} */ (top.info);
  for (const [name, loc] of info.freeRefs) {
    const b = top.map.get(Sym.intern(name));
    if (b === undefined) syntaxError(name, `unbound variable in ${info.label}`, undefined, loc);
    if (b.kind !== 'global' || b.g.ns !== info.ns) syntaxError(name, `used before its definition in ${info.label} as a different kind of binding`, undefined, loc);
  }
  info.freeRefs.clear();
}

/**
 * Namespaces of the user libraries a unit (or library) needs instantiated first:
 * those it imports and everything they need, in load (= dependency) order.
 * @param {Scope} top @param {Session} session @returns {string[]}
 */
export function unitRequires(top, session) {
  const info = /** @type {import('./hygiene.js').TopInfo} */ (top.info);
  /** @type {Set<string>} */
  const all = new Set();
  for (const lib of info.libs) {
    for (const ns of lib.requires) all.add(ns);
    all.add(lib.ns);
  }
  const order = (/** @type {string} */ ns) => session.libraries.get(ns.slice('lib:'.length))?.order ?? -1;
  return [...all].sort((a, b) => order(a) - order(b));
}
