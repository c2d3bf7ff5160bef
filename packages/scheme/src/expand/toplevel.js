// @ts-check
/**
 * The two entry points over whole inputs: a program (a file's datums) and a REPL
 * environment (one datum at a time, remembering macros, imports and definitions).
 *
 * Program: leading `define-library` forms (a convenience: libraries defined in the
 * program's own file) and `import` forms come first; a program without an import form
 * imports every standard library and (termite). The rest is one top level: definitions
 * become GlobalDefs in '.', `begin` splices, define-syntax is expander-only. The result
 * is every user library the program needs (dependency order, each once), then the
 * program unit.
 *
 * REPL: each input is a unit of kind 'repl'; it may import, define libraries and
 * redefine earlier definitions. Library units loaded by createEnvironment's imports are
 * handed out with the first input's units.
 */
import { Pair, Sym, isList, listToArray } from '../values.js';
import { Session, standardLibrary } from './session.js';
import { DEFAULT_IMPORTS } from './stdlib.js';
import { makeTop, makeUnit, topDefContext, expandTopLevel, checkFreeRefs, unitBody, unitRequires } from './unit.js';
import { resolveImportSet, importInto } from './import-sets.js';
import { run } from './trampoline.js';
import { lookup } from './hygiene.js';
import { listOf } from './util.js';
import { syntaxError, ExpanderBug } from './errors.js';
import { locOf } from './source.js';

/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('../ir/core.js').CoreUnit} CoreUnit */
/** @typedef {import('./session.js').ExpandOptions} ExpandOptions */
/** @typedef {import('./unit.js').Unit} Unit */

/**
 * @typedef {object} Environment a REPL / eval environment
 * @property {Session} session
 * @property {import('./hygiene.js').Scope} top
 * @property {string|null} file
 */

/**
 * Expand a whole program.
 * @param {any[]} datums the program's forms, as read
 * @param {ExpandOptions} [opts]
 * @returns {{units: CoreUnit[]}}
 */
export function expandProgram(datums, opts = {}) {
  const session = new Session(opts);
  const file = opts.file ?? null;
  const top = makeTop('.', 'program', file ? `program ${file}` : 'the program');
  const u = makeUnit(session, top, file);
  let i = 0;
  let imported = false;
  for (; i < datums.length; i++) {
    const d = datums[i];
    if (isHead(d, 'define-library')) session.defineLibrary(d, file);
    else if (isHead(d, 'import')) {
      importForm(d, u, locOf(d) ?? fileLoc(file));
      imported = true;
    } else break;
  }
  if (!imported) importDefaults(u);
  const dc = topDefContext(u, (form, loc) => syntaxError('import', "import declarations must come before the program's other forms", form, loc), null);
  const nodes = run(expandTopLevel(datums.slice(i), u, dc, fileLoc(file)));
  checkFreeRefs(top);
  const units = session.takeUnits();
  units.push({ kind: 'program', name: file ?? 'program', body: unitBody(nodes, fileLoc(file)), requires: unitRequires(top, session) });
  return { units };
}

/**
 * A REPL or `eval` environment importing `importSpecs` (import-set datums, as an array
 * or a Scheme list), or every standard library and (termite) when null.
 * @param {any} importSpecs @param {ExpandOptions} [opts]
 * @returns {Environment}
 */
export function createEnvironment(importSpecs, opts = {}) {
  const session = new Session(opts);
  const top = makeTop('.', 'repl', 'the REPL');
  const env = { session, top, file: opts.file ?? null };
  const u = makeUnit(session, top, env.file);
  if (importSpecs === null || importSpecs === undefined) importDefaults(u);
  else {
    const specs = Array.isArray(importSpecs) ? importSpecs : isList(importSpecs) ? listToArray(importSpecs) : [importSpecs];
    for (const spec of specs) importInto(top, resolveImportSet(spec, session, env.file, null), spec, null);
  }
  return env;
}

/**
 * Expand one input in a REPL environment.
 * @param {any} datum @param {Environment} env
 * @returns {{units: CoreUnit[]}}
 */
export function expandInEnvironment(datum, env) {
  const u = makeUnit(env.session, env.top, env.file);
  const loc = locOf(datum) ?? fileLoc(env.file);
  const dc = topDefContext(
    u,
    (form, l) => importForm(form, u, l),
    (form, l) => {
      env.session.defineLibrary(form, l?.file ?? env.file);
    },
  );
  try {
    /** @type {any[]} */
    let nodes = [];
    // `import` and `define-library` work at the REPL even where no library bound them.
    if (isHead(datum, 'define-library') && lookup(datum.car, env.top) === null) env.session.defineLibrary(datum, loc?.file ?? env.file);
    else if (isHead(datum, 'import') && isImportKeyword(lookup(datum.car, env.top))) importForm(datum, u, loc);
    else nodes = run(expandTopLevel([datum], u, dc, loc));
    const units = env.session.takeUnits();
    units.push({ kind: 'repl', name: 'repl', body: unitBody(nodes, loc), requires: unitRequires(env.top, env.session) });
    return { units };
  } finally {
    /** @type {import('./hygiene.js').TopInfo} */ (env.top.info).freeRefs.clear();
  }
}

/** @param {import('./hygiene.js').Binding|null} b */
const isImportKeyword = (b) => b === null || (b.kind === 'special' && b.name === 'import');

/** @param {any} d @param {string} name */
const isHead = (d, name) => d instanceof Pair && d.car instanceof Sym && d.car.name === name;

/** @param {string|null} file @returns {Loc|null} */
const fileLoc = (file) => (file ? { file, line: 1, col: 1 } : null);

/** @param {any} form @param {Unit} u @param {Loc|null} loc */
function importForm(form, u, loc) {
  const sets = listOf(form.cdr, 'import', form, loc);
  if (sets.length === 0) syntaxError('import', 'expected (import import-set ...)', form, loc);
  for (const set of sets) importInto(u.top, resolveImportSet(set, u.session, loc?.file ?? u.file, loc), form, loc);
}

/** @param {Unit} u */
function importDefaults(u) {
  for (const key of DEFAULT_IMPORTS) {
    const lib = standardLibrary(key);
    if (lib === null) throw new ExpanderBug(`default import ${key} is not a standard library`);
    importInto(u.top, { bindings: lib.exports, libs: [] }, null, null);
  }
}
