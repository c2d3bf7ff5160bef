// @ts-check
/**
 * `define-library` (R7RS §5.6): a library becomes a CoreUnit of kind 'library' whose
 * definitions are GlobalDefs in namespace "lib:(name)" ("lib:(name)@1.2" for a
 * versioned name `(define-library (foo bar@1.2) ...)`, library-names.js), plus an export table the
 * expander keeps (names → bindings, macros included).
 *
 *   (define-library (foo bar)
 *     (export f (rename g h))      h is g under another name
 *     (import (scheme base))       imports are bound before the body is expanded
 *     (begin ...) (include "x.scm") (include-ci ...)
 *     (include-library-declarations "decls.scm")  more declarations from a file
 *     (cond-expand (feature decl ...) ...))       declarations chosen by features
 *
 * Declarations are processed in order (imports before any body form is expanded);
 * then the body is expanded as a top level; then exports are resolved (an exported
 * name must be defined or imported). The library's scope is then sealed: its macros,
 * used elsewhere, resolve their free identifiers in it, and its private globals are
 * reached as GlobalRefs in its namespace. The library's unit joins the session's
 * pending units after those of the libraries it imports (dependency order).
 */
import { Pair } from '../values.js';
import { isIdentifier, rootSym } from './hygiene.js';
import { makeTop, makeUnit, topDefContext, expandTopLevel, checkFreeRefs, unitBody, unitRequires } from './unit.js';
import { resolveImportSet, importInto } from './import-sets.js';
import { libraryName, libraryKey, libraryNamespace } from './library-names.js';
import { includedForms } from './include.js';
import { condExpandForms } from './cond-expand.js';
import { run } from './trampoline.js';
import { listOf } from './util.js';
import { syntaxError } from './errors.js';
import { locOf } from './source.js';

/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./hygiene.js').Binding} Binding */
/** @typedef {import('./session.js').Session} Session */
/** @typedef {import('./session.js').Library} Library */

const WHO = 'define-library';

/**
 * @param {any} form the define-library form @param {string|null} file where it was read
 * @param {Session} session @returns {Library}
 */
export function expandLibraryForm(form, file, session) {
  const loc = locOf(form) ?? (file ? { file, line: 1, col: 1 } : null);
  if (!(form.cdr instanceof Pair)) syntaxError(WHO, 'expected (define-library name declaration ...)', form, loc);
  const name = libraryName(form.cdr.car, WHO, loc);
  const key = libraryKey(name.parts, name.version);
  if (session.libraries.has(key)) syntaxError(WHO, `library ${key} is defined twice`, form, loc);
  session.loading.push(key);
  try {
    const top = makeTop(libraryNamespace(key), 'library', `library ${key}`);
    const u = makeUnit(session, top, file);
    /** @type {{id: any, external: string, loc: Loc|null}[]} */
    const exports = [];
    const body = collectDeclarations(listOf(form.cdr.cdr, WHO, form, loc), loc, u, exports, file);
    const dc = topDefContext(u, null, null);
    const nodes = run(expandTopLevel(body, u, dc, loc));
    checkFreeRefs(top);
    /** @type {Map<string, Binding>} */
    const table = new Map();
    for (const e of exports) {
      const b = top.map.get(rootSym(e.id));
      if (b === undefined) syntaxError('export', `${rootSym(e.id).name} is exported but neither defined nor imported by library ${key}`, undefined, e.loc);
      if (table.has(e.external)) syntaxError('export', `${e.external} is exported twice by library ${key}`, undefined, e.loc);
      table.set(e.external, b.kind === 'global' ? { kind: 'global', g: b.g, imported: true } : b);
    }
    /** @type {import('./hygiene.js').TopInfo} */ (top.info).sealed = true;
    const requires = unitRequires(top, session);
    /** @type {Library} */
    const lib = { key, ns: libraryNamespace(key), exports: table, std: false, requires, order: session.nextOrder++ };
    session.libraries.set(key, lib);
    // `ns` is not in CoreUnit's typedef: it saves consumers rebuilding 'lib:' + name.
    session.pendingUnits.push(/** @type {any} */ ({ kind: 'library', name: key, ns: lib.ns, body: unitBody(nodes, loc), requires }));
    return lib;
  } finally {
    session.loading.pop();
  }
}

/**
 * Process the declarations: bind imports, record exports, gather the body forms.
 * @param {any[]} decls @param {Loc|null} loc @param {import('./unit.js').Unit} u
 * @param {{id: any, external: string, loc: Loc|null}[]} exports filled in
 * @param {string|null} file
 * @returns {any[]} the body forms
 */
function collectDeclarations(decls, loc, u, exports, file) {
  const body = [];
  /** @type {{decl: any, loc: Loc|null}[]} */
  const work = decls.map((d) => ({ decl: d, loc })).reverse();
  while (work.length > 0) {
    const { decl, loc: outer } = /** @type {{decl: any, loc: Loc|null}} */ (work.pop());
    const l = locOf(decl) ?? outer;
    if (!(decl instanceof Pair) || !isIdentifier(decl.car)) syntaxError(WHO, 'expected a library declaration', decl, l);
    const push = (/** @type {any[]} */ ds) => {
      for (let i = ds.length - 1; i >= 0; i--) work.push({ decl: ds[i], loc: l });
    };
    switch (rootSym(decl.car).name) {
      case 'export':
        for (const spec of listOf(decl.cdr, 'export', decl, l)) exports.push(exportSpec(spec, decl, l));
        break;
      case 'import':
        for (const set of listOf(decl.cdr, 'import', decl, l)) {
          importInto(u.top, resolveImportSet(set, u.session, l?.file ?? file, l), decl, l);
        }
        break;
      case 'begin':
        body.push(...listOf(decl.cdr, 'begin', decl, l));
        break;
      case 'include':
        body.push(...includedForms(decl, l, u, false));
        break;
      case 'include-ci':
        body.push(...includedForms(decl, l, u, true));
        break;
      case 'include-library-declarations':
        push(includedForms(decl, l, u, false));
        break;
      case 'cond-expand':
        push(condExpandForms(decl, l, u));
        break;
      default:
        syntaxError(WHO, `unknown library declaration ${rootSym(decl.car).name}`, decl, l);
    }
  }
  return body;
}

/**
 * `id` or `(rename internal external)`.
 * @param {any} spec @param {any} decl @param {Loc|null} loc
 */
function exportSpec(spec, decl, loc) {
  if (isIdentifier(spec)) return { id: spec, external: rootSym(spec).name, loc };
  const parts = spec instanceof Pair ? listOf(spec, 'export', decl, loc) : [];
  if (parts.length === 3 && isIdentifier(parts[0]) && rootSym(parts[0]).name === 'rename' && isIdentifier(parts[1]) && isIdentifier(parts[2])) {
    return { id: parts[1], external: rootSym(parts[2]).name, loc };
  }
  return syntaxError('export', 'expected an identifier or (rename internal external)', decl, loc);
}

