// @ts-check
/**
 * A session: what one expandProgram call (or one REPL environment) knows across units —
 * the options, the libraries loaded so far (each expanded once), and the library units
 * produced but not yet handed to the caller.
 *
 * Finding a library `(foo bar)`: a standard library (stdlib.js, or one a host package
 * defined through extension.js); one already loaded or
 * defined in this session; else the first of foo/bar.sld, foo/bar.scm that `readFile`
 * returns, looked for in the importing file's directory, then in each libraryPath
 * entry. The file must contain `(define-library (foo bar) ...)`.
 *
 * Versions (library-names.js): `(import (foo bar@1.2))` wants exactly that version
 * (foo/bar@1.2.sld first, then foo/bar.sld, which must define it). `(import (foo bar))`
 * takes, in order: the library (foo bar) without a version if one is known; else the
 * highest version of it already loaded in this session or, when the runtime says its
 * body has run, on this node (sharedLibrary); else the one foo/bar.sld defines, whatever
 * its version.
 */
import { Pair, Sym } from '../values.js';
import { globalName } from '../ir/core.js';
import { isIdentifier, rootSym } from './hygiene.js';
import { STANDARD_LIBRARIES, BASE_FEATURES } from './stdlib.js';
import { keywordBinding } from './special-forms.js';
import { libraryName, libraryKey, libraryFileNames, baseKey, keyVersion, compareVersions } from './library-names.js';
import { expandLibraryForm } from './library.js';
import { readSource } from './source.js';
import { dirname, resolvePath } from './paths.js';
import { syntaxError } from './errors.js';

/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./hygiene.js').Binding} Binding */

/**
 * @typedef {object} Library
 * @property {string} key        "(foo bar)"
 * @property {string} ns         "lib:(foo bar)", or 'rt' for a standard library
 * @property {Map<string, Binding>} exports  external name → binding
 * @property {boolean} std
 * @property {string[]} requires namespaces of the user libraries it needs instantiated first, in dependency order
 * @property {number} order      load order within the session (dependencies come first)
 */

/**
 * @typedef {object} ExpandOptions
 * @property {string} [file]             the program's file name (locations, include, library search)
 * @property {string[]} [libraryPath]    directories searched for library files
 * @property {(path: string) => (string|null)} [readFile]  file access (injected: the same code runs in browsers)
 * @property {string[]} [features]       extra cond-expand features
 * @property {(key: string, lib: Library) => boolean} [sharedLibrary]
 *   whether a library another session expanded (expandedLibraries) may be imported as it
 *   is, without reading its file again: true when its body already ran in this node
 */

/**
 * Every user library expanded in this JS realm, by key (the last definition wins). An
 * `eval` environment may import one of them without finding its file again, when the
 * runtime says its body has run (ExpandOptions.sharedLibrary, see engine/eval.js).
 * @type {Map<string, Library>}
 */
export const expandedLibraries = new Map();

/** @type {Map<string, Library>} standard libraries are immutable: shared by all sessions */
const standard = new Map();

/** A standard library by key ("(scheme base)"), or null. @param {string} key @returns {Library|null} */
export function standardLibrary(key) {
  let lib = standard.get(key);
  if (lib) return lib;
  const table = STANDARD_LIBRARIES[key];
  if (!table) return null;
  /** @type {Map<string, Binding>} */
  const exports = new Map();
  for (const name of table.syntax) exports.set(name, keywordBinding(name));
  for (const name of table.procedures) exports.set(name, { kind: 'global', g: globalName('rt', name), imported: true });
  lib = { key, ns: 'rt', exports, std: true, requires: [], order: -1 };
  standard.set(key, lib);
  return lib;
}

/**
 * Drop the cached exports of library `key`, after a host library changed them
 * (extension.js); the next import builds them again.
 * @param {string} key
 */
export function forgetStandardLibrary(key) {
  standard.delete(key);
}

export class Session {
  /** @param {ExpandOptions} opts */
  constructor(opts = {}) {
    this.file = opts.file ?? null;
    this.libraryPath = opts.libraryPath ?? [];
    this.readFileFn = opts.readFile ?? (() => null);
    this.sharedLibrary = opts.sharedLibrary ?? (() => false);
    this.features = new Set([...BASE_FEATURES, ...(opts.features ?? [])]);
    /** @type {Map<string, Library>} */
    this.libraries = new Map();
    /** @type {string[]} keys of libraries being expanded (to report import cycles) */
    this.loading = [];
    /** @type {import('../ir/core.js').CoreUnit[]} */
    this.pendingUnits = [];
    this.nextOrder = 0;
  }

  /**
   * The text of a file, or null when it cannot be read.
   * @param {string} path @returns {string|null}
   */
  readFile(path) {
    try {
      const text = this.readFileFn(path);
      return typeof text === 'string' ? text : null;
    } catch {
      return null;
    }
  }

