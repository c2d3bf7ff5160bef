// @ts-check
/**
 * The two ways expansion fails, kept apart on purpose: a user's mistake is reported to
 * the user as a Scheme condition, while a broken invariant is a bug in this code and
 * must not be caught or reported as if the program were at fault.
 *
 *  - `SchemeSyntaxError`: the user's program is wrong. It is a `SchemeError` whose payload
 *    is an R7RS error object of kind 'syntax', so the REPL, `eval` and the driver report
 *    it like any other Scheme condition. Its message starts with "file:line:col: " and
 *    names the form ("let: ...").
 *  - `ExpanderBug`: the expander itself is broken (an invariant does not hold). It is a
 *    plain JS Error with a different class so nobody mistakes it for a user mistake.
 */
import { SchemeError, ErrorObject, arrayToList } from '../values.js';
import { showDatum } from './show.js';

/** @typedef {import('../ir/core.js').Loc} Loc */

/** @param {Loc|null|undefined} loc @returns {string|null} */
export function formatLoc(loc) {
  if (!loc) return null;
  return `${loc.file ?? '<unknown>'}:${loc.line}:${loc.col}`;
}

/** A mistake in the program being expanded, located at file:line:col. */
export class SchemeSyntaxError extends SchemeError {
  /**
   * @param {string} message what is wrong, starting with the form's name ("let: ...")
   * @param {Loc|null} loc   where (the nearest source form)
   * @param {string|null} [who] the form's name
   * @param {any[]} [irritants] offending data (Scheme values)
   */
  constructor(message, loc, who = null, irritants = []) {
    const where = formatLoc(loc);
    const full = where ? `${where}: ${message}` : message;
    const payload = new ErrorObject(full, arrayToList(irritants), 'syntax', who);
    payload.loc = where;
    super(payload);
    this.name = 'SchemeSyntaxError';
    /** @type {Loc|null} */
    this.loc = loc;
  }
}

/** A broken invariant inside the expander: a bug to report, not a user mistake. */
export class ExpanderBug extends Error {
  /** @param {string} message */
  constructor(message) {
    super(`expander bug: ${message}`);
    this.name = 'ExpanderBug';
  }
}

/**
 * Throw a syntax error about `form`: "who: what: <form as written>".
 * @param {string} who the form's name (or "" when there is none)
 * @param {string} what
 * @param {any} form   the offending datum (shown, abbreviated, in the message)
 * @param {Loc|null} loc
 * @returns {never}
 */
export function syntaxError(who, what, form, loc) {
  const shown = form === undefined ? '' : ` in ${showDatum(form)}`;
  throw new SchemeSyntaxError(`${who ? who + ': ' : ''}${what}${shown}`, loc, who || null, form === undefined ? [] : [form]);
}
