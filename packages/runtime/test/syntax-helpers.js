// @ts-check
/**
 * Helpers for the tests of the (termite) library's syntax (termite-syntax*.test.js):
 * define the library as the runtime does, expand source text, and print Core with local
 * variables renumbered 1, 2, 3 ... in order of appearance, so expected outputs do not
 * depend on how many variables earlier tests created. Printed as @termite/scheme's own
 * expander tests print it (test/fixtures/expand/helpers.js there).
 * (No tests here; node --test loads this file, finds none and passes it.)
 */
import assert from 'node:assert/strict';
import { readAll, writeString } from '@termite/scheme';
import { expander } from '@termite/scheme/internal';
import { defineTermiteLibrary } from '../src/syntax/termite-library.js';

defineTermiteLibrary();

/**
 * Expand a program given as text.
 * @param {string} src @param {{file?: string}} [opts]
 */
export function expand(src, opts = {}) {
  const file = opts.file ?? 'test.scm';
  return expander.expandProgram(readAll(src, { file }), { file, ...opts });
}

/**
 * Give local variables the ids 1, 2, ... in order of first appearance (mutates the
 * tree, which belongs to the test).
 * @param {any} node @returns {any}
 */
function renumber(node) {
  const seen = new Map();
  /** @param {any} v */
  const fix = (v) => {
    if (!seen.has(v)) {
      seen.set(v, seen.size + 1);
      v.id = seen.size;
    }
  };
  /** @param {any} n */
  const walk = (n) => {
    if (!n || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach(walk);
    if (n.t === 'Lambda') {
      n.params.forEach(fix);
      if (n.rest) fix(n.rest);
    }
    if (n.t === 'Let' || n.t === 'Letrec') n.vars.forEach(fix);
    if (n.t === 'LocalRef' || n.t === 'LocalSet') fix(n.v);
    for (const k of ['test', 'then', 'else', 'e', 'fn', 'args', 'es', 'inits', 'clauses', 'body']) if (k in n) walk(n[k]);
  };
  walk(node);
  return node;
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
