// @ts-check
/**
 * One line that says what an uncaught Scheme exception was, for the entry points that
 * report one (runProgramText, the Evaluator, the CLI): a syntax error's message as it
 * is; an error object as "who: message: irritants (at location)"; any other raised
 * value as written, with where it was raised when a backtrace says (the first of its
 * frames that has a source location: for `timeout`, the receive that timed out).
 */
import { ErrorObject } from './values.js';
import { writeString } from './printer.js';

/**
 * A readable one-line description of an uncaught Scheme exception.
 * @param {any} e @param {string[]|null} [backtrace] its backtrace (engine/backtrace.js)
 */
export function describeError(e, backtrace = null) {
  if (e instanceof ErrorObject && e.kind === 'syntax') return e.message;
  if (e instanceof ErrorObject) {
    const irritants = [];
    for (let p = e.irritants; p && p.car !== undefined; p = p.cdr) irritants.push(writeString(p.car));
    const who = e.who ? `${e.who}: ` : '';
    // reader errors already say where, in their message
    const where = e.loc && !e.message.includes(e.loc) ? ` (at ${e.loc})` : '';
    return `${who}${e.message}${irritants.length ? ': ' + irritants.join(' ') : ''}${where}`;
  }
  const located = backtrace?.find((line) => line.includes(' at '));
  const where = located ? ` (raised at ${located.slice(located.lastIndexOf(' at ') + 4).replace(/ \(×.*\)$/, '')})` : '';
  return `uncaught exception: ${writeString(e)}${where}`;
}
