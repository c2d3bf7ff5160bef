// @ts-check
/**
 * One line that says what an uncaught Scheme exception was, for the entry points that
 * report one (runProgramText, the Evaluator, the CLI): a syntax error's message as it
 * is; an error object as "who: message: irritants (at location)"; any other raised
 * value as written, with where it was raised when a backtrace says (the first of its
 * frames that has a source location: for `timeout`, the receive that timed out).
 */
import { ErrorObject, SchemeError } from './values.js';
import { writeString } from './printer.js';

/**
 * A readable one-line description of an uncaught Scheme exception.
 * @param {any} e @param {string[]|null} [backtrace] its backtrace (engine/backtrace.js)
 */
export function describeError(e, backtrace = null) {
  if (e instanceof ErrorObject && e.kind === 'syntax') return e.message;
  if (e instanceof ErrorObject) {
    const irritants = [];
    for (let p = e.irritants; p && p.car !== undefined; p = p.cdr) irritants.push(writeForReport(p.car));
    const who = e.who ? `${e.who}: ` : '';
    // reader errors already say where, in their message
    const where = e.loc && !e.message.includes(e.loc) ? ` (at ${e.loc})` : '';
    return `${who}${e.message}${irritants.length ? ': ' + irritants.join(' ') : ''}${where}`;
  }
  const located = backtrace?.find((line) => line.includes(' at '));
  const where = located ? ` (raised at ${located.slice(located.lastIndexOf(' at ') + 4).replace(/ \(×.*\)$/, '')})` : '';
  return `uncaught exception: ${writeForReport(e)}${where}`;
}

/**
 * A value as `write` gives it, for a report: a value the printer refuses to write in
 * one call (an exact integer of more than 131,072 bits: numbers/syntax.js
 * checkNumeralSize) is named instead, so reporting an error never fails.
 * @param {any} x
 */
export function writeForReport(x) {
  try {
    return writeString(x);
  } catch (e) {
    if (e instanceof SchemeError && e.payload instanceof ErrorObject && e.payload.kind === 'resource-limit') return `#<a value too large to write: ${e.payload.message}>`;
    throw e;
  }
}