  /** Library units produced since the last call, in dependency order. */
  takeUnits() {
    const u = this.pendingUnits;
    this.pendingUnits = [];
    return u;
  }

  /**
   * The library named by `datum`, loading and expanding it if needed.
   * @param {any} datum @param {string|null} fromFile the importing file @param {Loc|null} loc
   * @returns {Library}
   */
  library(datum, fromFile, loc) {
    const name = libraryName(datum, 'import', loc);
    const wanted = libraryKey(name.parts, name.version);
    const key = name.version === null ? this.loadedVersion(wanted) ?? wanted : wanted;
    const known = this.libraries.get(key) ?? standardLibrary(key);
    if (known) return known;
    const shared = expandedLibraries.get(key);
    if (shared && this.sharedLibrary(key, shared)) {
      this.libraries.set(key, shared);
      return shared;
    }
    if (this.loading.includes(key)) {
      syntaxError('import', `library ${key} imports itself (cycle: ${[...this.loading, key].join(' → ')})`, datum, loc);
    }
    const found = this.locate(datum, fromFile, loc);
    if (found === null) {
      const where = this.searchDirs(fromFile).map((d) => d || '.').join(', ');
      return syntaxError('import', `library ${key} not found (looked for ${libraryFileNames(name.parts, name.version).join(' and ')} in ${where})`, datum, loc);
    }
    const forms = readSource(found.text, found.path, false);
    const matches = (/** @type {string|null} */ k) => k !== null && (name.version === null ? baseKey(k) === wanted : k === wanted);
    const form = forms.find((f) => isDefineLibrary(f) && matches(safeKey(f.cdr.car)));
    if (!form) syntaxError('import', `${found.path} does not define library ${key}`, datum, loc);
    const defined = /** @type {string} */ (safeKey(form.cdr.car));
    return this.libraries.get(defined) ?? this.defineLibrary(form, found.path);
  }

  /**
   * For an import without a version: the key of the library to use when one is known
   * here — (foo bar) itself, else its highest version loaded in this session or on
   * this node — or null.
   * @param {string} base "(foo bar)" @returns {string|null}
   */
  loadedVersion(base) {
    if (this.libraries.has(base)) return base;
    const plain = expandedLibraries.get(base);
    if (plain !== undefined && this.sharedLibrary(base, plain)) return base;
    /** @type {string|null} */
    let best = null;
    const consider = (/** @type {string} */ k, /** @type {Library} */ lib) => {
      const v = keyVersion(k);
      if (v === null || baseKey(k) !== base || (this.libraries.get(k) !== lib && !this.sharedLibrary(k, lib))) return;
      if (best === null || compareVersions(v, /** @type {string} */ (keyVersion(best))) > 0) best = k;
    };
    for (const [k, lib] of this.libraries) consider(k, lib);
    for (const [k, lib] of expandedLibraries) consider(k, lib);
    return best;
  }

  /**
   * Expand a define-library form and register the library.
   * @param {any} form @param {string|null} file the file it was read from
   * @returns {Library}
   */
  defineLibrary(form, file) {
    const lib = expandLibraryForm(form, file, this);
    expandedLibraries.set(lib.key, lib);
    return lib;
  }

  /**
   * Whether `(library datum)` holds in cond-expand.
   * @param {any} datum @param {string|null} fromFile @param {Loc|null} loc
   */
  libraryAvailable(datum, fromFile, loc) {
    const name = libraryName(datum, 'cond-expand', loc);
    const key = libraryKey(name.parts, name.version);
    if (name.version === null && this.loadedVersion(key) !== null) return true;
    const shared = expandedLibraries.get(key);
    return this.libraries.has(key) || standardLibrary(key) !== null || (shared !== undefined && this.sharedLibrary(key, shared)) || this.locate(datum, fromFile, loc) !== null;
  }

  /** @param {string|null} fromFile */
  searchDirs(fromFile) {
    return [...(fromFile !== null || this.file !== null ? [dirname(fromFile ?? this.file)] : ['']), ...this.libraryPath];
  }

  /**
   * @param {any} datum @param {string|null} fromFile @param {Loc|null} loc
   * @returns {{path: string, text: string}|null}
   */
  locate(datum, fromFile, loc) {
    const name = libraryName(datum, 'import', loc);
    const names = libraryFileNames(name.parts, name.version);
    for (const dir of this.searchDirs(fromFile)) {
      for (const name of names) {
        const path = resolvePath(dir, name);
        const text = this.readFile(path);
        if (text !== null) return { path, text };
      }
    }
    return null;
  }
}

/** @param {any} f */
export const isDefineLibrary = (f) =>
  f instanceof Pair && isIdentifier(f.car) && rootSym(f.car) === Sym.intern('define-library') && f.cdr instanceof Pair;

/** @param {any} name @returns {string|null} */
function safeKey(name) {
  try {
    const n = libraryName(name, 'define-library', null);
    return libraryKey(n.parts, n.version);
  } catch {
    return null;
  }
}
