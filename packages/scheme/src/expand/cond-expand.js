// @ts-check
/**
 * `cond-expand` (R7RS §4.2.1, also a library declaration): the forms of the first
 * clause whose feature requirement holds.
 *
 *   requirement ::= feature-identifier | (library <name>) | (and req ...) | (or req ...)
 *                 | (not req)       and a last clause may be (else form ...)
 *
 * Features: stdlib.js's BASE_FEATURES plus opts.features. `(library name)` holds when
 * the library is standard, already known, or its file can be found. No clause holding
 * and no else gives no forms.
 */
import { Pair } from '../values.js';
import { isIdentifier, rootSym } from './hygiene.js';
import { listOf } from './util.js';
import { syntaxError } from './errors.js';

/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */

/**
 * @param {any} x the cond-expand form @param {Loc|null} loc @param {Unit} u
 * @returns {any[]}
 */
export function condExpandForms(x, loc, u) {
  const clauses = listOf(x.cdr, 'cond-expand', x, loc);
  for (let i = 0; i < clauses.length; i++) {
    const c = clauses[i];
    if (!(c instanceof Pair)) syntaxError('cond-expand', 'a clause must be (requirement form ...)', c, loc);
    const forms = listOf(c.cdr, 'cond-expand', x, loc);
    if (isIdentifier(c.car) && rootSym(c.car).name === 'else') {
      if (i !== clauses.length - 1) syntaxError('cond-expand', 'else must be the last clause', x, loc);
      return forms;
    }
    if (holds(c.car, u, loc, x)) return forms;
  }
  return [];
}

/**
 * @param {any} req @param {Unit} u @param {Loc|null} loc @param {any} x
 * @returns {boolean}
 */
function holds(req, u, loc, x) {
  if (isIdentifier(req)) return u.session.features.has(rootSym(req).name);
  const parts = req instanceof Pair ? listOf(req, 'cond-expand', x, loc) : [];
  if (parts.length === 0 || !isIdentifier(parts[0])) syntaxError('cond-expand', 'bad feature requirement', req, loc);
  const args = parts.slice(1);
  switch (rootSym(parts[0]).name) {
    case 'and':
      return args.every((r) => holds(r, u, loc, x));
    case 'or':
      return args.some((r) => holds(r, u, loc, x));
    case 'not':
      if (args.length !== 1) syntaxError('cond-expand', '(not requirement) takes one requirement', req, loc);
      return !holds(args[0], u, loc, x);
    case 'library':
      if (args.length !== 1) syntaxError('cond-expand', '(library name) takes one library name', req, loc);
      return u.session.libraryAvailable(args[0], loc?.file ?? u.file, loc);
    default:
      return syntaxError('cond-expand', 'bad feature requirement', req, loc);
  }
}
