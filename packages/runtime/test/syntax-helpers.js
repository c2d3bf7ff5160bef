// @ts-check
/**
 * Helpers for the tests of the (termite) library's syntax (termite-syntax*.test.js):
 * define the library as the runtime does, expand source text, and print Core with local
 * variables renumbered 1, 2, 3 ... in order of appearance, so expected outputs do not
 * depend on how many variables earlier tests created, with @termite/scheme's own
 * expander tests' `renumber` (test/fixtures/expand/helpers.js there).
 * (No tests here; node --test loads this file, finds none and passes it.)
 */
import assert from 'node:assert/strict';
import { readAll, writeString } from '@termite/scheme';
import { expander } from '@termite/scheme/internal';
import { defineTermiteLibrary } from '../src/syntax/termite-library.js';
// the language's own expander tests renumber variables the same way: one function for both
import { renumber } from '../../scheme/test/fixtures/expand/helpers.js';

defineTermiteLibrary();

/**
 * Expand a program given as text.
 * @param {string} src @param {{file?: string}} [opts]
 */
export function expand(src, opts = {}) {
  const file = opts.file ?? 'test.scm';
  return expander.expandProgram(readAll(src, { file }), { file, ...opts });
}

/** printCore with renumbered variables and constants as `write` prints them. @param {any} node */
export const show = (node) => expander.printCore(renumber(node), writeString);

/**
 * The printed body of the program unit of `src`.
 * @param {string} src @param {{file?: string}} [opts]
 */
export function core(src, opts) {
  const { units } = expand(src, opts);
  return show(units[units.length - 1].body);
}

/**
 * The SchemeSyntaxError that `f` throws (fails the test if it throws something else or nothing).
 * @param {() => any} f @returns {any}
 */
export function syntaxErrorOf(f) {
  try {
    f();
  } catch (e) {
    if (e instanceof expander.SchemeSyntaxError) return e;
    throw e;
  }
  assert.fail('expected a SchemeSyntaxError');
}
