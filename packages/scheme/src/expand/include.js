// @ts-check
/**
 * `include` and `include-ci` (R7RS §4.1.7): the forms of the named files, read
 * relative to the directory of the file containing the include form (the form's
 * location, else the unit's file), through the injected `readFile`. include-ci reads
 * with case folding.
 */
import { readSource } from './source.js';
import { resolvePath, dirname } from './paths.js';
import { listOf } from './util.js';
import { syntaxError } from './errors.js';

/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */

/**
 * @param {any} x the include form @param {Loc|null} loc @param {Unit} u @param {boolean} ci
 * @returns {any[]}
 */
export function includedForms(x, loc, u, ci) {
  const who = ci ? 'include-ci' : 'include';
  const names = listOf(x.cdr, who, x, loc);
  if (names.length === 0 || !names.every((n) => typeof n === 'string')) syntaxError(who, 'expected one or more file names (strings)', x, loc);
  const base = dirname(loc?.file ?? u.file);
  const forms = [];
  for (const name of names) {
    const path = resolvePath(base, name);
    const text = u.session.readFile(path);
    if (text === null) syntaxError(who, `cannot read file ${path}`, x, loc);
    forms.push(...readSource(text, path, ci));
  }
  return forms;
}
