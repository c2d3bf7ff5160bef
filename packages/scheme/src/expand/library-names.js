// @ts-check
/**
 * Library names and the keys that identify libraries.
 *
 * A name `(foo bar 2)` (identifiers and exact non-negative integers) has the key
 * "(foo bar 2)" and its globals live in namespace "lib:(foo bar 2)". The key is the one
 * place a library's identity is spelled: a later issue adds versions as
 * "(foo bar 2)@1.2" (`libraryKey(parts, '1.2')`), so that two versions of a library
 * have different namespaces and can coexist (the Termite module-system paper).
 * Its file is foo/bar/2.sld (or .scm) under a search directory.
 */
import { Pair } from '../values.js';
import { isIdentifier, rootSym } from './hygiene.js';
import { syntaxError } from './errors.js';

/** @typedef {import('../ir/core.js').Loc} Loc */

/**
 * @param {any} datum @param {string} who @param {Loc|null} loc
 * @returns {(string|number)[]}
 */
export function libraryNameParts(datum, who, loc) {
  /** @type {(string|number)[]} */
  const parts = [];
  let t = datum;
  while (t instanceof Pair) {
    const p = t.car;
    if (isIdentifier(p)) parts.push(rootSym(p).name);
    else if (typeof p === 'number' && Number.isInteger(p) && p >= 0) parts.push(p);
    else syntaxError(who, 'a library name is a list of identifiers and exact non-negative integers', datum, loc);
    t = t.cdr;
  }
  if (t !== null || parts.length === 0) syntaxError(who, 'a library name is a non-empty list such as (foo bar)', datum, loc);
  return parts;
}

/**
 * @param {(string|number)[]} parts @param {string|null} [version] reserved for versioned imports
 * @returns {string}
 */
export function libraryKey(parts, version = null) {
  return `(${parts.join(' ')})${version ? `@${version}` : ''}`;
}

/** The namespace of a library's globals. @param {string} key */
export const libraryNamespace = (key) => `lib:${key}`;

/** File name stems to look for, in order. @param {(string|number)[]} parts */
export const libraryFileNames = (parts) => [`${parts.join('/')}.sld`, `${parts.join('/')}.scm`];
