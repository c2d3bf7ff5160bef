// @ts-check
/**
 * One line that says what an uncaught Scheme exception was, for the entry points that
 * report one (runProgramText, the Evaluator, the CLI): a syntax error's message as it
 * is; an error object as "who: message: irritants (at location)"; any other raised
 * value as written.
 */
import { ErrorObject } from './values.js';
import { writeString } from './printer.js';

/**
 * A readable one-line description of an uncaught Scheme exception.
 * @param {any} e
 */
export function describeError(e) {
  if (e instanceof ErrorObject && e.kind === 'syntax') return e.message;
  if (e instanceof ErrorObject) {
    const irritants = [];
    for (let p = e.irritants; p && p.car !== undefined; p = p.cdr) irritants.push(writeString(p.car));
    const who = e.who ? `${e.who}: ` : '';
    // reader errors already say where, in their message
    const where = e.loc && !e.message.includes(e.loc) ? ` (at ${e.loc})` : '';
    return `${who}${e.message}${irritants.length ? ': ' + irritants.join(' ') : ''}${where}`;
  }
  return `uncaught exception: ${writeString(e)}`;
}
