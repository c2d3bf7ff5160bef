// @ts-check
/**
 * Library names, their versions, and the keys that identify libraries.
 *
 * A name `(foo bar 2)` (identifiers and exact non-negative integers) has the key
 * "(foo bar 2)" and its globals live in namespace "lib:(foo bar 2)". A name whose last
 * part carries a version, `(foo bar@1.2)`, has the key "(foo bar)@1.2" and namespace
 * "lib:(foo bar)@1.2": two versions of one library have different namespaces, so they
 * are loaded side by side and code compiled against one keeps calling that one (the
 * Termite module-system paper). The key is the one place a library's identity is
 * spelled. A version is numbers separated by dots (1, 1.2, 1.2.10), compared number by
 * number. A library without a version is local to its program: it cannot travel to
 * another node (code-libraries in the runtime refuses it, saying so).
 *
 * Its file is foo/bar/2.sld (or .scm) under a search directory; for a versioned name,
 * foo/bar@1.2.sld (or .scm) first, then foo/bar.sld (which must define that version).
 */
import { Pair } from '../values.js';
import { isIdentifier, rootSym } from './hygiene.js';
import { syntaxError } from './errors.js';

/** @typedef {import('../ir/core.js').Loc} Loc */

/** @typedef {{parts: (string|number)[], version: string|null}} LibraryName */

const VERSION = /^\d{1,9}(\.\d{1,9}){0,7}$/;

/**
 * The parts of a library name and its version (null when it has none).
 * @param {any} datum @param {string} who @param {Loc|null} loc
 * @returns {LibraryName}
 */
export function libraryName(datum, who, loc) {
  /** @type {(string|number)[]} */
  const parts = [];
  /** @type {string|null} */
  let version = null;
  let t = datum;
  while (t instanceof Pair) {
    const p = t.car;
    if (version !== null) syntaxError(who, 'only the last part of a library name may carry a version (foo bar@1.2)', datum, loc);
    if (isIdentifier(p)) {
      const name = rootSym(p).name;
      const at = name.indexOf('@');
      if (at < 0) parts.push(name);
      else {
        version = name.slice(at + 1);
        if (at === 0 || !VERSION.test(version)) syntaxError(who, `bad library version in ${name}: a version is numbers separated by dots, as in bar@1.2`, datum, loc);
        parts.push(name.slice(0, at));
      }
    } else if (typeof p === 'number' && Number.isInteger(p) && p >= 0) parts.push(p);
    else syntaxError(who, 'a library name is a list of identifiers and exact non-negative integers', datum, loc);
    t = t.cdr;
  }
  if (t !== null || parts.length === 0) syntaxError(who, 'a library name is a non-empty list such as (foo bar)', datum, loc);
  return { parts, version };
}

/**
 * The parts of a library name, refusing a version (where none is meaningful).
 * @param {any} datum @param {string} who @param {Loc|null} loc
 * @returns {(string|number)[]}
 */
export function libraryNameParts(datum, who, loc) {
  return libraryName(datum, who, loc).parts;
}

/**
 * @param {(string|number)[]} parts @param {string|null} [version]
 * @returns {string}
 */
export function libraryKey(parts, version = null) {
  return `(${parts.join(' ')})${version ? `@${version}` : ''}`;
}

/** The key without its version: "(foo bar)@1.2" → "(foo bar)". @param {string} key */
export const baseKey = (key) => {
  const at = key.lastIndexOf(')@');
  return at < 0 ? key : key.slice(0, at + 1);
};

/** The version of a key, or null. @param {string} key */
export const keyVersion = (key) => {
  const at = key.lastIndexOf(')@');
  return at < 0 ? null : key.slice(at + 2);
};

/**
 * Order of two versions, number by number (1.10 after 1.9; 1.2 before 1.2.0).
 * @param {string} a @param {string} b @returns {number}
 */
export function compareVersions(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] === undefined) return -1;
    if (y[i] === undefined) return 1;
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return 0;
}

/** The namespace of a library's globals. @param {string} key */
export const libraryNamespace = (key) => `lib:${key}`;

/**
 * File name stems to look for, in order.
 * @param {(string|number)[]} parts @param {string|null} [version]
 */
export const libraryFileNames = (parts, version = null) => {
  const stem = parts.join('/');
  const plain = [`${stem}.sld`, `${stem}.scm`];
  return version === null ? plain : [`${stem}@${version}.sld`, `${stem}@${version}.scm`, ...plain];
};
